/**
 * The arithmetic of the virtualized transcript (pure, no DOM): where each loaded turn starts given
 * the heights known, which turns the viewport and its margin cover, and the anchor (turn and offset)
 * at a scroll position. All lengths are px in the scroller's scroll coordinates.
 */

/** A place in the transcript: `offset` px below the top of turn `turnId` (negative: above it). */
export interface Anchor {
  readonly turnId: string;
  readonly offset: number;
}

/** Where the loaded turns are. */
export interface Layout {
  /** Loaded turn ids, oldest first. */
  readonly ids: readonly string[];
  /** `tops[i]`: the top of turn i; `tops[ids.length]`: the bottom of the last turn. */
  readonly tops: Float64Array;
  /** The bottom of the last turn (`tops[ids.length]`). */
  readonly total: number;
  /** The estimated height of the turns not loaded, above the first loaded one. */
  readonly unloadedPx: number;
  /** Where the content starts (its padding above the first child). */
  readonly contentTop: number;
}

/** The least margin (px) kept mounted above and below the viewport, when the viewport is small. */
const MIN_MARGIN_PX = 400;

/**
 * Lays the loaded turns out below the unloaded ones: turn i is `heights[i]` tall, or `average` when
 * that is NaN (never measured). `into`: a buffer the tops are written to when it holds `ids.length + 1`
 * numbers (the layout then views it and is valid until the buffer is written again); else a new one.
 * A layout per animation frame while scrolling a long chat allocated a new array each time (40 KB at
 * 5,000 turns): garbage enough for a major collection in the middle of a scroll.
 */
export function layOut(ids: readonly string[], heights: Float64Array, average: number, unloadedPx: number, contentTop: number, into?: Float64Array): Layout {
  const tops = into && into.length >= ids.length + 1 ? into.subarray(0, ids.length + 1) : new Float64Array(ids.length + 1);
  let y = contentTop + unloadedPx;
  for (let i = 0; i < ids.length; i++) {
    tops[i] = y;
    const px = heights[i]!;
    y += px === px ? px : average;
  }
  tops[ids.length] = y;
  return { ids, tops, total: y, unloadedPx, contentTop };
}

/** The top of turn `turnId` plus `offset` (px): where an anchor is in `layout`. @throws TypeError if the turn is not in it. */
export function topOf(layout: Layout, anchor: Anchor): number {
  const i = layout.ids.indexOf(anchor.turnId);
  if (i < 0) throw new TypeError(`turn ${anchor.turnId} is not laid out`);
  return layout.tops[i]! + anchor.offset;
}

/** The last index i with `tops[i] <= y` (-1 when y is above the first turn). */
function turnAt(layout: Layout, y: number): number {
  let lo = 0;
  let hi = layout.ids.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (layout.tops[mid]! <= y) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** The anchor at scroll position `scrollTop`: the turn there (the first one when above all) and the offset into it. */
export function atTurn(layout: Layout, scrollTop: number): Anchor | undefined {
  if (layout.ids.length === 0) return undefined;
  const i = Math.max(0, turnAt(layout, scrollTop));
  return { turnId: layout.ids[i]!, offset: scrollTop - layout.tops[i]! };
}

/**
 * An anchor in `ids` (a new list of turns) for scroll position `scrollTop` of `layout` (the old one),
 * when the turn there is no longer loaded: the nearest turn of the old layout still in `ids`, below first.
 */
export function turnNear(layout: Layout, ids: readonly string[], scrollTop: number): Anchor | undefined {
  const present = new Set(ids);
  const at = Math.max(0, turnAt(layout, scrollTop));
  for (let d = 0; d < layout.ids.length; d++) {
    for (const i of [at + d, at - d]) {
      const id = layout.ids[i];
      if (id !== undefined && present.has(id)) return { turnId: id, offset: scrollTop - layout.tops[i]! };
    }
  }
  return undefined;
}

/**
 * The indices (sorted) of the turns to mount when the viewport (`viewport` px tall) starts at `top`:
 * those within `margin` px (default one screen, at least `MIN_MARGIN_PX`) above or below it, and those
 * of `kept` (ids). At least one turn when any is loaded: the nearest one when the viewport is wholly above or below them.
 */
export function mountedIndices(layout: Layout, top: number, viewport: number, kept: ReadonlySet<string>, margin = Math.max(viewport, MIN_MARGIN_PX)): number[] {
  const n = layout.ids.length;
  if (n === 0) return [];
  const lo = top - margin;
  const hi = top + viewport + margin;
  let first = Math.max(0, turnAt(layout, lo));
  // turnAt gives the turn starting at or above lo; it counts only if it reaches below lo.
  if (layout.tops[first + 1]! <= lo) first++;
  let last = turnAt(layout, hi);
  if (last >= 0 && layout.tops[last]! >= hi) last--;
  if (first >= n) first = last = n - 1;
  else if (last < first) last = first;
  const wanted = new Set<number>();
  for (let i = first; i <= last; i++) wanted.add(i);
  for (const id of kept) {
    const i = layout.ids.indexOf(id);
    if (i >= 0) wanted.add(i);
  }
  return [...wanted].sort((a, b) => a - b);
}

/**
 * Which of the `wanted` indices (sorted; `mountedIndices`) one pass mounts: all those in the viewport
 * (`visible`) or already mounted (`mounted`, by id), and at most `budget` others, the nearest to the
 * viewport first. A wheel step that lands far from the mounted turns then renders and lays out the
 * turns the user sees in this frame, and the margin a few turns per frame afterwards. Also says
 * whether some were left for a later pass.
 */
export function withinBudget(
  layout: Layout, wanted: readonly number[], visible: readonly number[], mounted: ReadonlySet<string>, budget: number,
): { readonly indices: number[]; readonly deferred: boolean } {
  const seen = new Set(visible);
  const first = visible[0] ?? 0;
  const last = visible.at(-1) ?? first;
  const distance = (i: number) => (i < first ? first - i : i - last);
  const others = wanted.filter((i) => !seen.has(i) && !mounted.has(layout.ids[i]!)).sort((a, b) => distance(a) - distance(b));
  const left = new Set(others.slice(budget));
  return { indices: wanted.filter((i) => !left.has(i)), deferred: left.size > 0 };
}
