/**
 * Check Journal on real journals on disk (worker thread, helper thread, sql.js files): a healthy
 * journal is Healthy and nothing else; each kind of finding is reported with its exact evidence;
 * the check changes no byte of any file; it stops between chunks when cancelled, and this window's
 * writes run between its chunks.
 */
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { journalVerdict, type JournalCheckReport, type RuleFinding } from '../../src/core/journalCheck';
import { journalCheckMarkdown } from '../../src/core/journalCheckMarkdown';
import { scanLogGeneration } from '../../src/journal/fileCheck';
import type { Journal } from '../../src/journal/journal';
import { FRAME_BYTES, LOG_HEADER_BYTES } from '../../src/journal/logFormat';
import { listGenerations, logPath } from '../../src/journal/logFile';
import { SCHEMA_VERSION } from '../../src/journal/schema';
import { newerSchemaMessage } from '../../src/journal/workerOpen';
import { checkJournal, type JournalCheckProgress } from '../../src/runtime/journalCheck';
import { editJournalFile, fakeInstance, logAsNewerBuild, openJournal, trackedTempDir as tempDir } from './helpers';

const T0 = 1_700_000_000_000;

/** A chat with one finished prompt: a reply, a tool call and an approval request, all settled. */
async function writeHealthyChat(j: Journal, id: string, title: string, at: number): Promise<void> {
  const must = <T>(r: { ok: boolean; value?: T; message?: string }) => assert.ok(r.ok, r.message);
  must(await j.write('createSession', { id, title, provider: 'local', createdAt: at, updatedAt: at }));
  must(await j.write('startTurn', { turn: { id: `${id}-t1`, sessionId: id, prompt: 'hello', origin: 'prompt', parentTurnId: null, createdAt: at }, run: { id: `${id}-r1`, instanceId: 'i-gone', provider: 'local' } }));
  must(await j.write('appendEvents', `${id}-r1`, [{ kind: 'text', payload: { text: 'hi there' } }], at + 1));
  must(await j.write('startInvocation', { id: `${id}-inv1`, runId: `${id}-r1`, tool: 'run', input: '{"command":"ls"}', summary: 'ls', at: at + 2 }));
  must(await j.write('createBoundaryRequest', { id: `${id}-b1`, runId: `${id}-r1`, invocationId: `${id}-inv1`, kind: 'command', subject: 'ls', why: 'list', detail: null, scopeKey: 'cmd:ls', at: at + 3 }));
  must(await j.write('settleBoundaryRequest', { id: `${id}-b1`, status: 'approved', decision: 'allow_once', closureReason: 'user_decision', at: at + 4 }));
  must(await j.write('finishInvocation', { id: `${id}-inv1`, status: 'completed', exitCode: 0, at: at + 5 }));
  must(await j.write('finishRun', { runId: `${id}-r1`, status: 'completed', turnStatus: 'completed', at: at + 6 }));
}

/** A journal folder with two healthy chats (s1 "Chat one", s2 "Chat two"), closed. */
async function healthyJournal(): Promise<string> {
  const file = path.join(tempDir(), 'journal.sqlite');
  const j = await openJournal(file);
  try {
    await writeHealthyChat(j, 's1', 'Chat one', T0);
    await writeHealthyChat(j, 's2', 'Chat two', T0 + 100);
  } finally {
    await j.close();
  }
  return file;
}

/** A copy of the journal folder of `file` (each fixture damages its own). */
function copyOf(file: string): string {
  const dir = tempDir();
  for (const name of fs.readdirSync(path.dirname(file))) fs.copyFileSync(path.join(path.dirname(file), name), path.join(dir, name));
  return path.join(dir, path.basename(file));
}

/** Every file of the folder with the SHA-256 of its bytes. */
function hashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(dir).sort()) out[name] = createHash('sha256').update(fs.readFileSync(path.join(dir, name))).digest('hex');
  return out;
}

/** Opens the journal at `file`, checks it, closes it. */
async function checked(file: string, options: Parameters<typeof checkJournal>[1] = {}): Promise<{ report: JournalCheckReport; fence: string | null }> {
  const j = await openJournal(file, { integrityCheckDelayMs: 60_000 });
  try {
    const report = await checkJournal(j, { now: () => T0 + 10_000, ...options });
    assert.ok(report, 'the check was not cancelled');
    return { report, fence: await j.read('getFence', 's1') };
  } finally {
    await j.close();
  }
}

const ROWS_OF_TWO_CHATS = { sessions: 2, turns: 2, runs: 2, invocations: 2, boundary_requests: 2, events: 12, queued_prompts: 0 };

describe('Check Journal', () => {
  let base = '';
  before(async () => {
    base = await healthyJournal();
  });

  it('a healthy journal is Healthy, with nothing else found, and no byte of any file changes', async () => {
    const file = copyOf(base);
    const j = await openJournal(file, { integrityCheckDelayMs: 60_000 });
    let report: JournalCheckReport | undefined;
    let before: Record<string, string> = {};
    let after: Record<string, string> = {};
    try {
      before = hashes(path.dirname(file));
      report = await checkJournal(j, { now: () => T0 + 10_000 });
      after = hashes(path.dirname(file));
    } finally {
      await j.close();
    }
    assert.deepEqual(after, before);
    assert.ok(report);
    assert.equal(journalVerdict(report), 'Healthy.');
    assert.deepEqual(report.unreadableRows, []);
    assert.deepEqual(report.ruleFindings, []);
    assert.deepEqual(report.runsInFlight, []);
    assert.deepEqual(report.files.movedAside, []);
    assert.deepEqual(report.files.snapshot.problems, []);
    assert.equal(report.files.snapshot.bytes, fs.statSync(file).size);
    assert.deepEqual(report.files.logs.map((l) => l.damage), report.files.logs.map(() => null));
    assert.deepEqual(report.rowsChecked, ROWS_OF_TWO_CHATS);
    assert.equal(report.readOnlyReason, null);
    assert.deepEqual(report.structure, { version: SCHEMA_VERSION, checked: true, missing: [] });
    const md = journalCheckMarkdown(report);
    assert.ok(md.startsWith('# Agent Chats journal check\n\n**Verdict: Healthy.**\n'), md);
    assert.ok(md.includes(`- Its structure (version ${SCHEMA_VERSION}): every table, index, view and trigger is there.`), md);
    assert.ok(md.includes('SQLite\'s full integrity check found nothing wrong.'), md);
  });

  it('a part missing from the structure (a journal changed by an unreleased build) is named, and the verdict says to keep the folder', async () => {
    const file = copyOf(base);
    // An index: SQLite's own integrity check does not miss it (a missing table that views and
    // triggers still name would also read as a damaged file).
    await editJournalFile(file, (db) => db.exec('DROP INDEX turns_by_session'));
    const { report } = await checked(file);
    assert.deepEqual(report.files.snapshot.problems, []);
    assert.deepEqual(report.structure, { version: SCHEMA_VERSION, checked: true, missing: [{ type: 'index', name: 'turns_by_session' }] });
    assert.equal(journalVerdict(report), 'The journal lacks 1 part of its structure, so chats may fail to save: keep a copy of the folder shown below and do not delete anything.');
    const md = journalCheckMarkdown(report);
    assert.ok(md.includes('**incomplete.** One part is missing, so saving some changes fails. Keep a copy of the folder; do not delete anything. Missing:\n  - index `turns_by_session`'), md);
  });

  it('a malformed JSON payload is listed with its table, rowid, chat and reason, fences the chat, and the verdict says what to do', async () => {
    const file = copyOf(base);
    let rowid = 0;
    await editJournalFile(file, (db) => {
      rowid = Number(db.exec("SELECT rowid FROM events WHERE run_id = 's1-r1' AND seq = 1")[0]!.values[0]![0]);
      db.exec(`UPDATE events SET payload = '{"text": "hi' WHERE rowid = ${rowid}`);
    });
    const { report, fence } = await checked(file);
    assert.deepEqual(report.unreadableRows, [
      { table: 'events', rowid, rowKey: 's1-r1#1', sessionId: 's1', chatTitle: 'Chat one', reason: 'its payload is not valid JSON', writtenBy: 'damaged', since: T0 + 1 },
    ]);
    assert.equal(journalVerdict(report), '1 chat holds damaged data and takes no new messages (“Chat one”): Agent Chats: Repair Journal… can set it aside; the other chats are fine.');
    assert.equal(fence, 'This chat holds part of a reply that could not be read (it is damaged), so it is left out and the chat cannot be changed. Other chats are not affected.');
    const md = journalCheckMarkdown(report);
    assert.ok(md.includes(`| part of a reply | \`events\` | ${rowid} (\`s1-r1#1\`) | 2023-11-14 22:13 UTC | unknown (damaged) | its payload is not valid JSON |`), md);
  });

  it('a row a newer build wrote (through the log) says to update the extension', async () => {
    const file = copyOf(base);
    await logAsNewerBuild(file, ["UPDATE turns SET status = 'hibernating' WHERE id = 's2-t1'"]);
    const { report } = await checked(file);
    assert.deepEqual(report.unreadableRows.map((r) => [r.table, r.rowKey, r.sessionId, r.reason, r.writtenBy, r.since]), [
      ['turns', 's2-t1', 's2', 'unknown status "hibernating"', 'newer', T0 + 100],
    ]);
    assert.equal(journalVerdict(report), 'Update the extension: 1 chat holds data from a newer version of Agent Chats (“Chat two”).');
  });

  it('a journal of a newer schema (an extra column, read-only here) is checked all the same, and the verdict says why it is read-only', async () => {
    const file = copyOf(base);
    await logAsNewerBuild(file, ['ALTER TABLE turns ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0', `PRAGMA user_version = ${SCHEMA_VERSION + 1}`]);
    const { report } = await checked(file);
    assert.equal(report.schemaVersion, SCHEMA_VERSION + 1);
    assert.deepEqual(report.rowsChecked, ROWS_OF_TWO_CHATS);
    assert.deepEqual([report.unreadableRows, report.ruleFindings], [[], []]);
    assert.equal(journalVerdict(report), `${newerSchemaMessage(SCHEMA_VERSION + 1).replace(/\.$/, '')}.`);
  });

  it('journals moved aside next to the file are listed with their size, time and logs; the reason when this open recorded it', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'journal.sqlite');
    fs.writeFileSync(`${file}.unreadable-1700000000000`, Buffer.alloc(1234, 7));
    fs.writeFileSync(`${file}.unreadable-1700000000000.log.3`, Buffer.alloc(100, 1));
    const notADatabase = 'this is not a database at all, but long enough to be a header of one....................................';
    fs.writeFileSync(file, notADatabase);
    const j = await openJournal(file, { integrityCheckDelayMs: 60_000 });
    let report: JournalCheckReport | undefined;
    try {
      report = await checkJournal(j);
    } finally {
      await j.close();
    }
    assert.ok(report && j.report.quarantined);
    const stamp = Number(/unreadable-(\d+)$/.exec(j.report.quarantined.path)![1]);
    assert.deepEqual(report.files.movedAside, [
      { name: 'journal.sqlite.unreadable-1700000000000', path: `${file}.unreadable-1700000000000`, bytes: 1234, movedAt: 1_700_000_000_000, logs: [{ name: 'journal.sqlite.unreadable-1700000000000.log.3', bytes: 100 }], reason: null },
      { name: `journal.sqlite.unreadable-${stamp}`, path: j.report.quarantined.path, bytes: notADatabase.length, movedAt: stamp, logs: [], reason: j.report.quarantined.reason },
    ]);
    assert.equal(journalVerdict(report), '2 journals that could not be read were moved aside: Agent Chats: Recover Chats from a Moved-Aside Journal… brings their chats back.');
    assert.ok(journalCheckMarkdown(report).includes('1.2 KB, moved aside 2023-11-14 22:13 UTC with `journal.sqlite.unreadable-1700000000000.log.3` (100 bytes).\n'));
    // A later check (another window, another day) still says why: the reason was written beside the file.
    const later = await openJournal(file, { integrityCheckDelayMs: 60_000 });
    try {
      const again = await checkJournal(later);
      assert.deepEqual(again?.files.movedAside.map((a) => a.reason), [null, j.report.quarantined.reason]);
    } finally {
      await later.close();
    }
  });

  it('a torn log tail is reported at its offset as torn; damage with records after it as damage in the middle', async () => {
    const file = copyOf(base);
    const generation = listGenerations(file).at(-1)!;
    const log = logPath(file, generation);
    const clean = scanLogGeneration(log, generation);
    assert.equal(clean.damage, null);
    // The end of the last record: walk the frames as written.
    const bytes = fs.readFileSync(log);
    let end = LOG_HEADER_BYTES;
    while (bytes.readUInt32LE(end) !== 0) end += FRAME_BYTES + bytes.readUInt32LE(end);
    const torn = Buffer.from(bytes);
    torn.writeUInt32LE(500, end);
    torn.writeUInt32LE(12345, end + 4);
    torn.write('{"s":999,"t":[', end + FRAME_BYTES);
    fs.writeFileSync(log, torn);
    const scan = scanLogGeneration(log, generation);
    assert.deepEqual([scan.records, scan.damage], [clean.records, { offset: end, why: 'checksum mismatch', kind: 'torn' }]);
    // A damaged byte inside the first record, with valid records after it: damage in the middle.
    const middle = Buffer.from(bytes);
    middle[LOG_HEADER_BYTES + FRAME_BYTES + 3]! ^= 0xff;
    fs.writeFileSync(log, middle);
    const { report } = await checked(file);
    const found = report.files.logs.find((l) => l.generation === generation);
    assert.deepEqual([found?.records, found?.damage], [0, { offset: LOG_HEADER_BYTES, why: 'checksum mismatch', kind: 'middle' }]);
    assert.ok(journalVerdict(report).startsWith('Part of the journal file is damaged: keep a copy of the folder shown below and do not delete anything'), journalVerdict(report));
  });

  it('a run still running is listed with its owner: dead, unknown, or alive (this window)', async () => {
    const file = copyOf(base);
    const j = await openJournal(file);
    try {
      assert.ok((await j.write('registerInstance', fakeInstance('i-dead', 999_999))).ok);
      assert.ok((await j.write('registerInstance', { ...fakeInstance('i-here', process.pid), processStart: null })).ok);
      const start = (turn: string, run: string, instanceId: string, at: number) =>
        j.write('startTurn', { turn: { id: turn, sessionId: 's2', prompt: 'more', origin: 'prompt', parentTurnId: null, createdAt: at }, run: { id: run, instanceId, provider: 'local' }, endedRunIds: ['r-dead', 'r-unknown'] }); // three runs of one chat in flight, as a build before the busy check could leave
      assert.ok((await start('t-dead', 'r-dead', 'i-dead', T0 + 500)).ok);
      assert.ok((await start('t-unknown', 'r-unknown', 'i-never', T0 + 501)).ok);
      assert.ok((await start('t-here', 'r-here', 'i-here', T0 + 502)).ok);
      const report = await checkJournal(j, { instanceId: 'i-here', isAlive: (i) => i.id === 'i-here' });
      assert.ok(report);
      const run = (runId: string, turnId: string, instanceId: string, owner: string, ownedHere: boolean, startedAt: number) =>
        ({ runId, turnId, sessionId: 's2', chatTitle: 'Chat two', instanceId, owner, ownedHere, startedAt });
      assert.deepEqual(report.runsInFlight, [
        run('r-dead', 't-dead', 'i-dead', 'dead', false, T0 + 500),
        run('r-unknown', 't-unknown', 'i-never', 'unknown', false, T0 + 501),
        run('r-here', 't-here', 'i-here', 'alive', true, T0 + 502),
      ]);
      assert.equal(journalVerdict(report), 'Reload the window: 2 replies were left running by a window that closed (“Chat two”); a reload ends them and offers Continue.');
      assert.deepEqual(report.ruleFindings, []);
    } finally {
      await j.close();
    }
  });

  const RULE_FIXTURES: readonly { readonly sql: string; readonly expect: Omit<RuleFinding, 'rowid'> & { readonly table: string }; readonly verdict?: string }[] = [
    { sql: "INSERT INTO turns (id, session_id, prompt, origin, status, created_at) VALUES ('t-x', 'ghost', 'p', 'prompt', 'completed', 5); INSERT INTO runs (id, turn_id, session_id, instance_id, provider, status, started_at) VALUES ('r-x', 't-x', 'ghost', 'i', 'local', 'completed', 5)",
      expect: { rule: 'turn_chat_missing', table: 'turns', rowKey: 't-x', sessionId: 'ghost', chatTitle: null, detail: 'the turn names chat ghost, which does not exist', since: 5 } },
    { sql: "INSERT INTO turns (id, session_id, prompt, origin, status, created_at) VALUES ('t-x', 's1', 'p', 'prompt', 'completed', 5)",
      expect: { rule: 'turn_without_run', table: 'turns', rowKey: 't-x', sessionId: 's1', chatTitle: 'Chat one', detail: 'the turn has no run', since: 5 } },
    { sql: "UPDATE turns SET status = 'running' WHERE id = 's1-t1'",
      expect: { rule: 'turn_running_without_run', table: 'turns', rowKey: 's1-t1', sessionId: 's1', chatTitle: 'Chat one', detail: 'the turn is running but none of its runs is', since: T0 } },
    { sql: "INSERT INTO events (run_id, seq, session_id, turn_id, kind, payload, at) VALUES ('s2-r1', 99, 's2', 's2-t1', 'run_finished', '{\"status\":\"failed\",\"turnStatus\":\"failed\"}', 7)",
      expect: { rule: 'turn_two_ends', table: 'events', rowKey: 's2-r1#6', sessionId: 's2', chatTitle: 'Chat two', detail: 'turn s2-t1 ends more than once: this run_finished event and 1 more', since: T0 + 106 } },
    { sql: "INSERT INTO runs (id, turn_id, session_id, instance_id, provider, status, started_at) VALUES ('r-x', 'ghost-turn', 's1', 'i', 'local', 'completed', 5)",
      expect: { rule: 'run_turn_missing', table: 'runs', rowKey: 'r-x', sessionId: 's1', chatTitle: 'Chat one', detail: 'the run names turn ghost-turn, which does not exist', since: 5 } },
    { sql: "UPDATE runs SET status = 'running' WHERE id = 's2-r1'",
      expect: { rule: 'run_running_turn_ended', table: 'runs', rowKey: 's2-r1', sessionId: 's2', chatTitle: 'Chat two', detail: 'the run is running but its turn s2-t1 is completed', since: T0 + 100 },
      verdict: 'Reload the window: 1 reply was left running by a window that closed (“Chat two”); a reload ends it and offers Continue. 1 record does not fit together; nothing to do now, keep this report.' },
    { sql: "INSERT INTO invocations (id, run_id, turn_id, session_id, tool, input, status, started_at) VALUES ('inv-x', 's1-r1', 'ghost-turn', 's1', 'run', '{}', 'completed', 5)",
      expect: { rule: 'invocation_turn_missing', table: 'invocations', rowKey: 'inv-x', sessionId: 's1', chatTitle: 'Chat one', detail: 'the tool call names turn ghost-turn, which does not exist', since: 5 } },
    { sql: "INSERT INTO invocations (id, run_id, turn_id, session_id, tool, input, status, started_at) VALUES ('inv-x', 'ghost-run', 's1-t1', 's1', 'run', '{}', 'completed', 5)",
      expect: { rule: 'invocation_run_missing', table: 'invocations', rowKey: 'inv-x', sessionId: 's1', chatTitle: 'Chat one', detail: 'the tool call names run ghost-run, which does not exist', since: 5 } },
    { sql: "INSERT INTO boundary_requests (id, session_id, turn_id, run_id, kind, subject, why, scope_key, status, created_at) VALUES ('b-x', 's1', 'ghost-turn', 's1-r1', 'command', 'ls', 'w', 'k', 'approved', 5)",
      expect: { rule: 'boundary_turn_missing', table: 'boundary_requests', rowKey: 'b-x', sessionId: 's1', chatTitle: 'Chat one', detail: 'the request names turn ghost-turn, which does not exist', since: 5 } },
    { sql: "INSERT INTO boundary_requests (id, session_id, turn_id, run_id, kind, subject, why, scope_key, status, created_at) VALUES ('b-x', 's1', 's1-t1', 'ghost-run', 'command', 'ls', 'w', 'k', 'pending', 5)",
      expect: { rule: 'boundary_run_missing', table: 'boundary_requests', rowKey: 'b-x', sessionId: 's1', chatTitle: 'Chat one', detail: 'the request names run ghost-run, which does not exist', since: 5 } },
    { sql: "INSERT INTO events (run_id, seq, session_id, turn_id, kind, payload, at) VALUES ('ghost-run', 1, 's1', 's1-t1', 'text', '{\"text\":\"x\"}', 5)",
      expect: { rule: 'event_run_missing', table: 'events', rowKey: 'ghost-run#1', sessionId: 's1', chatTitle: 'Chat one', detail: 'the event names run ghost-run, which does not exist', since: 5 } },
    { sql: "INSERT INTO queued_prompts (client_id, session_id, text, state, position, hold, send_now, turn_id, created_at, updated_at) VALUES ('c-gone', 's1', 'hello', 'sent', 1, NULL, 0, 'ghost-turn', 6, 6)",
      expect: { rule: 'queued_prompt_turn_missing', table: 'queued_prompts', rowKey: 'c-gone', sessionId: 's1', chatTitle: 'Chat one', detail: 'the message was sent as turn ghost-turn, which does not exist', since: 6 } },
  ];
  for (const fixture of RULE_FIXTURES) {
    it(`rule ${fixture.expect.rule}: the breaking row is reported, and only it`, async () => {
      const file = copyOf(base);
      let rowid = 0;
      await editJournalFile(file, (db) => {
        db.exec(fixture.sql);
        const key = fixture.expect.table === 'events' ? "run_id || '#' || seq" : fixture.expect.table === 'queued_prompts' ? 'client_id' : 'id';
        rowid = Number(db.exec(`SELECT rowid FROM ${fixture.expect.table} WHERE ${key} = '${fixture.expect.rowKey}'`)[0]!.values[0]![0]);
      });
      const { report } = await checked(file);
      assert.deepEqual(report.ruleFindings, [{ ...fixture.expect, rowid }]);
      assert.deepEqual(report.unreadableRows, []);
      assert.equal(journalVerdict(report), fixture.verdict ?? '1 record does not fit together; nothing to do now, keep this report.');
    });
  }

  it('cancelled, it stops between chunks; this window\'s writes run between its chunks', async () => {
    const file = copyOf(base);
    const steps: string[] = [];
    let asked = 0;
    const { report: whole } = await checked(file, { chunkRows: 1 });
    assert.deepEqual(whole.rowsChecked, ROWS_OF_TWO_CHATS);
    const j = await openJournal(file, { integrityCheckDelayMs: 60_000 });
    try {
      const cancelledAt = await checkJournal(j, { chunkRows: 1, onProgress: (p) => steps.push(p.step), cancelled: () => ++asked > 3 });
      assert.equal(cancelledAt, undefined);
      // Two chats, one row per chunk: two chunks and the empty one that finds the end; the fourth ask stops it.
      assert.deepEqual(steps, ['Reading the journal files', 'Checking chats', 'Checking chats', 'Checking chats']);
      assert.equal(asked, 4);
      let renamed = false;
      const seen: JournalCheckProgress[] = [];
      const report = await checkJournal(j, {
        chunkRows: 1,
        onProgress: (p) => {
          if (p.step === 'Checking prompts' && seen.length === 0) void j.write('renameSession', 's1', 'Renamed').then((r) => (renamed = r.ok));
          if (renamed) seen.push(p);
        },
      });
      assert.ok(report);
      // The rename was answered while the check still had rows to read (events come last).
      assert.ok(seen.some((p) => p.step === 'Checking replies\' events'), JSON.stringify(seen.map((p) => p.step)));
    } finally {
      await j.close();
    }
  });
});
