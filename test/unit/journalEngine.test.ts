/**
 * The journal engine under stress: SIGKILLed writer processes, a corrupted log tail at every byte,
 * two processes interleaving state-dependent writes, rows this build cannot read, a log unreadable
 * in the middle. Not timed: speed is measured by `npm run bench`.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { JournalCore } from '../../src/journal/core';
import { LOG_HEADER_BYTES } from '../../src/journal/logFormat';
import { LogStore, listGenerations, logPath } from '../../src/journal/logStore';
import { loadSqlJs } from '../../src/journal/sqljs';
import { editJournalFile, openJournal, runWriter, tempDir, waitFor, WASM_PATH } from './helpers';

const CRASH_TRIALS = Number(process.env.NAC_CRASH_TRIALS ?? 24);

describe('journal engine: crash safety', () => {
  it(`loses no acknowledged write when the writer is SIGKILLed at random moments (${CRASH_TRIALS} trials)`, async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    let expected = new Set<string>();
    let killed = 0;
    for (let trial = 0; trial < CRASH_TRIALS; trial++) {
      // Small generations so kills also land inside rotations and compactions.
      const run = await runWriter([file, 'sessions', '100000', `t${trial}`, '65536'], { killAfterFirstAckMs: (trial * 97) % 400, killAfterMs: 60_000 });
      if (run.signal === 'SIGKILL') killed++;
      assert.ok(run.signal === 'SIGKILL' || run.code === 0, `writer failed: ${run.err}`);
      for (const i of run.acks) expected.add(`t${trial}-${i}`);
      const journal = await openJournal(file);
      const present = new Set((await journal.read('listSessions')).map((s) => s.id));
      await journal.close();
      const lost = [...expected].filter((id) => !present.has(id));
      assert.deepEqual(lost, [], `trial ${trial}: acknowledged writes lost`);
      expected = present;
    }
    assert.ok(killed >= CRASH_TRIALS / 2, `only ${killed} of ${CRASH_TRIALS} writers were killed mid-run`);
    assert.ok(expected.size > CRASH_TRIALS, 'the writers acknowledged writes');
  });
});

describe('journal engine: corrupted log tails', () => {
  it('recovers exactly when the tail is truncated or flipped at every byte of the last records', async () => {
    const SQL = await loadSqlJs(WASM_PATH);
    const dir = tempDir();
    const base = path.join(dir, 'base.sqlite');
    // Build a journal whose current generation holds 5 committed records.
    const journal = await openJournal(base);
    for (let i = 0; i < 5; i++) {
      assert.ok((await journal.write('createSession', { id: `s${i}`, title: `session ${i}`, provider: 'local', createdAt: i, updatedAt: i })).ok);
    }
    await journal.close();
    const generation = listGenerations(base).at(-1)!;
    const log = fs.readFileSync(logPath(base, generation));
    // Find record boundaries.
    const ends: number[] = [];
    let offset = LOG_HEADER_BYTES;
    for (;;) {
      const len = log.readUInt32LE(offset);
      if (len === 0) break;
      offset += 8 + len;
      ends.push(offset);
    }
    assert.equal(ends.length, 5);
    const firstDamaged = ends[2]!; // damage records 4 and 5 (bytes from the end of record 3)
    let cases = 0;
    const open = (file: string) => LogStore.open({ file, sql: SQL, now: Date.now });
    // Every byte of records 4 and 5: their frame headers (length and CRC) and their payloads.
    const positions = Array.from({ length: ends[4]! - firstDamaged }, (_, k) => firstDamaged + k);
    for (const at of positions) {
      for (const damage of ['truncate', 'flip'] as const) {
        const caseDir = path.join(dir, `c${cases++}`);
        fs.mkdirSync(caseDir);
        const file = path.join(caseDir, 'base.sqlite');
        fs.copyFileSync(base, file);
        const bytes = Buffer.from(log);
        let content: Buffer;
        if (damage === 'truncate') content = bytes.subarray(0, at);
        else {
          bytes[at] = bytes[at]! ^ 0xff;
          content = bytes;
        }
        fs.writeFileSync(logPath(file, generation), content);
        const { store, report } = open(file);
        const ids = (store.db.exec('SELECT id FROM sessions ORDER BY id')[0]?.values ?? []).map((r) => String(r[0]));
        const damagedRecord = at < ends[3]! ? 3 : 4; // 0-based index of the record the damage hits
        if (report.unreadable) {
          // Only a flip in record 4 can leave a valid record 5 behind it: then the journal is read-only.
          assert.equal(damage, 'flip');
          assert.equal(damagedRecord, 3);
          assert.deepEqual(ids, ['s0', 's1', 's2']);
        } else {
          assert.deepEqual(ids, ['s0', 's1', 's2', 's3', 's4'].slice(0, damagedRecord), `${damage} at ${at}`);
          // A flip always leaves a bad frame, which is cut; a truncation may end cleanly at a frame.
          if (damage === 'flip') assert.equal(report.tornTailCut, true, `flip at ${at}`);
        }
        store.close();
        store.db.close();
        if (!report.unreadable) {
          // The cut journal takes new writes and keeps them. The store is the worker's own code
          // (LogStore), run here without a thread: a worker per case made this test 4x slower.
          const w = open(file);
          const core = new JournalCore(w.store.db, (text, params) => w.store.record(text, params));
          w.store.write(() => core.createSession({ id: 'after', title: 'after', provider: 'local', createdAt: 9, updatedAt: 9 }), () => core.takeTouched());
          w.store.close();
          w.store.db.close();
          const again = open(file);
          const n = Number(again.store.db.exec("SELECT count(*) FROM sessions WHERE id = 'after'")[0]!.values[0]![0]);
          assert.equal(n, 1, `${damage} at ${at}: the write after the cut`);
          again.store.close();
          again.store.db.close();
        }
        fs.rmSync(caseDir, { recursive: true, force: true });
      }
    }
    assert.equal(cases, positions.length * 2);
    assert.ok(cases > 200, `only ${cases} corruption cases`);
  });

  it('opens read-only, with history readable, when a record in the middle of the log is corrupt', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const journal = await openJournal(file);
    for (let i = 0; i < 4; i++) await journal.write('createSession', { id: `s${i}`, title: `s${i}`, provider: 'local', createdAt: i, updatedAt: i });
    await journal.close();
    const g = listGenerations(file).at(-1)!;
    const bytes = fs.readFileSync(logPath(file, g));
    const firstLen = bytes.readUInt32LE(LOG_HEADER_BYTES);
    const at = LOG_HEADER_BYTES + 8 + firstLen + 8 + 5; // inside the second record's payload
    bytes[at] = bytes[at]! ^ 0x55;
    fs.writeFileSync(logPath(file, g), bytes);
    const reopened = await openJournal(file);
    assert.equal(reopened.readOnly, true);
    assert.match(reopened.readOnlyReason!, /cannot be read/);
    assert.deepEqual((await reopened.read('listSessions')).map((s) => s.id), ['s0']);
    const refused = await reopened.write('createSession', { id: 'x', title: 'x', provider: 'local', createdAt: 9, updatedAt: 9 });
    assert.equal(!refused.ok && refused.reason, 'read_only');
    await reopened.close();
  });
});

describe('journal engine: several processes', () => {
  it('two processes interleaving state-dependent writes lose nothing and never fork', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const n = Number(process.env.NAC_INTERLEAVE_WRITES ?? 400);
    const [a, b] = await Promise.all([runWriter([file, 'counter', String(n), 'A', '131072']), runWriter([file, 'counter', String(n), 'B', '131072'])]);
    assert.equal(a.code, 0, a.err);
    assert.equal(b.code, 0, b.err);
    // Every acknowledged seq is unique across both processes, and together they are 1..2n.
    const all = [...a.acks, ...b.acks].sort((x, y) => x - y);
    assert.deepEqual(all, Array.from({ length: 2 * n }, (_, i) => i + 1));
    const j1 = await openJournal(file);
    const j2 = await openJournal(file);
    const e1 = (await j1.read('listEvents', 'shared')).map((e) => [e.seq, e.kind === 'notice' ? e.payload.message : '']);
    const e2 = (await j2.read('listEvents', 'shared')).map((e) => [e.seq, e.kind === 'notice' ? e.payload.message : '']);
    assert.deepEqual(e1, e2);
    assert.equal(e1.length, 2 * n);
    assert.equal(new Set(e1.map((e) => e[1])).size, 2 * n);
    await j1.close();
    await j2.close();
  });

  it('a second journal sees the first one\'s commits without writing (external change notice)', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const a = await openJournal(file, { pollIntervalMs: 20 });
    const b = await openJournal(file, { pollIntervalMs: 20 });
    const seen = new Promise<readonly string[]>((resolve) => b.onExternalChange(resolve));
    assert.ok((await a.write('createSession', { id: 'from-a', title: 'a', provider: 'local', createdAt: 1, updatedAt: 1 })).ok);
    assert.deepEqual(await seen, ['from-a']);
    assert.deepEqual((await b.read('listSessions')).map((s) => s.id), ['from-a']);
    await a.close();
    await b.close();
  });

  it("another process's commit is seen when the journal's files change, not a poll later", async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    // A poll this slow never fires during the test: only the folder's watch can bring the change.
    const a = await openJournal(file, { pollIntervalMs: 600_000 });
    const b = await openJournal(file, { pollIntervalMs: 600_000 });
    try {
      const seen = new Promise<readonly string[]>((resolve) => b.onExternalChange(resolve));
      const late = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('window B did not hear of the commit within 10 s')), 10_000).unref());
      assert.ok((await a.write('createSession', { id: 'from-a', title: 'a', provider: 'local', createdAt: 1, updatedAt: 1 })).ok);
      assert.deepEqual(await Promise.race([seen, late]), ['from-a']);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('journals opened by one process share its inotify instance rather than taking one each', async () => {
    // Each thread's event loop has its own inotify instance, and Linux lets a user hold 128: a watch
    // in every journal worker ran a test run out of them (then windows' commits arrived a poll late).
    // Where the watches are made is checked on every platform (fs.watch seen from this thread: a
    // worker's own calls never reach it); what they cost, in inotify instances, where /proc says.
    const inotify = () => fs.existsSync('/proc/self/fd') ? fs.readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`) === 'anon_inode:inotify';
      } catch {
        return false; // the listing's own descriptor, closed by now
      }
    }).length : 0;
    // The module object itself (this file's namespace import is a read-only copy of it).
    const nodeFs = process.getBuiltinModule('node:fs') as { watch: typeof fs.watch };
    const realWatch = nodeFs.watch;
    let watchedHere = 0;
    nodeFs.watch = ((...args: Parameters<typeof fs.watch>) => {
      watchedHere++;
      return realWatch(...args);
    }) as typeof fs.watch;
    const before = inotify();
    try {
      const journals = await Promise.all([1, 2, 3].map(() => openJournal(path.join(tempDir(), 'journal.sqlite'), { pollIntervalMs: 600_000 })));
      try {
        assert.equal(watchedHere, 3, 'each journal\'s folder is watched from the thread that opened it');
        assert.ok(inotify() - before <= 1, `${inotify() - before} inotify instances more for 3 journals`);
      } finally {
        await Promise.all(journals.map((j) => j.close()));
      }
    } finally {
      nodeFs.watch = realWatch;
    }
  });

  it('compaction keeps every record and bounds the log replayed at open', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const j = await openJournal(file, { rotateAtBytes: 16_384 });
    for (let i = 0; i < 300; i++) assert.ok((await j.write('createSession', { id: `s${i}`, title: 'x'.repeat(200), provider: 'local', createdAt: i, updatedAt: i })).ok);
    await j.compactNow();
    await j.close();
    const reopened = await openJournal(file);
    assert.equal((await reopened.read('listSessions')).length, 300);
    assert.ok(reopened.report.recordsReplayed < 100, `replayed ${reopened.report.recordsReplayed} records`);
    await reopened.close();
  });
});

describe('journal engine: the background thread', () => {
  it('runs every background compaction and the integrity check in one thread that does not exit between jobs', async () => {
    // Each worker-thread exit risks Node's teardown deadlock (docs/ARCHITECTURE.md), which then holds every
    // later exit too: a thread per compaction made that risk recur at every log rotation.
    const file = path.join(tempDir(), 'journal.sqlite');
    const j = await openJournal(file, { rotateAtBytes: 16_384, integrityCheckDelayMs: 0 });
    const lines: string[] = [];
    j.onLog((l) => lines.push(l));
    const compactions = () => lines.filter((l) => /compacted \d+ record/.test(l));
    try {
      for (let i = 0; i < 400 && compactions().length < 3; i++) {
        assert.ok((await j.write('createSession', { id: `s${i}`, title: 'x'.repeat(400), provider: 'local', createdAt: i, updatedAt: i })).ok);
        if (i % 20 === 19) await new Promise((r) => setTimeout(r, 30)); // let a paced compaction finish
      }
      await waitFor('three background compactions', () => compactions().length >= 3, 30_000);
      const threads = new Set(compactions().map((l) => /background thread (\d+)/.exec(l)?.[1]));
      assert.equal(threads.size, 1, `compactions ran in threads ${[...threads].join(', ')}: ${compactions().join(' | ')}`);
      assert.match([...threads][0] ?? '', /^\d+$/, 'the log names the thread');
      assert.equal(lines.filter((l) => /failed|could not/.test(l)).length, 0, lines.join('\n'));
      assert.equal(j.readOnly, false, 'the integrity check found the snapshot sound');
    } finally {
      await j.close();
    }
    const reopened = await openJournal(file);
    assert.equal((await reopened.read('listSessions')).length >= 3, true);
    await reopened.close();
  });
});

describe('journal engine: unreadable rows', () => {
  it('fences only the chat with a row this build cannot read', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const j = await openJournal(file);
    for (const id of ['bad', 'good']) {
      await j.write('createSession', { id, title: id, provider: 'local', createdAt: 1, updatedAt: 1 });
      await j.write('startTurn', { turn: { id: `${id}-t`, sessionId: id, prompt: 'p', origin: 'prompt', parentTurnId: null, createdAt: 2 }, run: { id: `${id}-r`, instanceId: 'i', provider: 'local' } });
    }
    await j.close();
    await editJournalFile(file, (db) => db.run("UPDATE turns SET status = 'hibernating' WHERE id = 'bad-t'"));
    const k = await openJournal(file);
    assert.deepEqual(await k.read('listTurns', 'bad'), []);
    // An unknown status name is what a newer build writes: the fence says so, and to update.
    const fence = (await k.read('getFence', 'bad'))!;
    assert.match(fence, /a prompt written by a newer version of Agent Chats/);
    assert.match(fence, /update the extension/);
    assert.doesNotMatch(fence, /turns row|bad-t/, 'no table names or row ids');
    const refused = await k.write('appendEvents', 'bad-r', [{ kind: 'text', payload: { text: 'x' } }], 3);
    assert.equal(!refused.ok && refused.reason, 'row_unreadable');
    assert.equal((await k.read('listTurns', 'good')).length, 1);
    assert.ok((await k.write('appendEvents', 'good-r', [{ kind: 'text', payload: { text: 'x' } }], 3)).ok);
    await k.close();
  });
});

describe('journal engine: a damaged snapshot', () => {
  it('opens, then turns read-only when the background integrity check finds unreadable pages', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const j = await openJournal(file);
    for (let i = 0; i < 200; i++) await j.write('createSession', { id: `s${i}`, title: 'x'.repeat(300), provider: 'local', createdAt: i, updatedAt: i });
    await j.compactNow();
    await j.close();
    const bytes = fs.readFileSync(file);
    const pageSize = bytes.readUInt16BE(16) === 1 ? 65536 : bytes.readUInt16BE(16);
    const pages = bytes.length / pageSize;
    assert.ok(pages > 10, `only ${pages} pages`);
    // Scribble over the header of a page in the middle of the file (its b-tree page type and cell count).
    const at = Math.floor(pages / 2) * pageSize;
    bytes.fill(0xa5, at, at + 16);
    fs.writeFileSync(file, bytes);
    const k = await openJournal(file, { integrityCheckDelayMs: 0 });
    const turnedReadOnly = new Promise<void>((resolve) => k.onExternalChange(() => k.readOnly && resolve()));
    await Promise.race([turnedReadOnly, new Promise((_, reject) => setTimeout(() => reject(new Error('never turned read-only')), 20_000))]);
    assert.match(k.readOnlyReason!, /cannot be read: SQLite integrity check/);
    const refused = await k.write('createSession', { id: 'new', title: 'n', provider: 'local', createdAt: 1, updatedAt: 1 });
    assert.equal(!refused.ok && refused.reason, 'read_only');
    await k.close();
  });
});
