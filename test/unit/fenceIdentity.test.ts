/**
 * The writer lease's fence and read-only reporting hold across a generation file re-created under
 * the same name (an emptied folder, a quarantine), a poll that caught up on a breaker's records, and a newer build's migration met by a write's own
 * catch-up. Each failed before its fix (logStore.ts `isDetached`, `fenceHolds`; worker.ts).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { JournalCore } from '../../src/journal/core';
import { processStartTime } from '../../src/journal/processInfo';
import { SCHEMA_VERSION } from '../../src/journal/schema';
import { logAsNewerBuild, openJournal, openStore, trackedTempDir as tempDir } from './helpers';

const session = (id: string, at = 1) => ({ id, title: id, provider: 'local', createdAt: at, updatedAt: at });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the fence: generation names reused', () => {
  /**
   * When the folder's files are deleted and another window starts a fresh journal there (its first
   * generation has the same name), a check of the name alone lets the lease holder's fence hold and
   * its poll never reload: it keeps writing into the deleted file, and its acknowledged writes are
   * gone. The header's random id tells the two files apart.
   */
  it('a holder whose generation was deleted and re-created by a fresh journal does not write into the deleted file', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'journal.sqlite');
    const a = await openStore(file, { leaseMs: 60_000 });
    a.write((core) => core.createSession(session('a1')));
    assert.equal(a.store.holdsLease, true);
    const generation = a.store.generation;
    for (const name of fs.readdirSync(dir)) fs.rmSync(path.join(dir, name), { force: true });
    // Another window starts a fresh journal in the emptied folder and writes to it.
    const b = await openStore(file);
    assert.equal(b.store.generation, generation, 'the fresh journal reuses the generation name');
    b.write((core) => core.createSession(session('b1')));
    b.done();
    // The core is built inside the transaction: a catch-up may have reloaded the database (the
    // worker rebinds its core in onReload).
    a.store.write(() => new JournalCore(a.store.db, (t, p) => a.store.record(t, p)).createSession(session('a2')), () => []); // acknowledged
    a.done();
    const c = await openStore(file);
    const ids = c.core.listSessions().map((s) => s.id).sort();
    c.done();
    assert.ok(ids.includes('a2'), `an acknowledged write is lost (the journal holds ${JSON.stringify(ids)})`);
  });

  /**
   * Another window that finds the snapshot unreadable quarantines it with its logs (renames them)
   * and starts a fresh journal, whose forced first compaction leaves it at generation 2 — the very
   * name a small journal's open window writes to. That window's fence and catch-up ask for the
   * name, find the fresh file, and go on writing into the quarantined log: every later write of it
   * is acknowledged but absent from the journal everyone else reads (a renamed file keeps its
   * links, so fstat().nlink missed it too).
   */
  it('a window keeps writing into a log another window quarantined (generation name reused)', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    // a's poll is slowed and its folder not watched to make the race deterministic: with a 20-50 ms poll, a catch-up that
    // runs between b's quarantine and b's first rotation reloads (the name is briefly absent).
    const a = await openJournal(file, { pollIntervalMs: 60_000, watchFolder: false, integrityCheckDelayMs: 60_000 });
    try {
      assert.ok((await a.write('createSession', session('a1'))).ok);
      // The snapshot's first page is damaged on disk (after a loaded it).
      const fd = fs.openSync(file, 'r+');
      fs.writeSync(fd, Buffer.alloc(100, 0x5a), 0, 100, 0);
      fs.closeSync(fd);
      const b = await openJournal(file, { integrityCheckDelayMs: 60_000 });
      assert.ok(b.report.quarantined, 'b quarantined the snapshot');
      assert.ok((await b.write('createSession', session('b1'))).ok);
      await b.close();
      const w = await a.write('createSession', session('a2'));
      if (w.ok) {
        await a.close();
        const c = await openJournal(file, { integrityCheckDelayMs: 60_000 });
        const ids = (await c.read('listSessions')).map((s) => s.id).sort();
        await c.close();
        assert.ok(ids.includes('a2'), `a2 was acknowledged but the journal holds ${JSON.stringify(ids)}`);
      }
    } finally {
      await a.close();
    }
  });
});

describe('read-only: a newer schema reached through a write\'s catch-up', () => {
  /**
   * The write's catch-up applies the newer build's migration; `checkWritable` sets the worker's
   * readOnlyReason and the write is refused — but the migration touches no session and
   * `checkVersion()` after the group sees no change, so no `external` message carries the reason:
   * `Journal.readOnly` (recovery, liveState, the banner) stays false for good.
   */
  it('Journal.readOnly turns true when a write\'s catch-up replayed a newer migration', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const old = await openJournal(file, { pollIntervalMs: 60_000, watchFolder: false });
    try {
      await logAsNewerBuild(file, ['ALTER TABLE sessions ADD COLUMN archived INTEGER NOT NULL DEFAULT 0', `PRAGMA user_version = ${SCHEMA_VERSION + 1}`]);
      const w = await old.write('createSession', session('x'));
      assert.equal(!w.ok && w.reason, 'read_only');
      await old.read('listSessions');
      await sleep(50);
      assert.equal(old.readOnly, true, 'the write was refused read_only, yet the journal door still says writable');
    } finally {
      await old.close();
    }
  });
});

describe('the fence: after the poll caught up', () => {
  /**
   * The fence compares the file with `this.offset`, which the poll's catch-up advances. A holder
   * whose lock was broken, and whose poll then applied the breaker's records, sees "nothing after my
   * offset" and writes under its old lease while the breaker (alive) holds the lock.
   */
  it('a holder whose lock was broken does not write while another live process holds the lock', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const a = await openStore(file, { leaseMs: 60_000, lockTimeoutMs: 300 });
    a.write((core) => core.createSession(session('a1')));
    assert.equal(a.store.holdsLease, true);
    fs.rmSync(`${file}.lock`); // broken (as after ANCIENT_LOCK_MS)
    const b = await openStore(file);
    b.write((core) => core.createSession(session('b1')));
    b.done();
    // The breaker (a live process: pid 1) now holds the lock.
    const other = { pid: 1, start: processStartTime(1), host: os.hostname() };
    fs.writeFileSync(`${file}.lock`, JSON.stringify(other));
    a.store.catchUp(); // the worker's poll
    let wrote = false;
    try {
      a.write((core) => core.createSession(session('a2')));
      wrote = true;
    } catch {
      /* refused: the lock is another live process's */
    }
    a.done();
    fs.rmSync(`${file}.lock`, { force: true });
    assert.equal(wrote, false, 'a wrote while another live process held the lock');
  });
});
