/**
 * The turn the chat view is getting to (`restore.ts`): the kept place of a rebuilt view, the place
 * read before a resync, or a search result (its words then marked once the turn is drawn). While a
 * goal stands, older pages are asked for one at a time until its turn is loaded, then the view
 * scrolls there. Owned by `ChatView`; the state, the paging request and the scroller are its.
 */
import type { TurnCursor } from '../src/core/transcript';
import { markRanges, openAround, termRanges } from './highlight';
import type { ScrollAnchor } from './panelMemory';
import { MAX_RESTORE_PAGES, restoreStep } from './restore';
import type { ViewState } from './state';

/** How far (px) below the top of the view a revealed search result's turn starts. */
const REVEAL_MARGIN_PX = 40;

/**
 * A turn the view is getting to: `anchor` (`terms`: the words to mark, for a search result);
 * `pages`: older pages asked for so far, of at most `maxPages`.
 */
interface Goal {
  readonly anchor: ScrollAnchor;
  pages: number;
  readonly maxPages: number;
  readonly terms?: readonly string[];
}

/** What a goal works with. */
export interface ReadingGoalDeps {
  /** The view's state now. */
  readonly state: () => ViewState;
  /** Posts `loadOlder` for the page before `before` and records it as asked. */
  readonly askOlder: (before: TurnCursor) => void;
  /** The scroller: stops following the bottom, brings a range into sight (`ScrollPin`). */
  readonly scroll: { release(): void; reveal(el: { getBoundingClientRect(): DOMRect }): boolean };
  /** The virtualized transcript: scrolls to a kept place (`VirtualTranscript.restoreTo`). */
  readonly restoreTo: (anchor: ScrollAnchor) => void;
  /** The box holding the rendered turns (where a search result's words are found). */
  readonly content: HTMLElement;
  /** Re-renders on the next frame. */
  readonly schedule: () => void;
}

/** The view's reading goal and the search words to mark (see module docstring). */
export class ReadingGoal {
  private goal: Goal | undefined;
  /** A search result's turn and words, marked after the render that draws it. */
  private toMark: { readonly turnId: string; readonly terms: readonly string[] } | undefined;

  constructor(private readonly deps: ReadingGoalDeps) {}

  /** True while the view is getting to a turn (the end shown meanwhile is not where the user reads). */
  get active(): boolean {
    return this.goal !== undefined;
  }

  /**
   * A new chat came: get back to `kept` (the rebuilt view's kept place; undefined: stay at the end),
   * unless a search result asked for before the chat came goes first.
   */
  forNewChat(kept: ScrollAnchor | undefined): void {
    if (!this.goal?.terms) this.goal = kept ? { anchor: kept, pages: 0, maxPages: MAX_RESTORE_PAGES } : undefined;
  }

  /** Get back to `reading` (the turn read when another snapshot of the same chat came), if any. */
  backTo(reading: ScrollAnchor | undefined): void {
    this.goal = reading ? { anchor: reading, pages: 0, maxPages: MAX_RESTORE_PAGES } : undefined;
  }

  /** A search result: get to the turn at `at`, however far up, and mark `terms` in it. */
  reveal(at: TurnCursor, terms: readonly string[]): void {
    this.goal = { anchor: { turnId: at.id, offset: -REVEAL_MARGIN_PX }, pages: 0, maxPages: Number.POSITIVE_INFINITY, terms };
  }

  /** Takes the next step to the goal, if any: scroll there (and mark a search's words), ask for an older page, or give up. */
  step(): void {
    const g = this.goal;
    if (!g) return;
    const step = restoreStep(this.deps.state(), g.anchor, g.pages, g.maxPages);
    if (step.kind === 'wait') return;
    if (step.kind === 'load') {
      this.deps.askOlder(step.before);
      g.pages++;
      return;
    }
    this.goal = undefined;
    if (step.kind !== 'restore') return;
    this.deps.scroll.release();
    this.deps.restoreTo(step.anchor);
    if (g.terms) this.toMark = { turnId: step.anchor.turnId, terms: g.terms };
    this.deps.schedule();
  }

  /** Marks a revealed search result's words once its turn is drawn (after a render), and brings the first into sight. */
  markSearch(): void {
    if (!this.toMark) return;
    const el = this.deps.content.querySelector(`section.turn[data-turn-id="${CSS.escape(this.toMark.turnId)}"]`);
    if (!el) return;
    const ranges = termRanges(el, this.toMark.terms);
    this.toMark = undefined;
    openAround(el, ranges);
    const win = el.ownerDocument.defaultView;
    if (win) markRanges(win, ranges);
    if (ranges[0]) this.deps.scroll.reveal(ranges[0]);
  }
}
