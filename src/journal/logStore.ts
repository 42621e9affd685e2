/**
 * `LogStore`: durable, crash-safe, multi-process persistence of the journal database as a snapshot
 * plus an append-only redo log. Synchronous; it runs in the journal's worker thread.
 *
 * Files, next to the snapshot `journal.sqlite`:
 *   journal.sqlite           snapshot: a complete SQLite database; its `journal_checkpoint` row
 *                            (generation g, seq s) says it holds every record with seq <= s
 *   journal.sqlite.log.<g>   redo log generations (format: logFormat.ts), replayed from g on
 *   journal.sqlite.lock      the write lock (lockFile.ts)
 *
 * Commit protocol (`write`): take the lock; apply records other processes appended since this
 * process last read (catch-up), so the transaction sees the current state; run the transaction in
 * memory, recording its statements; append them as one framed record and fdatasync; COMMIT in
 * memory; release the lock; acknowledge. A failed append rolls back and nothing is acknowledged.
 * With a writer lease (`leaseMs`), the lock is kept across consecutive write groups (no lock and
 * no catch-up per write) until another process waits for it, the owner goes idle, or the lease
 * ages out; a fence (nothing may follow this process's last record) guards against a broken lock.
 *
 * Open: load the snapshot, replay the log generations from its checkpoint, stop at the first frame
 * that is not a valid record. A torn tail (nothing valid after it) is cut off; a bad frame followed
 * by valid records means part of the log is unreadable, and the journal opens read-only.
 *
 * Compaction: when the current log passes `rotateAtBytes`, the writer starts a new generation
 * (under the lock); `compact()` (run in another thread, so writes never wait for it) rebuilds the
 * snapshot from the old snapshot plus the closed generations, writes it to a temporary file,
 * fsyncs, renames it over the snapshot, fsyncs the folder, then deletes the closed generations.
 * Design and measurements: ../shared/notes/journal-durability.md.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import { JournalRefusedError } from './errors';
import { lockFailedMessage, noRoomForLogMessage } from './plainErrors';

import { LockFile, sleepSync } from './lockFile';
import { readWithSlack } from './snapshotFile';
import { StatementCache } from './statementCache';
import {
  FRAME_BYTES, LOG_FORMAT_VERSION, LOG_HEADER_BYTES, MAX_RECORD_BYTES, decodeFrame, decodeHeader, encodeHeader,
  encodePayload, type LogRecord, type LoggedStatement, type ReadOutcome,
} from './logFormat';

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
  /**
   * Tests only: while a file `<snapshot>.fault-enospc` exists, every log append fails with ENOSPC
   * (a full disk), so the refusal path is exercised for real; while `<snapshot>.fault-enospc-rotate`
   * exists, starting a new log generation does; while `<snapshot>.fault-enospc-lock` exists, taking
   * the write lock does.
   */
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
   * Where opening went (ms): `loadMs` builds the database from the snapshot's bytes and runs its
   * first queries (in a fresh process mostly V8 compiling sql.js's WASM functions on first call);
   * `replayMs` replays the log. Both of the attempt that succeeded.
   */
  readonly loadMs: number;
  readonly replayMs: number;
}

/** One transaction's outcome in a write group: its value, or what it threw (it was rolled back). */
export type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

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

/** Under contention, a lease holder keeps the lock at least this long (ms) before yielding. */
const LEASE_SLICE_MS = 2;

/** Bytes scanned past the rotation size when looking for valid records after a bad frame. */
const MAX_SCAN_SLACK = 1024 * 1024;

/** In a catch-up's touched set: the database was reloaded, every session may have changed. */
export const ALL_SESSIONS_TOUCHED = '*';

const CHECKPOINT_DDL =
  'CREATE TABLE IF NOT EXISTS journal_checkpoint (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL, seq INTEGER NOT NULL)';

/** Path of log generation `g` of the snapshot `file`. */
export function logPath(file: string, generation: number): string {
  return `${file}.log.${generation}`;
}

/** Log generations present beside `file`, ascending. */
export function listGenerations(file: string): number[] {
  const dir = path.dirname(file);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return generationsAmong(file, names);
}

/** The log generations of `file` named in `names` (a listing of its folder), ascending. */
export function generationsAmong(file: string, names: readonly string[]): number[] {
  const prefix = `${path.basename(file)}.log.`;
  return names
    .filter((n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length)))
    .map((n) => Number(n.slice(prefix.length)))
    .sort((a, b) => a - b);
}

/**
 * Settings for a database that lives in sql.js's memory and is made durable by the redo log:
 * the rollback journal in memory (no file work in sql.js's virtual file system per transaction),
 * and an exclusive locking mode (no one else opens that in-memory file, so SQLite need not take and
 * drop its file locks and re-check the file's change counter on every transaction: BEGIN went from
 * ~9 µs to ~0.3 µs here).
 */
export function tuneInMemory(db: Database): void {
  db.exec('PRAGMA journal_mode = MEMORY');
  db.exec('PRAGMA locking_mode = EXCLUSIVE');
}

/** Reads the (generation, seq) checkpoint of a snapshot database; (1, 0) when it has none. */
export function readCheckpoint(db: Database): { generation: number; seq: number } {
  const hasTable = db.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'journal_checkpoint'").length > 0;
  if (!hasTable) return { generation: 1, seq: 0 };
  const row = db.exec('SELECT generation, seq FROM journal_checkpoint WHERE id = 1')[0]?.values[0];
  return row ? { generation: Number(row[0]), seq: Number(row[1]) } : { generation: 1, seq: 0 };
}

/**
 * Applies one logged statement (multi-statement SQL without parameters runs through exec; the rest
 * through `cache`, prepared once per SQL text).
 */
export function applyStatement(db: Database, [sql, params]: LoggedStatement, cache?: StatementCache): void {
  if (params.length === 0) db.exec(sql);
  else if (cache) cache.run(sql, params as (string | number | null)[]);
  else db.run(sql, params as (string | number | null)[]);
}

/** An open log generation file. */
class LogFile {
  private constructor(
    /** The snapshot's path (this generation's file is `logPath(file, generation)`). */
    readonly file: string,
    readonly generation: number,
    readonly fd: number,
    public allocated: number,
    /** The header block as read when opened: this file's identity (see `isDetached`). */
    private readonly header: Buffer,
  ) {}

  /**
   * Opens an existing generation for reading and writing: the file, `missing` (it does not exist,
   * e.g. a compaction removed it), or `bad` (its header is damaged or names another generation).
   */
  static tryOpen(file: string, generation: number): LogFile | 'missing' | { readonly bad: string } {
    const fd = openIfExists(logPath(file, generation), 'r+');
    if (fd === undefined) return 'missing';
    const header = Buffer.alloc(LOG_HEADER_BYTES);
    const decoded = readHeaderBlock(fd, header) ? decodeHeader(header) : undefined;
    if (!decoded || decoded.generation !== generation) {
      fs.closeSync(fd);
      return { bad: decoded ? `its header names generation ${decoded.generation}` : 'its header is damaged' };
    }
    return new LogFile(file, generation, fd, fs.fstatSync(fd).size, header);
  }

  /** Opens an existing generation with a valid header, or undefined. */
  static open(file: string, generation: number): LogFile | undefined {
    const opened = LogFile.tryOpen(file, generation);
    return opened instanceof LogFile ? opened : undefined;
  }

  /**
   * Creates generation `g` atomically: header + a preallocated zero chunk written to a temporary file,
   * fsynced, renamed into place, folder fsynced. Returns undefined if another process created it first.
   * A failed write (full disk) removes the temporary file. `injectEnospc` (tests): fail as a full disk
   * does, after the header.
   */
  static create(file: string, generation: number, preallocBytes: number, now: number, sqljs: string, injectEnospc = false): LogFile | undefined {
    const final = logPath(file, generation);
    const tmp = `${final}.tmp-${process.pid}`;
    const fd = fs.openSync(tmp, 'w');
    try {
      const header = encodeHeader({ format: LOG_FORMAT_VERSION, generation, createdAt: now, sqljs, id: randomUUID() });
      writeFully(fd, header, 0);
      if (injectEnospc) throw Object.assign(new Error('ENOSPC: no space left on device (injected)'), { code: 'ENOSPC' });
      const zeros = Buffer.alloc(preallocBytes);
      writeFully(fd, zeros, LOG_HEADER_BYTES);
      fs.fsyncSync(fd);
    } catch (error) {
      fs.closeSync(fd);
      fs.rmSync(tmp, { force: true });
      throw error;
    }
    fs.closeSync(fd);
    try {
      fs.linkSync(tmp, final); // fails with EEXIST instead of replacing another process's generation
    } catch (error) {
      fs.rmSync(tmp, { force: true });
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
      throw error;
    }
    fs.rmSync(tmp, { force: true });
    fsyncDirSync(path.dirname(final));
    return LogFile.open(file, generation);
  }

  private readonly frameScratch = Buffer.alloc(FRAME_BYTES);

  /**
   * True when no frame starts at `offset`: the file ends there or its frame header is all zero
   * (preallocated room, or a cut torn tail). One 8-byte read, for the writer lease's fence.
   */
  endsAt(offset: number): boolean {
    const n = fs.readSync(this.fd, this.frameScratch, 0, FRAME_BYTES, offset);
    return n < FRAME_BYTES || (this.frameScratch.readUInt32LE(0) === 0 && this.frameScratch.readUInt32LE(4) === 0);
  }

  /** Reads the frame at `offset`. */
  readAt(offset: number): ReadOutcome {
    return this.reader()(offset);
  }

  /**
   * A reader of consecutive frames: the outcome at each offset asked (`end`, `bad` — including a
   * record that runs past the end of the file — or the record), read through a buffer that starts
   * at 4 KiB and doubles up to 1 MiB, so replaying thousands of records costs a few system calls
   * instead of four per record, while a catch-up that finds nothing reads one page.
   */
  reader(): (offset: number) => ReadOutcome {
    let buf = Buffer.alloc(0);
    let start = 0;
    let chunk = 4096;
    // No fstat here: a short read is the end of the file. On Linux 6.13+ (multigrain timestamps),
    // asking for a file's times makes its next write stamp a fine-grained mtime, which cost every
    // following fdatasync ~0.04 ms here (0.09 → 0.13 ms); the fence reads through this per write.
    const fill = (offset: number, need: number): boolean => {
      if (offset >= start && offset + need <= start + buf.length) return true;
      const want = Math.max(chunk, need);
      chunk = Math.min(chunk * 2, 1024 * 1024);
      buf = Buffer.allocUnsafe(want);
      const n = fs.readSync(this.fd, buf, 0, want, offset);
      buf = buf.subarray(0, n);
      start = offset;
      return n >= need;
    };
    return (offset) => {
      if (!fill(offset, FRAME_BYTES)) return { type: 'end' };
      const frame = buf.subarray(offset - start, offset - start + FRAME_BYTES);
      const length = frame.readUInt32LE(0);
      if (length === 0 || length > MAX_RECORD_BYTES) return decodeFrame(frame, undefined, offset);
      if (!fill(offset, FRAME_BYTES + length)) return { type: 'bad', length, why: 'record runs past the end of the file' };
      const at = offset - start;
      return decodeFrame(buf.subarray(at, at + FRAME_BYTES), buf.subarray(at + FRAME_BYTES, at + FRAME_BYTES + length), offset);
    };
  }

  /**
   * Writes `bytes` at `offset` (growing the preallocation if needed) and makes them durable.
   * Before growing, the file's size is read again (another process may have grown it: never
   * zero-fill over its records), and a short write (file-size limit, quota) throws instead of being
   * acknowledged.
   */
  writeDurably(bytes: Buffer, offset: number, preallocBytes: number): void {
    if (offset + bytes.length > this.allocated) this.allocated = Math.max(this.allocated, fs.fstatSync(this.fd).size);
    if (offset + bytes.length > this.allocated) {
      const grow = Math.max(preallocBytes, offset + bytes.length - this.allocated);
      writeFully(this.fd, Buffer.alloc(grow), this.allocated);
      fs.fsyncSync(this.fd); // the size changes: a full fsync, once per chunk
      this.allocated += grow;
    }
    writeFully(this.fd, bytes, offset);
    fs.fdatasyncSync(this.fd);
  }

  private readonly headerScratch = Buffer.alloc(LOG_HEADER_BYTES);

  /**
   * True when this file is no longer the generation's file: deleted (a compaction removed it), or
   * another file now has its name (the folder was emptied and a fresh journal started, or a
   * quarantine moved the files aside and a fresh journal reached this generation). Opens the name
   * and compares its header block, which holds a random id, with this file's; it never asks the
   * open file for its attributes (fstat), which would stamp a fine-grained mtime on the next write
   * and slow its fdatasync (see `reader`).
   */
  isDetached(): boolean {
    const fd = openIfExists(logPath(this.file, this.generation), 'r');
    if (fd === undefined) return true;
    try {
      return !readHeaderBlock(fd, this.headerScratch) || !this.headerScratch.equals(this.header);
    } finally {
      fs.closeSync(fd);
    }
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

/** How the background compactor writes, and when it must give up (see `compact`). */
export interface CompactionPace {
  readonly chunkBytes: number;
  readonly pauseMs: number;
  /** Checked between stages and chunks: true = stop now (the journal is closing). */
  readonly shouldStop?: () => boolean;
}

/** Thrown by `compact` when `pace.shouldStop()` said to stop; nothing was replaced or deleted. */
export class CompactionStoppedError extends Error {
  constructor() {
    super('compaction stopped early: the journal is closing, or a forced compaction took over');
    this.name = 'CompactionStoppedError';
  }
}

function checkStop(pace: CompactionPace | undefined): void {
  if (pace?.shouldStop?.()) throw new CompactionStoppedError();
}

/** Writes `bytes` from offset 0 in durable chunks with pauses between them (see `compact`). */
function writePaced(fd: number, bytes: Buffer, pace: CompactionPace): void {
  for (let offset = 0; offset < bytes.length; offset += pace.chunkBytes) {
    checkStop(pace);
    writeFully(fd, bytes.subarray(offset, Math.min(bytes.length, offset + pace.chunkBytes)), offset);
    fs.fdatasyncSync(fd);
    if (pace.pauseMs > 0) sleepSync(pace.pauseMs);
  }
}

/** Writes all of `bytes` at `position`, or throws (EFBIG/EIO) if the system takes fewer. */
/** Opens `file` with `flags`, or undefined when it does not exist. @throws any other error. */
function openIfExists(file: string, flags: string): number | undefined {
  try {
    return fs.openSync(file, flags);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Reads a log file's header block into `into` (LOG_HEADER_BYTES); false when the file is shorter. */
function readHeaderBlock(fd: number, into: Buffer): boolean {
  return fs.readSync(fd, into, 0, LOG_HEADER_BYTES, 0) === LOG_HEADER_BYTES;
}

function writeFully(fd: number, bytes: Buffer, position: number): void {
  let done = 0;
  while (done < bytes.length) {
    const n = fs.writeSync(fd, bytes, done, bytes.length - done, position + done);
    if (n <= 0) throw Object.assign(new Error(`short write: ${done} of ${bytes.length} bytes (file-size limit or quota?)`), { code: 'EFBIG' });
    done += n;
  }
}

function fsyncDirSync(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL') throw error;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The store (see module docstring). */
export class LogStore {
  private log!: LogFile;
  private offset = LOG_HEADER_BYTES;
  private lastSeq = 0;
  private readonly lock: LockFile;
  private readonly prealloc: number;
  private readonly rotateAt: number;
  private recording: LoggedStatement[] | undefined;
  private unreadable: string | null = null;
  /** Prepared statements of this database: replayed records' SQL and transaction control. */
  private statements: StatementCache;
  /** performance.now() when the write lock was last taken (the writer lease's start). */
  private leaseSince = 0;
  /** Date.now() when the write lock was last taken. */
  private leaseSinceWall = 0;

  private constructor(
    private readonly options: LogStoreOptions,
    public db: Database,
  ) {
    this.lock = new LockFile(`${options.file}.lock`);
    tuneInMemory(db);
    this.statements = new StatementCache(db);
    this.prealloc = options.preallocBytes ?? 1024 * 1024;
    this.rotateAt = options.rotateAtBytes ?? DEFAULT_ROTATE_BYTES;
  }

  /**
   * Opens the store: snapshot + replay (see module docstring).
   * @throws UnreadableSnapshotError when the snapshot is not a readable SQLite database.
   */
  static open(options: LogStoreOptions): { store: LogStore; report: LogOpenReport } {
    fs.mkdirSync(path.dirname(options.file), { recursive: true });
    removeLeftovers(options.file);
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
          loadMs: replayStarted - loadStarted,
          replayMs: performance.now() - replayStarted,
        },
      };
    }
  }

  /** Set when part of the log cannot be read; writes are then refused. */
  get unreadableReason(): string | null {
    return this.unreadable;
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

  private appliedRecords = 0;

  /** Highest applied record sequence number. */
  get seq(): number {
    return this.lastSeq;
  }

  /** Bytes of the current generation's records (its end offset). */
  get logBytes(): number {
    return this.offset;
  }

  /** Set (at open) when replaying hit a database error that means the snapshot itself is damaged. */
  corrupt: string | null = null;

  private markUnreadable(generation: number, why: string): void {
    this.unreadable ??=
      `Part of the chat journal's log (${path.basename(logPath(this.options.file, generation))} at byte ${this.offset}) cannot be read: ` +
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
  private replayFrom(firstGeneration: number, final: boolean): { records: number; tornTailCut: boolean } | 'snapshot-moved' {
    const generations = listGenerations(this.options.file).filter((g) => g >= firstGeneration);
    let records = 0;
    let tornTailCut = false;
    if (generations.length === 0) {
      let created: LogFile | undefined;
      try {
        created = LogFile.create(this.options.file, firstGeneration, this.prealloc, this.options.now(), sqljsVersion(this.db), this.fault('rotate'));
      } catch (error) {
        this.unreadable = noRoomForLogMessage(error); // history readable, writes refused (no log to append to)
        return { records, tornTailCut };
      }
      const log = created ?? LogFile.open(this.options.file, firstGeneration);
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
      const opened = LogFile.tryOpen(this.options.file, g);
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
      this.log = opened;
      this.offset = LOG_HEADER_BYTES;
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
        this.cutTornTail();
        tornTailCut = true;
      }
    }
    return { records, tornTailCut };
  }

  /** Keeps a generation open for reading only, when replay stopped before reaching any. */
  private adoptEmptyGeneration(g: number): void {
    const opened = LogFile.open(this.options.file, g);
    if (opened) {
      this.log = opened;
      this.offset = LOG_HEADER_BYTES;
    }
  }

  /**
   * Applies every valid record from the current offset of the current generation. Stops at the end,
   * at a bad frame (`frame`: torn or corrupt), at a sequence gap (`gap`), or at a record that cannot
   * be replayed (`replay`, e.g. a newer build's migration this SQLite cannot run).
   */
  private applyAvailable(): { records: number; touched: Set<string>; bad?: { kind: 'frame' | 'gap' | 'replay'; length: number; why: string } } {
    // All records of one pass commit in one transaction (a SAVEPOINT each): replaying thousands of
    // records at open costs one commit, not thousands.
    if (!this.log) return { records: 0, touched: new Set() };
    const read = this.log.reader();
    // Nothing new (the common case of a poll): no transaction at all.
    if (read(this.offset).type === 'end') return { records: 0, touched: new Set() };
    const seqBefore = this.lastSeq;
    const offsetBefore = this.offset;
    this.db.exec('BEGIN');
    let result: ReturnType<LogStore['applyAvailableInTransaction']>;
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

  private applyAvailableInTransaction(read: (offset: number) => ReadOutcome): {
    records: number;
    touched: Set<string>;
    bad?: { kind: 'frame' | 'gap' | 'replay'; length: number; why: string };
  } {
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
   * rotation size plus a chunk), checking cheap signs (`{"s":` where a payload would start) before
   * the CRC. Runs only on this failure path.
   */
  private validRecordFollows(): boolean {
    const size = fs.fstatSync(this.log.fd).size;
    const end = Math.min(size, this.offset + this.rotateAt + this.prealloc + MAX_SCAN_SLACK);
    if (end <= this.offset + FRAME_BYTES) return false;
    const buf = Buffer.alloc(end - this.offset);
    fs.readSync(this.log.fd, buf, 0, buf.length, this.offset);
    const sign = Buffer.from('{"s":');
    for (let i = 1; i + FRAME_BYTES + sign.length <= buf.length; i++) {
      if (buf[i + FRAME_BYTES] !== 0x7b) continue;
      const len = buf.readUInt32LE(i);
      if (len < sign.length || i + FRAME_BYTES + len > buf.length) continue;
      if (!buf.subarray(i + FRAME_BYTES, i + FRAME_BYTES + sign.length).equals(sign)) continue;
      const outcome = decodeFrame(buf.subarray(i, i + FRAME_BYTES), buf.subarray(i + FRAME_BYTES, i + FRAME_BYTES + len), this.offset + i);
      if (outcome.type === 'record' && outcome.record.s > this.lastSeq) return true;
    }
    return false;
  }

  /** Cuts a torn tail: zeroes the bad frame header under the lock so every reader sees the end. */
  private cutTornTail(): void {
    this.withLock(() => {
      const again = this.log.readAt(this.offset);
      if (again.type === 'bad') this.log.writeDurably(Buffer.alloc(FRAME_BYTES), this.offset, this.prealloc);
    });
  }

  /**
   * Applies what other processes committed since this process last read (no lock needed: a frame
   * being written reads as bad and is simply not applied yet). Returns the sessions touched.
   */
  catchUp(): Set<string> {
    const touched = new Set<string>();
    if (this.unreadable) return touched;
    for (;;) {
      const result = this.applyAvailable();
      for (const s of result.touched) touched.add(s);
      if (result.bad && result.bad.kind !== 'frame') {
        this.markUnreadable(this.log.generation, result.bad.why);
        return touched;
      }
      const next = LogFile.open(this.options.file, this.log.generation + 1);
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
      this.log = next;
      this.offset = LOG_HEADER_BYTES;
    }
  }

  /** Replaces the in-memory database with the snapshot plus logs on disk (see catchUp). */
  private reloadFromDisk(): void {
    const { store } = LogStore.open(this.options);
    this.log.close();
    this.db.close();
    this.db = store.db;
    this.log = store.log;
    this.offset = store.offset;
    this.lastSeq = store.lastSeq;
    this.unreadable = store.unreadable;
    this.statements = store.statements;
    this.appliedRecords++;
    this.options.onReload?.(this.db);
  }

  /** Statement recorder for JournalCore: every write statement passes through here while recording. */
  record(sql: string, params: readonly (string | number | null)[]): void {
    this.recording?.push([sql, params]);
  }

  /**
   * Runs `transaction` as one durable, logged transaction (see module docstring). Returns its value.
   * `touched` names the sessions it changes (for other windows' views), read after it ran.
   * @throws JournalRefusedError('read_only') when part of the log is unreadable;
   *         JournalRefusedError('storage_failed') when the append or the lock fails (rolled back);
   *         whatever `transaction` throws (rolled back).
   */
  write<T>(transaction: () => T, touched: () => readonly string[]): { value: T; rotated: boolean } {
    const { outcomes, rotated } = this.writeGroup([transaction], touched);
    const outcome = outcomes[0]!;
    if (!outcome.ok) throw outcome.error;
    return { value: outcome.value as T, rotated };
  }

  /** Runs a transaction-control statement (BEGIN, COMMIT, SAVEPOINT…) prepared once. */
  private control(sql: string): void {
    this.statements.run(sql, []);
  }

  /**
   * Takes the write lock for a write group, or keeps the writer lease this process already holds.
   * Returns true when the lock was (re)taken, so other processes' records must be caught up on first.
   */
  private takeLease(): boolean {
    if (this.lock.isHeld) {
      // Both clocks: the monotonic one does not advance while the machine sleeps, wall time does
      // (and the lock's age, which breakers judge, is wall time).
      const leaseMs = this.options.leaseMs ?? 0;
      const fresh = performance.now() - this.leaseSince < leaseMs && Math.abs(Date.now() - this.leaseSinceWall) < leaseMs;
      if (fresh && this.fenceHolds()) return false;
      // Removes the file only if it still names this process: a lock broken while this process was
      // stopped may now be another's. (One that still names it — e.g. a rotation that failed after
      // creating the next generation tripped the fence — is let go and taken again at once, not
      // waited for as if someone else held it.)
      this.lock.release();
    }
    this.lock.acquire(this.options.lockTimeoutMs);
    this.leaseSince = performance.now();
    this.leaseSinceWall = Date.now();
    return true;
  }

  /**
   * The fence: under a valid lease nothing was written after this process's last record — nothing
   * follows it in its generation, no next generation exists, and its generation was not deleted.
   * Anything else means the lock was broken while this process was stopped (a live holder's lock is
   * only broken after 30 s): the caller forgets the lock without removing the file (it may now be
   * another process's), takes it again and catches up. Three cheap calls: a read, a stat, an fstat.
   */
  private fenceHolds(): boolean {
    return (
      // Nothing was applied from other processes since this process's own last group (a poll's
      // catch-up advances `offset` past a breaker's records, so "nothing after offset" alone
      // would let this process write on while the breaker holds the lock).
      this.log.generation === this.ownEnd.generation &&
      this.offset === this.ownEnd.offset &&
      this.log.endsAt(this.offset) &&
      !fs.existsSync(logPath(this.options.file, this.log.generation + 1)) &&
      !this.log.isDetached()
    );
  }

  /**
   * After a write group: lets the lock go, unless a lease keeps it and nobody else waits for it.
   * Under contention each holder keeps the lock for a slice of LEASE_SLICE_MS before yielding, so a
   * busy window commits a few writes per hand-over instead of one (each hand-over costs a lock, a
   * catch-up and a poll interval: strict alternation doubled the p50 of two busy windows).
   */
  private endGroup(): void {
    if (!(this.options.leaseMs ?? 0)) this.lock.release();
    else if (performance.now() - this.leaseSince >= LEASE_SLICE_MS && this.lock.othersWaiting()) this.lock.yieldTo();
  }

  /** Where this process's last logged group ended (after a rotation: the new generation's start). */
  private ownEnd = { generation: -1, offset: -1 };

  /** Lets the writer lease go (the owner calls this when it has no more writes queued). */
  releaseLease(): void {
    this.lock.release();
  }

  /** True while this process holds the write lock between write groups (tests, diagnostics). */
  get holdsLease(): boolean {
    return this.lock.isHeld;
  }

  /** Runs `fn` under the write lock (the lease's, if held; otherwise taken and released around it). */
  private withLock<T>(fn: () => T): T {
    if (this.lock.isHeld) return fn();
    this.lock.acquire(this.options.lockTimeoutMs);
    try {
      return fn();
    } finally {
      this.lock.release();
    }
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
   * @throws JournalRefusedError('read_only' | 'storage_failed') for the whole group (lock, unreadable log).
   */
  writeGroup(
    transactions: readonly (() => unknown)[],
    touched: () => readonly string[],
    onDurable?: (outcomes: readonly Outcome[]) => void,
  ): { outcomes: Outcome[]; rotated: boolean; acknowledged: boolean } {
    if (this.unreadable) throw new JournalRefusedError('read_only', this.unreadable);
    let taken: boolean;
    try {
      if (this.fault('lock')) throw Object.assign(new Error('ENOSPC: no space left on device, write (injected)'), { code: 'ENOSPC' });
      taken = this.takeLease();
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
      if (failed) this.lock.release();
      else this.endGroup();
    }
  }

  /** Runs, logs and commits a group (the lock is held). `appendFailed`: the log append failed, all rolled back. */
  private commitGroup(
    transactions: readonly (() => unknown)[],
    touched: () => readonly string[],
    onDurable: ((outcomes: readonly Outcome[]) => void) | undefined,
  ): { outcomes: Outcome[]; rotated: boolean; appendFailed?: boolean; logged?: boolean } {
    const outcomes: Outcome[] = [];
    const records: Buffer[] = [];
    // One transaction alone needs no SAVEPOINT: if it throws, the whole BEGIN is rolled back.
    const savepoints = transactions.length > 1;
    this.control('BEGIN IMMEDIATE');
    for (const transaction of transactions) {
      this.recording = [];
      if (savepoints) this.control('SAVEPOINT tx');
      try {
        const value = transaction();
        const statements = this.recording;
        if (statements.length > 0) {
          const record: LogRecord = { s: this.lastSeq + records.length + 1, t: statements, x: [...touched()] };
          const payload = Buffer.from(JSON.stringify(record), 'utf8');
          if (payload.length > MAX_RECORD_BYTES) {
            throw new JournalRefusedError(
              'storage_failed',
              `A change of ${(payload.length / 1048576).toFixed(0)} MB is larger than the chat journal takes (${MAX_RECORD_BYTES / 1048576} MB). Nothing was changed.`,
            );
          }
          records.push(payload);
        }
        if (savepoints) this.control('RELEASE tx');
        outcomes.push({ ok: true, value });
      } catch (error) {
        if (savepoints) {
          this.control('ROLLBACK TO tx');
          this.control('RELEASE tx');
        }
        touched();
        outcomes.push({ ok: false, error });
      } finally {
        this.recording = undefined;
      }
    }
    if (records.length === 0) {
      // Nothing to log: a lone transaction that threw, or only reads. Roll back what failed.
      this.control(outcomes.every((o) => o.ok) ? 'COMMIT' : 'ROLLBACK');
      return { outcomes, rotated: false };
    }
    const frames = records.map(encodePayload);
    // One write: each record without its terminator, then the last one's terminator.
    const bytes = frames.length === 1 ? frames[0]! : Buffer.concat(frames.map((f, i) => (i === frames.length - 1 ? f : f.subarray(0, f.length - FRAME_BYTES))));
    try {
      if (this.options.faultInjection && fs.existsSync(`${this.options.file}.fault-enospc`)) {
        throw Object.assign(new Error('ENOSPC: no space left on device (injected)'), { code: 'ENOSPC' });
      }
      this.log.writeDurably(bytes, this.offset, this.prealloc);
    } catch (error) {
      this.control('ROLLBACK');
      const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
      const refusal = new JournalRefusedError(
        'storage_failed',
        `The chat journal could not be saved (${code}${code === 'ENOSPC' ? ': the disk is full' : ''}). Nothing was changed.`,
      );
      return { outcomes: outcomes.map((o) => (o.ok ? { ok: false, error: refusal } : o)), rotated: false, appendFailed: true };
    }
    this.lastSeq += records.length;
    this.offset += bytes.length - FRAME_BYTES; // the terminator is overwritten by the next record
    try {
      onDurable?.(outcomes);
    } finally {
      this.commitLogged();
    }
    let rotated = false;
    if (this.offset >= this.rotateAt) {
      // The group is durable and committed: a failed rotation (full disk) must not turn its
      // acknowledgement into an error. The current generation keeps taking records (its
      // preallocated room, then growth) and the next group tries to rotate again.
      try {
        rotated = this.rotate();
      } catch (error) {
        this.rotationFailure = `starting log generation ${this.log.generation + 1} failed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); will retry`;
      }
    }
    this.ownEnd = { generation: this.log.generation, offset: this.offset };
    return { outcomes, rotated, logged: true };
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

  private caughtUp = new Set<string>();

  /** Starts the next log generation now (under the lock). Returns false if another process just did. */
  rotateNow(): boolean {
    if (this.unreadable) return false;
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

  private rotationFailure: string | null = null;

  /** Starts the next log generation (called under the lock). */
  private rotate(): boolean {
    const next = this.log.generation + 1;
    const created = LogFile.create(this.options.file, next, this.prealloc, this.options.now(), sqljsVersion(this.db), this.fault('rotate'));
    if (!created) return false;
    this.log.close();
    this.log = created;
    this.offset = LOG_HEADER_BYTES;
    return true;
  }

  /** Tests: a new log generation (`rotate`) or the write lock (`lock`) fails while `<file>.fault-enospc-<kind>` exists. */
  private fault(kind: 'rotate' | 'lock'): boolean {
    return this.options.faultInjection === true && fs.existsSync(`${this.options.file}.fault-enospc-${kind}`);
  }

  /** Lets the lease go and closes the log file (the database is the caller's). */
  close(): void {
    this.lock.release();
    this.log?.close();
  }
}

/**
 * Rebuilds the snapshot from the current snapshot plus every closed log generation below
 * `belowGeneration`, durably replaces it, then deletes those generations. Safe against concurrent
 * writers (they only append to newer generations) and concurrent compactors (a `.compact.lock`).
 * Returns what it did, or undefined when another compaction held the lock for more than `waitMs` ms.
 * `pace` (the background compactor's): write the new snapshot in chunks of `chunkBytes`, each made
 * durable and followed by a pause of `pauseMs` ms, so the disk is never busy long with it — one
 * fsync of a whole 10 MB snapshot held every write's fdatasync of the same disk for 2-10 ms — and
 * give up between stages and chunks when `shouldStop()` says so.
 * @throws CompactionStoppedError when stopped (the lock is released, the temporary file removed,
 *         the snapshot and logs untouched); the I/O error when writing fails (same cleanup).
 */
export function compact(
  sql: SqlJsStatic,
  file: string,
  belowGeneration: number,
  waitMs = 0,
  pace?: CompactionPace,
): { records: number; bytes: number } | undefined {
  const compactLock = new LockFile(`${file}.compact.lock`);
  try {
    compactLock.acquire(waitMs);
  } catch {
    return undefined;
  }
  try {
    const bytes = readIfExists(file);
    const db = bytes ? new sql.Database(bytes) : new sql.Database();
    tuneInMemory(db);
    const cache = new StatementCache(db);
    try {
      const checkpoint = readCheckpoint(db);
      let seq = checkpoint.seq;
      let records = 0;
      const closed = listGenerations(file).filter((g) => g >= checkpoint.generation && g < belowGeneration);
      if (closed.length === 0) return { records: 0, bytes: bytes?.length ?? 0 };
      // One transaction for the whole replay (a failure abandons this copy of the database anyway).
      db.exec('BEGIN');
      for (const g of closed) {
        checkStop(pace);
        const log = LogFile.open(file, g);
        if (!log) throw new Error(`log generation ${g} is missing or damaged: not compacting`);
        try {
          let offset = LOG_HEADER_BYTES;
          const read = log.reader();
          for (;;) {
            const outcome = read(offset);
            if (outcome.type === 'end') break;
            // A closed generation must read to its explicit end: anything else would be deleted unread.
            if (outcome.type === 'bad') throw new Error(`log generation ${g} cannot be read at byte ${offset} (${outcome.why}): not compacting`);
            if (outcome.record.s > seq + 1) throw new Error(`log generation ${g} has a sequence gap at byte ${offset}: not compacting`);
            if (outcome.record.s > seq) {
              for (const statement of outcome.record.t) applyStatement(db, statement, cache);
              seq = outcome.record.s;
              records++;
            }
            offset = outcome.next;
          }
        } finally {
          log.close();
        }
      }
      db.exec('COMMIT');
      db.exec(CHECKPOINT_DDL);
      db.run('INSERT INTO journal_checkpoint (id, generation, seq) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET generation = excluded.generation, seq = excluded.seq', [
        closed[closed.length - 1]! + 1, seq,
      ]);
      cache.clear(); // export() frees every statement of the database
      // Free pages (a migration that rebuilt a table, deleted chats) are copied by export() as they
      // are: give them back when they are over a quarter of the file.
      const pages = Number(db.exec('PRAGMA page_count')[0]?.values[0]?.[0] ?? 0);
      const free = Number(db.exec('PRAGMA freelist_count')[0]?.values[0]?.[0] ?? 0);
      if (pages > 0 && free * 4 > pages) db.exec('VACUUM');
      checkStop(pace);
      const image = db.export();
      checkStop(pace);
      const tmp = `${file}.compact-${process.pid}`;
      const fd = fs.openSync(tmp, 'w');
      try {
        const bytes = Buffer.from(image.buffer, image.byteOffset, image.byteLength);
        if (pace) writePaced(fd, bytes, pace);
        else writeFully(fd, bytes, 0);
        fs.fsyncSync(fd);
      } catch (error) {
        fs.closeSync(fd);
        fs.rmSync(tmp, { force: true });
        throw error;
      }
      fs.closeSync(fd);
      fs.renameSync(tmp, file);
      fsyncDirSync(path.dirname(file));
      for (const g of closed) fs.rmSync(logPath(file, g), { force: true });
      return { records, bytes: image.length };
    } finally {
      db.close();
    }
  } finally {
    compactLock.release();
  }
}

/**
 * Removes temporary files a crashed process left beside the journal: a half-created log generation
 * (`<file>.log.<g>.tmp-<pid>`) or snapshot (`<file>.compact-<pid>`) whose process is gone. Files of
 * live processes are left alone (they are being written).
 */
export function removeLeftovers(file: string): string[] {
  const dir = path.dirname(file);
  const base = path.basename(file);
  const pattern = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(?:log\\.\\d+\\.tmp|compact)-(\\d+)$`);
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = pattern.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch (error) {
      alive = (error as NodeJS.ErrnoException).code !== 'ESRCH';
    }
    if (!alive) {
      fs.rmSync(path.join(dir, name), { force: true });
      removed.push(name);
    }
  }
  return removed;
}

function readIfExists(file: string): Uint8Array | undefined {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function sqljsVersion(db: Database): string {
  return String(db.exec('SELECT sqlite_version()')[0]?.values[0]?.[0] ?? 'unknown');
}


