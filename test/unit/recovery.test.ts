/**
 * Restart recovery against real sql.js journals on disk, each phase in its own store lifetime
 * (seed → recover → assert), so the durable state really crosses a "process" boundary.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Journal } from '../../src/journal/journal';
import { recoverOrphanedRuns } from '../../src/runtime/recovery';
import { editJournalFile, fakeInstance, lifetime, steppingClock, tempDir } from './helpers';

const DEAD = fakeInstance('dead-host');
const LIVE = fakeInstance('live-host');
const SELF = fakeInstance('self');
const clock = steppingClock();

/** A turn and its run, as a host journals them; its prompt acknowledged by the agent unless `delivered` is false. */
/** `endedRunIds`: runs of the chat to start beside (two runs of one chat in flight, as a build before the journal's busy check could leave). */
async function seedRun(j: Journal, ids: { session: string; turn: string; run: string; owner?: string; delivered?: boolean; endedRunIds?: string[] }): Promise<void> {
  if (!(await j.read('getSession', ids.session))) {
    assert.ok((await j.write('createSession', { id: ids.session, title: ids.session, provider: 'local', createdAt: clock(), updatedAt: clock() })).ok);
  }
  const r = await j.write('startTurn', {
    turn: { id: ids.turn, sessionId: ids.session, prompt: `prompt of ${ids.turn}`, origin: 'prompt', parentTurnId: null, createdAt: clock() },
    run: { id: ids.run, instanceId: ids.owner ?? DEAD.id, provider: 'local' },
    endedRunIds: ids.endedRunIds,
  });
  assert.ok(r.ok, JSON.stringify(r));
  if (ids.delivered !== false) assert.deepEqual(await j.write('markDelivered', ids.turn), { ok: true, value: { marked: true } });
}

async function seedInvocationWithRequest(j: Journal, run: string, inv: string, req: string, subject = 'rm -rf build'): Promise<void> {
  assert.ok((await j.write('startInvocation', { id: inv, runId: run, tool: 'run', input: '{}', summary: subject, at: clock() })).ok);
  assert.ok((await j.write('createBoundaryRequest', {
    id: req, runId: run, invocationId: inv, kind: 'command', subject, why: 'not allowlisted', detail: null, scopeKey: 'command:rm', at: clock(),
  })).ok);
}

const recover = (j: Journal, isAlive = (i: { id: string }) => i.id === LIVE.id) =>
  recoverOrphanedRuns(j, { selfInstanceId: SELF.id, isAlive, now: clock });

async function seedInstances(j: Journal): Promise<void> {
  for (const i of [DEAD, LIVE, SELF]) assert.ok((await j.write('registerInstance', i)).ok);
}

describe('recovery after a host restart', () => {
  it('settles a pending boundary request fail-closed and attributes the turn and invocation to the restart', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    await lifetime(file, async (j) => {
      await seedInstances(j);
      await seedRun(j, { session: 's', turn: 't', run: 'r' });
      await seedInvocationWithRequest(j, 'r', 'inv', 'req');
    });
    const recovered = await lifetime(file, (j) => recover(j));
    assert.equal(recovered.length, 1);
    assert.deepEqual(recovered[0]!.closedRequestIds, ['req']);
    await lifetime(file, async (j) => {
      const req = (await j.read('getBoundaryRequest', 'req'))!;
      assert.equal(req.status, 'denied');
      assert.equal(req.decision, 'deny');
      assert.equal(req.closureReason, 'host_restarted');
      const turn = (await j.read('getTurn', 't'))!;
      assert.equal(turn.status, 'failed');
      assert.equal(turn.errorClass, 'sandbox_boundary_closed_by_restart');
      assert.equal((await j.read('getRun', 'r'))!.status, 'interrupted');
      const inv = (await j.read('getInvocation', 'inv'))!;
      assert.equal(inv.status, 'failed');
      assert.equal(inv.failureClass, 'sandbox_boundary_closed_by_restart');
      const events = await j.read('listEvents', 's');
      const terminal = events.filter((e) => e.kind === 'invocation_finished');
      assert.equal(terminal.length, 1);
      assert.equal(terminal[0]!.kind === 'invocation_finished' && terminal[0]!.payload.failureClass, 'sandbox_boundary_closed_by_restart');
      const finished = events.filter((e) => e.kind === 'run_finished');
      assert.equal(finished.length, 1);
      assert.equal(finished[0]!.kind === 'run_finished' && finished[0]!.payload.errorClass, 'sandbox_boundary_closed_by_restart');
    });
  });

  it('a plain interrupted turn (nothing waiting) is app_restarted', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    await lifetime(file, async (j) => {
      await seedInstances(j);
      await seedRun(j, { session: 's', turn: 't', run: 'r' });
      assert.ok((await j.write('startInvocation', { id: 'inv', runId: 'r', tool: 'run', input: '{}', summary: 'sleep 100', at: clock() })).ok);
    });
    await lifetime(file, (j) => recover(j));
    await lifetime(file, async (j) => {
      assert.equal((await j.read('getTurn', 't'))!.errorClass, 'app_restarted');
      assert.equal((await j.read('getInvocation', 'inv'))!.failureClass, 'app_restarted');
    });
  });

  it('a request answered before the restart keeps the generic class and its decision', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    await lifetime(file, async (j) => {
      await seedInstances(j);
      await seedRun(j, { session: 's', turn: 't', run: 'r' });
      await seedInvocationWithRequest(j, 'r', 'inv', 'req');
      assert.ok((await j.write('settleBoundaryRequest', { id: 'req', status: 'approved', decision: 'allow_once', closureReason: 'user_decision', at: clock() })).ok);
    });
    await lifetime(file, (j) => recover(j));
    await lifetime(file, async (j) => {
      assert.equal((await j.read('getTurn', 't'))!.errorClass, 'app_restarted');
      const req = (await j.read('getBoundaryRequest', 'req'))!;
      assert.equal(req.status, 'approved');
      assert.equal(req.closureReason, 'user_decision');
    });
  });

  it('a deny without a restart reason never reads as a restart', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    await lifetime(file, async (j) => {
      await seedInstances(j);
      await seedRun(j, { session: 's', turn: 't', run: 'r' });
      await seedInvocationWithRequest(j, 'r', 'inv', 'req');
      assert.ok((await j.write('settleBoundaryRequest', { id: 'req', status: 'denied', decision: 'deny', closureReason: 'user_decision', at: clock() })).ok);
    });
    await lifetime(file, (j) => recover(j));
    await lifetime(file, async (j) => assert.equal((await j.read('getTurn', 't'))!.errorClass, 'app_restarted'));
  });

  it('never lends a closure to another run or turn', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    await lifetime(file, async (j) => {
      await seedInstances(j);
      // Run r1 of turn t1 had its request closed by an earlier restart; its run is already terminal.
      await seedRun(j, { session: 's', turn: 't1', run: 'r1' });
      await seedInvocationWithRequest(j, 'r1', 'inv1', 'req1');
    });
    await lifetime(file, (j) => recover(j));
    await lifetime(file, async (j) => {
      // A later turn of the same session, and a turn in another session, are interrupted with nothing waiting.
      await seedRun(j, { session: 's', turn: 't2', run: 'r2' });
      await seedRun(j, { session: 'other', turn: 't3', run: 'r3' });
    });
    await lifetime(file, (j) => recover(j));
    await lifetime(file, async (j) => {
      assert.equal((await j.read('getTurn', 't1'))!.errorClass, 'sandbox_boundary_closed_by_restart');
      assert.equal((await j.read('getTurn', 't2'))!.errorClass, 'app_restarted');
      assert.equal((await j.read('getTurn', 't3'))!.errorClass, 'app_restarted');
    });
  });

  it('matches a row without a run id by its turn id', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    await lifetime(file, async (j) => {
      await seedInstances(j);
      await seedRun(j, { session: 's', turn: 't', run: 'r' });
      await seedRun(j, { session: 's', turn: 'u', run: 'ru', endedRunIds: ['r'] });
      await seedInvocationWithRequest(j, 'r', 'inv', 'req');
      await j.write('settleBoundaryRequest', { id: 'req', status: 'denied', decision: 'deny', closureReason: 'host_restarted', at: clock() });
    });
    // A row written without run identity (by an older writer).
    await editJournalFile(file, (db) => db.run("UPDATE boundary_requests SET run_id = NULL WHERE id = 'req'"));
    await lifetime(file, (j) => recover(j));
    await lifetime(file, async (j) => {
      assert.equal((await j.read('getTurn', 't'))!.errorClass, 'sandbox_boundary_closed_by_restart');
      assert.equal((await j.read('getTurn', 'u'))!.errorClass, 'app_restarted');
    });
  });

  it('is idempotent: a second pass adds no second terminal state', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    await lifetime(file, async (j) => {
      await seedInstances(j);
      await seedRun(j, { session: 's', turn: 't', run: 'r' });
      await seedInvocationWithRequest(j, 'r', 'inv', 'req');
    });
    await lifetime(file, (j) => recover(j));
    const eventsAfterFirst = await lifetime(file, (j) => j.read('listEvents', 's'));
    const second = await lifetime(file, (j) => recover(j));
    assert.deepEqual(second, []);
    const eventsAfterSecond = await lifetime(file, (j) => j.read('listEvents', 's'));
    assert.deepEqual(eventsAfterSecond, eventsAfterFirst);
  });

  it('a recovery that died after settling still attributes on the next pass, and a third pass is a no-op', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    await lifetime(file, async (j) => {
      await seedInstances(j);
      await seedRun(j, { session: 's', turn: 't', run: 'r' });
      await seedInvocationWithRequest(j, 'r', 'inv', 'req');
    });
    // First recovery dies right after step 1 (the settlement committed, nothing else).
    await lifetime(file, async (j) => {
      assert.ok((await j.write('settleBoundaryRequest', { id: 'req', status: 'denied', decision: 'deny', closureReason: 'host_restarted', at: clock() })).ok);
    });
    const second = await lifetime(file, (j) => recover(j));
    assert.equal(second.length, 1);
    assert.deepEqual(second[0]!.closedRequestIds, []);
    assert.equal(second[0]!.errorClass, 'sandbox_boundary_closed_by_restart');
    const third = await lifetime(file, (j) => recover(j));
    assert.deepEqual(third, []);
    await lifetime(file, async (j) => {
      assert.equal((await j.read('getTurn', 't'))!.errorClass, 'sandbox_boundary_closed_by_restart');
      assert.equal((await j.read('getInvocation', 'inv'))!.failureClass, 'sandbox_boundary_closed_by_restart');
      const finished = (await j.read('listEvents', 's')).filter((e) => e.kind === 'run_finished');
      assert.equal(finished.length, 1);
    });
  });

  it('a closure whose ledger event never got written still attributes (the row is the fact)', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    await lifetime(file, async (j) => {
      await seedInstances(j);
      await seedRun(j, { session: 's', turn: 't', run: 'r' });
      await seedInvocationWithRequest(j, 'r', 'inv', 'req');
    });
    // The request row exists but its boundary events are gone (a crash between row and event).
    await editJournalFile(file, (db) => db.run("DELETE FROM events WHERE kind LIKE 'boundary_%'"));
    await lifetime(file, (j) => recover(j));
    await lifetime(file, async (j) => assert.equal((await j.read('getTurn', 't'))!.errorClass, 'sandbox_boundary_closed_by_restart'));
  });

  it('never recovers a run whose owner is alive, nor its own runs; recovers once the owner is dead', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    await lifetime(file, async (j) => {
      await seedInstances(j);
      await seedRun(j, { session: 's1', turn: 't1', run: 'r1', owner: LIVE.id });
      await seedInvocationWithRequest(j, 'r1', 'inv1', 'req1');
      await seedRun(j, { session: 's2', turn: 't2', run: 'r2', owner: SELF.id });
    });
    assert.deepEqual(await lifetime(file, (j) => recover(j)), []);
    await lifetime(file, async (j) => {
      assert.equal((await j.read('getBoundaryRequest', 'req1'))!.status, 'pending');
      assert.equal((await j.read('getTurn', 't1'))!.status, 'running');
    });
    // The live window dies later: the next check recovers its run.
    const later = await lifetime(file, (j) => recover(j, () => false));
    assert.deepEqual(later.map((r) => r.runId), ['r1']);
    await lifetime(file, async (j) => assert.equal((await j.read('getTurn', 't1'))!.errorClass, 'sandbox_boundary_closed_by_restart'));
  });

  it('a run whose owner never registered is treated as orphaned', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    await lifetime(file, (j) => seedRun(j, { session: 's', turn: 't', run: 'r', owner: 'never-registered' }));
    const recovered = await lifetime(file, (j) => recover(j));
    assert.equal(recovered[0]?.errorClass, 'app_restarted');
  });

  it('does nothing on a read-only journal', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    await lifetime(file, (j) => seedRun(j, { session: 's', turn: 't', run: 'r' }));
    await editJournalFile(file, (db) => db.run('PRAGMA user_version = 999'));
    assert.deepEqual(await lifetime(file, (j) => recover(j)), []);
  });
});
