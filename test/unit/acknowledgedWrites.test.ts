/**
 * A write the journal acknowledged is never lost: not when several windows (worker threads and child
 * processes) share the log, a suspended window wakes up after rotations, a stale lock is broken, or
 * the disk refuses part of a write. Real files, real worker threads, real child processes; each test
 * stays well under 60 s.
 */
import { strict as assert } from 'node:assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { describe, it } from 'node:test';
import { CHILD_NODE_FLAGS, openJournal, trackedTempDir as tempDir, WASM_PATH, WORKER_PATH } from './helpers';

const JOURNAL_JS = path.resolve(__dirname, '../../src/journal/journal.js');
const LOCKFILE_JS = path.resolve(__dirname, '../../src/journal/lockFile.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const session = (id: string, titleBytes = 10) => ({ id, title: 'x'.repeat(titleBytes), provider: 'local', createdAt: 1, updatedAt: 1 });

describe('acknowledged writes survive several windows', () => {
  /**
   * BUG (data loss, two windows, default settings): `LogFile.allocated` is read once when a process
   * opens a generation and never refreshed. When window A has grown the generation past its first
   * 1 MiB chunk, window B's next write still believes the file is 1 MiB long and "preallocates" by
   * writing 1 MiB of zeros at the old end — over A's acknowledged records. Reopening cuts the log at
   * the zeroed region ("torn tail") and every record after it, B's own included, is gone.
   */
  it("a second window's write past the first 1 MiB of a generation does not wipe acknowledged records", async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const a = await openJournal(file);
    const b = await openJournal(file);
    const acked: string[] = [];
    try {
      for (let i = 0; i < 700; i++) {
        const r = await a.write('createSession', session(`a${i}`, 2000));
        assert.ok(r.ok);
        acked.push(`a${i}`);
      }
      const r = await b.write('createSession', session('b0'));
      assert.ok(r.ok);
      acked.push('b0');
    } finally {
      await a.close();
      await b.close();
    }
    const c = await openJournal(file);
    const present = new Set((await c.read('listSessions')).map((s) => s.id));
    await c.close();
    assert.deepEqual(acked.filter((id) => !present.has(id)), [], 'acknowledged writes lost');
  });

  /**
   * BUG (data loss): `catchUp` only looks for generation g+1. A process that did not run (its window
   * was suspended; here a real child process under SIGSTOP) while another window rotated twice and
   * compacted g+1 away stays on its deleted generation g forever: its reads never see new history,
   * and its writes are appended to the unlinked file through its open descriptor and acknowledged.
   */
  it('a window that was suspended across two rotations neither stays blind nor writes into a deleted log', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const a = await openJournal(file, { rotateAtBytes: 16_384 });
    const childCode = `
      const { Journal } = require(${JSON.stringify(JOURNAL_JS)});
      (async () => {
        const j = await Journal.open({ file: process.argv[1], wasmPath: ${JSON.stringify(WASM_PATH)}, workerPath: ${JSON.stringify(WORKER_PATH)} });
        process.stdout.write('ready\\n');
        const rl = require('readline').createInterface({ input: process.stdin });
        for await (const line of rl) {
          if (line === 'count') process.stdout.write('count ' + (await j.read('listSessions')).length + '\\n');
          if (line === 'write') { const r = await j.write('createSession', { id: 'b0', title: 'b', provider: 'local', createdAt: 1, updatedAt: 1 }); process.stdout.write(r.ok ? 'ack\\n' : 'refused\\n'); }
          if (line === 'quit') { await j.close(); process.exit(0); }
        }
      })();`;
    const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, '-e', childCode, file], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const waitFor = async (s: string) => {
      const end = Date.now() + 20_000;
      while (!out.includes(s)) {
        if (Date.now() > end) throw new Error(`child never printed ${s}: ${out}`);
        await sleep(10);
      }
    };
    const acked: string[] = [];
    try {
      await waitFor('ready');
      child.kill('SIGSTOP');
      for (let i = 0; i < 40; i++) {
        const r = await a.write('createSession', session(`a${i}`, 3000));
        assert.ok(r.ok);
        acked.push(`a${i}`);
      }
      await sleep(500); // background compactions finish
      child.kill('SIGCONT');
      await sleep(200);
      child.stdin!.write('count\n');
      await waitFor('count ');
      child.stdin!.write('write\n');
      await waitFor('ack');
      acked.push('b0');
      child.stdin!.write('quit\n');
      await new Promise((r) => child.once('exit', r));
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await a.close();
    }
    const seen = Number(/count (\d+)/.exec(out)?.[1]);
    const c = await openJournal(file);
    const present = new Set((await c.read('listSessions')).map((s) => s.id));
    await c.close();
    assert.deepEqual(acked.filter((id) => !present.has(id)), [], 'acknowledged writes lost');
    assert.equal(seen, 40, 'the resumed window reads stale history');
  });

  /**
   * BUG (data loss, no crash needed): the lock breaks a stale holder with read-compare-unlink, which
   * is not atomic. Two processes that both find the same dead holder can interleave so that one
   * unlinks the lock the other has just taken; both then "hold" the journal lock at once (and would
   * append at the same offset, the second overwriting the first's acknowledged record). Real child
   * processes, each holding the LockFile for 30 ms and checking for overlap with an O_EXCL marker.
   */
  it('breaking a stale lock never lets two processes hold it at once', async () => {
    const dir = tempDir('nac-lock-');
    const lockFile = path.join(dir, 'journal.sqlite.lock');
    // Each child takes trials from its stdin ("<startAt>\n"): asleep until just before the start
    // line, then spinning to it, so the four reach the stale lock together; it answers each trial
    // with one line. Children live through every trial: four spawns a trial cost more CPU than the
    // trials themselves.
    const childCode = `
      const fs = require('fs');
      const { LockFile } = require(${JSON.stringify(LOCKFILE_JS)});
      const file = process.argv[1];
      const nap = new Int32Array(new SharedArrayBuffer(4));
      require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
        const startAt = Number(line);
        const wait = startAt - 5 - Date.now();
        if (wait > 0) Atomics.wait(nap, 0, 0, wait);
        while (Date.now() < startAt) {}
        const lock = new LockFile(file);
        lock.acquire(5000);
        let overlap = false;
        try { fs.closeSync(fs.openSync(file + '.marker', 'wx')); } catch { overlap = true; }
        Atomics.wait(nap, 0, 0, 30); // held 30 ms
        if (!overlap) fs.rmSync(file + '.marker');
        lock.release();
        process.stdout.write(overlap ? 'OVERLAP\\n' : 'ok\\n');
      });`;
    const children = Array.from({ length: 4 }, () => {
      const c: ChildProcess = spawn(process.execPath, [...CHILD_NODE_FLAGS, '-e', childCode, lockFile], { stdio: ['pipe', 'pipe', 'inherit'] });
      // Its answers one line at a time; 'EXITED' once its output ended (it exited).
      const lines = readline.createInterface({ input: c.stdout! })[Symbol.asyncIterator]();
      const next = async () => {
        const line = await lines.next();
        return line.done ? 'EXITED' : line.value;
      };
      return { c, next };
    });
    const deadline = Date.now() + 45_000;
    let trials = 0;
    let overlaps = 0;
    try {
      // The first trial waits for the children to load; later ones start 50 ms after they are set up.
      for (let lead = 1500; Date.now() < deadline && overlaps === 0 && trials < 120; lead = 50) {
        trials++;
        const deadPid = spawnSync('true').pid;
        fs.writeFileSync(lockFile, JSON.stringify({ pid: deadPid, start: '1', host: os.hostname() }));
        const startAt = Date.now() + lead;
        for (const { c } of children) c.stdin!.write(`${startAt}\n`);
        const outs = await Promise.all(children.map(({ next }) => next()));
        assert.ok(!outs.includes('EXITED'), `a child exited during trial ${trials}`);
        if (outs.includes('OVERLAP')) overlaps++;
        fs.rmSync(`${lockFile}.marker`, { force: true });
      }
    } finally {
      for (const { c } of children) c.kill();
      await Promise.all(children.map(({ c }) => c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : undefined));
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.equal(overlaps, 0, `two holders of the journal lock at once (after ${trials} trials)`);
    assert.ok(trials >= 60, `only ${trials} trials in 45 s`);
  });
});

describe('acknowledged writes are readable back after reopening', () => {
  /**
   * BUG (data loss + permanent read-only): the writer frames and acknowledges a record of any size,
   * but readers reject any frame longer than MAX_RECORD_BYTES (64 MiB) as an "implausible length".
   * One 65 MiB event (a long command output batch, a huge provider state) is acknowledged, then at
   * the next open it is unreadable: the journal turns read-only and loses it and every later write.
   */
  it('a write the journal acknowledged is readable after reopening, whatever its size', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const j = await openJournal(file);
    assert.ok((await j.write('createSession', session('s'))).ok);
    assert.ok((await j.write('startTurn', {
      turn: { id: 't', sessionId: 's', prompt: 'p', origin: 'prompt', parentTurnId: null, createdAt: 2 },
      run: { id: 'r', instanceId: 'i', provider: 'local' },
    })).ok);
    const big = await j.write('appendEvents', 'r', [{ kind: 'invocation_output', payload: { invocationId: 'x', chunk: 'y'.repeat(65 * 1024 * 1024) } }], 3);
    const after = await j.write('createSession', session('after'));
    await j.close();
    if (!big.ok) return; // refusing an oversized write up front is a correct fix too
    assert.ok(after.ok);
    const k = await openJournal(file);
    try {
      assert.equal(k.readOnlyReason, null);
      assert.equal((await k.read('listEvents', 's')).length, 1);
      assert.ok((await k.read('listSessions')).some((s) => s.id === 'after'));
    } finally {
      await k.close();
    }
  });

  /**
   * BUG (data loss under a file-size quota): `LogFile.writeDurably` ignores the byte count that
   * `fs.writeSync` returns. A write that crosses a file-size limit (RLIMIT_FSIZE with SIGXFSZ ignored,
   * as under `ulimit -f`; disk quotas behave alike) is short, is fdatasync'ed, and is acknowledged;
   * at the next open the torn record is cut. (The preallocation's zero fill is short too, unnoticed.)
   */
  it('a short write (file-size limit) is never acknowledged', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'journal.sqlite');
    const childCode = `
      const { Journal } = require(${JSON.stringify(JOURNAL_JS)});
      (async () => {
        const j = await Journal.open({ file: process.argv[2], wasmPath: ${JSON.stringify(WASM_PATH)}, workerPath: ${JSON.stringify(WORKER_PATH)} });
        for (let i = 0; i < 2000; i++) {
          const r = await j.write('createSession', { id: 's' + i, title: 'x'.repeat(3000), provider: 'local', createdAt: i, updatedAt: i });
          if (!r.ok) { process.stdout.write('refused ' + r.message + '\\n'); break; }
          process.stdout.write('ack s' + i + '\\n');
        }
        await j.close();
      })();`;
    const script = path.join(dir, 'child.js');
    fs.writeFileSync(script, childCode);
    const run = spawnSync('bash', ['-c', `trap '' XFSZ; ulimit -f 1100; exec "${process.execPath}" ${CHILD_NODE_FLAGS.join(' ')} "${script}" "${file}"`], { encoding: 'utf8', timeout: 50_000 });
    const acked = run.stdout.split('\n').filter((l) => l.startsWith('ack ')).map((l) => l.slice(4));
    assert.match(run.stdout, /refused /, `the limit was never reached: ${run.stdout.slice(-200)} ${run.stderr}`);
    const k = await openJournal(file);
    const present = new Set((await k.read('listSessions')).map((s) => s.id));
    await k.close();
    assert.deepEqual(acked.filter((id) => !present.has(id)), [], 'acknowledged writes lost');
  });
});
