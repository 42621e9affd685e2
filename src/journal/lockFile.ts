/**
 * An exclusive, cross-process lock on the journal: a lock file created with O_EXCL (`wx`), holding
 * the owner's pid, process start time and hostname. A lock whose holder is dead (pid gone, or reused
 * by a process with another start time) is broken. Taking and releasing it costs a file creation and
 * a removal (figures in docs/BENCHMARKS.md), cheaper than a mkdir lock with retries.
 *
 * Synchronous by design: it runs in the journal's worker thread, where waiting (Atomics.wait) blocks
 * no one else.
 *
 * A holder may keep the lock across several write groups (the journal's writer lease, see
 * writerLease.ts). So that it knows when to let go, a process that finds the lock taken keeps a
 * second file, `<lock>.want`, present while it waits (`othersWaiting()`), and removes it once it
 * holds the lock; a holder that let go for a waiter (`yieldTo`) does not take the lock straight
 * back while the waiter still waits.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { isProcessAlive, processStartTime } from './processInfo';

/** Who holds a lock, as written in the lock file. */
export interface LockHolder {
  readonly pid: number;
  readonly start: string | null;
  readonly host: string;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** A lock older than this (ms) is broken even when its holder cannot be checked. */
const ANCIENT_LOCK_MS = 30_000;

/** A break lock older than this (ms) was left by a process that died while breaking. */
const STALE_BREAKER_MS = 2000;

/** Blocks the calling thread for `ms` milliseconds (worker threads only in production). */
export function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** True when the lock holder's process is gone. A holder on another host is presumed alive. */
export function isHolderDead(holder: LockHolder): boolean {
  return !isProcessAlive(holder.pid, holder.start, holder.host);
}

/** Longest a process that let go for a waiter holds back before taking the lock again (ms). */
const YIELD_MS = 20;

/** A want file not refreshed for this long (ms) belongs to nobody (waiters refresh it every poll). */
const STALE_WANT_MS = 1000;

/** The lock (see module docstring). */
export class LockFile {
  private held = false;
  private readonly content: string;
  private readonly wantFile: string;
  /** performance.now() when this process last let go for a waiter, or -Infinity. */
  private yieldedAt = -Infinity;

  /** @param file path of the lock file. */
  constructor(readonly file: string) {
    this.content = JSON.stringify({ pid: process.pid, start: processStartTime(process.pid), host: os.hostname() } satisfies LockHolder);
    this.wantFile = `${file}.want`;
  }

  /** True while this process holds the lock. */
  get isHeld(): boolean {
    return this.held;
  }

  /**
   * True when another process is waiting for the lock (one stat call). A want file nobody refreshed
   * for STALE_WANT_MS was left by a waiter that died or gave up: it is removed.
   */
  othersWaiting(): boolean {
    const stat = fs.statSync(this.wantFile, { throwIfNoEntry: false });
    if (!stat) return false;
    if (Date.now() - stat.mtimeMs <= STALE_WANT_MS) return true;
    fs.rmSync(this.wantFile, { force: true });
    return false;
  }

  /** Says this process waits: creates the want file or refreshes its time. */
  private signalWant(): void {
    const now = new Date();
    try {
      fs.utimesSync(this.wantFile, now, now);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      fs.closeSync(fs.openSync(this.wantFile, 'a'));
    }
  }

  /** Releases the lock because another process waits for it; the next `acquire` lets it go first. */
  yieldTo(): void {
    this.release();
    this.yieldedAt = performance.now();
  }

  /**
   * Takes the lock, waiting up to `timeoutMs` ms for a live holder. Re-entrant calls are a bug.
   * @throws Error naming the holder when the wait times out; the underlying error on I/O failure.
   */
  acquire(timeoutMs = 10_000): void {
    if (this.held) throw new Error('journal lock acquired twice');
    const deadline = Date.now() + timeoutMs;
    let wait = 0.05;
    // Just let go for a waiter: give it the lock first (it removes its want file once it holds it).
    while (performance.now() - this.yieldedAt < YIELD_MS && this.othersWaiting()) sleepSync(0.1);
    this.yieldedAt = -Infinity;
    let waited = false;
    for (;;) {
      try {
        const fd = fs.openSync(this.file, 'wx');
        try {
          fs.writeSync(fd, this.content);
        } catch (error) {
          // A full disk can let the empty file be created and fail its content. Left behind, every
          // process (this one included) would wait 2 s for a nameless lock to age out.
          fs.closeSync(fd);
          fs.rmSync(this.file, { force: true });
          throw error;
        }
        fs.closeSync(fd);
        this.held = true;
        if (waited) fs.rmSync(this.wantFile, { force: true }); // others still waiting create it again
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      waited = true;
      this.signalWant();
      const holder = this.readHolder();
      if (holder === 'gone') continue;
      // Locks are held for well under a second; one far older was left by a process that cannot be
      // checked (another hostname after a rename, a container rebuild) and is broken as well.
      const ancient = Date.now() - safeMtime(this.file) > ANCIENT_LOCK_MS;
      if (holder && (isHolderDead(holder) || ancient)) {
        this.breakStale(holder);
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(`The chat journal is locked by process ${holder ? holder.pid : '(unknown)'} for more than ${timeoutMs} ms.`);
      }
      // Holders let go within a write group (under a millisecond) once they see the want file: poll
      // often rather than back off far.
      sleepSync(wait);
      wait = Math.min(wait * 2, 0.2);
    }
  }

  /**
   * Releases the lock. Safe to call when not held. The file is removed only if it still names this
   * process: a holder that was stopped for longer than ANCIENT_LOCK_MS may have had its lock broken
   * and taken by another process, whose lock must not be removed.
   */
  release(): void {
    if (!this.held) return;
    this.held = false;
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    if (text !== this.content) return;
    try {
      fs.unlinkSync(this.file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }

  private readHolder(): LockHolder | undefined | 'gone' {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
      throw error;
    }
    try {
      return JSON.parse(text) as LockHolder;
    } catch {
      // Being written right now (created, content not yet there), or left half-written by a crash.
      const age = Date.now() - safeMtime(this.file);
      if (age > 2000) {
        fs.rmSync(this.file, { force: true });
        return 'gone';
      }
      return undefined;
    }
  }

  /**
   * Removes a dead holder's lock. Read-compare-unlink is not atomic: two processes that both saw the
   * same dead holder could interleave so that one unlinks the lock the other has just taken. So
   * breaking is itself serialized by a second lock file (`<lock>.break`, O_EXCL): only its holder
   * may unlink someone else's lock, after re-reading it under that lock. (A live holder only ever
   * unlinks its own lock, which a breaker never touches because it re-reads first.)
   */
  private breakStale(holder: LockHolder): void {
    const breaker = `${this.file}.break`;
    try {
      fs.closeSync(fs.openSync(breaker, 'wx'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // Another process is breaking it; a breaker left by a crash is removed after a while.
      if (Date.now() - safeMtime(breaker) > STALE_BREAKER_MS) fs.rmSync(breaker, { force: true });
      return;
    }
    try {
      const again = this.readHolder();
      const ancient = Date.now() - safeMtime(this.file) > ANCIENT_LOCK_MS;
      if (again && again !== 'gone' && again.pid === holder.pid && again.start === holder.start && (isHolderDead(again) || ancient)) {
        fs.rmSync(this.file, { force: true });
      }
    } finally {
      fs.rmSync(breaker, { force: true });
    }
  }
}

function safeMtime(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return Date.now();
  }
}
