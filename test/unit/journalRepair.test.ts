/**
 * Repair Journal on real journals on disk (worker threads, sql.js files): a malformed row is set
 * aside with its exact values and its chat's fence lifts, with a note in the transcript; the dry run
 * changes no byte of any file; a second repair finds nothing to do; each release clause, failing
 * alone, keeps its chat fenced and changes nothing; a stale dry run changes nothing; and a repair in
 * one window lifts the fence in another through the log.
 */
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import type { Database } from 'sql.js';
import { journalCheckMarkdown } from '../../src/core/journalCheckMarkdown';
import { repairDryRunMarkdown } from '../../src/core/repairMarkdown';
import { itemsToApply, setAsideNote, type ReleaseChatItem, type RuleLeftItem, type SettleTurnItem, type StaysFencedItem } from '../../src/core/repairPlan';
import type { ReleaseClause } from '../../src/core/repairRelease';
import { settledNote, type SETTLE_CLAUSES } from '../../src/core/repairSettle';
import type { Journal } from '../../src/journal/journal';
import { checkJournal } from '../../src/runtime/journalCheck';
import { applyRepair, planRepair } from '../../src/runtime/journalRepair';
import { closeWindows, openWindow } from './harness';
import { editJournalFile, openJournal, trackedTempDir as tempDir, waitFor } from './helpers';

const T0 = 1_700_000_000_000;
const ACTOR = { build: '0.1.0-test', instanceId: 'repairing-window', now: () => T0 + 50_000 };

/** A chat with one finished prompt: a reply, a tool call and an approval request, all settled. */
async function writeChat(j: Journal, id: string, title: string, at: number): Promise<void> {
  const must = <T>(r: { ok: boolean; value?: T; message?: string }) => assert.ok(r.ok, r.message);
  must(await j.write('createSession', { id, title, provider: 'local', createdAt: at, updatedAt: at }));
  must(await j.write('startTurn', { turn: { id: `${id}-t1`, sessionId: id, prompt: 'hello', origin: 'prompt', parentTurnId: null, createdAt: at }, run: { id: `${id}-r1`, instanceId: 'i-gone', provider: 'local' } }));
  must(await j.write('appendEvents', `${id}-r1`, [{ kind: 'text', payload: { text: 'hi there' } }, { kind: 'text', payload: { text: ' and more' } }], at + 1));
  must(await j.write('startInvocation', { id: `${id}-inv1`, runId: `${id}-r1`, tool: 'run', input: '{"command":"ls"}', summary: 'ls', at: at + 2 }));
  must(await j.write('createBoundaryRequest', { id: `${id}-b1`, runId: `${id}-r1`, invocationId: `${id}-inv1`, kind: 'command', subject: 'ls', why: 'list', detail: null, scopeKey: 'cmd:ls', at: at + 3 }));
  must(await j.write('settleBoundaryRequest', { id: `${id}-b1`, status: 'approved', decision: 'allow_once', closureReason: 'user_decision', at: at + 4 }));
  must(await j.write('finishInvocation', { id: `${id}-inv1`, status: 'completed', exitCode: 0, at: at + 5 }));
  must(await j.write('finishRun', { runId: `${id}-r1`, status: 'completed', turnStatus: 'completed', at: at + 6 }));
}

/** A journal folder with two chats (s1 "Chat one", s2 "Chat two"), closed. */
async function twoChats(): Promise<string> {
  const file = path.join(tempDir(), 'journal.sqlite');
  const j = await openJournal(file);
  try {
    await writeChat(j, 's1', 'Chat one', T0);
    await writeChat(j, 's2', 'Chat two', T0 + 100);
  } finally {
    await j.close();
  }
  return file;
}

/** A copy of the journal folder of `file`, damaged by `edit` (raw SQL on the snapshot). */
async function damaged(base: string, edit: (db: Database) => void): Promise<string> {
  const dir = tempDir();
  for (const name of fs.readdirSync(path.dirname(base))) fs.copyFileSync(path.join(path.dirname(base), name), path.join(dir, name));
  const file = path.join(dir, path.basename(base));
  await editJournalFile(file, edit);
  return file;
}

/** Every file of the folder with the SHA-256 of its bytes. */
function hashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(dir).sort()) out[name] = createHash('sha256').update(fs.readFileSync(path.join(dir, name))).digest('hex');
  return out;
}

/** The folder's hashes once this window has let the write lock go (its lease outlives a write by a few ms). */
async function settledHashes(dir: string): Promise<Record<string, string>> {
  await waitFor('the write lock to be released', () => !fs.readdirSync(dir).some((n) => n.endsWith('.lock')));
  return hashes(dir);
}

/** s1's first text event (seq 1) gets a payload that is not JSON. */
const BAD_JSON = `UPDATE events SET payload = '{"text": "hi' WHERE run_id = 's1-r1' AND seq = 1`;

/** Opens `file`, reads s1 (which fences it when a row cannot be read), runs `fn`, closes. */
async function withJournal<T>(file: string, fn: (j: Journal) => Promise<T>): Promise<T> {
  const j = await openJournal(file, { integrityCheckDelayMs: 60_000 });
  try {
    await j.read('listEvents', 's1');
    await j.read('listTurns', 's1');
    return await fn(j);
  } finally {
    await j.close();
  }
}

describe('Repair Journal', () => {
  let base = '';
  before(async () => {
    base = await twoChats();
  });

  it('sets a malformed event aside with its exact values, lifts the fence, notes it in the transcript; the dry run and a second run change no file', async () => {
    const file = await damaged(base, (db) => db.exec(BAD_JSON));
    const dir = path.dirname(file);
    await withJournal(file, async (j) => {
      const fence = await j.read('getFenceDetail', 's1');
      assert.deepEqual(fence && [fence.table, fence.rowKey, fence.damaged], ['events', 's1-r1#1', true]);
      assert.match(fence?.message ?? '', /could not be read \(it is damaged\)/);
      const beforeDry = hashes(dir);
      const dry = await planRepair(j, { now: () => T0 + 10_000 });
      assert.deepEqual(hashes(dir), beforeDry, 'the dry run changed a file');
      assert.ok(dry);
      const items = itemsToApply(dry.plan) as ReleaseChatItem[];
      assert.equal(items.length, 1);
      assert.equal(items[0]!.sessionId, 's1');
      assert.deepEqual(items[0]!.rows.map((r) => [r.table, r.rowKey, r.reason]), [['events', 's1-r1#1', 'its payload is not valid JSON']]);
      assert.deepEqual(items[0]!.notes, [{ runId: 's1-r1', count: 1 }]);
      const md = repairDryRunMarkdown(dry.plan, 'COPY');
      assert.ok(md.includes('**Nothing has been changed yet.** Repair would make 1 change, listed below, and only after you confirm.'), md);
      assert.ok(md.includes('### “Chat one” (id `s1`): will take changes again\n\n- part of a reply (table `events`, row '), md);
      assert.ok(md.includes('`s1-r1#1`): its payload is not valid JSON. No version of Agent Chats writes this'), md);
      assert.ok(md.includes('copies the journal\'s files, unchanged, to `COPY`'), md);

      const snapshotBefore = fs.readFileSync(file);
      const outcome = await applyRepair(j, dry.plan, ACTOR);
      assert.deepEqual(outcome.released, ['s1']);
      assert.deepEqual(outcome.applied.map((a) => [a.done, a.why]), [[true, null]]);
      assert.equal(outcome.copiedTo, `${file}.before-repair-${T0 + 50_000}`);
      assert.ok(fs.readFileSync(outcome.copiedTo).equals(snapshotBefore), 'the copy aside is the snapshot as it was');
      assert.equal(await j.read('getFenceDetail', 's1'), null);

      // The row moved with its original values, and the transcript says so.
      const set = await j.read('listQuarantinedRows');
      assert.deepEqual(set.map((r) => [r.table, r.rowKey, r.sessionId, r.reason, r.build, r.at]), [['events', 's1-r1#1', 's1', 'its payload is not valid JSON', '0.1.0-test', T0 + 50_000]]);
      const events = await j.read('listEvents', 's1');
      assert.deepEqual(events.map((e) => e.seq).filter((s) => s === 1), [], 'the row left its table');
      const note = events.find((e) => e.kind === 'notice');
      assert.deepEqual(note?.payload, { level: 'warning', message: setAsideNote(1) });
      assert.equal(note?.seq, Math.max(...events.map((e) => e.seq)), 'the note comes after every event the run had');
      assert.equal(await j.write('renameSession', 's1', 'Chat one again').then((r) => r.ok), true, 'the chat takes changes again');

      // Check Journal lists what was set aside, as the note says.
      const check = await checkJournal(j);
      assert.deepEqual(check?.unreadableRows, []);
      assert.deepEqual(check?.setAside?.map((r) => [r.table, r.rowKey, r.sessionId, r.reason]), [['events', 's1-r1#1', 's1', 'its payload is not valid JSON']]);
      assert.ok(check && journalCheckMarkdown(check).includes('## Records set aside by Repair Journal'));

      // A second run finds nothing to do and changes nothing.
      const beforeSecond = await settledHashes(dir);
      const again = await planRepair(j, { now: () => T0 + 60_000 });
      assert.ok(again);
      assert.deepEqual(itemsToApply(again.plan), []);
      assert.ok(repairDryRunMarkdown(again.plan, 'COPY').includes('**Nothing to repair.** Nothing has been changed.'));
      const second = await applyRepair(j, again.plan, ACTOR);
      assert.deepEqual(second, { copiedTo: null, applied: [], released: [], changed: [] });
      assert.deepEqual(hashes(dir), beforeSecond, 'the second run changed a file');
    });
    // The exact original values, as the row held them.
    await editJournalFile(file, (db) => {
      const [values] = db.exec('SELECT row_values, row_id FROM quarantined_rows')[0]!.values[0]! as [string, number];
      const original = JSON.parse(values) as Record<string, unknown>;
      assert.equal(original.payload, '{"text": "hi');
      assert.deepEqual(Object.keys(original), ['id', 'run_id', 'seq', 'session_id', 'turn_id', 'kind', 'payload', 'at']);
      assert.deepEqual([original.run_id, original.seq, original.kind, original.at], ['s1-r1', 1, 'text', T0 + 1]);
    });
  });

  /** Each fixture damages s1 so that exactly one clause fails. */
  const ALONE: readonly { clause: ReleaseClause; edit: string }[] = [
    { clause: 'row_not_newer', edit: "UPDATE events SET kind = 'tool_progress' WHERE run_id = 's1-r1' AND seq = 1" },
    { clause: 'row_values_exact', edit: "UPDATE events SET payload = X'7B2274657874223A' WHERE run_id = 's1-r1' AND seq = 1" },
    { clause: 'row_nothing_depends', edit: "UPDATE turns SET status = 42 WHERE id = 's1-t1'" },
    { clause: 'no_run_running', edit: `${BAD_JSON}; UPDATE runs SET status = 'running' WHERE id = 's1-r1'; UPDATE turns SET status = 'running' WHERE id = 's1-t1'` },
    { clause: 'chat_exists', edit: `${BAD_JSON}; DELETE FROM sessions WHERE id = 's1'` },
  ];
  for (const { clause, edit } of ALONE) {
    it(`stays fenced when only "${clause}" fails, and the repair changes nothing`, async () => {
      const file = await damaged(base, (db) => db.exec(edit));
      await withJournal(file, async (j) => {
        const dry = await planRepair(j, { now: () => T0 + 10_000 });
        assert.ok(dry);
        const fenced = dry.plan.items.filter((i): i is StaysFencedItem => i.kind === 'stays_fenced');
        assert.deepEqual(fenced.map((i) => [i.sessionId, i.failures.map((f) => f.clause)]), [['s1', [clause]]]);
        assert.deepEqual(itemsToApply(dry.plan), []);
        const dir = path.dirname(file);
        const beforeApply = hashes(dir);
        assert.deepEqual(await applyRepair(j, dry.plan, ACTOR), { copiedTo: null, applied: [], released: [], changed: [] });
        assert.deepEqual(hashes(dir), beforeApply);
        assert.deepEqual(await j.read('listQuarantinedRows'), []);
      });
    });
  }

  it('a newer version\'s row says to update the extension', async () => {
    const file = await damaged(base, (db) => db.exec(ALONE[0]!.edit));
    await withJournal(file, async (j) => {
      const dry = await planRepair(j);
      const item = dry?.plan.items[0] as StaysFencedItem;
      assert.equal(item.updateExtension, true);
      assert.match(item.failures[0]!.why, /update the extension/);
      assert.ok(dry && repairDryRunMarkdown(dry.plan, 'COPY').includes('A newer version of Agent Chats wrote part of this chat. **Update the extension**'));
    });
  });

  it('a chat with one damaged row and one newer row is not released, and neither row moves', async () => {
    const file = await damaged(base, (db) => db.exec(`${BAD_JSON}; UPDATE events SET kind = 'tool_progress' WHERE run_id = 's1-r1' AND seq = 2`));
    await withJournal(file, async (j) => {
      const dry = await planRepair(j);
      assert.ok(dry);
      const item = dry.plan.items[0] as StaysFencedItem;
      assert.equal(item.kind, 'stays_fenced');
      assert.deepEqual(item.rows.map((r) => r.rowKey), ['s1-r1#1', 's1-r1#2']);
      assert.deepEqual(item.failures.map((f) => f.clause), ['row_not_newer']);
      assert.deepEqual(itemsToApply(dry.plan), []);
    });
  });

  it('a dry run that is stale (another window repaired meanwhile) changes nothing: no second note, no second copy of the row', async () => {
    const file = await damaged(base, (db) => db.exec(BAD_JSON));
    const a = await openJournal(file, { integrityCheckDelayMs: 60_000, pollIntervalMs: 20 });
    const b = await openJournal(file, { integrityCheckDelayMs: 60_000, pollIntervalMs: 20 });
    try {
      const dryA = await planRepair(a);
      const dryB = await planRepair(b);
      assert.ok(dryA && dryB);
      assert.deepEqual((await applyRepair(b, dryB.plan, ACTOR)).released, ['s1']);
      const late = await applyRepair(a, dryA.plan, ACTOR);
      assert.deepEqual(late.released, []);
      assert.deepEqual(late.applied.map((x) => x.why), ['the chat changed since the dry run; run Repair Journal again']);
      assert.equal((await a.read('listQuarantinedRows')).length, 1);
      assert.equal((await a.read('listEvents', 's1')).filter((e) => e.kind === 'notice').length, 1);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('two windows: a repair in one lifts the fence in the other once it replays the log, and that window can send again', async () => {
    const file = await damaged(base, (db) => db.exec(BAD_JSON));
    const one = await openWindow(file, undefined, 'window-one');
    const two = await openWindow(file, undefined, 'window-two');
    try {
      await two.runtime.transcript('s1'); // reading the chat fences it in window two
      assert.match((await two.runtime.liveState('s1')).readOnlyReason ?? '', /could not be read/);
      const dry = await planRepair(one.journal);
      assert.ok(dry);
      assert.deepEqual((await applyRepair(one.journal, dry.plan, { ...ACTOR, instanceId: one.runtime.instanceId })).released, ['s1']);
      await waitFor('window two to see the fence lifted', async () => (await two.runtime.liveState('s1')).readOnlyReason === null);
      const transcript = await two.runtime.transcript('s1');
      const notes = transcript.turns[0]!.items.filter((i) => i.type === 'notice');
      assert.deepEqual(notes.map((n) => (n as { message: string }).message), [setAsideNote(1)]);
      const sent = await two.runtime.send('s1', 'after the repair');
      assert.ok(sent.ok, sent.ok ? '' : sent.message);
      await waitFor('the new prompt to run', () => two.complete.has('after the repair'));
      two.complete.get('after the repair')!();
    } finally {
      await closeWindows(one, two);
    }
  });

  it('a release the disk refuses changes nothing and the chat stays fenced in this window; once the disk has room it goes through', async () => {
    const file = await damaged(base, (db) => db.exec(BAD_JSON));
    const j = await openJournal(file, { integrityCheckDelayMs: 60_000, faultInjection: true });
    try {
      const dry = await planRepair(j);
      assert.ok(dry);
      fs.writeFileSync(`${file}.fault-enospc`, '');
      const refused = await applyRepair(j, dry.plan, ACTOR);
      fs.rmSync(`${file}.fault-enospc`);
      assert.deepEqual(refused.released, []);
      assert.match(refused.applied[0]?.why ?? '', /./);
      assert.deepEqual((await j.read('getFenceDetail', 's1'))?.rowKey, 's1-r1#1', 'the fence still holds');
      assert.equal((await j.write('renameSession', 's1', 'x')).ok, false, 'writes to the chat are still refused');
      assert.deepEqual(await j.read('listQuarantinedRows'), []);
      const retry = await planRepair(j);
      assert.ok(retry);
      assert.deepEqual((await applyRepair(j, retry.plan, ACTOR)).released, ['s1']);
      assert.equal(await j.read('getFenceDetail', 's1'), null);
    } finally {
      await j.close();
    }
  });

  /** s1's prompt marked running again, though its reply ended completed (what Check Journal calls turn_running_without_run). */
  const LEFT_RUNNING = "UPDATE turns SET status = 'running', finished_at = NULL WHERE id = 's1-t1'";

  it('settles a prompt still marked running to the status its reply\'s end recorded, with a note; a second run finds nothing', async () => {
    const file = await damaged(base, (db) => db.exec(LEFT_RUNNING));
    await withJournal(file, async (j) => {
      const dry = await planRepair(j);
      assert.ok(dry);
      const items = itemsToApply(dry.plan) as SettleTurnItem[];
      assert.deepEqual(items.map((i) => [i.kind, i.settle.turnId, i.settle.status, i.settle.errorClass, i.settle.finishedAt]), [['settle_turn', 's1-t1', 'completed', null, T0 + 6]]);
      assert.ok(repairDryRunMarkdown(dry.plan, 'COPY').includes('recorded **completed**, so the prompt is marked so.'));
      const outcome = await applyRepair(j, dry.plan, ACTOR);
      assert.deepEqual([outcome.released, outcome.changed, outcome.applied.map((a) => a.done)], [[], ['s1'], [true]]);
      const [turn] = await j.read('listTurns', 's1');
      assert.equal(turn?.status, 'completed');
      const notes = (await j.read('listEvents', 's1')).filter((e) => e.kind === 'notice').map((e) => (e.payload as { message: string }).message);
      assert.deepEqual(notes, [settledNote('completed')]);
      const again = await planRepair(j);
      assert.deepEqual(again && [again.report.ruleFindings, itemsToApply(again.plan)], [[], []]);
    });
  });

  const SETTLE_ALONE: readonly { clause: keyof typeof SETTLE_CLAUSES; edit: string }[] = [
    { clause: 'one_end', edit: `${LEFT_RUNNING}; DELETE FROM events WHERE run_id = 's1-r1' AND kind = 'run_finished'` },
    { clause: 'end_readable', edit: `${LEFT_RUNNING}; UPDATE events SET payload = '{"status":"completed","turnStatus":"hibernating"}' WHERE run_id = 's1-r1' AND kind = 'run_finished'` },
    { clause: 'chat_not_fenced', edit: `${LEFT_RUNNING}; ${BAD_JSON}` },
  ];
  for (const { clause, edit } of SETTLE_ALONE) {
    it(`leaves the prompt running when only the settlement's "${clause}" fails`, async () => {
      const file = await damaged(base, (db) => db.exec(edit));
      await withJournal(file, async (j) => {
        const dry = await planRepair(j);
        assert.ok(dry);
        const left = dry.plan.items.filter((i): i is RuleLeftItem => i.kind === 'rule_left' && i.finding.rule === 'turn_running_without_run');
        assert.equal(left.length, 1);
        assert.equal(dry.plan.items.some((i) => i.kind === 'settle_turn'), false);
        await applyRepair(j, dry.plan, ACTOR);
        assert.equal((await j.read('getTurn', 's1-t1'))?.status ?? 'running', 'running');
      });
    });
  }
});
