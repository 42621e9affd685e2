/**
 * The durable write's own path (logStore.ts, worker.ts): what it asks of the file system between
 * writes, when it acknowledges, and what opening a current journal does not need. Not timed: the
 * cost of each step is measured by `npm run bench` ("where a write's time goes").
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { LockFile } from '../../src/journal/lockFile';
import { processStartTime } from '../../src/journal/processInfo';
import { logPath, type Outcome } from '../../src/journal/logStore';
import { openJournal, openStore, trackedTempDir as tempDir } from './helpers';

const session = (id: string, at = 1) => ({ id, title: id, provider: 'local', createdAt: at, updatedAt: at });

/**
 * Counts calls of `fs[name]` while `fn` runs. Patches Node's own module object, which the store's
 * compiled `import * as fs` reads through on every call.
 */
function counting<T>(names: readonly ('fstatSync' | 'statSync' | 'lstatSync')[], fn: () => T): { value: T; calls: { name: string; arg: unknown }[] } {
  const calls: { name: string; arg: unknown }[] = [];
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const fsAny = require('node:fs') as Record<string, (...a: unknown[]) => unknown>;
  const originals = names.map((name) => [name, fsAny[name]!] as const);
  for (const [name, original] of originals) {
    fsAny[name] = (...args: unknown[]) => {
      calls.push({ name, arg: args[0] });
      return original.apply(fs, args);
    };
  }
  try {
    return { value: fn(), calls };
  } finally {
    for (const [name, original] of originals) fsAny[name] = original;
  }
}

describe('the write path', () => {
  it('never asks for the log file\'s attributes between writes (a stat would make the next fdatasync slower)', async () => {
    // Linux 6.13+ (multigrain timestamps): once a file's times were read, its next write stamps a
    // fine-grained mtime, and the fdatasync after it cost ~0.04 ms more here (0.09 → 0.13 ms).
    // The writer lease's fence ran fstat on the log file before every write.
    const dir = tempDir();
    const s = await openStore(path.join(dir, 'journal.sqlite'), { leaseMs: 60_000 });
    try {
      s.write((core) => core.createSession(session('s0')));
      const { calls } = counting(['fstatSync', 'statSync', 'lstatSync'], () => {
        for (let i = 1; i <= 30; i++) s.write((core) => core.createSession(session(`s${i}`, i)));
      });
      const log = logPath(path.join(dir, 'journal.sqlite'), s.store.generation);
      const onLog = calls.filter((c) => c.name === 'fstatSync' || c.arg === log);
      assert.deepEqual(onLog, [], `stat calls on the log while writing: ${JSON.stringify(onLog.slice(0, 3))}`);
      assert.equal(s.store.holdsLease, true, 'the writes ran under one lease (the fence ran before each)');
    } finally {
      s.done();
    }
  });

  it('acknowledges a group once its record is on disk, before the in-memory COMMIT', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'journal.sqlite');
    const s = await openStore(file);
    try {
      const seen: { outcomes: readonly Outcome[]; onDisk: boolean }[] = [];
      const { outcomes, acknowledged } = s.store.writeGroup(
        [() => s.core.createSession(session('durable-first')), () => { throw new Error('this one fails'); }],
        () => s.core.takeTouched(),
        (acked) => seen.push({ outcomes: [...acked], onDisk: fs.readFileSync(logPath(file, s.store.generation), 'latin1').includes('durable-first') }),
      );
      assert.equal(acknowledged, true);
      assert.equal(seen.length, 1, 'called once');
      assert.equal(seen[0]!.onDisk, true, 'the record was in the log file when the caller was told');
      assert.deepEqual(seen[0]!.outcomes.map((o) => o.ok), [true, false], 'each transaction keeps its own outcome');
      assert.deepEqual(outcomes.map((o) => o.ok), [true, false]);
      assert.equal(s.core.getSession('durable-first')?.title, 'durable-first', 'committed after the acknowledgement');
    } finally {
      s.done();
    }
  });

  it('does not acknowledge early a group that logged nothing or whose append failed', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'journal.sqlite');
    const s = await openStore(file, { faultInjection: true });
    try {
      let called = 0;
      const failing = s.store.writeGroup([() => { throw new Error('no'); }], () => s.core.takeTouched(), () => called++);
      assert.equal(failing.acknowledged, false);
      fs.writeFileSync(`${file}.fault-enospc`, '');
      const full = s.store.writeGroup([() => s.core.createSession(session('lost'))], () => s.core.takeTouched(), () => called++);
      assert.equal(full.acknowledged, false);
      assert.equal(full.outcomes[0]!.ok, false, 'the full disk is a refusal');
      assert.equal(called, 0);
      assert.equal(s.core.getSession('lost'), undefined, 'rolled back');
    } finally {
      s.done();
    }
  });

  it('opens a journal already at the current schema while another live process holds the write lock', async () => {
    // Opening took the write lock to run the (empty) migration check, so a window opening while
    // another wrote waited for that lock (and failed after lockTimeoutMs if it was never let go).
    const dir = tempDir();
    const file = path.join(dir, 'journal.sqlite');
    const first = await openJournal(file);
    assert.equal((await first.write('createSession', session('before'))).ok, true);
    await first.close();
    const holder = { pid: process.pid, start: processStartTime(process.pid), host: os.hostname() };
    fs.writeFileSync(`${file}.lock`, JSON.stringify(holder)); // a live holder that never lets go
    try {
      const t0 = Date.now();
      const second = await openJournal(file, { lockTimeoutMs: 4000 });
      const waited = Date.now() - t0;
      try {
        assert.equal(second.readOnly, false);
        assert.ok(waited < 4000, `open waited ${waited} ms for the lock`);
        assert.equal((await second.read('getSession', 'before'))?.title, 'before');
        const phases = second.report.phases;
        for (const [name, ms] of Object.entries(phases)) assert.ok(Number.isFinite(ms) && ms >= 0, `${name} = ${ms}`);
        const parts = phases.startMs + phases.wasmMs + phases.sqljsMs + phases.readMs + phases.loadMs + phases.replayMs + phases.migrateMs;
        assert.ok(parts <= waited + 1, `the phases (${parts.toFixed(1)} ms) fit in the open (${waited} ms)`);
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(`${file}.lock`, { force: true });
    }
  });
});

describe('the lock file on a full disk', () => {
  it('leaves no empty lock file behind when writing its content fails', () => {
    // ENOSPC after the O_EXCL create (the inode fits, its content does not) left an empty lock file
    // that every process then took for one being written, and waited 2 s for it to age out.
    const dir = tempDir();
    const lock = new LockFile(path.join(dir, 'journal.sqlite.lock'));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const nodeFs = require('node:fs') as { writeSync: (...a: unknown[]) => number };
    const original = nodeFs.writeSync;
    nodeFs.writeSync = () => {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    };
    try {
      assert.throws(() => lock.acquire(1000), /ENOSPC/);
    } finally {
      nodeFs.writeSync = original;
    }
    assert.equal(fs.existsSync(lock.file), false, 'no empty lock file left');
    const t0 = Date.now();
    lock.acquire(5000);
    assert.ok(Date.now() - t0 < 1000, `the next acquire waited ${Date.now() - t0} ms`);
    lock.release();
  });
});
