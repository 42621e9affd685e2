/**
 * The virtualized transcript: only the turns near the viewport (the viewport and one screen above and
 * below) are in the DOM. The turns above and below that window are one spacer element each, as tall
 * as they are (their measured heights, cached per turn id; the average measured height for a turn
 * never measured); turns of the chat not loaded yet are part of the top spacer, estimated the same
 * way. A 5,000-turn chat rendered every turn (80,000 nodes, 2 million px): each wheel step was a long
 * task.
 *
 * Each pass (a render, a scroll, a resize) keeps what the user reads still: it notes the turn at the
 * top of the viewport and how far into it the viewport starts (the anchor), lays out, then scrolls so
 * that this turn is at the same place, whatever the heights measured or the turns prepended meanwhile.
 * A view following the bottom keeps following it. Turns holding the text selection (and all between
 * its ends) and the turn holding the focus stay mounted, so Copy and keyboard navigation work.
 *
 * Measuring goes through `Geometry`, so tests on a DOM without a layout engine give the heights.
 */
import { reconcileChildren } from '../dom';
import { atTurn, type Anchor, type Layout, layOut, mountedIndices, topOf, turnNear, withinBudget } from './windowing';

/** How a pass reads sizes (px). The browser's is `BROWSER_GEOMETRY`; tests give theirs. */
export interface Geometry {
  /** The height of a mounted turn element. */
  height(el: HTMLElement): number;
  /** The scroller's visible height. */
  viewportHeight(scroller: HTMLElement): number;
  /** Where the content's first child starts, in the scroller's scroll coordinates (the padding above it). */
  contentTop(content: HTMLElement, scroller: HTMLElement): number;
}

/** Sizes read from the browser's layout. */
export const BROWSER_GEOMETRY: Geometry = {
  height: (el) => el.getBoundingClientRect().height,
  viewportHeight: (scroller) => scroller.clientHeight,
  contentTop: (content, scroller) =>
    content.getBoundingClientRect().top - scroller.getBoundingClientRect().top + scroller.scrollTop
    + (Number.parseFloat(content.ownerDocument.defaultView?.getComputedStyle(content).paddingTop ?? '') || 0),
};

/** What the transcript shows: the loaded turns, oldest first, and how many older turns are not loaded. */
export interface TurnSource {
  /** Ids of the loaded turns, oldest first. */
  readonly ids: readonly string[];
  /** Older turns exist that are not loaded (`unloaded` of them, estimated in the top spacer). */
  readonly hasOlder: boolean;
  readonly unloaded: number;
  /** The element of loaded turn `index` (from the renderer's cache, or rendered now). */
  element(index: number): HTMLElement;
}

/** How the virtualized transcript fits into the view. */
export interface VirtualOptions {
  /** Sizes (default: the browser's). */
  readonly geometry?: Geometry;
  /** True while the view follows the bottom (`ScrollPin.atBottom`); default: always. */
  readonly atBottom?: () => boolean;
  /** The viewport came within two screens of the oldest loaded turn while older turns exist. */
  readonly onNearTop?: () => void;
  /** A pass changed which turns are in the DOM (after the change). */
  readonly onMounted?: () => void;
  /** Wraps each DOM write (the renderer keeps output boxes' scroll positions across it). */
  readonly aroundWrite?: (write: () => void) => void;
  /** Runs a pass later, after a scroll or a resize (default: the next animation frame). */
  readonly schedule?: (run: () => void) => void;
}

/** Most extra rounds of one pass: each one lays out again after mounted turns measured other than assumed. */
const MAX_ROUNDS = 4;

/** Keeps a window of turns mounted in `content`, inside the scrolling `scroller` (see module docstring). */
export class VirtualTranscript {
  private readonly geometry: Geometry;
  /** Measured heights by turn id (a mounted turn is measured at every pass, so a re-rendered one is too). */
  private readonly heights = new Map<string, number>();
  private heightSum = 0;
  private source: TurnSource | null = null;
  /** The layout last written to the DOM: where the anchor of the next pass is read from. */
  private written: Layout | null = null;
  private mounted: readonly string[] = [];
  /** The mounted turn elements: each one's id and its index in `mountedFrom`, the ids they were mounted from. */
  private mountedEls = new Map<Node, { readonly id: string; readonly index: number }>();
  private mountedFrom: readonly string[] = [];
  /**
   * The heights of the ids last laid out by index (NaN: never measured), kept while the source's ids
   * are the same array: a layout of 5,000 turns read each height from \`heights\` by id, about a
   * millisecond per live update of one turn.
   */
  private aligned: { readonly ids: readonly string[]; readonly px: Float64Array } | null = null;
  /**
   * Spacer elements by where they stand: `TOP` for the top one, a turn's id for a gap just before it,
   * '' for the bottom one. Keyed so that a spacer never moves past a turn: a
   * focused element moved in the DOM loses the focus.
   */
  private spacers = new Map<string, HTMLElement>();
  /** The height last set on each spacer. */
  private readonly spacerHeights = new WeakMap<HTMLElement, string>();
  private pending: Anchor | null = null;
  /** Turns mounted for keyboard navigation past the window (`beforeTab`), until the next scroll. */
  private readonly extra = new Set<string>();
  private scheduled = false;
  private readonly resizes: ResizeObserver | undefined;

  constructor(private readonly scroller: HTMLElement, private readonly content: HTMLElement, private readonly options: VirtualOptions = {}) {
    this.geometry = options.geometry ?? BROWSER_GEOMETRY;
    scroller.addEventListener('scroll', () => {
      // A pass's own scroll needs no pass: that one laid out for where it scrolled to.
      if (this.scrolledTo !== undefined && Math.abs(scroller.scrollTop - this.scrolledTo) < 1) return;
      this.scrolledTo = undefined;
      this.extra.clear();
      this.later();
    }, { passive: true });
    content.addEventListener('keydown', (event) => {
      if (event.key === 'Tab' && !event.altKey && !event.ctrlKey && !event.metaKey) this.beforeTab(event.target as Node, event.shiftKey ? -1 : 1);
    });
    this.resizes = typeof ResizeObserver !== 'undefined' && !options.geometry
      ? new ResizeObserver((entries) => {
        if (entries.some((entry) => this.resized(entry))) this.later();
      })
      : undefined;
    this.resizes?.observe(scroller);
  }

  /** Shows `source` and lays it out now. */
  show(source: TurnSource): void {
    this.source = source;
    this.pass();
  }

  /** Lays out again now (after a scroll or a resize; `show` does it too). */
  relayout(): void {
    if (this.source) this.pass();
  }

  /** Forgets the turns (the content shows something else now: the welcome text, the loading status). */
  reset(): void {
    this.extra.clear();
    for (const [el] of this.mountedEls) this.resizes?.unobserve(el as Element);
    this.source = null;
    this.written = null;
    this.mounted = [];
    this.mountedEls = new Map();
  }

  /** Ids of the turns in the DOM, in order. */
  get mountedIds(): readonly string[] {
    return this.mounted;
  }

  /** The turn at the top of the viewport and how far (px) the viewport starts into it; undefined before a layout. */
  anchor(): Anchor | undefined {
    return this.written ? atTurn(this.written, this.scroller.scrollTop) : undefined;
  }

  /** Whether a `restoreTo` waits for a layout. */
  get restoring(): boolean {
    return this.pending !== null;
  }

  /** Brings `anchor` back to the top of the viewport at the next layout that holds its turn. */
  restoreTo(anchor: Anchor): void {
    this.pending = anchor;
  }

  /**
   * Tab from the first or last turn in the DOM: mounts the next `TAB_REACH_TURNS` turns that way first,
   * so the focus goes on to their buttons as it would without virtualization (the browser picks the
   * next focusable element after this handler). They stay mounted until the next scroll.
   */
  private beforeTab(target: Node, direction: 1 | -1): void {
    const at = this.turnIdOf(target);
    const ids = this.source?.ids;
    if (!at || !ids || at !== (direction > 0 ? this.mounted.at(-1) : this.mounted[0])) return;
    const edge = ids.indexOf(at);
    for (let k = 1; k <= TAB_REACH_TURNS; k++) {
      const id = ids[edge + direction * k];
      if (id !== undefined) this.extra.add(id);
    }
    this.pass();
  }

  /**
   * Whether a ResizeObserver entry calls for a pass: the scroller's size, or a mounted turn whose
   * height is not the one the last pass measured (a pass measures every turn it mounts, and the
   * observer then reports each of them: a second pass a frame later for nothing).
   */
  private resized(entry: ResizeObserverEntry): boolean {
    if (entry.target === this.scroller) return true;
    const id = this.mountedEls.get(entry.target)?.id;
    if (id === undefined) return false;
    const px = entry.borderBoxSize?.[0]?.blockSize ?? this.geometry.height(entry.target as HTMLElement);
    return Math.abs(px - (this.heights.get(id) ?? -1)) >= 0.5;
  }

  private later(): void {
    if (this.scheduled || !this.source) return;
    this.scheduled = true;
    const schedule = this.options.schedule ?? ((run: () => void) => this.scroller.ownerDocument.defaultView?.requestAnimationFrame(run));
    schedule(() => {
      this.scheduled = false;
      this.relayout();
    });
  }

  private pass(): void {
    const source = this.source!;
    const viewport = this.geometry.viewportHeight(this.scroller);
    const anchor = this.anchorForPass(source);
    const before = this.mounted;
    const had = new Set(before);
    let deferred = false;
    let unsettled = false;
    this.measureMounted();
    let layout = this.layout(source);
    for (let round = 0; ; round++) {
      const top = anchor === 'bottom' ? layout.total - viewport : topOf(layout, anchor);
      const kept = this.keptIds();
      const pick = withinBudget(layout, mountedIndices(layout, top, viewport, kept), mountedIndices(layout, top, viewport, kept, 0), had, MARGIN_TURNS_PER_PASS);
      deferred = pick.deferred;
      this.write(source, layout, pick.indices);
      // Done when the turns mounted are as tall as assumed (the average of the unmeasured ones is then the same too).
      if (!this.measureMounted()) break;
      // Heights measured after the last layout: the DOM's spacers and the scroll are off by them.
      if (round === MAX_ROUNDS) {
        unsettled = true;
        break;
      }
      layout = this.layout(source);
    }
    // What the DOM holds now: the next pass reads its anchor from it.
    this.written = layout;
    this.scrollTo(layout, anchor, viewport);
    if (source.hasOlder && this.scroller.scrollTop - 2 * viewport < (layout.tops[0] ?? 0)) this.options.onNearTop?.();
    if (!sameIds(before, this.mounted)) this.options.onMounted?.();
    // The rest of the margin, a few turns a frame; or a layout with the heights measured last (no
    // ResizeObserver report or scroll event of this pass's runs one: they match what it measured).
    if (deferred || unsettled) this.later();
  }

  /** Where this pass keeps the view: a restore asked for, the bottom, or the turn read now. */
  private anchorForPass(source: TurnSource): Anchor | 'bottom' {
    const pending = this.pending;
    if (pending && source.ids.includes(pending.turnId)) {
      this.pending = null;
      return pending;
    }
    if (this.options.atBottom?.() ?? true) return 'bottom';
    const at = this.written ? atTurn(this.written, this.scroller.scrollTop) : undefined;
    if (at && source.ids.includes(at.turnId)) return at;
    // The turn read is gone (a snapshot replaced the turns): stay near the same place.
    return this.written ? turnNear(this.written, source.ids, this.scroller.scrollTop) ?? 'bottom' : 'bottom';
  }

  /**
   * Lays `source` out into the buffer the written layout does not use: a pass reads its anchor from
   * the written layout, then lays out (again at each round) into the other, which becomes the written
   * one. No allocation per pass once the buffers hold the transcript.
   */
  private layout(source: TurnSource): Layout {
    const average = this.heights.size > 0 ? this.heightSum / this.heights.size : ESTIMATED_TURN_PX;
    const contentTop = this.geometry.contentTop(this.content, this.scroller);
    const n = source.ids.length + 1;
    const free = this.written?.tops.buffer === this.topsBuffers[0].buffer ? 1 : 0;
    // Grown to twice what is needed, so that a page of older turns rarely needs a new buffer.
    if (this.topsBuffers[free].length < n) this.topsBuffers[free] = new Float64Array(2 * n);
    return layOut(source.ids, this.heightsOf(source.ids), average, source.hasOlder ? Math.max(source.unloaded, 0) * average : 0, contentTop, this.topsBuffers[free]);
  }

  /** The known heights of `ids` by index (NaN: never measured), read from \`heights\` once per ids array. */
  private heightsOf(ids: readonly string[]): Float64Array {
    if (this.aligned?.ids !== ids) {
      const px = new Float64Array(ids.length);
      for (let i = 0; i < ids.length; i++) px[i] = this.heights.get(ids[i]!) ?? Number.NaN;
      this.aligned = { ids, px };
    }
    return this.aligned.px;
  }

  /** The two buffers layouts are written to (see `layout`). */
  private readonly topsBuffers: [Float64Array, Float64Array] = [new Float64Array(0), new Float64Array(0)];

  /** Scrolls so that the anchor is where it was, or to the bottom. */
  private scrollTo(layout: Layout, anchor: Anchor | 'bottom', viewport: number): void {
    const top = anchor === 'bottom'
      ? Math.max(layout.total - viewport, this.scroller.scrollHeight - viewport)
      : topOf(layout, anchor);
    // Only a real move: each assignment fires a scroll event. Where it landed (clamped to the content) is noted: its event needs no pass.
    if (Math.abs(this.scroller.scrollTop - top) < 1) return;
    this.scroller.scrollTop = Math.max(0, top);
    this.scrolledTo = this.scroller.scrollTop;
  }

  /** Where the last pass scrolled to, until a scroll event says the view is elsewhere. */
  private scrolledTo: number | undefined;

  /** Puts the `wanted` turns (sorted indices) in the DOM, with a spacer for each run of turns left out. */
  private write(source: TurnSource, layout: Layout, wanted: readonly number[]): void {
    const children: HTMLElement[] = [];
    const spacers = new Map<string, HTMLElement>();
    const gap = (before: string, px: number) => {
      const el = this.spacers.get(before) ?? makeSpacer(this.content.ownerDocument);
      const height = `${Math.max(0, Math.round(px))}px`;
      // Compared with what was set, not read back: the browser gives 1289040px back as "1.28904e+06px".
      if (this.spacerHeights.get(el) !== height) {
        this.spacerHeights.set(el, height);
        el.style.height = height;
      }
      spacers.set(before, el);
      children.push(el);
    };
    const els = new Map<Node, { id: string; index: number }>();
    let next = 0;
    for (const i of wanted) {
      const id = source.ids[i]!;
      if (i > next || (i === 0 && layout.unloadedPx > 0)) gap(next === 0 ? TOP : id, layout.tops[i]! - (next === 0 ? layout.contentTop : layout.tops[next]!));
      const el = source.element(i);
      els.set(el, { id, index: i });
      children.push(el);
      next = i + 1;
    }
    if (next < source.ids.length) gap('', layout.total - layout.tops[next]!);
    this.spacers = spacers;
    const write = () => reconcileChildren(this.content, children);
    if (this.options.aroundWrite) this.options.aroundWrite(write);
    else write();
    for (const [el] of this.mountedEls) if (!els.has(el)) this.resizes?.unobserve(el as Element);
    for (const [el] of els) if (!this.mountedEls.has(el)) this.resizes?.observe(el as Element);
    this.mountedEls = els;
    this.mountedFrom = source.ids;
    this.mounted = [...els.values()].map((m) => m.id);
  }

  /** Measures the mounted turns; true when a height differs from the one known. */
  private measureMounted(): boolean {
    let changed = false;
    for (const [el, { id, index }] of this.mountedEls) {
      const px = this.geometry.height(el as HTMLElement);
      const had = this.heights.get(id);
      // A turn is never 0 px tall (it has padding) unless not laid out (a hidden view): keep what was known.
      if (had === px || px <= 0) continue;
      this.heightSum += px - (had ?? 0);
      this.heights.set(id, px);
      if (this.aligned?.ids === this.mountedFrom) this.aligned.px[index] = px;
      changed = true;
    }
    return changed;
  }

  /** Turns that stay mounted wherever the viewport is: those of the text selection, the focused one, those mounted for Tab. */
  private keptIds(): Set<string> {
    const kept = new Set<string>(this.extra);
    const doc = this.content.ownerDocument;
    const focused = this.turnIdOf(doc.activeElement);
    if (focused) kept.add(focused);
    const selection = doc.getSelection?.();
    if (!selection || selection.rangeCount === 0 || selection.isCollapsed) return kept;
    const ends = [this.turnIdOf(selection.anchorNode), this.turnIdOf(selection.focusNode)].filter((id): id is string => !!id);
    const ids = this.source?.ids ?? [];
    const at = ends.map((id) => ids.indexOf(id)).filter((i) => i >= 0);
    if (at.length === 0) return kept;
    for (let i = Math.min(...at); i <= Math.max(...at); i++) kept.add(ids[i]!);
    return kept;
  }

  /** The id of the mounted turn holding `node`, if any. */
  private turnIdOf(node: Node | null | undefined): string | undefined {
    let el: Node | null | undefined = node;
    while (el && el.parentNode !== this.content) el = el.parentNode;
    return el ? this.mountedEls.get(el)?.id : undefined;
  }
}

/**
 * Most turns of the margin (not in the viewport) a pass mounts besides those already mounted: a wheel
 * step far from the mounted turns rendered a whole window of new turns (two screens of margin) in one
 * frame, a long task; the viewport's turns come now, the margin's over the next frames.
 */
const MARGIN_TURNS_PER_PASS = 2;

/** How many turns past the window a Tab at its edge mounts. */
const TAB_REACH_TURNS = 10;

/** The key of the top spacer (no turn id is empty or starts with a space). */
const TOP = ' top';

/**
 * The height (px) assumed for a turn before any turn was measured (a chat's first pass). Rather too
 * tall than too short: turns assumed too tall fill less than the viewport, and the pass's next round
 * mounts the rest (a layout); turns assumed too short mount turns that end up off screen, each one
 * rendered for nothing (markdown, outputs) while the chat opens.
 */
const ESTIMATED_TURN_PX = 320;

function makeSpacer(doc: Document): HTMLElement {
  const el = doc.createElement('div');
  el.className = 'turn-spacer';
  el.setAttribute('aria-hidden', 'true');
  return el;
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}
