/**
 * Getting the view to a turn it may not hold yet. When a chat's view is rebuilt (its tab was hidden,
 * or the window reloaded) the panel's state keeps the turn at the top of the view (`ScrollAnchor`);
 * the snapshot holds only the chat's last page, so the view loads older pages until that turn is
 * held, at most `MAX_RESTORE_PAGES` of them, and opens at the end if it is farther up. A `reveal`
 * (a search result) goes the same way with no limit on pages. Pure (unit-tested).
 */
import type { TurnCursor } from '../src/core/transcript';
import type { ScrollAnchor } from './panelMemory';
import { olderPageToAsk, type ViewState } from './state';

/** Most older pages loaded to get back to a kept place (each `PAGE_TURNS` turns). */
export const MAX_RESTORE_PAGES = 10;

/** What the view does next to get back to `anchor`. */
export type RestoreStep =
  /** The turn is held: scroll there. */
  | { readonly kind: 'restore'; readonly anchor: ScrollAnchor }
  /** Ask for the page before `before`. */
  | { readonly kind: 'load'; readonly before: TurnCursor }
  /** A page is on its way. */
  | { readonly kind: 'wait' }
  /** The turn is not in the chat, or farther up than the pages allowed: stay at the end. */
  | { readonly kind: 'give-up' };

/** The next step towards `anchor` in `state`, `pagesAsked` of at most `maxPages` pages having been asked for so far. */
export function restoreStep(state: ViewState, anchor: ScrollAnchor, pagesAsked: number, maxPages = MAX_RESTORE_PAGES): RestoreStep {
  if (state.mode !== 'chat') return { kind: 'wait' };
  if (state.transcript.turns.some((t) => t.id === anchor.turnId)) return { kind: 'restore', anchor };
  if (state.olderAsked) return { kind: 'wait' };
  const before = pagesAsked < maxPages ? olderPageToAsk(state) : null;
  return before ? { kind: 'load', before } : { kind: 'give-up' };
}
