/**
 * File references in what the chat shows (`src/app.ts:12`, `src/app.ts#L12`, `./notes.txt`): which
 * text is one, and its path, line and column. Shared by the view (which turns references into links)
 * and the protocol (which bounds what a link sends back). Pure, no import: the view bundles it.
 * Where a reference may lead is `workspacePaths.ts` (host side).
 */

/** A file reference: a path as written, and the line (1-based) and column (1-based) when given. */
export interface FileReference {
  readonly path: string;
  readonly line?: number;
  readonly column?: number;
}

/** Longest path a link may carry, in characters. */
export const MAX_FILE_PATH_CHARS = 4096;

/** Highest line or column number a link may carry. */
export const MAX_FILE_LINE = 10_000_000;

// A path: optional ./ ../ or /, then segments; the last has an extension starting with a letter.
const PATH = String.raw`(?:\.{1,2}/|/)?(?:[\w@+-][\w.@+-]*/)*[\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,9}`;

/**
 * Extensions a bare file name (no `/`) must have to be taken for a file: `notes.txt` is one, while
 * `console.log`, `process.env` or a setting id in a code span are not.
 */
const BARE_NAME_EXTENSIONS: ReadonlySet<string> = new Set([
  'c', 'cc', 'cfg', 'cjs', 'conf', 'cpp', 'cs', 'css', 'csv', 'go', 'gradle', 'h', 'hpp', 'html', 'ini', 'ipynb', 'java', 'js', 'json',
  'jsonc', 'jsx', 'kt', 'less', 'lock', 'lua', 'md', 'mjs', 'php', 'py', 'rb', 'rs', 'scss', 'sh', 'sql', 'svg', 'swift', 'toml', 'ts',
  'tsx', 'txt', 'vue', 'xml', 'yaml', 'yml', 'zsh',
]);
const POSITION = String.raw`(?::(\d{1,8})(?::(\d{1,8}))?|#L(\d{1,8})(?:C(\d{1,8}))?)?`;

/** A whole string that is a file reference (a code span's text): a path with an extension, then `:line[:col]` or `#Lline`. */
const WHOLE = new RegExp(String.raw`^(${PATH})${POSITION}$`);

/**
 * File references in running text: like WHOLE, but the path must hold a `/` (a bare `notes.txt` or
 * `e.g.` in prose is not taken for one), and nothing word-like, `:` or `/` may come right before it
 * (so `https://host/a/b.html` is not one).
 */
export const FILE_REFERENCE_IN_TEXT = new RegExp(String.raw`(?<![\w:/.@+-])((?:\.{1,2}/|/)?(?:[\w@+-][\w.@+-]*/)+[\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,9})${POSITION}(?![\w/])`, 'g');

/** The reference a whole string makes (a code span, a tool's path), or null when it is not one. */
export function parseFileReference(text: string): FileReference | null {
  const m = WHOLE.exec(text.trim());
  if (!m) return null;
  const file = m[1]!;
  if (!file.includes('/') && !BARE_NAME_EXTENSIONS.has(file.slice(file.lastIndexOf('.') + 1).toLowerCase())) return null;
  return referenceOf(file, m[2] ?? m[4], m[3] ?? m[5]);
}

/** The reference of a FILE_REFERENCE_IN_TEXT match. */
export function referenceOfMatch(m: RegExpMatchArray): FileReference {
  return referenceOf(m[1]!, m[2] ?? m[4], m[3] ?? m[5]);
}

function referenceOf(file: string, line: string | undefined, column: string | undefined): FileReference {
  const n = (v: string | undefined) => (v !== undefined && Number(v) >= 1 && Number(v) <= MAX_FILE_LINE ? Number(v) : undefined);
  const l = n(line);
  const c = l !== undefined ? n(column) : undefined;
  return { path: file, ...(l !== undefined ? { line: l } : {}), ...(c !== undefined ? { column: c } : {}) };
}
