/**
 * The redo log's on-disk format.
 *
 * A log file is preallocated in zero-filled chunks (so an fdatasync after a record flushes data
 * blocks only, not the file size: the trick SQLite's reused WAL relies on) and starts with a
 * 4096-byte header block:
 *
 *   bytes 0-7    magic "NACLOG01"
 *   bytes 8-11   header JSON length (u32 LE)
 *   bytes 12-    header JSON {format, generation, createdAt, sqljs}
 *
 * Records follow at offset 4096, each framed as
 *
 *   u32 LE payload length | u32 LE CRC-32 of the payload | payload (UTF-8 JSON)
 *
 * and every record is written together with 8 zero bytes after it, so the end of the log is always
 * an explicit zero length. Payload: `{ s: seq, t: [[sql, params], …], x: [sessionIds] }` — the
 * statements of one committed transaction, replayable as they are (they are deterministic: ids and
 * times are parameters), and the sessions it touched (for other windows' views).
 */
import * as zlib from 'node:zlib';

/** Bytes of the header block; the first record starts here. */
export const LOG_HEADER_BYTES = 4096;
/** Bytes of a record's frame before its payload. */
export const FRAME_BYTES = 8;
/** Magic at the start of every log file. */
export const LOG_MAGIC = 'NACLOG01';
/** Format version written in the header. */
export const LOG_FORMAT_VERSION = 1;
/** Largest payload accepted when reading (guards against a corrupt length), bytes. */
export const MAX_RECORD_BYTES = 64 * 1024 * 1024;

/** One statement: SQL text and positional parameters (numbers, strings, null). */
export type LoggedStatement = readonly [sql: string, params: readonly (string | number | null)[]];

/** One committed transaction as logged. */
export interface LogRecord {
  /** Global sequence number (strictly increasing across generations). */
  readonly s: number;
  /** Statements in execution order. */
  readonly t: readonly LoggedStatement[];
  /** Session ids the transaction touched. */
  readonly x: readonly string[];
}

/** Header of a log file. */
export interface LogHeader {
  readonly format: number;
  readonly generation: number;
  readonly createdAt: number;
  readonly sqljs: string;
  /**
   * A random identity of this file (absent in logs written before it existed). A writer tells its
   * own generation file from one re-created under the same name — a fresh journal in an emptied
   * folder, or after a quarantine moved the files aside — by comparing the whole header block.
   */
  readonly id?: string;
}

const crcTable = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE) of `bytes`: `zlib.crc32` where Node has it (>= 20.15 / 22.2), a table otherwise. */
export function crc32(bytes: Uint8Array): number {
  const native = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;
  if (native) return native(bytes) >>> 0;
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = crcTable[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Encodes a header block (exactly LOG_HEADER_BYTES). Throws if the JSON does not fit. */
export function encodeHeader(header: LogHeader): Buffer {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  if (12 + json.length > LOG_HEADER_BYTES) throw new Error('log header too large');
  const block = Buffer.alloc(LOG_HEADER_BYTES);
  block.write(LOG_MAGIC, 0, 'latin1');
  block.writeUInt32LE(json.length, 8);
  json.copy(block, 12);
  return block;
}

/** Decodes a header block, or undefined when it is not one (wrong magic, bad JSON). */
export function decodeHeader(block: Buffer): LogHeader | undefined {
  if (block.length < 12 || block.toString('latin1', 0, 8) !== LOG_MAGIC) return undefined;
  const len = block.readUInt32LE(8);
  if (12 + len > block.length) return undefined;
  try {
    const h = JSON.parse(block.toString('utf8', 12, 12 + len)) as LogHeader;
    return typeof h.generation === 'number' && typeof h.format === 'number' ? h : undefined;
  } catch {
    return undefined;
  }
}

/** Frames a record and appends the 8-byte zero terminator: bytes to write at the log's end. */
export function encodeRecord(record: LogRecord): Buffer {
  return encodePayload(Buffer.from(JSON.stringify(record), 'utf8'));
}

/** Frames an already serialized record (UTF-8 JSON) with its terminator. */
export function encodePayload(payload: Buffer): Buffer {
  const out = Buffer.alloc(FRAME_BYTES + payload.length + FRAME_BYTES);
  out.writeUInt32LE(payload.length, 0);
  out.writeUInt32LE(crc32(payload), 4);
  payload.copy(out, FRAME_BYTES);
  return out; // trailing 8 bytes stay zero: the terminator
}

/** What reading at an offset found. */
export type ReadOutcome =
  | { readonly type: 'record'; readonly record: LogRecord; readonly next: number }
  | { readonly type: 'end' }
  /** A frame that is not a valid record (torn write or corruption); `length` as read. */
  | { readonly type: 'bad'; readonly length: number; readonly why: string };

/** Decodes the frame at the start of `frame` + its payload bytes (pure; see `readRecordAt` in logFile). */
export function decodeFrame(frameHeader: Buffer, payload: Buffer | undefined, offset: number): ReadOutcome {
  const length = frameHeader.readUInt32LE(0);
  const crc = frameHeader.readUInt32LE(4);
  if (length === 0 && crc === 0) return { type: 'end' };
  if (length === 0 || length > MAX_RECORD_BYTES) return { type: 'bad', length, why: `implausible length ${length}` };
  if (!payload || payload.length < length) return { type: 'bad', length, why: 'record runs past the end of the file' };
  if (crc32(payload.subarray(0, length)) !== crc) return { type: 'bad', length, why: 'checksum mismatch' };
  try {
    const record = JSON.parse(payload.toString('utf8', 0, length)) as LogRecord;
    if (typeof record.s !== 'number' || !Array.isArray(record.t)) return { type: 'bad', length, why: 'malformed record' };
    return { type: 'record', record, next: offset + FRAME_BYTES + length };
  } catch {
    return { type: 'bad', length, why: 'unparsable record' };
  }
}

/** How every record's payload starts (`{"s":` then its sequence number): the scan's cheap sign. */
const RECORD_SIGN = Buffer.from('{"s":');

/**
 * The valid records that start after byte `badAt` of `bytes` (a bad frame: its own length may be
 * what is damaged, so every byte after it is tried), in file order, each with where it starts in
 * `bytes` (`at`). Cheap signs first (a payload starts with `{"s":`), then the length and CRC. A
 * record found is stepped over whole: a payload is JSON text, whose bytes are never the control
 * bytes a frame header starts with, so no valid record starts inside another. Pure; the one scan
 * of replay at open (replay.ts), Check Journal (fileCheck.ts) and a salvage (salvage/replayLogs.ts).
 */
export function* recordsAfter(bytes: Buffer, badAt: number): Generator<{ readonly at: number; readonly record: LogRecord }> {
  for (let i = badAt + 1; i + FRAME_BYTES + RECORD_SIGN.length <= bytes.length; i++) {
    if (bytes[i + FRAME_BYTES] !== RECORD_SIGN[0]) continue;
    const length = bytes.readUInt32LE(i);
    if (length < RECORD_SIGN.length || i + FRAME_BYTES + length > bytes.length) continue;
    if (!bytes.subarray(i + FRAME_BYTES, i + FRAME_BYTES + RECORD_SIGN.length).equals(RECORD_SIGN)) continue;
    const outcome = decodeFrame(bytes.subarray(i, i + FRAME_BYTES), bytes.subarray(i + FRAME_BYTES, i + FRAME_BYTES + length), i);
    if (outcome.type !== 'record') continue;
    yield { at: i, record: outcome.record };
    i = outcome.next - 1;
  }
}

/**
 * True when a valid record newer than `lastSeq` starts after the bad frame at byte `badAt` of
 * `bytes` (`recordsAfter`): damage in the middle of a log, where nothing valid after it is a torn
 * tail (every record is written with its terminator, at the end).
 */
export function newerRecordAfter(bytes: Buffer, badAt: number, lastSeq: number): boolean {
  for (const found of recordsAfter(bytes, badAt)) if (found.record.s > lastSeq) return true;
  return false;
}
