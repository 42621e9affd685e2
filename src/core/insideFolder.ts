/**
 * The one rule of "inside a folder", which the sandbox policy (`sandboxPolicy.ts`), file links
 * (`workspacePaths.ts`), the host's real-path check (`src/host/realPaths.ts`) and the paths shown
 * and journaled for files (checkpoints, Codex's file changes) all ask.
 *
 * Inside means the folder itself or anything under it, by path arithmetic: `..` and `../x` are
 * above it, but a name that merely starts with two dots (`..cache/x`) is inside; a path on another
 * drive is outside (`path.relative` then answers an absolute path). Pure: `node:path` only, no file
 * system, so symlinks are not followed here; a caller that must judge where a path really leads
 * passes real paths (`src/runtime/whereItLeads.ts`, `src/host/realPaths.ts`).
 */
import * as path from 'node:path';

/**
 * `target` (absolute, or relative to `root`) relative to `root` when it is inside it (`''` for
 * `root` itself, in `p`'s separators), else undefined. `p`: the path rules to use (this platform's
 * by default; `path.posix` or `path.win32` to judge paths of another shape). Never throws.
 */
export function relativeInside(root: string, target: string, p: path.PlatformPath = path): string | undefined {
  const rel = p.relative(p.resolve(root), p.resolve(root, target));
  const above = rel === '..' || rel.startsWith(`..${p.sep}`);
  return above || p.isAbsolute(rel) ? undefined : rel;
}

/** True when `target` (absolute, or relative to `root`) is `root` or lies under it (see `relativeInside`). */
export function isInsideFolder(root: string, target: string, p: path.PlatformPath = path): boolean {
  return relativeInside(root, target, p) !== undefined;
}
