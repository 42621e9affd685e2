/**
 * The writer lease (logStore.ts, lockFile.ts): a window keeps the journal's write lock across
 * consecutive write groups, lets it go as soon as another process waits or it goes idle, and never
 * writes over records appended by a process that broke its lock (the fence). Plus schema migration 2
 * (events as a rowid table). Not timed: speed is measured by `npm run bench`.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { LockFile } from '../../src/journal/lockFile';
import { CompactionStoppedError, compact, listGenerations } from '../../src/journal/logStore';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/journal/schema';
import { loadSqlJs } from '../../src/journal/sqljs';
import { editJournalFile, openJournal, openStore, runWriter, trackedTempDir as tempDir, waitFor, WASM_PATH } from './helpers';

const session = (id: string, at = 1) => ({ id, title: id, provider: 'local', createdAt: at, updatedAt: at });

describe('writer lease: the lock file', () => {
  it('removes a want file nobody refreshed for over a second, and reports a fresh one', () => {
    const dir = tempDir();
    const lock = new LockFile(path.join(dir, 'journal.sqlite.lock'));
    const want = `${lock.file}.want`;
    fs.writeFileSync(want, '');
    assert.equal(lock.othersWaiting(), true);
    const old = new Date(Date.now() - 5000);
    fs.utimesSync(want, old, old);
    assert.equal(lock.othersWaiting(), false);
    assert.equal(fs.existsSync(want), false, 'a stale want file is removed');
  });

  it('never removes a lock file that another process took after breaking this one', () => {
    const dir = tempDir();
    const lock = new LockFile(path.join(dir, 'journal.sqlite.lock'));
    lock.acquire();
    const other = JSON.stringify({ pid: 1, start: 'someone else', host: 'elsewhere' });
    fs.writeFileSync(lock.file, other); // broken and taken by another holder meanwhile
    lock.release();
    assert.equal(fs.readFileSync(lock.file, 'utf8'), other);
  });
});

/** A bare store with a writer lease of `leaseMs`; `write(id)` creates session `id`. */
async function open(file: string, leaseMs: number) {
  const opened = await openStore(file, { leaseMs });
  return { ...opened, write: (id: string) => opened.write((core) => core.createSession(session(id))) };
}

describe('writer lease: the store', () => {

  it('keeps the lock after a logged group, lets it go after a group that logged nothing, and on close', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const { store, core, write } = await open(file, 60_000);
    write('a');
    assert.equal(store.holdsLease, true);
    assert.ok(fs.existsSync(`${file}.lock`));
    store.write(() => core.listSessions(), () => core.takeTouched()); // reads only: nothing logged
    assert.equal(store.holdsLease, false);
    assert.equal(fs.existsSync(`${file}.lock`), false);
    write('b');
    store.close();
    assert.equal(fs.existsSync(`${file}.lock`), false);
    store.db.close();
  });

  it('lets the lock go after a group when another process waits for it', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const { store, write } = await open(file, 60_000);
    write('a');
    assert.equal(store.holdsLease, true);
    fs.writeFileSync(`${file}.lock.want`, ''); // what a waiting process keeps present
    await new Promise((r) => setTimeout(r, 5)); // past the holder's minimum slice
    write('b');
    assert.equal(store.holdsLease, false);
    store.close();
    store.db.close();
  });

  /**
   * The fence. A lease holder skips the catch-up; if its lock was broken meanwhile (it was stopped
   * for over 30 s) and another process appended, writing at its old end would overwrite those
   * records. Without the fence this test loses session `b`.
   */
  it('a holder whose lock was broken catches up instead of writing over the other process\'s record', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const a = await open(file, 60_000);
    a.write('a1');
    assert.equal(a.store.holdsLease, true);
    fs.rmSync(`${file}.lock`); // as a breaker would after ANCIENT_LOCK_MS
    const b = await open(file, 0);
    b.write('b');
    b.done();
    a.write('a2');
    assert.deepEqual(a.core.listSessions().map((s) => s.id).sort(), ['a1', 'a2', 'b']);
    a.done();
    const c = await open(file, 0);
    assert.deepEqual(c.core.listSessions().map((s) => s.id).sort(), ['a1', 'a2', 'b']);
    c.done();
  });
});

describe('writer lease: the fence across generations', () => {
  /**
   * BUG (acknowledged write lost): the fence only looked for records after this process's offset in
   * its own generation. A breaker that started a new generation first (a forced rotation, as opening
   * a new or just-migrated journal does) put its acknowledged record n+1 in generation g+1; the old
   * holder then wrote its own n+1 into g, and every later replay skipped the breaker's record.
   */
  it('a holder whose lock was broken does not write over a record the breaker put in the next generation', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const a = await open(file, 60_000);
    a.write('a1');
    assert.equal(a.store.holdsLease, true);
    fs.rmSync(`${file}.lock`); // as a breaker would after ANCIENT_LOCK_MS
    const b = await open(file, 0);
    assert.equal(b.store.rotateNow(), true);
    b.write('b');
    b.done();
    a.write('a2');
    a.done();
    const c = await open(file, 0);
    const ids = c.core.listSessions().map((s) => s.id).sort();
    c.done();
    assert.deepEqual(ids, ['a1', 'a2', 'b']);
  });
});

describe('the snapshot\'s spare room: a short snapshot is quarantined', () => {
  /**
   * BUG (a damaged file served as healthy): the live database is opened with spare zero bytes after
   * the snapshot; a snapshot missing its last pages then looked complete to SQLite, opened writable
   * and failed on reads ("database disk image is malformed") instead of being set aside at open.
   */
  it('a snapshot missing its last page is still quarantined at open', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const j = await openJournal(file);
    for (let i = 0; i < 300; i++) assert.ok((await j.write('createSession', { ...session(`s${i}`, i), title: `title ${i} ${'y'.repeat(300)}` })).ok);
    await j.close();
    await editJournalFile(file, () => undefined); // everything folded into the snapshot
    fs.truncateSync(file, fs.statSync(file).size - 4096);
    const k = await openJournal(file);
    try {
      assert.ok(k.report.quarantined, `not quarantined: ${JSON.stringify(k.report)}`);
      assert.deepEqual(await k.read('listSessions'), []);
      assert.ok((await k.write('createSession', session('fresh'))).ok);
    } finally {
      await k.close();
    }
  });
});

describe('writer lease: windows', () => {
  /** Without the idle release, the other process waits for the lock until it gives up (3 s). */
  it('an idle window lets another window write right away', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const a = await openJournal(file, { leaseMs: 60_000 });
    try {
      assert.ok((await a.write('createSession', session('a'))).ok);
      const b = await runWriter([file, 'sessions', '3', 'b'], { env: { NAC_LOCK_TIMEOUT_MS: '3000' } });
      assert.equal(b.code, 0, `the other window's writes were refused: ${b.out}${b.err}`);
      assert.equal(b.acks.length, 3);
    } finally {
      await a.close();
    }
  });

  /** Without the want file, a window writing without pause would hold its lease for good. */
  it('a window writing without pause still lets another window in', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const a = await openJournal(file, { leaseMs: 60_000, leaseIdleMs: 60_000 });
    let stop = false;
    let written = 0;
    // No idle release, no lease expiry: only the want file makes this window let go.
    let next = 0;
    const busy = Promise.all(Array.from({ length: 4 }, async () => {
      while (!stop) {
        const r = await a.write('createSession', session(`a${next++}`));
        assert.ok(r.ok, 'the busy window keeps writing');
        written++;
      }
    }));
    try {
      // A refused write ends the busy writers: fail with it rather than wait for 20 writes forever.
      await Promise.race([waitFor('20 writes of the busy window', () => written >= 20), busy.then(() => assert.fail('the busy window stopped writing'))]);
      const b = await runWriter([file, 'sessions', '10', 'b'], { env: { NAC_LOCK_TIMEOUT_MS: '5000' } });
      assert.equal(b.code, 0, `the other window's writes were refused: ${b.out}${b.err}`);
      assert.equal(b.acks.length, 10);
    } finally {
      stop = true;
      await busy;
      await a.close();
    }
    const c = await openJournal(file);
    const ids = new Set((await c.read('listSessions')).map((s) => s.id));
    await c.close();
    assert.equal(ids.size, written + 10);
  });
});

describe('schema migration 2: events as a rowid table', () => {
  it('keeps every event, in order, and shrinks the file', async () => {
    const SQL = await loadSqlJs(WASM_PATH);
    const dir = tempDir();
    const file = path.join(dir, 'journal.sqlite');
    // A version-1 journal as an older build left it, with ~1.4 KB text events.
    const db = new SQL.Database();
    db.exec(MIGRATIONS[0]!.sql);
    db.exec('PRAGMA user_version = 1');
    db.run("INSERT INTO sessions (id, title, provider, created_at, updated_at) VALUES ('s', 't', 'local', 1, 1)");
    db.run("INSERT INTO turns (id, session_id, prompt, origin, status, created_at) VALUES ('t', 's', 'p', 'prompt', 'completed', 1)");
    db.run("INSERT INTO runs (id, turn_id, session_id, instance_id, provider, status, started_at) VALUES ('r', 't', 's', 'i', 'local', 'completed', 1)");
    const text = (i: number) => `${i} `.padEnd(1400, 'lorem ipsum ');
    for (let i = 600; i >= 1; i--) {
      db.run("INSERT INTO events (run_id, seq, session_id, turn_id, kind, payload, at) VALUES ('r', ?, 's', 't', 'text', ?, ?)", [i, JSON.stringify({ text: text(i) }), i]);
    }
    fs.writeFileSync(file, db.export());
    db.close();
    const before = fs.statSync(file).size;

    const j = await openJournal(file);
    try {
      assert.equal(j.report.versionFound, 1);
      assert.equal(j.report.version, SCHEMA_VERSION);
      const events = await j.read('listEvents', 's');
      assert.deepEqual(events.map((e) => e.seq), Array.from({ length: 600 }, (_, i) => i + 1));
      assert.deepEqual(events.map((e) => (e.payload as { text: string }).text), Array.from({ length: 600 }, (_, i) => text(i + 1)));
      const added = await j.write('appendEvents', 'r', [{ kind: 'text', payload: { text: 'after' } }], 2);
      assert.ok(added.ok);
      assert.equal(added.value[0]!.seq, 601);
    } finally {
      await j.close();
    }
    const after = fs.statSync(file).size;
    assert.ok(after < before * 0.75, `the migrated, compacted journal is smaller (${before} -> ${after} bytes)`);
  });
});

describe('full disk at a rotation, closing during a compaction', () => {
  /**
   * BUG (a durable write reported as failed): the record was appended, fdatasync'ed and committed,
   * then starting the next log generation threw ENOSPC out of the write group, so every write of
   * it answered an error although it was in the journal (a retry would have stored it twice).
   */
  it('writes stay acknowledged when the next log generation cannot be created', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const j = await openJournal(file, { rotateAtBytes: 8000, faultInjection: true, integrityCheckDelayMs: 60_000 });
    const lines: string[] = [];
    j.onLog((line) => lines.push(line));
    try {
      fs.writeFileSync(`${file}.fault-enospc-rotate`, '');
      for (let i = 0; i < 20; i++) {
        const r = await j.write('createSession', { ...session(`s${i}`), title: 'x'.repeat(1000) });
        assert.ok(r.ok, `write ${i} was not acknowledged`);
      }
      assert.ok(lines.some((l) => l.includes('will retry')), 'the failed rotation is logged');
      fs.rmSync(`${file}.fault-enospc-rotate`);
      assert.ok((await j.write('createSession', session('after'))).ok);
    } finally {
      await j.close();
    }
    const k = await openJournal(file);
    const ids = new Set((await k.read('listSessions')).map((s) => s.id));
    await k.close();
    assert.equal(ids.size, 21);
  });

  it('a compaction told to stop releases its lock and leaves the snapshot and logs as they were', async () => {
    const sql = await loadSqlJs(WASM_PATH);
    const file = path.join(tempDir(), 'journal.sqlite');
    const opened = await openStore(file, { rotateAtBytes: 8000 });
    for (let i = 0; i < 12; i++) opened.write((core) => core.createSession({ ...session(`s${i}`), title: 'x'.repeat(2000) }));
    const below = opened.store.generation;
    opened.done();
    const before = fs.readdirSync(path.dirname(file)).sort();
    const snapshot = fs.existsSync(file) ? fs.readFileSync(file) : undefined;
    for (const stopAt of [1, 2, 3, 6]) {
      let checks = 0;
      assert.throws(() => compact(sql, file, below, 0, { chunkBytes: 4096, pauseMs: 0, shouldStop: () => ++checks >= stopAt }), CompactionStoppedError);
      assert.deepEqual(fs.readdirSync(path.dirname(file)).sort(), before, `stopped at check ${stopAt}: files changed`);
      assert.deepEqual(fs.existsSync(file) ? fs.readFileSync(file) : undefined, snapshot);
    }
    assert.ok(compact(sql, file, below), 'a compaction afterwards takes the lock at once');
  });

  /**
   * BUG (compactions stalled for 30 s): closing terminated a background compactor mid-compaction;
   * its lock file stayed behind naming a live process, so every window's compaction skipped (and a
   * forced one waited) until the lock aged out after 30 s.
   */
  it('closing while a background compaction runs leaves no compaction lock behind', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    for (let attempt = 0; attempt < 3; attempt++) {
      const j = await openJournal(file, { rotateAtBytes: 256 * 1024, integrityCheckDelayMs: 60_000 });
      const generations = () => listGenerations(file).length;
      // ~6 MB of chats, then one more rotation: the background compaction of it is still running
      // when close is called right after.
      let n = 0;
      while (fs.existsSync(file) ? fs.statSync(file).size < 6 * 1024 * 1024 : true) {
        const before = generations();
        while (generations() === before) assert.ok((await j.write('createSession', { ...session(`a${attempt}-${n++}`), title: 'x'.repeat(3000) })).ok);
        if (n > 5000) break;
      }
      const before = generations();
      while (generations() === before) assert.ok((await j.write('createSession', { ...session(`b${attempt}-${n++}`), title: 'x'.repeat(3000) })).ok);
      await j.close();
      assert.equal(fs.existsSync(`${file}.compact.lock`), false, `attempt ${attempt}: a compaction lock was left behind`);
    }
  });
});
