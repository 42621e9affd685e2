/**
 * `LogStore`: durable, crash-safe, multi-process persistence of the journal database as a snapshot
 * plus an append-only redo log. Synchronous; it runs in the journal's worker thread.
 *
 * Files, next to the snapshot `journal.sqlite`:
 *   journal.sqlite           snapshot: a complete SQLite database; its `journal_checkpoint` row
 *                            (generation g, seq s) says it holds every record with seq <= s
 *   journal.sqlite.log.<g>   redo log generations (logFile.ts; byte format: logFormat.ts), replayed from g on
 *   journal.sqlite.lock      the write lock (lockFile.ts), held as a lease (writerLease.ts)
 *
 * The parts: opening and catching up replay the log (replay.ts, the base class); a write group
 * runs its transactions and frames their records (groupCommit.ts); the lease and its fence decide
 * when the lock must be taken again (writerLease.ts); compaction rebuilds the snapshot
 * (compaction.ts); tests inject faults at named points (faults.ts). This file is the commit path:
 *
 * Commit protocol (`writeGroup`): take the lock (or keep the lease); apply records other processes
 * appended since this process last read (catch-up), so the transactions see the current state;
 * run them in memory, recording their statements; append them as framed records with one write and
 * one fdatasync; acknowledge; COMMIT in memory; keep or release the lock. A failed append rolls back
 * and nothing is acknowledged. When the current generation passes `rotateAtBytes`, the writer starts
 * the next one (under the lock); the closed ones are compacted in another thread.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import { JournalRefusedError } from './errors';
import { FaultSeams } from './faults';
import { StatementRecorder, appendRefusal, frameGroup, runGroup, type Outcome } from './groupCommit';
import { FRAME_BYTES, LOG_HEADER_BYTES } from './logFormat';
import { LogFile } from './logFile';
import { readCheckpoint, sqljsVersion } from './memoryDb';
import { isUnwritable, lockFailedMessage, unwritableFolderMessage } from './plainErrors';
import { LogReplica } from './replay';
import { readWithSlack } from './snapshotFile';
import { WriterLease } from './writerLease';
import { removeLeftovers } from './compaction';

export { CompactionStoppedError, compact, removeLeftovers, type CompactionPace } from './compaction';
export { generationsAmong, listGenerations, logPath } from './logFile';
export { ALL_SESSIONS_TOUCHED } from './replay';
export type { Outcome } from './groupCommit';

/** Options of a LogStore. Sizes in bytes, times in ms. */
export interface LogStoreOptions {
  /** Snapshot path; the log and lock files sit beside it. */
  readonly file: string;
  readonly sql: SqlJsStatic;
  readonly now: () => number;
  /** Preallocation chunk of a log file (default 1 MiB). */
  readonly preallocBytes?: number;
  /** Start a new log generation past this size (default DEFAULT_ROTATE_BYTES, 2 MiB). */
  readonly rotateAtBytes?: number;
  /** Longest wait for another process's lock (default 10 s). */
  readonly lockTimeoutMs?: number;
  /**
   * Writer lease (ms, default 0 = none): keep the write lock after a write group, for at most this
   * long since it was taken, so consecutive writes skip the lock and the catch-up. The lock is let
   * go as soon as another process waits for it; the owner calls `releaseLease()` when it goes idle.
   */
  readonly leaseMs?: number;
  /** Called when the store had to reload its database from disk (another window compacted past it). */
  readonly onReload?: (db: Database) => void;
  /** Called after catching up, before a write: a reason to refuse writes (e.g. a newer schema), or null. */
  readonly checkWritable?: () => string | null;
  /**
   * The snapshot's bytes as just read by `readSnapshotWithSlack` (null: no file), so the caller can
   * read it while doing something else; used by the first open attempt only.
   */
  readonly snapshot?: Uint8Array | null;
  /** Tests only: turns on the `.fault-*` seams (faults.ts) of the append, the rotation and the lock. */
  readonly faultInjection?: boolean;
}

/** What opening found. */
export interface LogOpenReport {
  readonly snapshotFound: boolean;
  readonly recordsReplayed: number;
  readonly tornTailCut: boolean;
  /** Set when part of the log could not be read (the store is then read-only). */
  readonly unreadable: string | null;
  /**
   * Set when the journal's folder or log cannot be written (read-only mount, no permission): the
   * store is then read-only, its history readable (`unwritableFolderMessage`).
   */
  readonly unwritable: string | null;
  /**
   * Where opening went (ms): `loadMs` builds the database from the snapshot's bytes and runs its
   * first queries (in a fresh process mostly V8 compiling sql.js's WASM functions on first call);
   * `replayMs` replays the log. Both of the attempt that succeeded.
   */
  readonly loadMs: number;
  readonly replayMs: number;
}

/** Thrown when the snapshot is not a usable database (the caller quarantines it). */
export class UnreadableSnapshotError extends Error {
  constructor(readonly file: string, reason: string) {
    super(reason);
    this.name = 'UnreadableSnapshotError';
  }
}

/**
 * Default size (bytes) past which a new log generation starts. It bounds what an open replays: a
 * full 2 MiB generation is ~1,300 typical records, ~70 ms of replay when the process is warm and
 * ~140 ms when cold on the benchmark machine (docs/BENCHMARKS.md). Smaller means more compactions,
 * each of which rewrites the whole snapshot in the background.
 */
export const DEFAULT_ROTATE_BYTES = 2 * 1024 * 1024;

/** Page cache (KiB) while an open replays the log; SQLite's default (2000 KiB) afterwards. */
const REPLAY_CACHE_KIB = 65536;

/**
 * Why the journal's folder `dir` cannot be written, or null: it is made if missing, then asked
 * whether this process may write it (access(2): a read-only mount says EROFS, a folder that is not
 * this user's EACCES, an immutable one EPERM), without creating anything in it.
 * @throws what making or asking throws besides those (the open fails as before).
 */
function unwritableFolder(dir: string): string | null {
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
    return null;
  } catch (error) {
    // Node's recursive mkdir reports a read-only parent as ENOENT: ask the nearest folder that exists.
    const why = isUnwritable(error) ? error : (error as NodeJS.ErrnoException).code === 'ENOENT' ? unwritableAncestor(dir) : undefined;
    if (why) return unwritableFolderMessage(why, dir);
    throw error;
  }
}

/** The error of asking the nearest existing folder above `dir` for write access, when it is an unwritable one; else undefined. */
function unwritableAncestor(dir: string): unknown {
  for (let up = path.dirname(dir); ; up = path.dirname(up)) {
    if (fs.existsSync(up)) {
      try {
        fs.accessSync(up, fs.constants.W_OK);
        return undefined;
      } catch (error) {
        return isUnwritable(error) ? error : undefined;
      }
    }
    if (path.dirname(up) === up) return undefined;
  }
}

/** The store (see module docstring). */
export class LogStore extends LogReplica {
  private readonly lease: WriterLease;
  private readonly recorder = new StatementRecorder();
  /** Sessions other processes changed that a write's catch-up applied (see `takeCaughtUp`). */
  private caughtUp = new Set<string>();
  /** Why the last rotation failed (see `takeRotationFailure`). */
  private rotationFailure: string | null = null;

  private constructor(
    private readonly options: LogStoreOptions,
    db: Database,
  ) {
    const faults = new FaultSeams(options.file, options.faultInjection === true);
    super({ file: options.file, now: options.now, prealloc: options.preallocBytes ?? 1024 * 1024, rotateAt: options.rotateAtBytes ?? DEFAULT_ROTATE_BYTES, faults }, db);
    this.lease = new WriterLease(options.file, options.leaseMs ?? 0, options.lockTimeoutMs, faults);
  }

  /**
   * Opens the store: snapshot + replay (see module docstring). A folder this process may not write
   * (or make) opens read-only (`unwritable`), with whatever history it holds.
   * @throws UnreadableSnapshotError when the snapshot is not a readable SQLite database.
   */
  static open(options: LogStoreOptions): { store: LogStore; report: LogOpenReport } {
    const unwritable = unwritableFolder(path.dirname(options.file));
    if (!unwritable) removeLeftovers(options.file);
    for (let attempt = 0; ; attempt++) {
      const bytes = attempt === 0 && options.snapshot !== undefined ? (options.snapshot ?? undefined) : readWithSlack(options.file);
      let db: Database;
      let checkpoint: { generation: number; seq: number };
      const loadStarted = performance.now();
      try {
        db = bytes ? new options.sql.Database(bytes) : new options.sql.Database();
        checkpoint = readCheckpoint(db);
        db.exec('PRAGMA user_version');
      } catch (error) {
        throw new UnreadableSnapshotError(options.file, `not a readable SQLite database (${(error as Error).message})`);
      }
      // The store keeps its options (a reload reopens with them): not the first read's bytes, which
      // would otherwise stay in memory for the worker's life once sql.js has outgrown them.
      const { snapshot: _firstRead, ...kept } = options;
      const store = new LogStore(kept, db);
      store.lastSeq = checkpoint.seq;
      store.unwritable = unwritable;
      const replayStarted = performance.now();
      // A larger page cache while replaying (SQLite's default is 2 MB): the records' inserts then
      // read fewer pages back out of sql.js's in-memory file (~10% of a 200 MB open with a full log).
      db.exec(`PRAGMA cache_size = -${REPLAY_CACHE_KIB}`);
      const replay = store.replayFrom(checkpoint.generation, attempt >= 5);
      db.exec('PRAGMA cache_size = -2000');
      if (replay === 'snapshot-moved') {
        db.close();
        continue; // a compaction replaced the snapshot and removed a log under us: start over
      }
      if (store.corrupt) {
        store.log?.close();
        db.close();
        throw new UnreadableSnapshotError(options.file, store.corrupt);
      }
      return {
        store,
        report: {
          snapshotFound: bytes !== undefined,
          recordsReplayed: replay.records,
          tornTailCut: replay.tornTailCut,
          unreadable: store.unreadable,
          unwritable: store.unwritable,
          loadMs: replayStarted - loadStarted,
          replayMs: performance.now() - replayStarted,
        },
      };
    }
  }

  /** Replaces the in-memory database with the snapshot plus logs on disk (see `catchUp`). */
  protected reloadFromDisk(): void {
    const { store } = LogStore.open(this.options);
    this.log.close();
    this.db.close();
    this.db = store.db;
    this.log = store.log;
    this.offset = store.offset;
    this.lastSeq = store.lastSeq;
    this.unreadable = store.unreadable;
    this.unwritable ??= store.unwritable;
    this.statements = store.statements;
    this.appliedRecords++;
    this.options.onReload?.(this.db);
  }

  /** Statement recorder for JournalCore: every write statement passes through here while recording. */
  record(sql: string, params: readonly (string | number | null)[]): void {
    this.recorder.record(sql, params);
  }

  /**
   * Runs `transaction` as one durable, logged transaction (see module docstring). Returns its value.
   * `touched` names the sessions it changes (for other windows' views), read after it ran.
   * @throws JournalRefusedError('read_only') when part of the log is unreadable or the folder unwritable;
   *         JournalRefusedError('storage_failed') when the append or the lock fails (rolled back);
   *         whatever `transaction` throws (rolled back).
   */
  write<T>(transaction: () => T, touched: () => readonly string[]): { value: T; rotated: boolean } {
    const { outcomes, rotated } = this.writeGroup([transaction], touched);
    const outcome = outcomes[0]!;
    if (!outcome.ok) throw outcome.error;
    return { value: outcome.value as T, rotated };
  }

  /** Lets the writer lease go (the owner calls this when it has no more writes queued). */
  releaseLease(): void {
    this.lease.release();
  }

  /** True while this process holds the write lock between write groups (tests, diagnostics). */
  get holdsLease(): boolean {
    return this.lease.isHeld;
  }

  /** Runs `fn` under the write lock (the lease's, if held; otherwise taken and released around it). */
  protected withLock<T>(fn: () => T): T {
    return this.lease.withLock(fn);
  }

  /**
   * Group commit: runs several transactions under one lock, appends their records with one write and
   * one fdatasync, and acknowledges them together. Each transaction keeps its own outcome (a SAVEPOINT
   * each when there are several: one that throws is rolled back alone and logs nothing). If the
   * append fails, every transaction of the group is rolled back and each outcome is the storage
   * refusal. With a writer lease (`leaseMs`), the lock may stay held after it returns.
   *
   * `onDurable(outcomes)`, if given, is called as soon as the group's records are on disk, before
   * the in-memory COMMIT and the bookkeeping after it (lease, rotation), so the caller can
   * acknowledge ~0.02 ms sooner; `acknowledged` then says it was called. Nothing can read the
   * database in between: the caller's thread runs the COMMIT before it takes its next message.
   * @throws JournalRefusedError('read_only' | 'storage_failed') for the whole group (lock, unreadable
   *         log, unwritable folder: refused before the lock is tried, so nothing is written).
   */
  writeGroup(
    transactions: readonly (() => unknown)[],
    touched: () => readonly string[],
    onDurable?: (outcomes: readonly Outcome[]) => void,
  ): { outcomes: Outcome[]; rotated: boolean; acknowledged: boolean } {
    const readOnly = this.unreadable ?? this.unwritable;
    if (readOnly) throw new JournalRefusedError('read_only', readOnly);
    let taken: boolean;
    try {
      taken = this.lease.take(this.log, this.offset);
    } catch (error) {
      throw new JournalRefusedError('storage_failed', lockFailedMessage(error));
    }
    let failed = true;
    try {
      if (taken) {
        for (const id of this.catchUp()) this.caughtUp.add(id);
        if (this.unreadable) throw new JournalRefusedError('read_only', this.unreadable);
      }
      const refusal = this.options.checkWritable?.();
      if (refusal) throw new JournalRefusedError('read_only', refusal);
      const { outcomes, rotated, appendFailed, logged } = this.commitGroup(transactions, touched, onDurable);
      failed = appendFailed === true || !logged;
      return { outcomes, rotated, acknowledged: logged === true && onDurable !== undefined };
    } finally {
      // Only a group that logged something keeps the lease (a refusal, a failed append, or a group
      // that changed nothing — e.g. the migration check at open — lets the lock go at once).
      if (failed) this.lease.release();
      else this.lease.endGroup();
    }
  }

  /** Runs, logs and commits a group (the lock is held). `appendFailed`: the log append failed, all rolled back. */
  private commitGroup(
    transactions: readonly (() => unknown)[],
    touched: () => readonly string[],
    onDurable: ((outcomes: readonly Outcome[]) => void) | undefined,
  ): { outcomes: Outcome[]; rotated: boolean; appendFailed?: boolean; logged?: boolean } {
    const { outcomes, records } = runGroup(transactions, touched, (sql) => this.control(sql), this.recorder, this.lastSeq + 1);
    if (records.length === 0) {
      // Nothing to log: a lone transaction that threw, or only reads. Roll back what failed.
      this.control(outcomes.every((o) => o.ok) ? 'COMMIT' : 'ROLLBACK');
      return { outcomes, rotated: false };
    }
    const bytes = frameGroup(records);
    try {
      this.settings.faults.check('append');
      this.log.writeDurably(bytes, this.offset, this.settings.prealloc);
    } catch (error) {
      this.control('ROLLBACK');
      const refusal = appendRefusal(error);
      return { outcomes: outcomes.map((o) => (o.ok ? { ok: false, error: refusal } : o)), rotated: false, appendFailed: true };
    }
    this.lastSeq += records.length;
    this.offset += bytes.length - FRAME_BYTES; // the terminator is overwritten by the next record
    try {
      onDurable?.(outcomes);
    } finally {
      this.commitLogged();
    }
    const rotated = this.offset >= this.settings.rotateAt && this.rotateAfterGroup();
    this.lease.markOwnEnd(this.log.generation, this.offset);
    return { outcomes, rotated, logged: true };
  }

  /**
   * Starts the next generation after a group filled the current one. The group is durable and
   * committed: a failed rotation (full disk) must not turn its acknowledgement into an error. The
   * current generation keeps taking records (its preallocated room, then growth) and the next group
   * tries to rotate again.
   */
  private rotateAfterGroup(): boolean {
    try {
      return this.rotate();
    } catch (error) {
      this.rotationFailure = `starting log generation ${this.log.generation + 1} failed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); will retry`;
      return false;
    }
  }

  /**
   * COMMITs a group whose records are already durable. An in-memory COMMIT fails only when sql.js
   * runs out of memory; the group stays acknowledged (replay from disk has it), but this database
   * may now differ from the log, so the store refuses further writes until the journal is reopened.
   */
  private commitLogged(): void {
    try {
      this.control('COMMIT');
    } catch (error) {
      this.unreadable ??=
        `The chat journal's in-memory database failed to commit a saved change (${(error as Error).message}). ` +
        'Everything saved is on disk; reload the window to go on.';
    }
  }

  /**
   * Sessions other processes changed that a write's catch-up applied (the caller tells its views,
   * as the poll would have); clears the set.
   */
  takeCaughtUp(): Set<string> {
    const taken = this.caughtUp;
    this.caughtUp = new Set();
    return taken;
  }

  /** Starts the next log generation now (under the lock). Returns false if another process just did. */
  rotateNow(): boolean {
    if (this.unreadable || this.unwritable) return false;
    return this.withLock(() => {
      this.catchUp();
      return this.rotate();
    });
  }

  /** Why the last rotation failed (for the owner's log), cleared by reading it. */
  takeRotationFailure(): string | null {
    const failure = this.rotationFailure;
    this.rotationFailure = null;
    return failure;
  }

  /** Starts the next log generation (called under the lock). */
  private rotate(): boolean {
    const next = this.log.generation + 1;
    const created = LogFile.create(this.options.file, next, this.settings.prealloc, this.options.now(), sqljsVersion(this.db), this.settings.faults);
    if (!created) return false;
    this.log.close();
    this.log = created;
    this.offset = LOG_HEADER_BYTES;
    return true;
  }

  /** Lets the lease go and closes the log file (the database is the caller's). */
  close(): void {
    this.lease.release();
    this.log?.close();
  }
}
