/** Operations on sessions (chats): create, rename, delete with everything under them, provider state. */
import type { SessionRecord } from '../../core/events';
import { JournalRefusedError } from '../errors';
import { ACTIVITY_SCHEMA, NEXT_ACTIVITY, type JournalDb } from './database';
import { toSession } from './rows';
import type { Concerns } from '../core';
import type { ChatFences } from './fences';

/**
 * The operations of this concern (see module docstring): one object of `JournalCore`'s composition
 * (../core.ts), given the database (`db`), the fences (`fences`) and the concerns it calls
 * (`peers`: attachments, contents).
 */
export class SessionOps {
  constructor(private readonly db: JournalDb, private readonly fences: ChatFences, private readonly peers: Pick<Concerns, 'attachments' | 'contents'>) {}

  /**
   * Creates a session in the workspace folder `session.workspace` (unset or null: unknown). Throws
   * a constraint error if the id exists.
   */
  createSession(session: SessionRecord): SessionRecord {
    this.fences.touch(session.id);
    const workspace = session.workspace ?? null;
    this.db.run(`INSERT INTO sessions (id, title, provider, created_at, updated_at, workspace, activity) VALUES (?, ?, ?, ?, ?, ?, ${NEXT_ACTIVITY})`, [
      session.id, session.title, session.provider, session.createdAt, session.updatedAt, workspace,
    ]);
    return { ...session, workspace };
  }

  /**
   * Records `workspace` as the folder of those of `sessionIds` whose folder is unknown (null); a
   * chat with a folder keeps it, an unknown id or a fenced chat is skipped. Returns the ids assigned.
   */
  assignWorkspace(sessionIds: readonly string[], workspace: string): { assigned: string[] } {
    const assigned: string[] = [];
    for (const id of new Set(sessionIds)) {
      if (this.fences.getFence(id)) continue;
      if (this.db.run('UPDATE sessions SET workspace = ? WHERE id = ? AND workspace IS NULL', [workspace, id]) === 0) continue;
      this.fences.touch(id);
      assigned.push(id);
    }
    return { assigned };
  }

  /**
   * Renames a session. With `onlyIfTitle`, only while its title is still that (the automatic name
   * from the first prompt must not replace a title the user gave meanwhile, in any window): checked
   * inside the transaction. The chat's last activity (`updated_at`) stays: a title is not activity,
   * and a month-old chat renamed must not move to Today in the view. Returns the session, renamed or not.
   * @throws JournalRefusedError('not_found') for an unknown id.
   */
  renameSession(id: string, title: string, onlyIfTitle?: string): { renamed: boolean; session: SessionRecord } {
    this.fences.touch(id);
    if (!this.getSession(id)) throw new JournalRefusedError('not_found', `No chat with id ${id}.`);
    const renamed =
      onlyIfTitle === undefined
        ? this.db.run('UPDATE sessions SET title = ? WHERE id = ?', [title, id]) > 0
        : this.db.run('UPDATE sessions SET title = ? WHERE id = ? AND title = ?', [title, id, onlyIfTitle]) > 0;
    return { renamed, session: this.getSession(id)! };
  }

  /**
   * Deletes a chat and everything recorded under it (turns, runs, invocations, events, boundary
   * requests, its tab record, its queue, its attachments, then the stored content nothing else references) in this one transaction, unless one of its runs is still in flight in
   * some window: then nothing changes and `deleted` is false. A chat fenced for a row this build
   * cannot read is refused (`row_unreadable`) like any other write to it.
   * @throws JournalRefusedError('not_found') for an unknown id.
   */
  deleteSession(id: string): { deleted: boolean } {
    this.fences.touch(id);
    if (!this.getSession(id)) throw new JournalRefusedError('not_found', `No chat with id ${id}.`);
    if (this.db.all("SELECT 1 FROM runs WHERE session_id = ? AND status = 'running' LIMIT 1", [id]).length > 0) return { deleted: false };
    for (const table of ['events', 'boundary_requests', 'invocations', 'runs', 'turns', 'tabs', 'queued_prompts', 'file_changes', 'file_undo_items', 'file_undos', ...(this.peers.attachments.hasAttachments() ? ['attachments'] : [])]) {
      this.db.run(`DELETE FROM ${table} WHERE session_id = ?`, [id]);
    }
    this.db.run('DELETE FROM sessions WHERE id = ?', [id]);
    this.peers.contents.dropUnreferencedContents();
    return { deleted: true };
  }

  /**
   * Records the model picked for a chat (`null`: back to the provider's setting). Its last activity
   * (`updated_at`) stays, as for a rename: a choice is not activity. The next turn runs with it.
   * @throws JournalRefusedError('not_found') for an unknown id.
   */
  setSessionModel(id: string, model: string | null): SessionRecord {
    this.fences.touch(id);
    if (this.db.run('UPDATE sessions SET model = ? WHERE id = ?', [model, id]) === 0) throw new JournalRefusedError('not_found', `No chat with id ${id}.`);
    return this.getSession(id)!;
  }

  /** Stores the provider's own state for a session (e.g. its session or thread id), JSON text. */
  setProviderState(id: string, state: string | null, at: number): void {
    this.fences.touch(id);
    this.db.run(`UPDATE sessions SET provider_state = ?, updated_at = ?, activity = ${NEXT_ACTIVITY} WHERE id = ?`, [state, at, id]);
  }

  /** The provider state set by `setProviderState`, or null. */
  getProviderState(id: string): string | null {
    const row = this.db.one('SELECT provider_state FROM sessions WHERE id = ?', [id]);
    return (row?.provider_state as string | null | undefined) ?? null;
  }

  /** One session or undefined. */
  getSession(id: string): SessionRecord | undefined {
    const row = this.db.one('SELECT * FROM sessions WHERE id = ?', [id]);
    return row && toSession(row);
  }

  /**
   * Every session, most recently active first: by `activity` (the journal's sequence), never by
   * `updated_at` (a clock), but in a journal older than schema 13 (read-only), which has no counter.
   */
  listSessions(): SessionRecord[] {
    const order = this.db.userVersion() >= ACTIVITY_SCHEMA ? 'activity DESC' : 'updated_at DESC, id';
    return this.db.all(`SELECT * FROM sessions ORDER BY ${order}`).map(toSession);
  }

  /**
   * The titles of chats other than `exceptId` that are `title` or `title (…)`: what a new chat's
   * name must not repeat (`distinctTitle`). Reads titles only, so naming a chat among 10,000 does
   * not decode and copy every session.
   */
  titlesLike(title: string, exceptId: string): string[] {
    const pattern = `${title.replace(/[\\%_]/g, (c) => `\\${c}`)} (%)`;
    return this.db.all("SELECT title FROM sessions WHERE id != ? AND (title = ? OR title LIKE ? ESCAPE '\\')", [exceptId, title, pattern]).map((r) => String(r.title));
  }
}
