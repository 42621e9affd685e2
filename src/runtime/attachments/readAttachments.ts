/**
 * What the user attached, read for the journal when the message is sent (docs/ARCHITECTURE.md,
 * "Attachments"): a file (or lines of it) and a folder's listing are read here from the disk, a
 * selection's and the problems' text comes from the host (it knows unsaved editors and
 * diagnostics). Every text is cut to `MAX_ATTACHMENT_BYTES` with a note.
 *
 * Paths are judged where they really lead, as the product's reads are (`whereItLeads.ts`, the
 * sandbox policy): a file outside the workspace folder is not read here but journaled `pending`,
 * and read only once the user allows it through a boundary request when its turn runs
 * (pendingAttachments.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  cutNoteOf, MAX_ATTACHMENT_BYTES, MAX_ATTACHMENT_PATH_CHARS, MAX_ATTACHMENTS, type AttachmentRef, type LineRange,
} from '../../core/attachments';
import { fail, ok, type Result } from '../../core/result';
import type { AttachmentInput } from '../../journal/core';
import { classifyWhereItLeads, realTarget } from '../whereItLeads';

/** An attachment as the runtime is asked for it: a reference, with the text the host read for a selection or the problems. */
export interface AttachmentRequest extends AttachmentRef {
  /** The content for `selection` and `problems` (the host reads editors and diagnostics); unused for files and folders. */
  readonly text?: string;
}

/** Most entries a folder's listing names before it says how many more there are. */
export const MAX_FOLDER_ENTRIES = 2000;

/** Folders a listing does not enter (their content is rarely what the user means, and can be huge). */
const SKIPPED_FOLDERS = new Set(['.git', 'node_modules']);

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * `text` cut to at most `max` bytes of UTF-8 (at the last line end within the limit when there is
 * one, else at a character boundary), with its original size and the cut note; as it is when it fits.
 */
export function capText(text: string, max = MAX_ATTACHMENT_BYTES): { text: string; originalSize: number; cutNote: string | null } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.byteLength <= max) return { text, originalSize: bytes.byteLength, cutNote: null };
  let end = max;
  // Back to the start of a character: continuation bytes are 10xxxxxx.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  const lineEnd = bytes.lastIndexOf(0x0a, end - 1);
  if (lineEnd > max / 2) end = lineEnd + 1;
  const sent = bytes.subarray(0, end).toString('utf8');
  return { text: sent, originalSize: bytes.byteLength, cutNote: cutNoteOf(end, bytes.byteLength) };
}

/** Whether reading `target` (absolute, or relative to `root`) crosses the workspace's boundary, judged where it really leads (whereItLeads.ts). */
export function isOutsideWorkspace(root: string, target: string): boolean {
  return classifyWhereItLeads({ type: 'read', path: target }, root).type === 'boundary';
}

/** Lines `range` of `text` (1-based, inclusive; clamped to the text), or a problem. */
function linesOf(text: string, range: LineRange, label: string): Result<string> {
  const lines = text.split('\n');
  if (range.startLine < 1 || range.endLine < range.startLine) return fail('invalid', `Lines ${range.startLine}-${range.endLine} of ${label} are not a range.`);
  if (range.startLine > lines.length) return fail('invalid', `${label} has ${lines.length} lines; line ${range.startLine} is past its end.`);
  return ok(lines.slice(range.startLine - 1, Math.min(range.endLine, lines.length)).join('\n'));
}

/** A file's text (lines `range` if given), or why it cannot be attached (missing, a folder, not text). */
export async function readFileText(file: string, label: string, range?: LineRange): Promise<Result<{ text: string; originalSize: number; cutNote: string | null }>> {
  let bytes: Buffer;
  try {
    const stat = await fs.promises.stat(file);
    if (stat.isDirectory()) return fail('invalid', `${label} is a folder: attach it as a folder.`);
    bytes = await fs.promises.readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return fail('invalid', code === 'ENOENT' ? `${label} was not attached: there is no such file.` : `${label} could not be read: ${(error as Error).message}`);
  }
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return fail('invalid', `${label} was not attached: it is not a text file (not UTF-8).`);
  }
  if (text.includes('\0')) return fail('invalid', `${label} was not attached: it is not a text file (it holds NUL bytes).`);
  if (!range) return ok(capText(text));
  const lines = linesOf(text, range, label);
  return lines.ok ? ok(capText(lines.value)) : lines;
}

/** A folder's listing: its files and folders (folders end in `/`), relative to it, depth first, sorted; at most MAX_FOLDER_ENTRIES. */
export async function folderListing(folder: string): Promise<string> {
  const entries: string[] = [];
  let more = 0;
  async function walk(dir: string, prefix: string): Promise<void> {
    const children = (await fs.promises.readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const child of children) {
      const name = `${prefix}${child.name}${child.isDirectory() ? '/' : ''}`;
      if (entries.length >= MAX_FOLDER_ENTRIES) {
        more++;
        continue;
      }
      entries.push(name);
      if (child.isDirectory() && !SKIPPED_FOLDERS.has(child.name)) await walk(path.join(dir, child.name), name);
    }
  }
  await walk(folder, '');
  return more > 0 ? `${entries.join('\n')}\n… and ${more} more entries` : entries.join('\n');
}

/** One request read as the journal writes it, or why it cannot be attached. */
async function readOne(request: AttachmentRequest, root: string | undefined): Promise<Result<AttachmentInput>> {
  const range = request.range ?? null;
  if (request.kind === 'selection' || request.kind === 'problems') {
    const capped = capText(request.text ?? '');
    return ok({ kind: request.kind, path: request.path, range, state: 'attached', text: capped.text, originalSize: capped.originalSize, cutNote: capped.cutNote });
  }
  const label = request.path;
  if (!root && !path.isAbsolute(request.path)) return fail('invalid', `${label} was not attached: no folder is open to find it in.`);
  if (!root || isOutsideWorkspace(root, request.path)) {
    if (request.kind === 'folder') return fail('invalid', `${label} was not attached: only folders inside the workspace folder can be attached.`);
    // Read only after the user allows it, when the turn runs (pendingAttachments.ts).
    const absolute = root ? realTarget(root, request.path) : path.resolve(request.path);
    return ok({ kind: request.kind, path: absolute, range, state: 'pending', originalSize: 0, cutNote: null });
  }
  const file = path.resolve(root, request.path);
  if (request.kind === 'folder') {
    try {
      const capped = capText(await folderListing(file));
      return ok({ kind: 'folder', path: request.path, range: null, state: 'attached', text: capped.text, originalSize: capped.originalSize, cutNote: capped.cutNote });
    } catch (error) {
      return fail('invalid', `${label} was not attached: ${(error as Error).message}`);
    }
  }
  const read = await readFileText(file, label, request.range);
  if (!read.ok) return read;
  return ok({ kind: request.kind, path: request.path, range, state: 'attached', ...read.value });
}

/**
 * Reads every request (see module docstring), in order. Refused (`invalid`, naming the attachment)
 * when there are more than MAX_ATTACHMENTS, a path is too long, or one cannot be read: the message
 * is then not sent, and the user gets it back with the reason.
 */
export async function readAttachments(requests: readonly AttachmentRequest[], root: string | undefined): Promise<Result<AttachmentInput[]>> {
  if (requests.length > MAX_ATTACHMENTS) return fail('invalid', `A message holds at most ${MAX_ATTACHMENTS} attachments.`);
  const read: AttachmentInput[] = [];
  for (const request of requests) {
    if (request.path.length > MAX_ATTACHMENT_PATH_CHARS) return fail('invalid', `An attachment's path holds at most ${MAX_ATTACHMENT_PATH_CHARS} characters.`);
    const one = await readOne(request, root);
    if (!one.ok) return one;
    read.push(one.value);
  }
  return ok(read);
}
