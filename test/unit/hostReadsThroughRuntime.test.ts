/**
 * What the host's checkpoint documents (src/host/checkpointContent.ts) and Search Chats…
 * (src/host/searchChats.ts) read, they read through the runtime, not around it: a turn's changed
 * files and a content hash's bytes (`ChatRuntime.files`), and the full-text search
 * (`ChatRuntime.searchChats`), on a real journal and a real file the local agent wrote.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { openLocal } from './harness';

describe('the host reads checkpoints and search through the runtime', () => {
  it('a turn\'s files and their before and after bytes; the search finds the turn, refuses an empty query', async () => {
    const h = await openLocal();
    try {
      fs.writeFileSync(path.join(h.workspace, 'notes.txt'), 'before\n');
      const s = await h.runtime.createSession('local');
      assert.ok(s.ok);
      const sent = await h.runtime.send(s.value.id, 'write notes.txt\n```\nafter quokka\n```');
      assert.ok(sent.ok);
      await h.runtime.whenIdle(s.value.id);

      const files = await h.runtime.files.filesOfTurn(s.value.id, sent.value.turnId);
      assert.deepEqual(files.map((f) => [f.path, f.kind]), [['notes.txt', 'modified']]);
      const [file] = files;
      assert.equal(Buffer.from((await h.runtime.files.content(file!.before!.hash!))!).toString(), 'before\n');
      assert.equal(Buffer.from((await h.runtime.files.content(file!.after!.hash!))!).toString(), 'after quokka\n');
      assert.equal(await h.runtime.files.content('0'.repeat(64)), null);
      assert.deepEqual(await h.runtime.files.filesOfTurn(s.value.id, 'no-such-turn'), []);

      const found = await h.runtime.searchChats('quokka', { limit: 30 });
      assert.ok(found.ok);
      assert.deepEqual(found.value.map((r) => [r.sessionId, r.turnId]), [[s.value.id, sent.value.turnId]]);
      const empty = await h.runtime.searchChats('  ');
      assert.equal(!empty.ok && empty.reason, 'empty_query');
    } finally {
      await h.close();
    }
  });
});
