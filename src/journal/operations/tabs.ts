/** Operations on the records of chats with open tabs (which window's folder showed them last). */
import type { TabRecord } from '../records';
import type { JournalDb } from './database';
import type { ChatFences } from './fences';

/**
 * The operations of this concern (see module docstring): one object of `JournalCore`'s composition
 * (../core.ts), given the database (`db`) and the fences (`fences`).
 */
export class TabOps {
  constructor(private readonly db: JournalDb, private readonly fences: ChatFences) {}

  /**
   * Records that a chat has an open tab in a window on `workspace` (a folder path; '': no folder;
   * null: not known, as an older build records it).
   * Idempotent; a chat shown last in another folder's window moves its record there. Nothing for a
   * chat that is not in the journal (deleted in another window meanwhile): a restored panel would
   * adopt that record.
   */
  recordTab(sessionId: string, at: number, workspace: string | null = null): void {
    this.fences.touchUnfenced(sessionId);
    this.db.run(
      `INSERT INTO tabs (session_id, opened_at, workspace) SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?)
       ON CONFLICT(session_id) DO UPDATE SET workspace = excluded.workspace WHERE tabs.workspace IS NOT excluded.workspace`,
      [sessionId, at, workspace, sessionId],
    );
  }

  /** Forgets a chat's tab (the user closed it). */
  removeTab(sessionId: string): void {
    this.fences.touchUnfenced(sessionId);
    this.db.run('DELETE FROM tabs WHERE session_id = ?', [sessionId]);
  }

  /** Chats that had open tabs, in the order they were first recorded (rowid: an update keeps it; never a clock's time). */
  listTabs(): TabRecord[] {
    return this.db.all('SELECT * FROM tabs ORDER BY rowid')
      .map((r) => ({ sessionId: r.session_id as string, openedAt: r.opened_at as number, workspace: (r.workspace as string | null) ?? null }));
  }
}
