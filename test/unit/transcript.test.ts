import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { LedgerEvent, TurnRecord } from '../../src/core/events';
import { applyUpdate, buildTranscript, compareCursors, cursorOf, isFollowedUp, MAX_INVOCATION_OUTPUT_CHARS, restartClosedRequest } from '../../src/core/transcript';

const turn = (id: string, extra: Partial<TurnRecord> = {}): TurnRecord => ({
  id, sessionId: 's', prompt: `p-${id}`, origin: 'prompt', parentTurnId: null, status: 'running', errorClass: null, seq: 1, createdAt: 1, ...extra,
});
let seq = 0;
const ev = (kind: LedgerEvent['kind'], payload: unknown, turnId = 't1', runId = 'r1'): LedgerEvent =>
  ({ runId, seq: ++seq, sessionId: 's', turnId, kind, payload, at: 1 }) as LedgerEvent;

describe('transcript projection', () => {
  it("orders turns by the journal's sequence, never by their times (a clock stepped back)", () => {
    // Turn c was sent last, after the host's clock stepped back an hour: its time is the earliest.
    const a = turn('a', { seq: 1, createdAt: 2_000_000 });
    const b = turn('b', { seq: 2, createdAt: 2_000_001 });
    const c = turn('c', { seq: 3, createdAt: 2_000_001 - 3_600_000 });
    assert.deepEqual(buildTranscript([c, a, b], []).turns.map((t) => t.id), ['a', 'b', 'c']);
    const live = [a, b, c].reduce((t, record) => applyUpdate(t, { type: 'turn', turn: record }), buildTranscript([], []));
    assert.deepEqual(live.turns.map((t) => t.id), ['a', 'b', 'c'], 'live updates as the snapshot');
    assert.ok(compareCursors(cursorOf(b), cursorOf(c)) < 0, 'a page cursor at c asks for b');
  });

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

  it('an invocation keeps when it finished and whether its output was cut at the cap', () => {
    seq = 0;
    const at = (event: LedgerEvent, ms: number): LedgerEvent => ({ ...event, at: ms });
    const half = 'x'.repeat(MAX_INVOCATION_OUTPUT_CHARS / 2);
    const t = buildTranscript([turn('t1')], [
      at(ev('invocation_started', { invocationId: 'short', tool: 'run', summary: 'ls' }), 1_000),
      ev('invocation_output', { invocationId: 'short', chunk: half }),
      ev('invocation_output', { invocationId: 'short', chunk: half }),
      at(ev('invocation_finished', { invocationId: 'short', status: 'completed', exitCode: 0 }), 1_250),
      ev('invocation_started', { invocationId: 'long', tool: 'run', summary: 'yes' }),
      ev('invocation_output', { invocationId: 'long', chunk: `${half}${half}` }),
      ev('invocation_output', { invocationId: 'long', chunk: 'END' }),
    ]);
    const [short, long] = t.turns[0]!.items;
    assert.ok(short?.type === 'invocation' && long?.type === 'invocation');
    assert.equal(short.finishedAt, 1_250);
    assert.equal(short.runningSince, 1_000);
    assert.equal(short.output.length, MAX_INVOCATION_OUTPUT_CHARS, 'exactly the cap: nothing cut');
    assert.equal(short.outputCut, undefined);
    assert.equal(long.outputCut, true);
    assert.ok(long.output.endsWith('END') && long.output.length === MAX_INVOCATION_OUTPUT_CHARS);
    assert.equal(long.finishedAt, undefined, 'still running');
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

describe('building a transcript at once', () => {
  it('gives what folding every turn record, then every event, with applyUpdate gives', () => {
    // A deterministic mix: turns out of creation order, equal creation times, a repeated and a
    // downgraded turn record, events of unknown turns, replayed seqs and two runs per turn.
    let state = 7;
    const next = (n: number) => ((state = (state * 1103515245 + 12345) % 2147483648) % n);
    const turns: TurnRecord[] = [];
    for (let i = 0; i < 60; i++) turns.push(turn(`t${i}`, { createdAt: next(20), status: next(3) === 0 ? 'completed' : 'running' }));
    // A later record of a turn (its end) and an older one after it (ignored); a turn keeps its creation time.
    turns.push(turn('t3', { status: 'failed', errorClass: 'app_restarted', createdAt: turns[3]!.createdAt }), turn('t3', { status: 'running', createdAt: turns[3]!.createdAt }));
    const events: LedgerEvent[] = [];
    const seqs = new Map<string, number>();
    for (let i = 0; i < 600; i++) {
      const turnId = `t${next(64)}`;
      const runId = `${turnId}-r${next(2)}`;
      const s = (seqs.get(runId) ?? 0) + (next(5) === 0 ? 0 : 1);
      seqs.set(runId, s);
      const kind = (['text', 'invocation_started', 'invocation_output', 'invocation_finished', 'notice'] as const)[next(5)]!;
      const payload = kind === 'text' ? { text: `x${i}` }
        : kind === 'invocation_started' ? { invocationId: `i${next(4)}`, tool: 'run', summary: 's' }
        : kind === 'invocation_output' ? { invocationId: `i${next(4)}`, chunk: `o${i}` }
        : kind === 'invocation_finished' ? { invocationId: `i${next(4)}`, status: 'completed' }
        : { level: 'info', message: `n${i}` };
      events.push({ runId, seq: s, sessionId: 's', turnId, kind, payload, at: i } as LedgerEvent);
    }
    let folded = { turns: [] } as ReturnType<typeof buildTranscript>;
    for (const t of turns) folded = applyUpdate(folded, { type: 'turn', turn: t });
    for (const event of events) folded = applyUpdate(folded, { type: 'event', event });
    assert.ok(folded.turns.some((t) => t.items.length > 3), 'precondition: events were applied');
    assert.deepEqual(buildTranscript(turns, events), folded);
  });
});
