/**
 * Where a path inside the workspace really leads (symlinks followed), for opening a linked file:
 * `resolveInWorkspace` judges the path as written, this the file it names. No `vscode` here, so the
 * rule is tested in plain Node against real symlinks.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { isInsideFolder } from '../core/insideFolder';

/** Why a resolved path may not be opened (`outside_workspace`, `not_found`), with a sentence; or where it really is. */
export type RealPathCheck =
  | { readonly ok: true; readonly real: string; readonly directory: boolean }
  | { readonly ok: false; readonly reason: 'outside_workspace' | 'not_found'; readonly message: string };

/**
 * Follows the symlinks of `absolute` (shown to people as `shown`) and answers whether what it names
 * exists and lies inside one of `roots` (themselves followed), by the one rule of
 * `src/core/insideFolder.ts`. Never throws.
 */
export async function realPathInside(roots: readonly string[], absolute: string, shown: string): Promise<RealPathCheck> {
  let real: string;
  try {
    real = await fs.realpath(absolute);
  } catch {
    return { ok: false, reason: 'not_found', message: `${shown} does not exist in the workspace.` };
  }
  const realRoots = await Promise.all(roots.map((r) => fs.realpath(r).catch(() => path.resolve(r))));
  const inside = realRoots.some((r) => isInsideFolder(r, real));
  if (!inside) return { ok: false, reason: 'outside_workspace', message: `${shown} leads outside the workspace (a symbolic link), so it was not opened.` };
  try {
    return { ok: true, real, directory: (await fs.stat(real)).isDirectory() };
  } catch {
    return { ok: false, reason: 'not_found', message: `${shown} does not exist in the workspace.` };
  }
}
