/**
 * Every decoder checks every vocabulary column (src/journal/operations/rows.ts): a run, tool call or
 * approval request row whose status, error class, agent, kind, decision or closure reason is not in
 * its tuple is skipped by the reads and fences its chat, as a turn's does, while every other chat
 * keeps working. The damaged value is written straight into a real sql.js journal file.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import type { Journal } from '../../src/journal/journal';
import { editJournalFile, openJournal, tempDir } from './helpers';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * A journal with chats `bad` and `good`, each with a running prompt (`<id>-t`, run `<id>-r`), a tool
 * call waiting for approval (`<id>-i`) and its pending request (`<id>-q`); then `damage` is run on
 * the closed file. Returns the journal opened again (the caller closes it).
 */
async function journalWithDamage(damage: string): Promise<Journal> {
  const dir = tempDir();
  dirs.push(dir);
  const file = path.join(dir, 'journal.sqlite');
  const j = await openJournal(file);
  for (const id of ['bad', 'good']) {
    assert.ok((await j.write('createSession', { id, title: id, provider: 'local', createdAt: 1, updatedAt: 1 })).ok);
    assert.ok((await j.write('startTurn', { turn: { id: `${id}-t`, sessionId: id, prompt: 'p', origin: 'prompt', parentTurnId: null, createdAt: 2 }, run: { id: `${id}-r`, instanceId: 'i', provider: 'local' } })).ok);
    assert.ok((await j.write('startInvocation', { id: `${id}-i`, runId: `${id}-r`, tool: 'run', input: '{}', summary: 'rm x', at: 3 })).ok);
    assert.ok((await j.write('createBoundaryRequest', { id: `${id}-q`, runId: `${id}-r`, invocationId: `${id}-i`, kind: 'command', subject: 'rm x', why: 'w', detail: null, scopeKey: 'command:rm', at: 4 })).ok);
  }
  await j.close();
  await editJournalFile(file, (db) => db.run(damage));
  return openJournal(file);
}

/** Asserts chat `bad` is fenced by `table` row `rowKey` (damaged or a newer build's) and `good` is not, and takes writes. */
async function assertFenced(k: Journal, table: string, rowKey: string, damaged: boolean, words: RegExp): Promise<void> {
  assert.deepEqual(await k.read('getFenceDetail', 'bad'), { message: (await k.read('getFence', 'bad'))!, table, rowKey, damaged });
  const fence = (await k.read('getFence', 'bad'))!;
  assert.match(fence, words);
  assert.match(fence, damaged ? /could not be read \(it is damaged\)/ : /newer version of Agent Chats/);
  const refused = await k.write('appendEvents', 'bad-r', [{ kind: 'text', payload: { text: 'x' } }], 5);
  assert.equal(!refused.ok && refused.reason, 'row_unreadable');
  assert.equal(await k.read('getFence', 'good'), null);
  assert.equal((await k.read('getRun', 'good-r'))?.status, 'running');
  assert.equal((await k.read('getInvocation', 'good-i'))?.status, 'awaiting_approval');
  assert.deepEqual((await k.read('listSessionPendingBoundaryRequests', 'good')).map((q) => q.id), ['good-q']);
  assert.ok((await k.write('appendEvents', 'good-r', [{ kind: 'text', payload: { text: 'x' } }], 5)).ok);
}

describe('row decoders: every vocabulary column is checked', () => {
  it('skips a run whose status is damaged, fences its chat and refuses to end it, other chats unaffected', async () => {
    const k = await journalWithDamage("UPDATE runs SET status = 42 WHERE id = 'bad-r'");
    try {
      assert.equal(await k.read('getRun', 'bad-r'), undefined);
      assert.deepEqual((await k.read('listRunsInFlight')).map((r) => r.id), ['good-r']);
      await assertFenced(k, 'runs', 'bad-r', true, /holds a reply that could not be read/);
      const end = await k.write('finishRun', { runId: 'bad-r', status: 'completed', turnStatus: 'completed', at: 6 });
      assert.equal(!end.ok && end.reason, 'row_unreadable', 'a damaged run is refused, not called missing');
    } finally {
      await k.close();
    }
  });

  it('skips a run whose agent this build does not know (a newer build\'s name), fences its chat and says to update', async () => {
    const k = await journalWithDamage("UPDATE runs SET provider = 'gemini' WHERE id = 'bad-r'");
    try {
      assert.equal(await k.read('getRun', 'bad-r'), undefined);
      await assertFenced(k, 'runs', 'bad-r', false, /holds a reply written by a newer version/);
    } finally {
      await k.close();
    }
  });

  it('skips a tool call whose status is damaged and fences its chat, other chats unaffected', async () => {
    const k = await journalWithDamage("UPDATE invocations SET status = 'Awaiting Approval' WHERE id = 'bad-i'");
    try {
      assert.equal(await k.read('getInvocation', 'bad-i'), undefined);
      await assertFenced(k, 'invocations', 'bad-i', true, /holds a tool call that could not be read/);
      const end = await k.write('finishInvocation', { id: 'bad-i', status: 'completed', at: 6 });
      assert.equal(!end.ok && end.reason, 'row_unreadable');
    } finally {
      await k.close();
    }
  });

  it('skips an approval request whose decision is damaged (bytes) and fences its chat, other chats unaffected', async () => {
    const k = await journalWithDamage("UPDATE boundary_requests SET decision = X'00' WHERE id = 'bad-q'");
    try {
      assert.equal(await k.read('getBoundaryRequest', 'bad-q'), undefined);
      assert.deepEqual(await k.read('listSessionPendingBoundaryRequests', 'bad'), []);
      await assertFenced(k, 'boundary_requests', 'bad-q', true, /holds an approval request that could not be read/);
      const settle = await k.write('settleBoundaryRequest', { id: 'bad-q', status: 'denied', decision: 'deny', closureReason: 'user_decision', at: 6 });
      assert.equal(!settle.ok && settle.reason, 'row_unreadable');
    } finally {
      await k.close();
    }
  });
});
