/**
 * The `@` list's fuzzy filter (pure; the host runs it over the workspace's paths, the bench over
 * 50,000 generated ones): a candidate matches when the query's characters appear in its path in
 * order, case-insensitively. Matches within the file's name rank above matches that need its
 * folders, consecutive characters and a match at the name's start rank higher, then shorter names.
 * Only the best `limit` are kept (a bounded insertion, not a sort of every match), so a one-letter
 * query over 50,000 paths costs a pass, not a sort.
 */

/** A path prepared for matching: lower-cased once, with where its last segment starts. */
export interface FuzzyCandidate {
  /** Relative to the workspace folder, '/'-separated (a folder without a trailing '/'). */
  readonly path: string;
  readonly lower: string;
  /** Index in `path` where its name (last segment) starts. */
  readonly nameStart: number;
  readonly folder: boolean;
}

/** A match: the candidate, its score (higher is better) and the indexes of the query's characters in its name ([] when they matched in its folders). */
export interface FuzzyMatch {
  readonly candidate: FuzzyCandidate;
  readonly score: number;
  readonly matches: readonly number[];
}

/** Prepares `path` for matching. */
export function candidateOf(path: string, folder = false): FuzzyCandidate {
  return { path, lower: path.toLowerCase(), nameStart: path.lastIndexOf('/') + 1, folder };
}

/** Folders of `files` ('/'-separated paths), each once, in the order first seen. */
export function foldersOf(files: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const file of files) {
    for (let i = file.indexOf('/'); i > 0; i = file.indexOf('/', i + 1)) seen.add(file.slice(0, i));
  }
  return [...seen];
}

/** The candidates of a workspace's files: its folders first, then the files, each prepared once. */
export function candidatesOf(files: readonly string[]): FuzzyCandidate[] {
  return [...foldersOf(files).map((f) => candidateOf(f, true)), ...files.map((f) => candidateOf(f))];
}

/** Indexes in `text` (from `from`) of `query`'s characters in order, first occurrence each, or undefined. */
function subsequence(query: string, text: string, from: number): number[] | undefined {
  const at: number[] = [];
  let i = from;
  for (const ch of query) {
    i = text.indexOf(ch, i);
    if (i < 0) return undefined;
    at.push(i);
    i++;
  }
  return at;
}

/** The score of a match at `at` (in the name when `inName`); undefined when the query does not match. */
function scoreOf(query: string, c: FuzzyCandidate): { score: number; matches: number[] } | undefined {
  if (query === '') return { score: 0, matches: [] };
  const inName = subsequence(query, c.lower, c.nameStart);
  if (inName) {
    let score = 1000 - (c.path.length - c.nameStart);
    if (inName[0] === c.nameStart) score += 100;
    for (let k = 1; k < inName.length; k++) score += inName[k] === inName[k - 1]! + 1 ? 20 : -(inName[k]! - inName[k - 1]!);
    return { score, matches: inName.map((i) => i - c.nameStart) };
  }
  const inPath = subsequence(query, c.lower, 0);
  return inPath ? { score: 100 - c.path.length - (inPath[inPath.length - 1]! - inPath[0]!), matches: [] } : undefined;
}

/**
 * The best `limit` matches of `query` (trimmed, lower-cased) among `candidates`, best first; ties
 * keep the candidates' order. An empty query takes the first `limit` candidates as they are.
 */
export function fuzzyRank(query: string, candidates: readonly FuzzyCandidate[], limit: number): FuzzyMatch[] {
  const q = query.trim().toLowerCase();
  const best: FuzzyMatch[] = [];
  for (const candidate of candidates) {
    // Cheap refusal first: the query's last character must occur somewhere.
    if (q !== '' && !candidate.lower.includes(q[q.length - 1]!)) continue;
    const scored = scoreOf(q, candidate);
    if (!scored) continue;
    if (best.length === limit && scored.score <= best[best.length - 1]!.score) continue;
    let at = best.length;
    while (at > 0 && best[at - 1]!.score < scored.score) at--;
    best.splice(at, 0, { candidate, ...scored });
    if (best.length > limit) best.pop();
    if (q === '' && best.length === limit) break;
  }
  return best;
}
