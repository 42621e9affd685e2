/**
 * Replay: the in-memory database and its position in the redo log. At open, the log generations
 * are replayed from the snapshot's checkpoint, stopping at the first frame that is not a valid
 * record: a torn tail (nothing valid after it) is cut off; a bad frame followed by valid records, a
 * missing generation, a sequence gap or a record this build cannot replay makes the journal
 * read-only (`unreadableReason`); a replay error that means the snapshot itself is damaged sets
 * `corrupt`. A folder or log file this process may not write (a read-only mount, no permission) is
 * replayed all the same, read only, and makes the journal read-only too (`unwritableReason`); a torn
 * tail is then left in place (readers stop at it). Later, `catchUp` applies what other processes appended since (no lock needed: a frame
 * being written reads as bad and is simply not applied yet), following rotations and reloading from
 * disk when a compaction removed the generation this process was reading.
 *
 * `LogReplica` is the base of `LogStore` (logStore.ts), which adds the write path; it owns the fields
 * both share, so replay and commit read the same offset and sequence number.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'sql.js';
import type { FaultSeams } from './faults';
import { FRAME_BYTES, LOG_HEADER_BYTES, newerRecordAfter, type LogRecord, type ReadOutcome } from './logFormat';
import { LogFile, listGenerations, logPath } from './logFile';
import { applyStatement, sqljsVersion, tuneInMemory } from './memoryDb';
import { isUnwritable, noRoomForLogMessage, unwritableFolderMessage } from './plainErrors';
import { StatementCache } from './statementCache';

/** Bytes scanned past the rotation size when looking for valid records after a bad frame. */
const MAX_SCAN_SLACK = 1024 * 1024;

/** In a catch-up's touched set: the database was reloaded, every session may have changed. */
export const ALL_SESSIONS_TOUCHED = '*';

/** Why applying stopped before the end of a generation (see `applyAvailable`). */
type BadStop = { kind: 'frame' | 'gap' | 'replay'; length: number; why: string };

/** What the replica needs to know of the store's settings. Sizes in bytes. */
export interface ReplicaSettings {
  /** Snapshot path; the log files sit beside it. */
  readonly file: string;
  readonly now: () => number;
  /** Preallocation chunk of a log file. */
  readonly prealloc: number;
  /** Size past which a new log generation starts. */
  readonly rotateAt: number;
  /** The `rotate` seam (tests), for the first generation created at open. */
  readonly faults: FaultSeams;
}

/** The database and its position in the log (see module docstring). */
export abstract class LogReplica {
  protected log!: LogFile;
  /** End of the last record read or written in the current generation (bytes). */
  protected offset = LOG_HEADER_BYTES;
  /** Highest applied record sequence number. */
  protected lastSeq = 0;
  protected unreadable: string | null = null;
  /**
   * Why nothing can be written: the journal's folder or log cannot be written by this process
   * (`unwritableFolderMessage`). Unlike `unreadable`, catching up with other processes goes on.
   */
  protected unwritable: string | null = null;
  /** Prepared statements of this database: replayed records' SQL and transaction control. */
  protected statements: StatementCache;
  protected appliedRecords = 0;
  /** Set (at open) when replaying hit a database error that means the snapshot itself is damaged. */
  corrupt: string | null = null;

  protected constructor(
    protected readonly settings: ReplicaSettings,
    public db: Database,
  ) {
    tuneInMemory(db);
    this.statements = new StatementCache(db);
  }

  /** Runs `fn` under the write lock (the store's lease). */
  protected abstract withLock<T>(fn: () => T): T;

  /** Replaces the in-memory database with the snapshot plus logs on disk (see catchUp). */
  protected abstract reloadFromDisk(): void;

  /** Set when part of the log cannot be read; writes are then refused. */
  get unreadableReason(): string | null {
    return this.unreadable;
  }

  /** Set when the journal's folder or log cannot be written; writes are then refused. */
  get unwritableReason(): string | null {
    return this.unwritable;
  }

  /** Current log generation (for tests and compaction). */
  get generation(): number {
    return this.log.generation;
  }

  /**
   * Counts records applied from the log (replay at open, catch-ups) and reloads from disk: what
   * another process committed can only reach this database through them. A caller that derives
   * something from the database's content (the worker's schema-version check) recomputes it only
   * when this changed.
   */
  get applied(): number {
    return this.appliedRecords;
  }

  /** Highest applied record sequence number. */
  get seq(): number {
    return this.lastSeq;
  }

  /** Bytes of the current generation's records (its end offset). */
  get logBytes(): number {
    return this.offset;
  }

  /** Makes the store read-only: the log cannot be read past `this.offset` of generation `generation`. */
  protected markUnreadable(generation: number, why: string): void {
    this.unreadable ??=
      `Part of the chat journal's log (${path.basename(logPath(this.settings.file, generation))} at byte ${this.offset}) cannot be read: ` +
      `${why}. History up to that point is shown; nothing can be changed until it is repaired.`;
  }

  /**
   * Replays generations from `firstGeneration`. Returns `snapshot-moved` when a compaction changed
   * the files under us (the caller starts over), unless `final` (then the gap is reported as
   * unreadable). Generations must be consecutive; a damaged header, a missing generation in the
   * middle, a sequence gap or a record that cannot be replayed makes the store read-only (or
   * `corrupt`, for a damaged snapshot); only a bad frame with nothing valid after it at the end of
   * the last generation is a torn tail, which is cut.
   */
  protected replayFrom(firstGeneration: number, final: boolean): { records: number; tornTailCut: boolean } | 'snapshot-moved' {
    const generations = listGenerations(this.settings.file).filter((g) => g >= firstGeneration);
    let records = 0;
    let tornTailCut = false;
    if (generations.length === 0) {
      // An unwritable folder has no log to append to and gets none: history readable, writes refused.
      if (this.unwritable) return { records, tornTailCut };
      let created: LogFile | undefined;
      try {
        created = LogFile.create(this.settings.file, firstGeneration, this.settings.prealloc, this.settings.now(), sqljsVersion(this.db), this.settings.faults);
      } catch (error) {
        // History readable, writes refused (no log to append to).
        if (isUnwritable(error)) this.unwritable = unwritableFolderMessage(error, path.dirname(this.settings.file));
        else this.unreadable = noRoomForLogMessage(error);
        return { records, tornTailCut };
      }
      const log = created ?? LogFile.open(this.settings.file, firstGeneration);
      if (!log) return 'snapshot-moved';
      this.log = log;
      this.offset = LOG_HEADER_BYTES;
      return { records, tornTailCut };
    }
    if (generations[0] !== firstGeneration && !final) return 'snapshot-moved';
    for (let i = 0; i < generations.length; i++) {
      const g = generations[i]!;
      const expected = firstGeneration + i;
      if (g !== expected) {
        if (!this.log) this.adoptEmptyGeneration(g);
        this.markUnreadable(expected, `log generation ${expected} is missing`);
        return { records, tornTailCut };
      }
      const opened = LogFile.tryOpen(this.settings.file, g);
      if (opened === 'missing') {
        if (!final) return 'snapshot-moved';
        this.markUnreadable(g, 'the file vanished while it was read');
        return { records, tornTailCut };
      }
      if (!(opened instanceof LogFile)) {
        if (!this.log) this.adoptEmptyGeneration(g);
        this.markUnreadable(g, opened.bad);
        return { records, tornTailCut };
      }
      if (this.log) this.log.close();
      this.useLog(opened);
      const last = i === generations.length - 1;
      const result = this.applyAvailable();
      records += result.records;
      if (result.bad) {
        if (result.bad.kind === 'replay' && /malformed|corrupt|not a database/i.test(result.bad.why)) {
          this.corrupt = `replaying the log on it failed: ${result.bad.why}`;
          return { records, tornTailCut };
        }
        const tornTail = result.bad.kind === 'frame' && last && !this.validRecordFollows();
        if (!tornTail) {
          this.markUnreadable(g, result.bad.why);
          return { records, tornTailCut };
        }
        // A log that cannot be written keeps its torn tail: every reader stops there all the same.
        if (!this.unwritable) {
          this.cutTornTail();
          tornTailCut = true;
        }
      }
    }
    return { records, tornTailCut };
  }

  /** Keeps a generation open for reading only, when replay stopped before reaching any. */
  private adoptEmptyGeneration(g: number): void {
    const opened = LogFile.open(this.settings.file, g);
    if (opened) this.useLog(opened);
  }

  /**
   * Makes `log` the current generation, read from its first record. One this process can only read
   * (`LogFile.readOnlyBecause`) makes the journal read-only: its folder cannot be written.
   */
  private useLog(log: LogFile): void {
    this.log = log;
    this.offset = LOG_HEADER_BYTES;
    if (log.readOnlyBecause) this.unwritable ??= unwritableFolderMessage(log.readOnlyBecause, path.dirname(this.settings.file));
  }

  /**
   * Applies every valid record from the current offset of the current generation. Stops at the end,
   * at a bad frame (`frame`: torn or corrupt), at a sequence gap (`gap`), or at a record that cannot
   * be replayed (`replay`, e.g. a newer build's migration this SQLite cannot run).
   */
  private applyAvailable(): { records: number; touched: Set<string>; bad?: BadStop } {
    // All records of one pass commit in one transaction (a SAVEPOINT each): replaying thousands of
    // records at open costs one commit, not thousands.
    if (!this.log) return { records: 0, touched: new Set() };
    const read = this.log.reader();
    // Nothing new (the common case of a poll): no transaction at all.
    if (read(this.offset).type === 'end') return { records: 0, touched: new Set() };
    const seqBefore = this.lastSeq;
    const offsetBefore = this.offset;
    this.db.exec('BEGIN');
    let result: ReturnType<LogReplica['applyAvailableInTransaction']>;
    try {
      result = this.applyAvailableInTransaction(read);
      this.db.exec('COMMIT');
    } catch (error) {
      // The commit itself failed (e.g. it wrote onto damaged pages): nothing of this pass applied.
      try {
        this.db.exec('ROLLBACK');
      } catch {
        /* already rolled back */
      }
      this.lastSeq = seqBefore;
      this.offset = offsetBefore;
      return { records: 0, touched: new Set(), bad: { kind: 'replay', length: 0, why: `replay failed: ${(error as Error).message}` } };
    }
    return result;
  }

  /** The loop of `applyAvailable`, inside its transaction. */
  private applyAvailableInTransaction(read: (offset: number) => ReadOutcome): { records: number; touched: Set<string>; bad?: BadStop } {
    let records = 0;
    const touched = new Set<string>();
    for (;;) {
      const outcome = read(this.offset);
      if (outcome.type === 'end') return { records, touched };
      if (outcome.type === 'bad') return { records, touched, bad: { kind: 'frame', length: outcome.length, why: outcome.why } };
      const record = outcome.record;
      if (record.s > this.lastSeq) {
        const length = outcome.next - this.offset - FRAME_BYTES;
        if (record.s !== this.lastSeq + 1) {
          return { records, touched, bad: { kind: 'gap', length, why: `sequence gap (${this.lastSeq} → ${record.s}): records are missing` } };
        }
        const failure = this.applyRecord(record);
        if (failure) return { records, touched, bad: { kind: 'replay', length, why: `record ${record.s} cannot be replayed by this version (${failure})` } };
        for (const s of record.x ?? []) touched.add(s);
        records++;
        this.appliedRecords++;
      }
      this.offset = outcome.next;
    }
  }

  /** Applies one record under a SAVEPOINT; returns the database's error message if it fails (rolled back). */
  private applyRecord(record: LogRecord): string | undefined {
    this.control('SAVEPOINT record');
    try {
      for (const statement of record.t) applyStatement(this.db, statement, this.statements);
      this.control('RELEASE record');
    } catch (error) {
      try {
        this.control('ROLLBACK TO record');
        this.control('RELEASE record');
      } catch {
        /* the failure already ended the transaction */
      }
      return (error as Error).message;
    }
    this.lastSeq = record.s;
    return undefined;
  }

  /**
   * After a bad frame: does any valid, newer record follow it? A torn write leaves nothing valid
   * behind it (every record is written with its terminator, at the end); damage in the middle does.
   * The frame's own length may be what is damaged, so this scans every byte after it (up to the
   * rotation size plus a chunk; `newerRecordAfter` in logFormat.ts, cheap signs before the CRC).
   * Runs only on this failure path.
   */
  private validRecordFollows(): boolean {
    const size = fs.fstatSync(this.log.fd).size;
    const end = Math.min(size, this.offset + this.settings.rotateAt + this.settings.prealloc + MAX_SCAN_SLACK);
    if (end <= this.offset + FRAME_BYTES) return false;
    const buf = Buffer.alloc(end - this.offset);
    fs.readSync(this.log.fd, buf, 0, buf.length, this.offset);
    return newerRecordAfter(buf, 0, this.lastSeq);
  }

  /** Cuts a torn tail: zeroes the bad frame header under the lock so every reader sees the end. */
  protected cutTornTail(): void {
    this.withLock(() => {
      const again = this.log.readAt(this.offset);
      if (again.type === 'bad') this.log.writeDurably(Buffer.alloc(FRAME_BYTES), this.offset, this.settings.prealloc);
    });
  }

  /**
   * Applies what other processes committed since this process last read (no lock needed: a frame
   * being written reads as bad and is simply not applied yet). Returns the sessions touched.
   */
  catchUp(): Set<string> {
    const touched = new Set<string>();
    // No log at all: an unwritable folder that had none (nothing to follow until a reload).
    if (this.unreadable || !this.log) return touched;
    for (;;) {
      const result = this.applyAvailable();
      for (const s of result.touched) touched.add(s);
      if (result.bad && result.bad.kind !== 'frame') {
        this.markUnreadable(this.log.generation, result.bad.why);
        return touched;
      }
      const next = LogFile.open(this.settings.file, this.log.generation + 1);
      if (!next) {
        // This generation was deleted and the next one too: another window rotated and compacted
        // while this process was not running. The snapshot has it all: start again from there.
        if (this.log.isDetached()) {
          this.reloadFromDisk();
          touched.add(ALL_SESSIONS_TOUCHED);
        }
        return touched;
      }
      // The next generation exists, so this one is final: finish it (it may have grown), then move on.
      const rest = this.applyAvailable();
      for (const s of rest.touched) touched.add(s);
      this.log.close();
      this.useLog(next);
    }
  }

  /** Runs a transaction-control statement (BEGIN, COMMIT, SAVEPOINT…) prepared once. */
  protected control(sql: string): void {
    this.statements.run(sql, []);
  }
}
