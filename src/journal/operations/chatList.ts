/**
 * The chat list: every chat with what its list item shows (title, agent, folder, last activity and
 * the facts its state comes from, core/chatList.ts), in three queries however many chats there are:
 * the sessions with their newest turn (one seek each in `turns_by_session`), the runs in flight
 * (`runs_in_flight`) and the pending boundary requests (`boundary_pending_by_run`); both of the
 * latter are partial indexes holding only the few rows that are live.
 */
import type { SqlValue } from 'sql.js';
import { byRecentActivity, type ChatListItem } from '../../core/chatList';
import { ERROR_CLASSES, TURN_STATUSES, isOneOf } from '../../core/vocabulary';
import { ACTIVITY_SCHEMA, type JournalDb } from './database';
import type { Row } from './rows';

/** Options of `listChats`. */
export interface ListChatsOptions {
  /** Only chats created in this workspace folder (unset: every chat; see `SessionRecord.workspace`). */
  readonly workspace?: string;
  /**
   * Only the this-many most recently active chats (a positive integer): a first page read without
   * building every chat's item (the chat picker shows it while the whole list loads).
   */
  readonly newest?: number;
}

// The newest turn: turns_by_session's entries are ordered (session_id, search_doc), so the last one
// of a chat is the one written last (never the latest by a clock, which may step back). Column order
// is what toItem reads. A journal read-only at a schema before 4 has no `sessions.workspace` (its
// chats' folder is unknown) and no `search_doc`: its turns' rowids are the order they were written.
// One before 13 has no `sessions.activity`: its list is ordered by `updated_at` as it was then.
const sessionsWithLastTurn = (version: number) => `SELECT s.id, s.title, s.provider, ${version >= WORKSPACE_SCHEMA ? 's.workspace' : 'NULL'}, s.created_at, s.updated_at,
    ${version >= ACTIVITY_SCHEMA ? 's.activity' : 's.updated_at'}, t.id, t.status, t.error_class
  FROM sessions s
  LEFT JOIN turns t ON t.rowid = (SELECT rowid FROM turns WHERE session_id = s.id ORDER BY ${version >= WORKSPACE_SCHEMA ? 'search_doc' : 'rowid'} DESC LIMIT 1)`;
/** The schema that added `sessions.workspace`. */
const WORKSPACE_SCHEMA = 4;

/**
 * The operations of this concern (see module docstring): one object of `JournalCore`'s composition
 * (../core.ts), given the database (`db`).
 */
export class ChatListOps {
  constructor(private readonly db: JournalDb) {}

  /** Every chat (of `options.workspace` when given), most recently active first. */
  listChats(options: ListChatsOptions = {}): ChatListItem[] {
    // Rows as arrays and sorted here: reading 10,000 rows as objects, and sorting them in SQLite,
    // took most of the time (docs/BENCHMARKS.md, Search).
    const version = this.db.userVersion();
    const known = version >= WORKSPACE_SCHEMA;
    if (!known && options.workspace !== undefined) return [];
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (options.workspace !== undefined) {
      where.push('s.workspace = ?');
      params.push(options.workspace);
    }
    if (options.newest !== undefined) {
      // The newest sessions first, by a scan of one column; each one's last turn is then joined for
      // those only (the join is what costs, per chat).
      const scope = options.workspace !== undefined ? 'WHERE workspace = ?' : '';
      where.push(`s.id IN (SELECT id FROM sessions ${scope} ORDER BY ${version >= ACTIVITY_SCHEMA ? 'activity DESC' : 'updated_at DESC, id'} LIMIT ?)`);
      if (options.workspace !== undefined) params.push(options.workspace);
      params.push(Math.max(1, Math.floor(options.newest)));
    }
    const rows = this.db.allArrays(`${sessionsWithLastTurn(version)}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, params);
    const runs = new Map<string, Row>();
    for (const r of this.db.all("SELECT session_id, id, instance_id FROM runs WHERE status = 'running' ORDER BY rowid DESC")) {
      if (!runs.has(r.session_id as string)) runs.set(r.session_id as string, r);
    }
    const pending = new Map<string, number>();
    for (const r of this.db.all("SELECT session_id, COUNT(*) AS n FROM boundary_requests WHERE status = 'pending' GROUP BY session_id")) {
      pending.set(r.session_id as string, r.n as number);
    }
    return rows
      .map((r) => toItem(r, runs.get(r[0] as string), pending.get(r[0] as string) ?? 0))
      .sort(byRecentActivity);
  }

  /** One chat's list item (after a change to that chat only), or undefined when it does not exist. */
  getChatListItem(sessionId: string): ChatListItem | undefined {
    const row = this.db.allArrays(`${sessionsWithLastTurn(this.db.userVersion())} WHERE s.id = ?`, [sessionId])[0];
    if (!row) return undefined;
    const run = this.db.one("SELECT id, instance_id FROM runs WHERE session_id = ? AND status = 'running' ORDER BY rowid DESC LIMIT 1", [sessionId]);
    const pending = this.db.one(
      "SELECT COUNT(*) AS n FROM boundary_requests WHERE status = 'pending' AND run_id IN (SELECT id FROM runs WHERE session_id = ?)",
      [sessionId],
    );
    return toItem(row, run, (pending?.n as number | undefined) ?? 0);
  }
}

/** A list item from its session row (sessionsWithLastTurn's columns), its run in flight and its pending requests. */
function toItem(r: SqlValue[], run: Row | undefined, pendingRequests: number): ChatListItem {
  const [id, title, provider, workspace, createdAt, updatedAt, activity, turnId, status, errorClass] = r;
  // A turn row this build cannot read (a newer status or class) shows no state; its chat's own reads fence it.
  const readable = isOneOf(TURN_STATUSES, status) && (errorClass === null || isOneOf(ERROR_CLASSES, errorClass));
  return {
    id: id as string,
    title: title as string,
    provider: provider as string,
    workspace: (workspace as string | null) ?? null,
    createdAt: createdAt as number,
    updatedAt: updatedAt as number,
    activity: Number(activity ?? 0),
    runInFlight: run ? { runId: run.id as string, instanceId: run.instance_id as string } : null,
    pendingRequests,
    lastTurn: turnId !== null && readable ? { id: turnId as string, status, errorClass } : null,
  };
}
