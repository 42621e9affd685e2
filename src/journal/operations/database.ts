/**
 * The database every concern of `JournalCore` (../core.ts) reads and writes through (`JournalDb`):
 * the sql.js database, the statements it runs (cached; every write statement also goes to the redo
 * log's recorder), its schema version and the migrations. Shared by the concerns, never extended:
 * each concern receives it through its constructor.
 */
import type { Database, SqlValue } from 'sql.js';
import { BACKFILL_CHUNK, type Migration } from '../schema';
import { StatementCache } from '../statementCache';
import type { Row } from './rows';

/** Receives every write statement (SQL and parameters) a transaction runs, for the redo log. */
export type StatementRecorder = (sql: string, params: readonly (string | number | null)[]) => void;

/** The schema that numbers turns in the order they were written (`turns.search_doc`, migration 4). */
export const TURN_SEQ_SCHEMA = 4;

/** The schema that numbers chats in the order of their last activity (`sessions.activity`, migration 13). */
export const ACTIVITY_SCHEMA = 13;

/**
 * The value a write that sets a chat's `updated_at` gives its `activity`: one more than any chat's,
 * so the chat list's order follows the journal's sequence of writes, never the clock (which may step
 * back). Deterministic: every window replays the same number.
 */
export const NEXT_ACTIVITY = '(SELECT COALESCE(MAX(activity), 0) + 1 FROM sessions)';

/**
 * Statements on one sql.js database (see module docstring). Reads return rows as objects keyed by
 * column name (`all`, `one`) or as arrays in column order (`allArrays`, `eachArray`); writes are
 * recorded for the redo log (`run`, `runRecorded`, `exec`). Errors of SQLite are thrown as is.
 */
export class JournalDb {
  private readonly statements: StatementCache;

  /**
   * @param database the open sql.js database.
   * @param record called with every write statement (the redo log's source).
   */
  constructor(private readonly database: Database, private readonly record: StatementRecorder = () => undefined) {
    this.statements = new StatementCache(database);
  }

  /**
   * Runs the migration after the database's `user_version`, one per call: its SQL, then its
   * backfill chunk by chunk, calling `onProgress(done, total)` (keys covered, of all its backfills)
   * after each chunk. Returns the version reached, or undefined when there is nothing to do.
   * Statements are recorded, so other processes replay the migration from the log.
   */
  migrateOne(migrations: readonly Migration[], onProgress?: (done: number, total: number) => void): number | undefined {
    const current = this.userVersion();
    const next = migrations.find((m) => m.version === current + 1);
    if (!next) return undefined;
    this.exec(next.sql);
    const ranges = (next.backfill ?? []).map((b) => {
      const row = this.one(b.range);
      const lo = row?.lo;
      const hi = row?.hi;
      return typeof lo === 'number' && typeof hi === 'number' && hi >= lo ? { chunk: b.chunk, lo, hi } : undefined;
    });
    const total = ranges.reduce((sum, r) => sum + (r ? r.hi - r.lo + 1 : 0), 0);
    let done = 0;
    for (const r of ranges) {
      if (!r) continue;
      for (let from = r.lo; from <= r.hi; from += BACKFILL_CHUNK) {
        const to = Math.min(from + BACKFILL_CHUNK - 1, r.hi);
        this.runRecorded(r.chunk, [from, to]);
        done += to - from + 1;
        onProgress?.(done, total);
      }
    }
    this.exec(`PRAGMA user_version = ${next.version}`);
    return next.version;
  }

  /** A new empty in-memory database of the same sql.js build (to compare this one's structure against); the caller closes it. */
  emptyDatabase(): Database {
    return new (this.database.constructor as new () => Database)();
  }

  /** The database's `user_version`. */
  userVersion(): number {
    // Checked before every write: a prepared statement, not a fresh parse each time.
    return Number(this.one('PRAGMA user_version')?.user_version ?? 0);
  }

  /**
   * The columns of a read of `turns` decoded by `toTurn`: every column, and in a journal older than
   * schema 4 (read-only: its migration could not run), which has no `search_doc`, the rowid under
   * that name. Either is the order turns were written in, never a clock's; every read orders turns
   * by `search_doc` (SQLite resolves the alias in WHERE and ORDER BY).
   */
  turnColumns(): string {
    return this.userVersion() >= TURN_SEQ_SCHEMA ? '*' : '*, rowid AS search_doc';
  }

  /** Runs `sql` (one or more statements, no parameters) and records it. */
  exec(sql: string): void {
    this.database.exec(sql);
    this.record(sql, []);
  }

  /** Every row of `sql` with `params`, as objects keyed by column name. */
  all(sql: string, params: SqlValue[] = []): Row[] {
    const stmt = this.statements.get(sql);
    try {
      stmt.bind(params);
      const rows: Row[] = [];
      while (stmt.step()) rows.push(stmt.getAsObject() as Row);
      return rows;
    } finally {
      stmt.reset();
    }
  }

  /** Rows as arrays of column values, in the statement's column order (several times faster than `all` for thousands of rows). */
  allArrays(sql: string, params: SqlValue[] = []): SqlValue[][] {
    const stmt = this.statements.get(sql);
    try {
      stmt.bind(params);
      const rows: SqlValue[][] = [];
      while (stmt.step()) rows.push(stmt.get());
      return rows;
    } finally {
      stmt.reset();
    }
  }

  /**
   * Steps `sql`'s rows (arrays of column values, in column order) into `onRow` until it returns
   * false or the rows end, so a read can stop early (an FTS4 query read newest first). The
   * statement is prepared for this call, not cached: `onRow` may run other statements, and a cache
   * that fills up meanwhile frees every statement it holds, this one included.
   */
  eachArray(sql: string, params: SqlValue[], onRow: (row: SqlValue[]) => boolean): void {
    const stmt = this.database.prepare(sql);
    try {
      stmt.bind(params);
      while (stmt.step()) if (!onRow(stmt.get())) break;
    } finally {
      stmt.free();
    }
  }

  /** The first row of `sql` with `params`, or undefined. */
  one(sql: string, params: SqlValue[] = []): Row | undefined {
    return this.all(sql, params)[0];
  }

  /** Runs a write statement and records it even when it changed no row (a virtual table's count is not SQLite's to report). */
  runRecorded(sql: string, params: (string | number | null)[]): void {
    this.statements.run(sql, params);
    this.record(sql, params);
  }

  /** Runs a write statement; returns how many rows it changed, and records it when that is more than none. */
  run(sql: string, params: (string | number | null)[] = []): number {
    const changed = this.statements.run(sql, params);
    if (changed > 0) this.record(sql, params);
    return changed;
  }
}
