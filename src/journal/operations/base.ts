/**
 * The base of `JournalCore` (../core.ts): the database, the statements it runs (every write
 * statement also goes to the redo log's recorder), the sessions the current write touched, and the
 * fences of chats with unreadable rows. The operations build on it, one concern per file.
 */
import type { Database, SqlValue } from 'sql.js';
import { JournalRefusedError } from '../errors';
import { fenceMessage } from '../plainErrors';
import { BACKFILL_CHUNK, type Migration } from '../schema';
import { StatementCache } from '../statementCache';
import { FENCING_TABLES } from './fenceRows';
import { UnreadableRowError, type Row } from './rows';

/** A row that fences its chat: its table, its key as the decoder names it, whether a newer build could have written it. */
interface FencingRow {
  readonly table: string;
  readonly key: string;
  readonly newer: boolean;
}

/** A chat's fence and the row that holds it (the first, when several do). */
export interface FenceDetail {
  readonly message: string;
  readonly table: string;
  /** The row's own key (`events`: `run#seq`). */
  readonly rowKey: string;
  /** True when the row is damaged; false when a newer build could have written it. */
  readonly damaged: boolean;
}

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

/** What every operation builds on (see module docstring). */
export abstract class OperationsBase {
  protected touchedSessions = new Set<string>();
  /** Fenced chats: session id → the rows that fence it, by `table\0key`. */
  private readonly fences = new Map<string, Map<string, FencingRow>>();
  /** Chats whose release is running now (`whileReleasing`): their writes pass the fence. */
  private readonly releasing = new Set<string>();

  private readonly statements: StatementCache;

  /** @param record called with every write statement (the redo log's source). */
  constructor(private readonly db: Database, private readonly record: StatementRecorder = () => undefined) {
    this.statements = new StatementCache(db);
  }

  /** Sessions the current write touched; clears the set. */
  takeTouched(): string[] {
    const list = [...this.touchedSessions];
    this.touchedSessions.clear();
    return list;
  }

  /**
   * Why writes to a chat are refused (it has a row this build cannot read), or null. The rows that
   * fenced it are read again first (`fenceHolds`): a fence whose rows are gone or read now lifts.
   */
  getFence(sessionId: string): string | null {
    return this.getFenceDetail(sessionId)?.message ?? null;
  }

  /** The chat's fence (see `getFence`) with the row that holds it: its table, its key, and whether it is damaged (not a newer build's). */
  getFenceDetail(sessionId: string): FenceDetail | null {
    const row = this.fenceHolds(sessionId);
    return row ? { message: fenceMessage(row.table, row.newer), table: row.table, rowKey: row.key, damaged: !row.newer } : null;
  }

  /** Marks a session as changed by this write; refuses if the chat is fenced. */
  protected touch(sessionId: string): void {
    const fence = this.releasing.has(sessionId) ? null : this.getFence(sessionId);
    if (fence) throw new JournalRefusedError('row_unreadable', fence);
    this.touchedSessions.add(sessionId);
  }

  /**
   * Runs `fn` (Repair Journal's release of a fenced chat) with writes to `sessionId` let through its
   * fence. The fence itself stays: once `fn`'s transaction removed the rows that raised it, the next
   * consult finds them gone and lifts it; if the transaction is rolled back (a throw, a failed
   * append to the log), the rows are back and the fence still holds.
   */
  protected whileReleasing<T>(sessionId: string, fn: () => T): T {
    this.releasing.add(sessionId);
    try {
      return fn();
    } finally {
      this.releasing.delete(sessionId);
    }
  }

  /**
   * The first row still fencing `sessionId`, or undefined: each row that fenced it is read again by
   * its key and kept only while it exists and its decoder still refuses it. Lifts the fence when none
   * is left. Costs one keyed read per fencing row, only for fenced chats.
   */
  private fenceHolds(sessionId: string): FencingRow | undefined {
    const rows = this.fences.get(sessionId);
    if (!rows) return undefined;
    for (const [id, row] of rows) if (!this.stillUnreadable(row)) rows.delete(id);
    if (rows.size === 0) this.fences.delete(sessionId);
    return rows.values().next().value;
  }

  /** True while the row exists and its decoder refuses it. */
  private stillUnreadable(row: FencingRow): boolean {
    const table = FENCING_TABLES[row.table];
    if (!table) return true; // not a table whose rows can be found again: the fence stays
    const found = this.one(table.byKey, table.keyParams(row.key));
    if (!found) return false;
    try {
      table.decode(found);
      return false;
    } catch (error) {
      if (error instanceof UnreadableRowError) return true;
      throw error;
    }
  }

  /** Decodes rows, skipping (and fencing the chat of) rows this build cannot read. */
  protected decodeAll<T>(rows: Row[], decode: (r: Row) => T): T[] {
    const out: T[] = [];
    for (const row of rows) {
      try {
        out.push(decode(row));
      } catch (error) {
        if (!(error instanceof UnreadableRowError)) throw error;
        const rows = this.fences.get(error.sessionId) ?? new Map<string, FencingRow>();
        rows.set(`${error.table}\0${error.rowId}`, { table: error.table, key: error.rowId, newer: error.newer });
        this.fences.set(error.sessionId, rows);
      }
    }
    return out;
  }

  /**
   * The one row a write acts on, decoded. A row its decoder refuses fences its chat (as any read
   * meeting it does) and refuses the write with the fence's reason, rather than calling it missing.
   * @throws JournalRefusedError('not_found') with `missing` when there is no row;
   *   JournalRefusedError('row_unreadable') when the row cannot be read.
   */
  protected decodeForWrite<T>(row: Row | undefined, decode: (r: Row) => T, missing: string): T {
    if (!row) throw new JournalRefusedError('not_found', missing);
    try {
      return decode(row);
    } catch (error) {
      if (!(error instanceof UnreadableRowError)) throw error;
      this.decodeAll([row], decode); // fences the chat, as a read meeting the row does
      throw new JournalRefusedError('row_unreadable', fenceMessage(error.table, error.newer));
    }
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
  protected emptyDatabase(): Database {
    return new (this.db.constructor as new () => Database)();
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
  protected turnColumns(): string {
    return this.userVersion() >= TURN_SEQ_SCHEMA ? '*' : '*, rowid AS search_doc';
  }

  protected exec(sql: string): void {
    this.db.exec(sql);
    this.record(sql, []);
  }

  // ---------------------------------------------------------------- low level

  protected all(sql: string, params: SqlValue[] = []): Row[] {
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
  protected allArrays(sql: string, params: SqlValue[] = []): SqlValue[][] {
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
  protected eachArray(sql: string, params: SqlValue[], onRow: (row: SqlValue[]) => boolean): void {
    const stmt = this.db.prepare(sql);
    try {
      stmt.bind(params);
      while (stmt.step()) if (!onRow(stmt.get())) break;
    } finally {
      stmt.free();
    }
  }

  protected one(sql: string, params: SqlValue[] = []): Row | undefined {
    return this.all(sql, params)[0];
  }

  /** Runs a write statement and records it even when it changed no row (a virtual table's count is not SQLite's to report). */
  protected runRecorded(sql: string, params: (string | number | null)[]): void {
    this.statements.run(sql, params);
    this.record(sql, params);
  }

  protected run(sql: string, params: (string | number | null)[] = []): number {
    const changed = this.statements.run(sql, params);
    if (changed > 0) this.record(sql, params);
    return changed;
  }
}
