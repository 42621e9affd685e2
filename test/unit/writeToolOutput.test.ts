/**
 * What the product's `write` tool (src/runtime/toolRuntime.ts) says it wrote, in plain Node against a
 * real journal, through the local agent: a workspace file by its path relative to the workspace
 * folder, as VS Code names it; a file outside the workspace (written after the user allowed it) by
 * its absolute path.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { LocalAgent } from '../../src/runtime/agents/localAgent';
import { chatMarkdown } from '../../src/runtime/chatExport';
import { openRuntime, pendingRequest } from './harness';
import { trackedTempDir } from './helpers';

describe('the write tool\'s output', () => {
  it('names a workspace file relative to the workspace folder, and a file outside it absolutely', async () => {
    // A fresh user read "Wrote 6 bytes to /tmp/…/notes/a.txt" after typing `write notes/a.txt`.
    const agent = new LocalAgent();
    const h = await openRuntime({ agentFor: (p: string) => (p === 'local' ? agent : undefined) });
    try {
      const s = await h.runtime.createSession('local');
      assert.ok(s.ok);
      const sent = await h.runtime.send(s.value.id, 'write notes/a.txt\n```\nhello\n```');
      assert.ok(sent.ok);
      await h.runtime.whenIdle(s.value.id);
      assert.equal(fs.readFileSync(path.join(h.workspace, 'notes', 'a.txt'), 'utf8'), 'hello\n');
      const outside = path.join(trackedTempDir('nac-write-outside-'), 'b.txt');
      const second = await h.runtime.send(s.value.id, `write ${outside}\n\`\`\`\nhi\n\`\`\``);
      assert.ok(second.ok);
      await h.runtime.decide(s.value.id, await pendingRequest(h, s.value.id), 'allow_once');
      await h.runtime.whenIdle(s.value.id);
      assert.equal(fs.readFileSync(outside, 'utf8'), 'hi\n');
      const md = (await chatMarkdown(h.runtime, (await h.runtime.getSession(s.value.id))!)).markdown;
      const wrote = [...md.matchAll(/^Wrote .*$/gm)].map((m) => m[0]);
      assert.deepEqual(wrote, ['Wrote 6 bytes to notes/a.txt', `Wrote 3 bytes to ${outside}`]);
    } finally {
      await h.close();
    }
  });
});
