/**
 * A Retry or Continue starts a turn only when no run of the chat is running in any window: the
 * journal checks it inside the transaction (`startTurn`), because the window that pressed Retry knows
 * only its own runs, and two runs of one chat at once would interleave their replies.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { openJournal, tempDir } from './helpers';

const turn = (id: string, at: number, parentTurnId: string | null = null) => ({
  id, sessionId: 's', prompt: 'p', origin: parentTurnId ? ('retry' as const) : ('prompt' as const), parentTurnId, createdAt: at,
});

describe('Retry and Continue beside another window\'s run', () => {
  it('are refused as busy while a run of the chat is running anywhere, and allowed once it ended', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const windowA = await openJournal(file);
    const windowB = await openJournal(file);
    try {
      assert.ok((await windowA.write('createSession', { id: 's', title: 's', provider: 'local', createdAt: 1, updatedAt: 1 })).ok);
      assert.ok((await windowA.write('startTurn', { turn: turn('t1', 2), run: { id: 'r1', instanceId: 'A', provider: 'local' } })).ok);
      assert.ok((await windowA.write('finishRun', { runId: 'r1', status: 'failed', turnStatus: 'failed', errorClass: 'agent_error', at: 3 })).ok);
      // Window A retries; window B, which has not driven anything, retries the same turn meanwhile.
      assert.ok((await windowA.write('startTurn', { turn: turn('t2', 4, 't1'), run: { id: 'r2', instanceId: 'A', provider: 'local' } })).ok);
      const refused = await windowB.write('startTurn', { turn: turn('t3', 5, 't1'), run: { id: 'r3', instanceId: 'B', provider: 'local' } });
      assert.equal(refused.ok, false);
      assert.equal(!refused.ok && refused.reason, 'busy');
      assert.equal(await windowB.read('getTurn', 't3'), undefined, 'nothing of the refused turn was written');
      // A run whose end the writing window knows of (not yet recorded: a full disk) does not count.
      // (Each Retry takes the newest failed turn: a turn is followed up once.)
      assert.ok((await windowA.write('startTurn', { turn: turn('t4', 6, 't2'), run: { id: 'r4', instanceId: 'A', provider: 'local' }, endedRunIds: ['r2'] })).ok);
      await windowA.write('finishRun', { runId: 'r2', status: 'failed', turnStatus: 'failed', errorClass: 'agent_error', at: 7 });
      await windowA.write('finishRun', { runId: 'r4', status: 'failed', turnStatus: 'failed', errorClass: 'agent_error', at: 8 });
      assert.ok((await windowB.write('startTurn', { turn: turn('t5', 9, 't4'), run: { id: 'r5', instanceId: 'B', provider: 'local' } })).ok, 'allowed once no run runs');
    } finally {
      await windowA.close();
      await windowB.close();
    }
  });

  it('a Retry of a turn another window already retried is refused, even after that retry ended', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const windowA = await openJournal(file);
    const windowB = await openJournal(file);
    try {
      assert.ok((await windowA.write('createSession', { id: 's', title: 's', provider: 'local', createdAt: 1, updatedAt: 1 })).ok);
      assert.ok((await windowA.write('startTurn', { turn: turn('t1', 2), run: { id: 'r1', instanceId: 'A', provider: 'local' } })).ok);
      assert.ok((await windowA.write('finishRun', { runId: 'r1', status: 'failed', turnStatus: 'failed', errorClass: 'agent_error', at: 3 })).ok);
      // Window B read t1 as not followed up; then A's Retry of it started and failed at once.
      assert.equal(await windowB.read('isFollowedUp', 't1'), false);
      assert.ok((await windowA.write('startTurn', { turn: turn('t2', 4, 't1'), run: { id: 'r2', instanceId: 'A', provider: 'local' } })).ok);
      assert.ok((await windowA.write('finishRun', { runId: 'r2', status: 'failed', turnStatus: 'failed', errorClass: 'agent_error', at: 5 })).ok);
      const second = await windowB.write('startTurn', { turn: turn('t3', 6, 't1'), run: { id: 'r3', instanceId: 'B', provider: 'local' } });
      assert.equal(second.ok, false, 'the prompt would go to the agent a second time');
      assert.equal(!second.ok && second.reason, 'not_retryable');
    } finally {
      await windowA.close();
      await windowB.close();
    }
  });
});
