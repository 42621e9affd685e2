/**
 * Which chats the Open Chat… quick pick hands VS Code. VS Code's quick pick costs the renderer about
 * as much per item as it shows (measured: docs/BENCHMARKS.md "Chat list in code-server"), so with
 * thousands of chats it gets at most `limit` of them: with no filter text the newest, and as the user
 * types, the chats whose title (or description) could match. VS Code then filters and highlights
 * those itself, as it would have filtered the whole list. Pure module.
 */
import { byRecentActivity, type ChatListEntry } from './chatList';

/** Chats handed to the quick pick at most, per filter text. */
export const PICK_LIMIT = 100;

/** The chats to show: this workspace's, then the others', each newest first; `more` counts those left out. */
export interface PickRows {
  readonly mine: readonly ChatListEntry[];
  readonly others: readonly ChatListEntry[];
  readonly more: number;
}

/**
 * Whether VS Code's quick pick filter could match `query` in `text`. Its filter (a contiguous
 * substring, a word prefix, camel case, `*` as a wildcard, all ignoring case, on the trimmed text)
 * only ever matches the query's characters in order, so this test — the characters other than `*`
 * of the trimmed query appear in `text` in order, ignoring case — keeps every chat it would show.
 */
export function couldMatch(query: string, text: string): boolean {
  const q = query.trim().toLowerCase().replace(/\*/g, '');
  const t = text.toLowerCase();
  let at = 0;
  for (const c of q) {
    at = t.indexOf(c, at);
    if (at < 0) return false;
    at += c.length;
  }
  return true;
}

/**
 * The rows for filter text `query` (see module docstring). `entries` in any order; `here` is this
 * window's workspace key; `describe` gives the text VS Code also matches (the item's description).
 * Over `limit` candidates, those whose title holds the query as one piece come first (the ones VS
 * Code ranks first), then the rest, newest first within each.
 */
export function pickRows(
  entries: readonly ChatListEntry[], here: string, query: string, describe: (entry: ChatListEntry) => string, limit = PICK_LIMIT,
): PickRows {
  const ordered = [...entries].sort((a, b) => Number(b.workspace === here) - Number(a.workspace === here) || byRecentActivity(a, b));
  let shown = ordered;
  if (query.trim() !== '') {
    const piece = query.trim().toLowerCase();
    const whole: ChatListEntry[] = [];
    const rest: ChatListEntry[] = [];
    for (const e of ordered) {
      if (e.title.toLowerCase().includes(piece)) whole.push(e);
      else if (couldMatch(query, e.title) || couldMatch(query, describe(e))) rest.push(e);
    }
    shown = [...whole, ...rest];
  }
  const kept = new Set(shown.slice(0, limit));
  const inOrder = ordered.filter((e) => kept.has(e));
  return { mine: inOrder.filter((e) => e.workspace === here), others: inOrder.filter((e) => e.workspace !== here), more: shown.length - kept.size };
}
