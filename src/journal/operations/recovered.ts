/**
 * Chats recovered from a moved-aside journal (salvage: src/journal/salvage/): what the current
 * journal holds of them (`recoveryStatus`) and their import (`importRecoveredChat`), one logged
 * transaction per chat, with its provenance in `recovered_chats` (schema 7). The rows go in by SQL
 * like any other, so the search index's triggers index them and every window replays the same.
 */
import type { SqlValue } from 'sql.js';
import { SALVAGED_TABLES, type CurrentCopy, type SalvageRows, type SalvagedTable } from '../../core/salvage';
import { NEXT_ACTIVITY, type JournalDb } from './database';
import type { Concerns } from '../core';
import type { ChatFences } from './fences';

/** One chat to import: its rows as salvage read them, where from, and what is missing from it (`note`: null when whole). */
export interface RecoveredChatInput {
  /** The moved-aside journal's file name (`journal.sqlite.unreadable-<ms>`). */
  readonly source: string;
  readonly sessionId: string;
  readonly whole: boolean;
  readonly note: string | null;
  /** When it is imported (ms since the epoch). */
  readonly at: number;
  readonly rows: SalvageRows;
}

/** What an import did: imported (with its runs still marked running, to settle), or skipped and why. */
export type RecoveredChatImport =
  | { readonly imported: true; readonly runsInFlight: readonly string[] }
  | { readonly imported: false; readonly skip: 'present' | 'recovered_before' };

/**
 * Columns the importing journal numbers itself: an event's id (its rowid), a prompt's search docid
 * (its insert trigger) and a chat's place in the list (`activity`: the import is its latest activity).
 */
const RENUMBERED: Partial<Record<SalvagedTable, string>> = { events: 'id', turns: 'search_doc', sessions: 'activity' };

/**
 * The recovered chats' operations (see module docstring): one object of `JournalCore`'s
 * composition (../core.ts), given the database (`db`), the fences (`fences`) and the concerns it
 * calls (`peers`: events).
 */
export class RecoveredChatOps {
  constructor(private readonly db: JournalDb, private readonly fences: ChatFences, private readonly peers: Pick<Concerns, 'events'>) {}

  private columnsOf = new Map<string, ReadonlySet<string>>();

  /** What the journal holds of each of `sessionIds` that it holds anything of (see `CurrentCopy`). */
  recoveryStatus(sessionIds: readonly string[]): { sessionId: string; copy: CurrentCopy }[] {
    const out: { sessionId: string; copy: CurrentCopy }[] = [];
    for (const sessionId of new Set(sessionIds)) {
      const session = this.db.one('SELECT updated_at FROM sessions WHERE id = ?', [sessionId]);
      const recovered = this.db.one('SELECT source, recovered_at FROM recovered_chats WHERE session_id = ?', [sessionId]);
      if (!session && !recovered) continue;
      out.push({
        sessionId,
        copy: {
          present: session ? { updatedAt: Number(session.updated_at) } : null,
          recovered: recovered ? { source: String(recovered.source), at: Number(recovered.recovered_at) } : null,
        },
      });
    }
    return out;
  }

  /**
   * Imports one recovered chat in the caller's transaction, unless the journal holds it already or
   * imported it before (even if deleted since): never overwritten, never brought back. Each row's
   * columns that this schema has are inserted as they were, but for the numbers this journal gives
   * (`RENUMBERED`); the search index's pending events are moved in as `appendEvents` does.
   * @throws Error for malformed input (a row of another chat, a value that is not text or a number),
   *   or the constraint error of an id already used by another chat (the transaction then changes nothing).
   */
  importRecoveredChat(input: RecoveredChatInput): RecoveredChatImport {
    checkInput(input);
    this.fences.touch(input.sessionId);
    if (this.db.one('SELECT 1 AS x FROM recovered_chats WHERE session_id = ?', [input.sessionId])) return { imported: false, skip: 'recovered_before' };
    if (this.db.one('SELECT 1 AS x FROM sessions WHERE id = ?', [input.sessionId])) return { imported: false, skip: 'present' };
    for (const table of SALVAGED_TABLES) {
      const columns = this.columns(table);
      for (const row of inInsertOrder(table, input.rows[table])) {
        const cols = Object.keys(row).filter((c) => columns.has(c) && c !== RENUMBERED[table]);
        this.db.run(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, cols.map((c) => row[c] ?? null));
      }
    }
    this.db.run(`UPDATE sessions SET activity = ${NEXT_ACTIVITY} WHERE id = ?`, [input.sessionId]);
    this.db.run('INSERT INTO recovered_chats (session_id, source, recovered_at, whole, note) VALUES (?, ?, ?, ?, ?)', [
      input.sessionId, input.source, input.at, input.whole ? 1 : 0, input.note,
    ]);
    this.peers.events.indexPendingEvents();
    const runsInFlight = this.db.all("SELECT id FROM runs WHERE session_id = ? AND status = 'running'", [input.sessionId]).map((r) => String(r.id));
    return { imported: true, runsInFlight };
  }

  /** The columns of `table` in this journal's schema (names only ever come from here, never from the input). */
  private columns(table: SalvagedTable): ReadonlySet<string> {
    let cols = this.columnsOf.get(table);
    if (!cols) {
      cols = new Set(this.db.all(`PRAGMA table_info(${table})`).map((r) => String(r.name)));
      this.columnsOf.set(table, cols);
    }
    return cols;
  }
}

/** Throws a plain error naming what is wrong with `input` (it crossed a thread boundary untyped). */
function checkInput(input: RecoveredChatInput): void {
  const fail = (why: string) => {
    throw new Error(`A recovered chat cannot be imported: ${why}.`);
  };
  if (!input || typeof input.sessionId !== 'string' || input.sessionId === '') fail('it has no chat id');
  if (typeof input.source !== 'string' || typeof input.at !== 'number') fail('its source or time is missing');
  for (const table of SALVAGED_TABLES) {
    const rows = input.rows?.[table];
    if (!Array.isArray(rows)) fail(`its ${table} rows are missing`);
    for (const row of rows) {
      const owner = table === 'sessions' ? row.id : row.session_id;
      if (owner !== input.sessionId) fail(`a ${table} row belongs to another chat (${String(owner)})`);
      for (const v of Object.values(row) as SqlValue[]) if (v !== null && typeof v !== 'string' && typeof v !== 'number') fail(`a ${table} value is neither text nor a number`);
    }
  }
  if (input.rows.sessions.length !== 1) fail(`it has ${input.rows.sessions.length} chat rows, not one`);
}

/**
 * `rows` in the order to insert them: a chat's prompts by the search docid they had (their place in
 * the chat: this journal numbers them anew in insert order, and that number orders the transcript),
 * so an input in another order cannot reorder the chat; rows without one, and other tables, as given.
 */
function inInsertOrder(table: SalvagedTable, rows: SalvageRows[SalvagedTable]): SalvageRows[SalvagedTable] {
  if (table !== 'turns') return rows;
  const doc = (row: SalvageRows['turns'][number]) => (typeof row.search_doc === 'number' ? row.search_doc : Number.POSITIVE_INFINITY);
  return [...rows].sort((a, b) => doc(a) - doc(b));
}
