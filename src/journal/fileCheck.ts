/**
 * Check Journal's look at the files on disk, read-only (every file is opened for reading only):
 * `PRAGMA integrity_check` of the snapshot as it is on disk (a separate sql.js database built from
 * the file's bytes, not the window's in-memory copy), each log generation read frame by frame to
 * its end (logFormat.ts), and the journals moved aside next to the file
 * (`journal.sqlite.unreadable-<ms>` and their `.log.<g>`; workerOpen.ts `quarantine`). Runs in the
 * journal's helper thread (helperThread.ts): a full integrity check of a large file takes seconds.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import type { FileCheck, LogGenerationFinding, MovedAsideFinding, SnapshotFinding } from '../core/journalCheck';
import { FRAME_BYTES, LOG_HEADER_BYTES, decodeFrame, decodeHeader, newerRecordAfter } from './logFormat';
import { generationsAmong, logPath } from './logFile';

/** Most lines of SQLite's integrity check kept in the report. */
const MAX_PROBLEMS = 20;

/** Everything the file check looks at, for the journal `file` (see module docstring). */
export function checkFiles(sql: SqlJsStatic, file: string): FileCheck {
  const names = readdirOrEmpty(path.dirname(file));
  return {
    snapshot: checkSnapshot(sql, file),
    logs: generationsAmong(file, names).flatMap((g) => scanUnlessGone(logPath(file, g), g)),
    movedAside: movedAsideAmong(file, names),
  };
}

/** `PRAGMA integrity_check` of the snapshot's bytes on disk (`bytes` null: no snapshot yet). */
export function checkSnapshot(sql: SqlJsStatic, file: string): SnapshotFinding {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path: file, bytes: null, problems: [] };
    return { path: file, bytes: 0, problems: [`the file could not be read: ${(error as Error).message}`] };
  }
  try {
    const db = new sql.Database(bytes);
    try {
      const lines = db.exec(`PRAGMA integrity_check(${MAX_PROBLEMS})`)[0]?.values.map((r) => String(r[0])) ?? ['no answer'];
      return { path: file, bytes: bytes.length, problems: lines.length === 1 && lines[0] === 'ok' ? [] : lines };
    } finally {
      db.close();
    }
  } catch (error) {
    return { path: file, bytes: bytes.length, problems: [`the file is not a readable SQLite database: ${(error as Error).message}`] };
  }
}

/**
 * Reads log generation `generation` at `file` frame by frame to its explicit end (a zero frame).
 * A bad frame ends the reading: `torn` when no valid newer record follows it anywhere in the file
 * (what replay cuts at open), `middle` when one does (what makes the journal read-only), as replay
 * decides (replay.ts); a sequence number that does not follow the one before is `middle` too.
 * @throws the read's error (ENOENT when the file is gone).
 */
export function scanLogGeneration(file: string, generation: number): LogGenerationFinding {
  const bytes = fs.readFileSync(file);
  const base = { generation, path: file, bytes: bytes.length };
  const header = decodeHeader(bytes.subarray(0, LOG_HEADER_BYTES));
  if (!header || header.generation !== generation) {
    const why = header ? `it names generation ${header.generation}` : 'not a log header';
    return { ...base, records: 0, firstSeq: null, lastSeq: null, damage: { offset: 0, why, kind: 'header' } };
  }
  let offset = LOG_HEADER_BYTES;
  let records = 0;
  let firstSeq: number | null = null;
  let lastSeq: number | null = null;
  for (;;) {
    if (offset + FRAME_BYTES > bytes.length) return { ...base, records, firstSeq, lastSeq, damage: null };
    const frame = bytes.subarray(offset, offset + FRAME_BYTES);
    const length = frame.readUInt32LE(0);
    const payload = bytes.subarray(offset + FRAME_BYTES, Math.min(bytes.length, offset + FRAME_BYTES + length));
    const outcome = decodeFrame(frame, payload, offset);
    if (outcome.type === 'end') return { ...base, records, firstSeq, lastSeq, damage: null };
    if (outcome.type === 'bad') {
      const kind = newerRecordAfter(bytes, offset, lastSeq ?? -1) ? 'middle' : 'torn';
      return { ...base, records, firstSeq, lastSeq, damage: { offset, why: outcome.why, kind } };
    }
    if (lastSeq !== null && outcome.record.s !== lastSeq + 1) {
      return { ...base, records, firstSeq, lastSeq, damage: { offset, why: `sequence gap: ${lastSeq} then ${outcome.record.s}`, kind: 'middle' } };
    }
    firstSeq ??= outcome.record.s;
    lastSeq = outcome.record.s;
    records++;
    offset = outcome.next;
  }
}

/** The generation's scan, or none when it is gone since the folder was listed (a compaction folded it into the snapshot). */
function scanUnlessGone(file: string, generation: number): LogGenerationFinding[] {
  try {
    return [scanLogGeneration(file, generation)];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** The journals moved aside next to `file` among `names` (its folder's listing), oldest first. */
export function movedAsideAmong(file: string, names: readonly string[]): MovedAsideFinding[] {
  const dir = path.dirname(file);
  const pattern = new RegExp(`^${escapeRegExp(path.basename(file))}\\.unreadable-(\\d+)$`);
  const found: MovedAsideFinding[] = [];
  for (const name of names) {
    const match = pattern.exec(name);
    if (!match) continue;
    const logs = names
      .filter((n) => n.startsWith(`${name}.log.`) && /^\d+$/.test(n.slice(name.length + 5)))
      .sort((a, b) => Number(a.slice(name.length + 5)) - Number(b.slice(name.length + 5)))
      .map((n) => ({ name: n, bytes: sizeOf(path.join(dir, n)) }));
    const where = path.join(dir, name);
    found.push({ name, path: where, bytes: sizeOf(where), movedAt: Number(match[1]), logs, reason: recordedReason(where) });
  }
  return found.sort((a, b) => a.movedAt - b.movedAt);
}

/** The file beside a moved-aside journal `aside` that says why it was moved (JSON `{reason, movedAt, schemaVersion}`). */
export function movedAsideReasonFile(aside: string): string {
  return `${aside}.reason.json`;
}

/** The reason written beside the moved-aside journal `aside`, or null (none written, or unreadable). */
function recordedReason(aside: string): string | null {
  try {
    const recorded = JSON.parse(fs.readFileSync(movedAsideReasonFile(aside), 'utf8')) as { reason?: unknown };
    return typeof recorded.reason === 'string' ? recorded.reason : null;
  } catch {
    return null;
  }
}

function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function readdirOrEmpty(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
