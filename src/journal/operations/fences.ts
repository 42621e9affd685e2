/**
 * What the write running now touched, and the fences of chats with unreadable rows (`ChatFences`):
 * the sessions a write changed (for other windows' views), and for each fenced chat the rows that
 * fence it. Shared by the concerns of `JournalCore` (../core.ts), each receiving it through its
 * constructor: reads decode rows through it (`decodeAll`, a row this build cannot read fences its
 * chat), writes mark the chat they change through it (`touch`, refused while the chat is fenced).
 */
import { JournalRefusedError } from '../errors';
import { fenceMessage } from '../plainErrors';
import type { JournalDb } from './database';
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

/** The touched sessions and the fences (see module docstring). */
export class ChatFences {
  private readonly touchedSessions = new Set<string>();
  /** Fenced chats: session id → the rows that fence it, by `table\0key`. */
  private readonly fences = new Map<string, Map<string, FencingRow>>();
  /** Chats whose release is running now (`whileReleasing`): their writes pass the fence. */
  private readonly releasing = new Set<string>();

  /** @param db the database a fencing row is read again from (`fenceHolds`). */
  constructor(private readonly db: JournalDb) {}

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

  /**
   * Marks a session as changed by this write; refuses if the chat is fenced.
   * @throws JournalRefusedError('row_unreadable') with the fence's reason.
   */
  touch(sessionId: string): void {
    const fence = this.releasing.has(sessionId) ? null : this.getFence(sessionId);
    if (fence) throw new JournalRefusedError('row_unreadable', fence);
    this.touchedSessions.add(sessionId);
  }

  /** Marks a session as changed by this write without consulting its fence (a fenced chat's tab still opens and closes). */
  touchUnfenced(sessionId: string): void {
    this.touchedSessions.add(sessionId);
  }

  /**
   * Runs `fn` (Repair Journal's release of a fenced chat) with writes to `sessionId` let through its
   * fence. The fence itself stays: once `fn`'s transaction removed the rows that raised it, the next
   * consult finds them gone and lifts it; if the transaction is rolled back (a throw, a failed
   * append to the log), the rows are back and the fence still holds.
   */
  whileReleasing<T>(sessionId: string, fn: () => T): T {
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
    const found = this.db.one(table.byKey, table.keyParams(row.key));
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
  decodeAll<T>(rows: Row[], decode: (r: Row) => T): T[] {
    const out: T[] = [];
    for (const row of rows) {
      try {
        out.push(decode(row));
      } catch (error) {
        if (!(error instanceof UnreadableRowError)) throw error;
        this.fence(error);
      }
    }
    return out;
  }

  /**
   * Fences the chat of the row `error` names (its decoder refused it): what every read meeting an
   * unreadable row does (`decodeAll`), and what a write about to act on it (`decodeForWrite`) and
   * Check Journal's scan (check.ts) do with the decoder's error they already hold.
   */
  fence(error: UnreadableRowError): void {
    const rows = this.fences.get(error.sessionId) ?? new Map<string, FencingRow>();
    rows.set(`${error.table}\0${error.rowId}`, { table: error.table, key: error.rowId, newer: error.newer });
    this.fences.set(error.sessionId, rows);
  }

  /**
   * The one row a write acts on, decoded. A row its decoder refuses fences its chat (as any read
   * meeting it does) and refuses the write with the fence's reason, rather than calling it missing.
   * @throws JournalRefusedError('not_found') with `missing` when there is no row;
   *   JournalRefusedError('row_unreadable') when the row cannot be read.
   */
  decodeForWrite<T>(row: Row | undefined, decode: (r: Row) => T, missing: string): T {
    if (!row) throw new JournalRefusedError('not_found', missing);
    try {
      return decode(row);
    } catch (error) {
      if (!(error instanceof UnreadableRowError)) throw error;
      this.fence(error);
      throw new JournalRefusedError('row_unreadable', fenceMessage(error.table, error.newer));
    }
  }
}
