/**
 * Marks the words of a search in a turn the view was asked to reveal (`reveal` from the host: a
 * result of Search Chats…). The marks are a CSS Custom Highlight (`::highlight(search-match)` in
 * media/chat.css): ranges over the turn's text, no element added, so the turn's cached DOM and any
 * selection stay as they are. A turn rendered again later loses them.
 */

/** The highlight's name in `CSS.highlights` and in the stylesheet. */
export const SEARCH_HIGHLIGHT = 'search-match';

/**
 * Opens every collapsed `details` in `root` holding one of `ranges` (a request replaced by an edit is
 * shown collapsed: its marked words would stay out of sight); returns how many it opened.
 */
export function openAround(root: Element, ranges: readonly Range[]): number {
  let opened = 0;
  for (const details of root.querySelectorAll('details:not([open])')) {
    if (!ranges.some((r) => details.contains(r.startContainer))) continue;
    (details as HTMLDetailsElement).open = true;
    opened++;
  }
  return opened;
}

/**
 * The ranges of `terms` in the text of `root`, matched case-insensitively anywhere in the text (not
 * only whole words), in document order. A match that spans two text nodes (across markup) is not found.
 */
export function termRanges(root: Node, terms: readonly string[]): Range[] {
  const wanted = [...new Set(terms.map((t) => t.toLowerCase()).filter((t) => t.trim() !== ''))];
  const doc = root.ownerDocument ?? (root as Document);
  const ranges: Range[] = [];
  if (wanted.length === 0) return ranges;
  const walker = doc.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = (node.nodeValue ?? '').toLowerCase();
    const found: [number, number][] = [];
    for (const term of wanted) {
      for (let at = text.indexOf(term); at >= 0; at = text.indexOf(term, at + term.length)) found.push([at, at + term.length]);
    }
    found.sort((a, b) => a[0] - b[0]);
    for (const [start, end] of found) {
      const range = doc.createRange();
      range.setStart(node, start);
      range.setEnd(node, end);
      ranges.push(range);
    }
  }
  return ranges;
}

/** The CSS Custom Highlight API, where the browser has it. */
interface HighlightRegistry {
  set(name: string, highlight: unknown): void;
  delete(name: string): void;
}

/**
 * Marks `ranges` as the search's words, replacing earlier marks (none: clears them). Returns false
 * where the browser lacks the CSS Custom Highlight API (nothing is marked then).
 */
export function markRanges(win: Window, ranges: readonly Range[]): boolean {
  const css = (win as unknown as { CSS?: { highlights?: HighlightRegistry } }).CSS;
  const Highlight = (win as unknown as { Highlight?: new (...ranges: Range[]) => unknown }).Highlight;
  if (!css?.highlights || !Highlight) return false;
  if (ranges.length === 0) css.highlights.delete(SEARCH_HIGHLIGHT);
  else css.highlights.set(SEARCH_HIGHLIGHT, new Highlight(...ranges));
  return true;
}
