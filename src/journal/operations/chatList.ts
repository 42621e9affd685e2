/**
 * The chat list: every chat with what its list item shows (title, agent, folder, last activity and
 * the facts its state comes from, core/chatList.ts), in three queries however many chats there are:
 * the sessions with their newest turn (one seek each in `turns_by_session`), the runs in flight
 * (`runs_in_flight`) and the pending boundary requests (`boundary_pending_by_run`); both of the
 * latter are partial indexes holding only the few rows that are live.
 */
import type { ChatListItem } from '../../core/chatList';
import { ERROR_CLASSES, TURN_STATUSES, isOneOf } from '../../core/vocabulary';
import { SearchOps } from './search';
import type { Row } from './rows';

/** Options of `listChats`. */
export interface ListChatsOptions {
  /** Only chats created in this workspace folder (unset: every chat; see `SessionRecord.workspace`). */
  readonly workspace?: string;
}

const SESSIONS_WITH_LAST_TURN = `SELECT s.id, s.title, s.provider, s.workspace, s.created_at, s.updated_at,
    t.id AS turn_id, t.status AS turn_status, t.error_class AS turn_error
  FROM sessions s
  LEFT JOIN turns t ON t.rowid = (SELECT rowid FROM turns WHERE session_id = s.id ORDER BY created_at DESC, rowid DESC LIMIT 1)`;

/** The operations of this concern, on top of SearchOps (see module docstring). */
export abstract class ChatListOps extends SearchOps {
  /** Every chat (of `options.workspace` when given), most recently active first. */
  listChats(options: ListChatsOptions = {}): ChatListItem[] {
    const rows = options.workspace === undefined
      ? this.all(`${SESSIONS_WITH_LAST_TURN} ORDER BY s.updated_at DESC, s.id`)
      : this.all(`${SESSIONS_WITH_LAST_TURN} WHERE s.workspace = ? ORDER BY s.updated_at DESC, s.id`, [options.workspace]);
    const runs = new Map<string, Row>();
    for (const r of this.all("SELECT session_id, id, instance_id FROM runs WHERE status = 'running' ORDER BY started_at DESC")) {
      if (!runs.has(r.session_id as string)) runs.set(r.session_id as string, r);
    }
    const pending = new Map<string, number>();
    for (const r of this.all("SELECT session_id, COUNT(*) AS n FROM boundary_requests WHERE status = 'pending' GROUP BY session_id")) {
      pending.set(r.session_id as string, r.n as number);
    }
    return rows.map((r) => toItem(r, runs.get(r.id as string), pending.get(r.id as string) ?? 0));
  }

  /** One chat's list item (after a change to that chat only), or undefined when it does not exist. */
  getChatListItem(sessionId: string): ChatListItem | undefined {
    const row = this.one(`${SESSIONS_WITH_LAST_TURN} WHERE s.id = ?`, [sessionId]);
    if (!row) return undefined;
    const run = this.one("SELECT id, instance_id FROM runs WHERE session_id = ? AND status = 'running' ORDER BY started_at DESC LIMIT 1", [sessionId]);
    const pending = this.one(
      "SELECT COUNT(*) AS n FROM boundary_requests WHERE status = 'pending' AND run_id IN (SELECT id FROM runs WHERE session_id = ?)",
      [sessionId],
    );
    return toItem(row, run, (pending?.n as number | undefined) ?? 0);
  }
}

/** A list item from its session row (with its newest turn), its run in flight and its pending requests. */
function toItem(r: Row, run: Row | undefined, pendingRequests: number): ChatListItem {
  const status = r.turn_status;
  const errorClass = r.turn_error;
  // A turn row this build cannot read (a newer status or class) shows no state; its chat's own reads fence it.
  const readable = isOneOf(TURN_STATUSES, status) && (errorClass === null || isOneOf(ERROR_CLASSES, errorClass));
  return {
    id: r.id as string,
    title: r.title as string,
    provider: r.provider as string,
    workspace: (r.workspace as string | null) ?? null,
    createdAt: r.created_at as number,
    updatedAt: r.updated_at as number,
    runInFlight: run ? { runId: run.id as string, instanceId: run.instance_id as string } : null,
    pendingRequests,
    lastTurn: r.turn_id !== null && readable ? { id: r.turn_id as string, status, errorClass } : null,
  };
}
