/**
 * The undo an edit and resend asks for first (`src/runtime/resendUndo.ts`), through the runtime and a
 * journal on disk: the replaced turn's files are undone before it goes; a request sent meanwhile
 * (another window) while the user chose what to do with a conflicting file leaves them as they are.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { conflictKey, type ConflictChoice } from '../../src/core/checkpoints';
import type { Agent } from '../../src/runtime/agent';
import { undoBeforeResend } from '../../src/runtime/resendUndo';
import { openRuntime } from './harness';

/** An agent that writes `a.txt` when asked to `write`, and else only answers. */
const writer: Agent = {
  provider: 'local',
  label: 'writer',
  async runTurn(request, ctx) {
    if (request.prompt === 'write') await ctx.tools.run({ name: 'write', input: { path: 'a.txt', content: 'agent\n' } });
    ctx.text('done');
    return { status: 'completed' };
  },
};

async function chatWithWrite() {
  const h = await openRuntime({ agentFor: () => writer });
  const chat = await h.runtime.createSession('local');
  assert.ok(chat.ok);
  const sessionId = chat.value.id;
  const sent = await h.runtime.submit(sessionId, { clientId: 'c1', text: 'write' });
  assert.ok(sent.ok && sent.value.kind === 'started');
  await h.runtime.whenIdle(sessionId);
  const file = path.join(h.workspace, 'a.txt');
  assert.equal(fs.readFileSync(file, 'utf8'), 'agent\n');
  return { h, sessionId, turnId: sent.value.turnId, file };
}

describe('undo before an edit and resend', () => {
  it('undoes the replaced turn\'s files, then the edit goes', async () => {
    const { h, sessionId, turnId, file } = await chatWithWrite();
    try {
      const decided = await undoBeforeResend(h.runtime, sessionId, turnId, async () => undefined);
      assert.ok(decided.go && decided.outcome?.kind === 'applied');
      assert.equal(fs.existsSync(file), false);
    } finally {
      await h.close();
    }
  });

  it('a request sent while the user chose about a conflicting file leaves the files as they are', async () => {
    const { h, sessionId, turnId, file } = await chatWithWrite();
    try {
      fs.writeFileSync(file, 'mine since\n');
      const decided = await undoBeforeResend(h.runtime, sessionId, turnId, async (conflicts) => {
        // Another window sends first, while the conflict is asked here.
        const other = await h.runtime.submit(sessionId, { clientId: 'c2', text: 'something else' });
        assert.ok(other.ok && other.value.kind === 'started');
        await h.runtime.whenIdle(sessionId);
        return new Map<string, ConflictChoice>(conflicts.map((c) => [conflictKey(c.group, c.path), 'restore']));
      });
      assert.deepEqual(decided, { go: true }, 'the send goes on, to be refused for its own reason');
      assert.equal(fs.readFileSync(file, 'utf8'), 'mine since\n', 'nothing undone (before: the file was removed for a resend that was then refused)');
      assert.deepEqual(await h.journal.read('listUndos', sessionId), []);
      const resent = await h.runtime.submit(sessionId, { clientId: 'c3', text: 'write, edited', replacesTurnId: turnId });
      assert.ok(!resent.ok);
    } finally {
      await h.close();
    }
  });

  it('a cancelled undo refuses the send', async () => {
    const { h, sessionId, turnId, file } = await chatWithWrite();
    try {
      fs.writeFileSync(file, 'mine since\n');
      const decided = await undoBeforeResend(h.runtime, sessionId, turnId, async () => undefined);
      assert.equal(decided.go, false);
      assert.equal(fs.readFileSync(file, 'utf8'), 'mine since\n');
    } finally {
      await h.close();
    }
  });
});
