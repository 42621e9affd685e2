/**
 * Which chats the rows salvage could not read belonged to, from the tables' indexes: an index entry
 * holds its row's key and rowid, and an index's pages are separate from its table's, so a damaged
 * table page usually leaves its rows listed in the index (`turns_by_session` gives the chat of a
 * lost turn, `sqlite_autoindex_sessions_1` the id of a lost chat row). Invocations are matched
 * through their run; boundary requests have no index by chat and stay unmatched.
 */
import type { Database, SqlValue } from 'sql.js';
import type { SalvageRow, SalvagedTable } from '../../core/salvage';

/** How a table's lost rows are matched to chats: the index to scan and the column it holds. */
const BY_CHAT: Partial<Record<SalvagedTable, { readonly index: string; readonly column: string; readonly viaRun?: true }>> = {
  sessions: { index: 'sqlite_autoindex_sessions_1', column: 'id' },
  turns: { index: 'turns_by_session', column: 'session_id' },
  runs: { index: 'runs_by_session', column: 'session_id' },
  events: { index: 'events_by_session', column: 'session_id' },
  queued_prompts: { index: 'queued_prompts_by_session', column: 'session_id' },
  invocations: { index: 'invocations_by_run', column: 'run_id', viaRun: true },
};

/** Lost rows of one table by chat, those that could not be matched, and whether every lost row was counted. */
export interface LostRows {
  readonly bySession: Map<string, number>;
  readonly unattributed: number;
  readonly counted: boolean;
}

/**
 * Matches the rows of `table` in the rowid ranges `lost` to their chats through its index (see
 * module docstring); `runs`: the runs read, for invocations. Never throws for damage.
 */
export function lostRowsByChat(db: Database, table: SalvagedTable, lost: readonly { from: number; to: number }[], runs: readonly SalvageRow[]): LostRows {
  const bySession = new Map<string, number>();
  if (lost.length === 0) return { bySession, unattributed: 0, counted: true };
  const how = BY_CHAT[table];
  if (!how) return { bySession, unattributed: 0, counted: false };
  const { entries, whole } = scanIndex(db, table, how.index, how.column);
  const runSession = new Map(runs.map((r) => [r.id as string, r.session_id as string]));
  const inLost = (rowid: number) => lost.some((r) => rowid >= r.from && rowid <= r.to);
  let unattributed = 0;
  for (const [key, rowid] of entries) {
    if (!inLost(rowid)) continue;
    const session = how.viaRun ? runSession.get(key) : key;
    if (session === undefined) unattributed++;
    else bySession.set(session, (bySession.get(session) ?? 0) + 1);
  }
  return { bySession, unattributed, counted: whole && unattributed === 0 };
}

/** The (key, rowid) entries of an index, read from each end until a read fails; `whole` when read to the end. */
function scanIndex(db: Database, table: string, index: string, column: string): { entries: [string, number][]; whole: boolean } {
  const entries: [string, number][] = [];
  const seen = new Set<number>();
  for (const order of ['ASC', 'DESC']) {
    let stmt: ReturnType<Database['prepare']> | undefined;
    try {
      stmt = db.prepare(`SELECT "${column}", rowid FROM "${table}" INDEXED BY "${index}" WHERE "${column}" >= '' ORDER BY "${column}" ${order}`);
      while (stmt.step()) {
        const [key, rowid] = stmt.get() as SqlValue[];
        if (typeof key !== 'string' || typeof rowid !== 'number' || seen.has(rowid)) continue;
        seen.add(rowid);
        entries.push([key, rowid]);
      }
      return { entries, whole: true };
    } catch {
      /* damaged (or no such index in this schema): read from the other end */
    } finally {
      stmt?.free();
    }
  }
  return { entries, whole: false };
}
