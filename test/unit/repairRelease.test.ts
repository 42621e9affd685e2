/**
 * Repair Journal's release rule, pure: each clause fails on its own evidence and only then (the
 * clauses that real journals can break alone are also checked on disk in journalRepair.test.ts;
 * these are the ones a real journal of this build cannot break alone), the decoder reasons it
 * accepts as proof of malformation, and the plan's items.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { ChatRepairEvidence, JournalRepairContext, UnreadableRowEvidence } from '../../src/core/repairEvidence';
import { sameRows } from '../../src/core/repairEvidence';
import { itemsToApply, repairPlan, setAsideNote } from '../../src/core/repairPlan';
import { RELEASE_CLAUSES, malformation, releaseFailures } from '../../src/core/repairRelease';
import { SETTLE_CLAUSES, turnSettlement, type TurnSettlementEvidence } from '../../src/core/repairSettle';

const CONTEXT: JournalRepairContext = { journalSchema: 6, buildSchema: 6, readOnlyReason: null };
const ROW: UnreadableRowEvidence = {
  table: 'events', rowid: 7, rowKey: 'r1#3', reason: 'its payload is not valid JSON', newer: false, values: '{"payload":"{"}', notExact: null, dependents: 0, runId: 'r1',
};
const CHAT: ChatRepairEvidence = { sessionId: 's1', chatTitle: 'Chat', chatExists: true, runsRunning: 0, latestRunId: 'r1', rows: [ROW] };

describe('the release rule', () => {
  it('releases a chat whose every clause holds', () => {
    assert.deepEqual(releaseFailures(CONTEXT, CHAT), []);
  });

  const ALONE: readonly [keyof typeof RELEASE_CLAUSES, JournalRepairContext, ChatRepairEvidence][] = [
    ['journal_writable', { ...CONTEXT, readOnlyReason: 'The disk is full.' }, CHAT],
    ['schema_known', { ...CONTEXT, journalSchema: 7 }, CHAT],
    ['chat_exists', CONTEXT, { ...CHAT, chatExists: false }],
    ['no_run_running', CONTEXT, { ...CHAT, runsRunning: 1 }],
    ['row_not_newer', CONTEXT, { ...CHAT, rows: [{ ...ROW, reason: 'unknown event kind "tool_progress"', newer: true }] }],
    ['row_malformed', CONTEXT, { ...CHAT, rows: [{ ...ROW, reason: 'a reason a later decoder gives' }] }],
    ['row_values_exact', CONTEXT, { ...CHAT, rows: [{ ...ROW, values: null, notExact: 'column payload holds bytes, not text' }] }],
    ['row_nothing_depends', CONTEXT, { ...CHAT, rows: [{ ...ROW, dependents: 2 }] }],
  ];
  it('covers every clause in these fixtures', () => {
    assert.deepEqual(ALONE.map(([c]) => c).sort(), Object.keys(RELEASE_CLAUSES).sort());
  });
  for (const [clause, context, chat] of ALONE) {
    it(`fails "${clause}" alone, and the plan keeps the chat fenced`, () => {
      assert.deepEqual(releaseFailures(context, chat).map((f) => f.clause), [clause]);
      const plan = repairPlan('/j', 1, context, [chat], []);
      assert.deepEqual(plan.items.map((i) => i.kind), ['stays_fenced']);
      assert.deepEqual(itemsToApply(plan), []);
    });
  }

  it('accepts as malformation only what no version writes', () => {
    assert.equal(malformation({ reason: 'its payload is not valid JSON', newer: false }), 'not_json');
    assert.equal(malformation({ reason: 'its payload is not an object', newer: false }), 'not_object');
    assert.equal(malformation({ reason: 'unknown status "42"', newer: false }), 'impossible_value');
    assert.equal(malformation({ reason: 'unknown status "null"', newer: false }), 'impossible_value');
    assert.equal(malformation({ reason: 'unknown status "hibernating"', newer: true }), null);
    assert.equal(malformation({ reason: 'something else', newer: false }), null);
  });

  it('a release acts only on the rows the dry run saw, with the same values', () => {
    const planned = [{ table: 'events', rowKey: 'r1#3', rowid: 7, reason: ROW.reason, values: ROW.values!, runId: 'r1' }];
    assert.equal(sameRows(CHAT, planned), true);
    assert.equal(sameRows({ ...CHAT, rows: [{ ...ROW, values: '{"payload":"["}' }] }, planned), false);
    assert.equal(sameRows({ ...CHAT, rows: [ROW, { ...ROW, rowKey: 'r1#4' }] }, planned), false);
    assert.equal(sameRows({ ...CHAT, rows: [] }, planned), false);
  });

  it('the note counts the rows in words', () => {
    assert.equal(setAsideNote(1), '1 record of this chat could not be read and was set aside by Repair Journal (Agent Chats: Check Journal lists it).');
    assert.equal(setAsideNote(3), '3 records of this chat could not be read and were set aside by Repair Journal (Agent Chats: Check Journal lists them).');
  });

  it('notes go to the rows\' runs, or to the chat\'s latest run for a row outside a run', () => {
    const chat = { ...CHAT, rows: [ROW, { ...ROW, rowKey: 'r1#4' }, { ...ROW, table: 'queued_prompts', rowKey: 'c1', runId: null }] };
    const plan = repairPlan('/j', 1, { ...CONTEXT }, [{ ...chat, latestRunId: 'r9' }], []);
    assert.deepEqual(plan.items[0]!.kind === 'release_chat' && plan.items[0]!.notes, [{ runId: 'r1', count: 2 }, { runId: 'r9', count: 1 }]);
  });
});

describe('the settlement of a prompt still marked running', () => {
  const END = { runId: 'r2', payload: '{"status":"failed","turnStatus":"failed","errorClass":"agent_error"}', at: 9 };
  const E: TurnSettlementEvidence = { turnId: 't1', sessionId: 's1', status: 'running', fenced: false, runs: [{ id: 'r1', status: 'failed' }, { id: 'r2', status: 'failed' }], ends: [END] };

  it('settles to the status and error class the end recorded', () => {
    assert.deepEqual(turnSettlement(E), { settle: { turnId: 't1', sessionId: 's1', runId: 'r2', status: 'failed', errorClass: 'agent_error', finishedAt: 9 } });
  });

  const ALONE: readonly [keyof typeof SETTLE_CLAUSES, TurnSettlementEvidence][] = [
    ['turn_running', { ...E, status: 'completed' }],
    ['chat_not_fenced', { ...E, fenced: true }],
    ['no_run_running', { ...E, runs: [{ id: 'r1', status: 'running' }, { id: 'r2', status: 'failed' }] }],
    ['one_end', { ...E, ends: [{ ...END, runId: 'r1' }] }],
    ['end_readable', { ...E, ends: [{ ...END, payload: '{"turnStatus":"failed","errorClass":"cosmic_rays"}' }] }],
  ];
  it('covers every clause in these fixtures', () => {
    assert.deepEqual(ALONE.map(([c]) => c).sort(), Object.keys(SETTLE_CLAUSES).sort());
  });
  for (const [clause, evidence] of ALONE) {
    it(`fails "${clause}" alone`, () => {
      const proof = turnSettlement(evidence);
      assert.deepEqual('failures' in proof && proof.failures.map((f) => f.clause), [clause]);
    });
  }
  it('two ends, or none, prove nothing', () => {
    for (const ends of [[], [END, END]]) {
      const proof = turnSettlement({ ...E, ends });
      assert.deepEqual('failures' in proof && proof.failures.map((f) => f.clause), ['one_end']);
    }
  });
});
