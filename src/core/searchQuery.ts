/**
 * What the user types into chat search, turned into something the journal's full-text index
 * (SQLite FTS4, tokenizer `unicode61`) can run safely, and the snippet shown for a match.
 *
 * The user's text is never passed to FTS as syntax: it is cut into words (runs of letters, digits
 * and combining marks, as the `unicode61` tokenizer cuts text), each word becomes a quoted FTS
 * phrase, and the last one (of 3+ characters) matches as a prefix (the user may still be typing it;
 * a 3-character one only when it is not itself a word common enough to fill the results:
 * `wholeWordFirst`). Quotes, `*`,
 * `-`, parentheses, `NEAR`, `AND`/`OR`/`NOT`, NUL and other control characters therefore never
 * reach FTS as operators: a word like `NEAR` is searched as the word "near". Words are ANDed.
 */

/** Most words of a query used (the rest are dropped: a query is a few words, not a paragraph). */
export const MAX_QUERY_TERMS = 12;
/** Longest word used, in characters (a longer one is cut: no indexed word is that long). */
export const MAX_TERM_LENGTH = 64;
/**
 * Shortest last word matched as a prefix: a shorter one would merge the doclists of most of the
 * index's words (a two-letter prefix cost several times a common word at 10 MB).
 */
export const MIN_PREFIX_LENGTH = 3;

/**
 * Longest last word searched first as a whole word (see `wholeWordFirst`): as a prefix, a word this
 * short starts many words, whose doclists FTS4 (with no prefix index) merges in full before it
 * returns the first match, however few matches are needed.
 */
export const WHOLE_WORD_FIRST_MAX_LENGTH = 3;

/** A query made safe for FTS4 MATCH (see module docstring). */
export interface SearchQuery {
  /** Lower-cased words, in the order typed, duplicates removed. */
  readonly terms: readonly string[];
  /** Whether the last term matches as a prefix. */
  readonly prefixLast: boolean;
  /** The FTS4 MATCH expression: each term a quoted phrase, the last one with `*` if `prefixLast`. */
  readonly match: string;
}

// A word: letters, digits, combining marks and private-use characters, as unicode61 sees tokens.
const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/**
 * The safe query for `text`, or null when it holds no word to search for (empty, only spaces or
 * punctuation). Never throws.
 */
export function parseSearchQuery(text: string): SearchQuery | null {
  const terms: string[] = [];
  for (const match of String(text).matchAll(WORD)) {
    const term = match[0].toLowerCase().slice(0, MAX_TERM_LENGTH);
    if (!terms.includes(term)) terms.push(term);
    if (terms.length === MAX_QUERY_TERMS) break;
  }
  if (terms.length === 0) return null;
  const last = terms[terms.length - 1]!;
  // A word typed to its end is still matched as a prefix: the quick pick cannot know.
  const prefixLast = [...last].length >= MIN_PREFIX_LENGTH;
  const match = terms.map((t, i) => (i === terms.length - 1 && prefixLast ? `"${t}*"` : `"${t}"`)).join(' ');
  return { terms, prefixLast, match };
}

/**
 * `query` with its last word matched as a whole word, when that word is matched as a prefix and is
 * at most WHOLE_WORD_FIRST_MAX_LENGTH characters long; otherwise null. Search runs it first and runs
 * `query` itself only when the whole word fills fewer turns than the results' limit: a short word
 * common enough to fill the results ("the", "log", "git") is taken as typed, while a short start of
 * a longer word ("jou") still finds that word.
 */
export function wholeWordFirst(query: SearchQuery): SearchQuery | null {
  const last = query.terms[query.terms.length - 1]!;
  if (!query.prefixLast || [...last].length > WHOLE_WORD_FIRST_MAX_LENGTH) return null;
  return { terms: query.terms, prefixLast: false, match: query.terms.map((t) => `"${t}"`).join(' ') };
}

/** Why a search cannot run, in words, or null when it can. */
export function searchQueryProblem(text: string): string | null {
  return parseSearchQuery(text) ? null : 'Type a word to search for: the search has no letters or digits to look for.';
}

/** A snippet of a matched text with where the matches are in it. */
export interface Snippet {
  /** Part of the text around the first match, on one line, with `…` where it was cut. */
  readonly text: string;
  /** Each match as [start, end) offsets (UTF-16 code units) into `text`, in order, not overlapping. */
  readonly matchRanges: readonly (readonly [number, number])[];
}

/** Characters of a snippet shown before the first match. */
const SNIPPET_LEAD = 40;

/** Folds a word for comparison as unicode61 does: lower case, Latin diacritics removed. */
function fold(word: string): string {
  // Most words are ASCII: normalizing each one was most of a snippet's time.
  return /^[ -~]*$/.test(word) ? word.toLowerCase() : word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/**
 * Whether `text` holds every term of `query` as a word (the last one also as a word's start when
 * `prefixLast`), compared as `fold` does: what the FTS index would answer, for the few rows not in
 * it yet.
 */
export function textMatches(text: string, query: SearchQuery): boolean {
  const words = new Set<string>();
  for (const m of text.matchAll(WORD)) words.add(fold(m[0]));
  const terms = query.terms.map(fold);
  return terms.every((t, i) => words.has(t) || (query.prefixLast && i === terms.length - 1 && [...words].some((w) => w.startsWith(t))));
}

/**
 * The snippet of `text` for `query`: about `maxLength` characters starting a little before the first
 * word that matches one of its terms (whole word, or prefix for the last term when `prefixLast`),
 * whitespace runs shown as one space, with every match inside it marked. Without a match (the index
 * found the row but the words differ here, e.g. by a folding this function does not do) it is the
 * start of the text, with no ranges.
 */
export function snippetFor(text: string, query: SearchQuery, maxLength = 160): Snippet {
  const flat = text.replace(/\s+/g, ' ').trim();
  const terms = query.terms.map(fold);
  const matches = (word: string): boolean => {
    const folded = fold(word);
    return terms.some((t, i) => folded === t || (query.prefixLast && i === terms.length - 1 && folded.startsWith(t)));
  };
  // Words are looked at up to the first match, then only inside the snippet (texts run to kilobytes).
  const words = new RegExp(WORD.source, 'gu');
  let first = 0;
  for (let m = words.exec(flat); m; m = words.exec(flat)) {
    if (matches(m[0])) {
      first = m.index;
      break;
    }
  }
  let start = Math.max(0, first - SNIPPET_LEAD);
  if (start > 0) {
    const space = flat.indexOf(' ', start);
    if (space !== -1 && space < first) start = space + 1; // start at a word
  }
  const end = Math.min(flat.length, start + maxLength);
  const lead = start > 0 ? '…' : '';
  const matchRanges: [number, number][] = [];
  words.lastIndex = start;
  for (let m = words.exec(flat); m && m.index + m[0].length <= end; m = words.exec(flat)) {
    if (matches(m[0])) matchRanges.push([lead.length + m.index - start, lead.length + m.index - start + m[0].length]);
  }
  return { text: lead + flat.slice(start, end) + (end < flat.length ? '…' : ''), matchRanges };
}
