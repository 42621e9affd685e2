/**
 * Compaction: rebuilds the snapshot from the old snapshot plus the closed log generations, writes
 * it to a temporary file, fsyncs, renames it over the snapshot, fsyncs the folder, then deletes the
 * closed generations. It runs in the helper thread (helperThread.ts) so writes never wait for it,
 * or right in the journal worker when forced (a new or just-migrated journal). Also: the removal of
 * temporary files a crashed process left behind.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import { LockFile, sleepSync } from './lockFile';
import { LOG_HEADER_BYTES } from './logFormat';
import { LogFile, fsyncDirSync, listGenerations, logPath, writeFully, writeTemporaryFile } from './logFile';
import { applyStatement, readCheckpoint, tuneInMemory } from './memoryDb';
import { StatementCache } from './statementCache';

const CHECKPOINT_DDL =
  'CREATE TABLE IF NOT EXISTS journal_checkpoint (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL, seq INTEGER NOT NULL)';

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
    try {
      const checkpoint = readCheckpoint(db);
      const closed = listGenerations(file).filter((g) => g >= checkpoint.generation && g < belowGeneration);
      if (closed.length === 0) return { records: 0, bytes: bytes?.length ?? 0 };
      const { records, seq } = replayClosed(db, file, closed, checkpoint.seq, pace);
      db.exec(CHECKPOINT_DDL);
      db.run('INSERT INTO journal_checkpoint (id, generation, seq) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET generation = excluded.generation, seq = excluded.seq', [
        closed[closed.length - 1]! + 1, seq,
      ]);
      // Free pages (a migration that rebuilt a table, deleted chats) are copied by export() as they
      // are: give them back when they are over a quarter of the file.
      const pages = Number(db.exec('PRAGMA page_count')[0]?.values[0]?.[0] ?? 0);
      const free = Number(db.exec('PRAGMA freelist_count')[0]?.values[0]?.[0] ?? 0);
      if (pages > 0 && free * 4 > pages) db.exec('VACUUM');
      checkStop(pace);
      const image = db.export();
      checkStop(pace);
      replaceSnapshot(file, Buffer.from(image.buffer, image.byteOffset, image.byteLength), pace);
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
 * Applies the records of the closed generations `closed` above `fromSeq` to `db`, in one
 * transaction (a failure abandons this copy of the database anyway). A closed generation must read
 * to its explicit end: anything else would be deleted unread, so it throws instead.
 */
function replayClosed(db: Database, file: string, closed: readonly number[], fromSeq: number, pace: CompactionPace | undefined): { records: number; seq: number } {
  const cache = new StatementCache(db);
  let seq = fromSeq;
  let records = 0;
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
  cache.clear(); // export() frees every statement of the database
  return { records, seq };
}

/** Writes `bytes` to a temporary file (paced, if `pace`), fsyncs it and renames it over `file` durably. */
function replaceSnapshot(file: string, bytes: Buffer, pace: CompactionPace | undefined): void {
  const tmp = `${file}.compact-${process.pid}`;
  writeTemporaryFile(tmp, (fd) => (pace ? writePaced(fd, bytes, pace) : writeFully(fd, bytes, 0)));
  fs.renameSync(tmp, file);
  fsyncDirSync(path.dirname(file));
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

