import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { LedgerEvent, TurnRecord } from '../../src/core/events';
import { applyUpdate, buildTranscript } from '../../src/core/transcript';
import { turnFactsOf } from '../../webview/render/turnFacts';

const record = (id: string, extra: Partial<TurnRecord> = {}): TurnRecord => ({
  id, sessionId: 's', prompt: `p-${id}`, origin: 'prompt', parentTurnId: null, status: 'completed', errorClass: null, seq: Number(id.slice(1)), createdAt: Number(id.slice(1)), ...extra,
});
const text = (turnId: string, seq: number): LedgerEvent => ({ runId: `r-${turnId}`, seq, sessionId: 's', turnId, kind: 'text', payload: { text: 'more' }, at: 1 });

describe('turn facts of a transcript', () => {
  const first = buildTranscript([record('t1', { status: 'failed', errorClass: 'app_restarted' }), record('t2', { origin: 'continue', parentTurnId: 't1' }), record('t3', { replacesTurnId: 't2' } as Partial<TurnRecord>)], []);

  it('lists the ids in order with their indices, the turns followed up and the turns replaced', () => {
    const facts = turnFactsOf(first, undefined);
    assert.deepEqual(facts.ids, ['t1', 't2', 't3']);
    assert.deepEqual([...facts.index], [['t1', 0], ['t2', 1], ['t3', 2]]);
    assert.deepEqual([...facts.followedUp], ['t1']);
    assert.deepEqual([...facts.replaced], ['t2']);
  });

  it('keeps the maps of the last transcript when an update changed one turn\'s items', () => {
    const before = turnFactsOf(first, undefined);
    const next = applyUpdate(first, { type: 'event', event: text('t3', 1) });
    assert.notEqual(next, first);
    const after = turnFactsOf(next, before);
    assert.equal(after.transcript, next);
    assert.equal(after.ids, before.ids);
    assert.equal(after.index, before.index);
    assert.equal(turnFactsOf(next, after), after, 'the same transcript gives the same facts');
  });

  it('computes them anew when a turn joins, or a turn\'s parent or replaced turn changes', () => {
    const before = turnFactsOf(first, undefined);
    const joined = turnFactsOf(applyUpdate(first, { type: 'turn', turn: record('t4', { origin: 'retry', parentTurnId: 't3' }) }), before);
    assert.deepEqual(joined.ids, ['t1', 't2', 't3', 't4']);
    assert.deepEqual([...joined.followedUp].sort(), ['t1', 't3']);
    const reparented = { turns: first.turns.map((t) => (t.id === 't3' ? { ...t, replacesTurnId: 't1' } : t)) };
    assert.deepEqual([...turnFactsOf(reparented, before).replaced], ['t1']);
    const reordered = { turns: [first.turns[1]!, first.turns[0]!, first.turns[2]!] };
    assert.deepEqual(turnFactsOf(reordered, before).ids, ['t2', 't1', 't3']);
  });
});
