/**
 * Checkpoints of Codex's file changes, with the real `codex app-server` against the loopback
 * Responses mock (test/mocks/responsesMock.ts): an `apply_patch` that updates one file and adds
 * another; the before images journaled on Allow once, the after images on the item's completion;
 * Undo puts the updated file back and removes the added one.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { CodexAgent } from '../../src/runtime/agents/codex/codexAgent';
import { ResponsesMock } from '../mocks/responsesMock';
import { CODEX } from './codexBinary';
import { openRuntime, pendingRequest } from './harness';
import { isolateTempDir, tempDir } from './helpers';

// The agent CLIs leave their own files in the temp directory: in this file's own, removed at exit.
isolateTempDir();

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

describe('checkpoints of Codex\'s file changes', { skip: CODEX ? false : 'the codex binary is not installed here' }, () => {
  it('update and add: before on Allow once, after on completion; Undo restores and removes', async () => {
    const mock = await ResponsesMock.start();
    cleanups.push(() => mock.close());
    const agent = new CodexAgent(() => ({
      executablePath: CODEX, codexHome: tempDir('nac-codex-home-'), baseUrl: mock.baseUrl, model: 'mock-model', apiKey: async () => 'test-key', interruptTimeoutMs: 3000,
    }));
    const h = await openRuntime({ agentFor: (p) => (p === 'codex' ? agent : undefined) });
    cleanups.push(() => h.close());
    fs.writeFileSync(path.join(h.workspace, 'greet.txt'), 'hello\nworld\n');
    mock.script(
      { type: 'patch', patch: '*** Update File: greet.txt\n@@\n hello\n-world\n+codex\n*** Add File: added.txt\n+new file' },
      { type: 'text', text: 'Edited.' },
    );
    const s = await h.runtime.createSession('codex');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'edit greet.txt');
    await h.runtime.decide(s.value.id, await pendingRequest(h, s.value.id), 'allow_once');
    await h.runtime.whenIdle(s.value.id);
    assert.equal(fs.readFileSync(path.join(h.workspace, 'greet.txt'), 'utf8'), 'hello\ncodex\n');
    assert.equal(fs.existsSync(path.join(h.workspace, 'added.txt')), true);
    const [cp] = await h.runtime.files.checkpoints(s.value.id);
    assert.deepEqual(cp!.files.map((f) => [f.path, f.kind, f.added, f.removed, f.pending]).sort(), [['added.txt', 'created', 1, 0, false], ['greet.txt', 'modified', 1, 1, false]]);
    const undone = await h.runtime.files.undo(s.value.id, cp!.turnId, 'turn');
    assert.ok(undone.ok && undone.value.kind === 'applied');
    assert.equal(fs.readFileSync(path.join(h.workspace, 'greet.txt'), 'utf8'), 'hello\nworld\n');
    assert.equal(fs.existsSync(path.join(h.workspace, 'added.txt')), false);
  });
});
