import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { LedgerEvent, TurnRecord } from '../../src/core/events';
import { applyUpdate, buildTranscript, isFollowedUp, restartClosedRequest } from '../../src/core/transcript';

const turn = (id: string, extra: Partial<TurnRecord> = {}): TurnRecord => ({
  id, sessionId: 's', prompt: `p-${id}`, origin: 'prompt', parentTurnId: null, status: 'running', errorClass: null, createdAt: 1, ...extra,
});
let seq = 0;
const ev = (kind: LedgerEvent['kind'], payload: unknown, turnId = 't1', runId = 'r1'): LedgerEvent =>
  ({ runId, seq: ++seq, sessionId: 's', turnId, kind, payload, at: 1 }) as LedgerEvent;

describe('transcript projection', () => {
  it('joins streamed text, tracks an invocation through its boundary request, and ends the turn', () => {
    seq = 0;
    const t = buildTranscript([turn('t1')], [
      ev('text', { text: 'Run' }),
      ev('text', { text: 'ning.' }),
      ev('invocation_started', { invocationId: 'i', tool: 'run', summary: 'rm x' }),
      ev('boundary_requested', { requestId: 'b', invocationId: 'i', kind: 'command', subject: 'rm x', why: 'w' }),
      ev('boundary_decided', { requestId: 'b', status: 'denied', decision: 'deny', closureReason: 'host_restarted' }),
      ev('invocation_finished', { invocationId: 'i', status: 'failed', failureClass: 'sandbox_boundary_closed_by_restart' }),
      ev('run_finished', { status: 'interrupted', turnStatus: 'failed', errorClass: 'sandbox_boundary_closed_by_restart' }),
    ]);
    const [t1] = t.turns;
    assert.equal(t1!.items[0]!.type === 'text' && t1!.items[0]!.text, 'Running.');
    const inv = t1!.items[1]!;
    assert.equal(inv.type === 'invocation' && inv.status, 'failed');
    assert.equal(inv.type === 'invocation' && inv.failureClass, 'sandbox_boundary_closed_by_restart');
    assert.equal(t1!.status, 'failed');
    assert.equal(t1!.errorClass, 'sandbox_boundary_closed_by_restart');
    assert.equal(restartClosedRequest(t1!)?.subject, 'rm x');
  });

  it('ignores a replayed event and events of unknown turns', () => {
    seq = 0;
    const e = ev('text', { text: 'once' });
    let t = buildTranscript([turn('t1')], [e]);
    t = applyUpdate(t, { type: 'event', event: e });
    t = applyUpdate(t, { type: 'event', event: ev('text', { text: 'x' }, 'ghost') });
    assert.equal(t.turns[0]!.items.length, 1);
    assert.equal(t.turns[0]!.items[0]!.type === 'text' && t.turns[0]!.items[0]!.text, 'once');
  });

  it('knows when a failed turn was already retried', () => {
    const t = buildTranscript([turn('t1', { status: 'failed' }), turn('t2', { origin: 'retry', parentTurnId: 't1', createdAt: 2 })], []);
    assert.equal(isFollowedUp(t, 't1'), true);
    assert.equal(isFollowedUp(t, 't2'), false);
  });
});

describe('transcript projection: late turn records', () => {
  it('an older running record never undoes a terminal turn (a stale update after a fresh snapshot)', () => {
    let t = buildTranscript([turn('t1', { status: 'completed' })], []);
    t = applyUpdate(t, { type: 'turn', turn: turn('t1', { status: 'running' }) });
    assert.equal(t.turns[0]!.status, 'completed');
    t = applyUpdate(buildTranscript([turn('t2')], []), { type: 'turn', turn: turn('t2', { status: 'failed', errorClass: 'app_restarted' }) });
    assert.equal(t.turns[0]!.status, 'failed');
    assert.equal(t.turns[0]!.errorClass, 'app_restarted');
  });
});
