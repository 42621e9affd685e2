/**
 * Where a file link may lead: inside the workspace folders only (the host asks before it opens a
 * file a chat links to). Pure: path arithmetic only (`node:path`'s POSIX or Windows rules, by the
 * first folder's shape; "inside" is `insideFolder.ts`'s rule), no file system; the host also checks
 * where symlinks lead (`realPaths.ts`).
 */
import * as path from 'node:path';
import { isInsideFolder } from './insideFolder';

/** Where a reference leads: an absolute path inside a workspace folder, or why it may not be opened. */
export type ResolvedPath = { readonly ok: true; readonly absolute: string; readonly root: string } | { readonly ok: false; readonly message: string };

/**
 * Resolves `file` (as a link carries it) inside the workspace folders `roots` (absolute; a relative
 * path is taken from the first, the folder agents work in). Refused, with a sentence: no folder
 * open, an empty path or one holding NUL, a `~` path, a URI, and any path that leads outside every
 * folder (`../../etc/passwd`, `/etc/passwd`). Lexical only: the caller checks symlinks.
 */
export function resolveInWorkspace(roots: readonly string[], file: string): ResolvedPath {
  if (roots.length === 0) return { ok: false, message: `${file} cannot be opened: no workspace folder is open.` };
  if (file.length === 0 || file.includes('\0')) return { ok: false, message: 'That is not a file path.' };
  if (file.startsWith('~') || /^[A-Za-z][A-Za-z0-9+.-]+:\/\//.test(file)) return { ok: false, message: `${file} is not a path in the workspace, so it was not opened.` };
  const p = /^[A-Za-z]:[\\/]/.test(roots[0]!) ? path.win32 : path.posix;
  const absolute = p.resolve(roots[0]!, file);
  for (const root of roots) {
    if (isInsideFolder(root, absolute, p)) return { ok: true, absolute, root: p.resolve(root) };
  }
  return { ok: false, message: `${file} is outside the workspace folder${roots.length > 1 ? 's' : ''}, so it was not opened.` };
}
