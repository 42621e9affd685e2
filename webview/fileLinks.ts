/**
 * Turns file references in what the chat shows into links that open the file (at its line when
 * known): in an agent's reply (a code span that is a path such as `src/app.ts:12`, a path with a
 * `/` in running text, a Markdown link to a relative path), in a tool's header, in a diff's file
 * and hunk headers. A link is `a.file-link[data-action="open-file"][data-path]` with `data-line` and
 * `data-column` when known; the view posts `openFile` on a click, and the host opens it only
 * inside the workspace. Code blocks (`pre`) are left as they are: their text is for copying.
 */
import { FILE_REFERENCE_IN_TEXT, MAX_FILE_LINE, MAX_FILE_PATH_CHARS, parseFileReference, referenceOfMatch, type FileReference } from '../src/core/fileLinks';
import { linkTextUnder } from './textLinks';

/** One link to `ref` holding `content` (its text, or the nodes that show it). */
export function fileLink(ref: FileReference, content: string | Node): HTMLElement {
  const a = document.createElement('a');
  a.className = 'file-link';
  a.setAttribute('href', '#');
  a.setAttribute('data-action', 'open-file');
  a.setAttribute('data-path', ref.path);
  if (ref.line !== undefined) a.setAttribute('data-line', String(ref.line));
  if (ref.column !== undefined) a.setAttribute('data-column', String(ref.column));
  a.setAttribute('title', `Open ${ref.path}${ref.line !== undefined ? ` at line ${ref.line}` : ''}`);
  a.append(content);
  return a;
}

/**
 * Links the file references under `root` (see module docstring): code spans whose whole text is a
 * reference, references with a `/` in text, and Markdown links to relative paths. Existing links
 * other than those and `pre` blocks are left alone. Returns how many links it made.
 */
export function linkFiles(root: Node): number {
  return linkTextUnder(root, FILE_REFERENCE_IN_TEXT, (m) => fileLink(referenceOfMatch(m), m[0]), (el) => {
    if (el.tagName === 'A') return retargetAnchor(el) ? 1 : 0;
    if (el.tagName === 'CODE') return linkCode(el) ? 1 : 0;
    return el.tagName === 'PRE' ? 0 : undefined;
  });
}

/** A code span that is one whole reference becomes a link around it. */
function linkCode(code: Element): boolean {
  const ref = parseFileReference(code.textContent ?? '');
  if (!ref) return false;
  const parent = code.parentNode;
  if (!parent) return false;
  const placeholder = document.createTextNode('');
  parent.replaceChild(placeholder, code);
  parent.replaceChild(fileLink(ref, code), placeholder);
  return true;
}

/** A Markdown link to a relative path (`[app](src/app.ts#L3)`) opens the file instead of navigating the view. */
function retargetAnchor(a: Element): boolean {
  const href = a.getAttribute('href') ?? '';
  if (href === '' || href.startsWith('#') || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(href)) return false;
  let decoded: string;
  try {
    decoded = decodeURI(href);
  } catch {
    return false;
  }
  const ref = parseFileReference(decoded);
  if (!ref) return false;
  a.replaceWith(fileLink(ref, fragmentOf(a)));
  return true;
}

/** A fragment holding `el`'s children. */
function fragmentOf(el: Element): DocumentFragment {
  const f = document.createDocumentFragment();
  f.append(...el.childNodes);
  return f;
}

/**
 * The file a click on `target` asks to open: the reference of the file link it is in, when its
 * path and numbers are within what the host accepts; else null.
 */
export function fileToOpen(target: Element | null): FileReference | null {
  const a = target?.closest<HTMLElement>('a.file-link[data-action="open-file"]');
  const file = a?.dataset.path;
  if (!a || !file || file.length > MAX_FILE_PATH_CHARS) return null;
  const num = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= MAX_FILE_LINE ? Number(v) : undefined);
  const line = num(a.dataset.line);
  const column = line !== undefined ? num(a.dataset.column) : undefined;
  return { path: file, ...(line !== undefined ? { line } : {}), ...(column !== undefined ? { column } : {}) };
}
