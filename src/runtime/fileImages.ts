/**
 * Files on disk as checkpoints see them: a file's image now (absent, its bytes and their SHA-256,
 * or too large to keep), the path a checkpoint names it by, and putting an image back exactly
 * (bytes as stored: line ends, byte-order mark and a missing final newline included; an absent
 * image removes the file, and the empty folders made for it since a given time).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_CHECKPOINT_BYTES, type FileImage } from '../core/checkpoints';
import { relativeInside } from '../core/insideFolder';
import { isInsideWorkspace } from '../core/sandboxPolicy';
import { contentHash } from '../journal/contentHash';
import type { ImageInput } from '../journal/operations/checkpoints';

/** A file read for a checkpoint: what the journal gets (`input`), its image, and its bytes (null if absent or too large). */
export interface DiskImage {
  readonly input: ImageInput;
  readonly image: FileImage;
  readonly bytes: Uint8Array | null;
}

/** The image of an absent file. */
const ABSENT_DISK: DiskImage = { input: { exists: false }, image: { exists: false, hash: null, size: 0 }, bytes: null };

/**
 * The path a checkpoint names `file` by: relative to `root` with `/` separators when inside it
 * (`insideFolder.ts`), else absolute (a write outside the workspace the user allowed).
 */
export function checkpointPath(root: string, file: string): string {
  const relative = relativeInside(root, file);
  return relative ? relative.split(path.sep).join('/') : path.resolve(root, file);
}

/** The absolute file a checkpoint path names (see `checkpointPath`). */
export function fileOf(root: string, checkpointed: string): string {
  return path.resolve(root, checkpointed);
}

/**
 * What `file` (absolute, or relative to `root`) holds now, read once. A file over `maxBytes`
 * (default `MAX_CHECKPOINT_BYTES`) is too large: hashed as a stream, its bytes not returned. A missing file, or a path
 * through a missing folder, is absent; other errors (a folder at the path, no permission) throw.
 */
export async function readImage(root: string, file: string, maxBytes = MAX_CHECKPOINT_BYTES): Promise<DiskImage> {
  const full = path.resolve(root, file);
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(full);
  } catch (error) {
    if (isMissing(error)) return ABSENT_DISK;
    throw error;
  }
  if (!stat.isFile()) throw new Error(`${full} is not a file.`);
  if (stat.size > maxBytes) return tooLarge(await hashOfFile(full), stat.size);
  return imageOfBytes(new Uint8Array(await fs.promises.readFile(full)));
}

/** SHA-256 of a file's bytes, streamed (a file over the cap is hashed, never held whole). */
async function hashOfFile(full: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(full)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The image of a file over the cap: compared by its hash, its bytes not kept. */
function tooLarge(hash: string, size: number): DiskImage {
  return { input: { exists: true, tooLarge: true, size, hash }, image: { exists: true, hash, size }, bytes: null };
}

/** The image of bytes about to be written (`MAX_CHECKPOINT_BYTES` applies as for a read). */
export function imageOfBytes(bytes: Uint8Array): DiskImage {
  if (bytes.byteLength > MAX_CHECKPOINT_BYTES) return tooLarge(contentHash(bytes), bytes.byteLength);
  return { input: { exists: true, bytes }, image: { exists: true, hash: contentHash(bytes), size: bytes.byteLength }, bytes };
}

/**
 * Puts `bytes` at `file` exactly (creating its folders), or removes the file when `bytes` is null
 * (a file the agent created; a missing file is fine).
 */
export async function writeImage(root: string, file: string, bytes: Uint8Array | null): Promise<void> {
  const full = path.resolve(root, file);
  if (bytes === null) {
    await fs.promises.rm(full, { force: true });
    return;
  }
  await fs.promises.mkdir(path.dirname(full), { recursive: true });
  await fs.promises.writeFile(full, bytes);
}

/**
 * How far a folder's birth time may lie before `Date.now()` at the moment it was made (ms): the file
 * system stamps with the kernel's coarse clock, which ticks once a jiffy (1-10 ms) and so runs
 * behind the precise clock a turn's start is read from (here, ext4: up to 6.3 ms).
 */
export const FILE_CLOCK_LAG_MS = 15;

/**
 * Removes the folders holding `file` (a checkpoint path inside `root`) that are empty and were made
 * at or after `sinceMs` (ms since the epoch, by their birth time, allowing `FILE_CLOCK_LAG_MS`): from the innermost up, stopping at
 * the first that is not, and at `root`. A folder whose file system does not tell its birth time is
 * kept (no birth time, or one no earlier than its change time: Node's stand-in for a missing one), as is
 * a symlink, and anything outside `root` (also where a symlink inside leads out of it): an empty folder
 * the user had before the agent is never taken.
 * Resolves the removed folders' checkpoint paths, innermost first.
 */
export async function removeFoldersMadeSince(root: string, file: string, sinceMs: number): Promise<string[]> {
  const top = path.resolve(root);
  const realTop = await fs.promises.realpath(top).catch(() => top);
  const removed: string[] = [];
  for (let dir = path.dirname(path.resolve(root, file)); isStrictlyInside(top, dir); dir = path.dirname(dir)) {
    try {
      // Judged where it leads, as the sandbox judges a write: through a symlink to outside the workspace is outside.
      if (!isStrictlyInside(realTop, await fs.promises.realpath(dir))) break;
      // A link is not a folder to remove, even to an empty one (on Windows rmdir would take a junction itself).
      const stat = await fs.promises.lstat(dir);
      // A birth time not before the change time tells nothing: where the file system keeps none,
      // Node gives the change time instead, which removing the file (or folder) inside just set to now.
      if (!stat.isDirectory() || !(stat.birthtimeMs > 0) || !(stat.birthtimeMs < stat.ctimeMs) || stat.birthtimeMs < sinceMs - FILE_CLOCK_LAG_MS) break;
      if ((await fs.promises.readdir(dir)).length > 0) break;
      await fs.promises.rmdir(dir);
    } catch {
      break; // gone, filled meanwhile or not ours to remove: the files are what matter
    }
    removed.push(checkpointPath(root, dir));
  }
  return removed;
}

/** True when `dir` lies inside `top` (both absolute and resolved), not `top` itself. */
function isStrictlyInside(top: string, dir: string): boolean {
  return dir !== top && isInsideWorkspace(top, dir);
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
