/**
 * The writer lease and its fence. A write group takes the write lock (lockFile.ts); with a lease
 * (`leaseMs` > 0) the lock is kept across consecutive groups — no lock and no catch-up per write —
 * until another process waits for it, the owner goes idle, or the lease ages out. The fence guards
 * a kept lease against a lock broken while this process was stopped: nothing may follow this
 * process's last record.
 */
import * as fs from 'node:fs';
import type { FaultSeams } from './faults';
import { LockFile } from './lockFile';
import { logPath, type LogFile } from './logFile';

/** Under contention, a lease holder keeps the lock at least this long (ms) before yielding. */
const LEASE_SLICE_MS = 2;

/** The write lock of one journal, as a lease (see module docstring). */
export class WriterLease {
  private readonly lock: LockFile;
  /** performance.now() when the write lock was last taken (the lease's start). */
  private since = 0;
  /** Date.now() when the write lock was last taken. */
  private sinceWall = 0;
  /** Where this process's last logged group ended (after a rotation: the new generation's start). */
  private ownEnd = { generation: -1, offset: -1 };

  /**
   * `file`: the snapshot (the lock is `<file>.lock`); `leaseMs`: how long (ms) the lock may be kept
   * since it was taken (0: released after every group); `lockTimeoutMs`: longest wait for another
   * process's lock (undefined: the lock file's default); `faults`: the `lock` seam (tests).
   */
  constructor(
    file: string,
    private readonly leaseMs: number,
    private readonly lockTimeoutMs: number | undefined,
    private readonly faults: FaultSeams,
  ) {
    this.lock = new LockFile(`${file}.lock`);
  }

  /**
   * Takes the write lock for a write group, or keeps the lease this process already holds while the
   * fence holds at (`log`, `offset`), this process's view of the log's end. Returns true when the
   * lock was (re)taken, so other processes' records must be caught up on first.
   * @throws the lock's error (timeout, full disk).
   */
  take(log: LogFile, offset: number): boolean {
    this.faults.check('lock');
    if (this.lock.isHeld) {
      // Both clocks: the monotonic one does not advance while the machine sleeps, wall time does
      // (and the lock's age, which breakers judge, is wall time).
      const fresh = performance.now() - this.since < this.leaseMs && Math.abs(Date.now() - this.sinceWall) < this.leaseMs;
      if (fresh && this.fenceHolds(log, offset)) return false;
      // Removes the file only if it still names this process: a lock broken while this process was
      // stopped may now be another's. (One that still names it — e.g. a rotation that failed after
      // creating the next generation tripped the fence — is let go and taken again at once, not
      // waited for as if someone else held it.)
      this.lock.release();
    }
    this.lock.acquire(this.lockTimeoutMs);
    this.since = performance.now();
    this.sinceWall = Date.now();
    return true;
  }

  /**
   * The fence: under a valid lease nothing was written after this process's last record — nothing
   * follows it in its generation, no next generation exists, and its generation was not deleted.
   * Anything else means the lock was broken while this process was stopped (a live holder's lock is
   * only broken after 30 s): the caller forgets the lock without removing the file (it may now be
   * another process's), takes it again and catches up. Three cheap calls: a read, a stat, an open.
   */
  private fenceHolds(log: LogFile, offset: number): boolean {
    return (
      // Nothing was applied from other processes since this process's own last group (a poll's
      // catch-up advances `offset` past a breaker's records, so "nothing after offset" alone
      // would let this process write on while the breaker holds the lock).
      log.generation === this.ownEnd.generation &&
      offset === this.ownEnd.offset &&
      log.endsAt(offset) &&
      !fs.existsSync(logPath(log.file, log.generation + 1)) &&
      !log.isDetached()
    );
  }

  /** Records where this process's last logged group ended (the fence's reference). */
  markOwnEnd(generation: number, offset: number): void {
    this.ownEnd = { generation, offset };
  }

  /**
   * After a write group: lets the lock go, unless a lease keeps it and nobody else waits for it.
   * Under contention each holder keeps the lock for a slice of LEASE_SLICE_MS before yielding, so a
   * busy window commits a few writes per hand-over instead of one (each hand-over costs a lock, a
   * catch-up and a poll interval: strict alternation doubled the p50 of two busy windows).
   */
  endGroup(): void {
    if (!this.leaseMs) this.lock.release();
    else if (performance.now() - this.since >= LEASE_SLICE_MS && this.lock.othersWaiting()) this.lock.yieldTo();
  }

  /** Lets the lock go (a failed group, an idle owner, closing). */
  release(): void {
    this.lock.release();
  }

  /** True while this process holds the write lock. */
  get isHeld(): boolean {
    return this.lock.isHeld;
  }

  /** Runs `fn` under the write lock (the lease's, if held; otherwise taken and released around it). */
  withLock<T>(fn: () => T): T {
    if (this.lock.isHeld) return fn();
    this.lock.acquire(this.lockTimeoutMs);
    try {
      return fn();
    } finally {
      this.lock.release();
    }
  }
}
