/**
 * The agent hears of undos and redos: the request of the first turn after them carries what they
 * left changed (`core/fileNews.ts`; `AgentTurnRequest.fileNews`, apart from the user's words), so its
 * picture of the workspace is not stale. Read from the journal when the turn starts, so it holds whichever window undid.
 */
import type { TurnRecord } from '../core/events';
import { fileNewsOf, isEmptyFileNews, type FileNews, type RestoreNews } from '../core/fileNews';
import { replacedTurnIds } from '../journal/operations/pages';
import type { RuntimeScope } from './scope';

/**
 * The news for `turn` of chat `sessionId`: what the undos and redos journaled after the turn before
 * it was created and up to this one's creation left changed (null when nothing: none, or an undo and
 * its redo that cancel out). Replaced turns (an edit and resend) do
 * not count as the turn before: the request that carried their note is left out of the agent's
 * history, so the edited request carries it again. Reads nothing more than the chat's undos unless
 * there are some.
 */
export async function fileNewsFor(scope: Pick<RuntimeScope, 'journal'>, sessionId: string, turn: Pick<TurnRecord, 'id' | 'createdAt'>): Promise<FileNews | null> {
  const undos = await scope.journal.read('listUndos', sessionId);
  if (undos.length === 0) return null;
  const turns = await scope.journal.read('listTurns', sessionId);
  const at = turns.findIndex((t) => t.id === turn.id);
  const replaced = replacedTurnIds(turns);
  const before = turns.slice(0, Math.max(at, 0)).filter((t) => !replaced.has(t.id)).pop();
  const since = before ? before.createdAt : Number.NEGATIVE_INFINITY;
  const within = (t: number | null) => t !== null && t > since && t <= turn.createdAt;
  const news: { at: number; news: RestoreNews }[] = [];
  for (const u of undos) {
    if (within(u.createdAt)) {
      news.push({ at: u.createdAt, news: {
        kind: 'undo', undoId: u.id,
        restored: u.items.filter((i) => i.outcome === 'restored' || i.outcome === 'conflict_restored').map((i) => i.path),
        kept: u.items.filter((i) => i.outcome === 'conflict_kept').map((i) => i.path),
      } });
    }
    if (within(u.redoneAt)) {
      news.push({ at: u.redoneAt!, news: {
        kind: 'redo', undoId: u.id,
        restored: u.items.filter((i) => i.redoOutcome === 'restored' || i.redoOutcome === 'conflict_restored').map((i) => i.path),
        kept: u.items.filter((i) => i.redoOutcome === 'conflict_kept').map((i) => i.path),
      } });
    }
  }
  const left = fileNewsOf(news.sort((a, b) => a.at - b.at).map((n) => n.news));
  return isEmptyFileNews(left) ? null : left;
}
