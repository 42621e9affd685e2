/**
 * The redo log's files: where each generation lives (`<snapshot>.log.<g>`), and `LogFile`, one open
 * generation — created atomically with its header and preallocated room, read frame by frame
 * through a growing buffer, appended to durably (write + fdatasync), and checked for being still
 * the generation's file; one this process may not write (a read-only folder) is opened for reading
 * only (`readOnlyBecause`). The byte format of headers and frames is logFormat.ts's.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FaultSeams } from './faults';
import { FRAME_BYTES, LOG_FORMAT_VERSION, LOG_HEADER_BYTES, MAX_RECORD_BYTES, decodeFrame, decodeHeader, encodeHeader, type ReadOutcome } from './logFormat';
import { isUnwritable } from './plainErrors';

/** Path of log generation `g` of the snapshot `file`. */
export function logPath(file: string, generation: number): string {
  return `${file}.log.${generation}`;
}

/** Log generations present beside `file`, ascending. */
export function listGenerations(file: string): number[] {
  const dir = path.dirname(file);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return generationsAmong(file, names);
}

/** The log generations of `file` named in `names` (a listing of its folder), ascending. */
export function generationsAmong(file: string, names: readonly string[]): number[] {
  const prefix = `${path.basename(file)}.log.`;
  return names
    .filter((n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length)))
    .map((n) => Number(n.slice(prefix.length)))
    .sort((a, b) => a - b);
}

/** An open log generation file. */
export class LogFile {
  private constructor(
    /** The snapshot's path (this generation's file is `logPath(file, generation)`). */
    readonly file: string,
    readonly generation: number,
    readonly fd: number,
    public allocated: number,
    /** The header block as read when opened: this file's identity (see `isDetached`). */
    private readonly header: Buffer,
    /**
     * Null when opened for reading and writing; otherwise why it could only be opened for reading
     * (the error of the attempt to write it: `isUnwritable`), and every write to it fails.
     */
    readonly readOnlyBecause: NodeJS.ErrnoException | null = null,
  ) {}

  /**
   * Opens an existing generation for reading and writing: the file, `missing` (it does not exist,
   * e.g. a compaction removed it), or `bad` (its header is damaged or names another generation).
   * A file the system will not let this process write (a read-only mount, no permission: EROFS,
   * EACCES, EPERM) is opened for reading only, with `readOnlyBecause` set, so history stays readable.
   */
  static tryOpen(file: string, generation: number): LogFile | 'missing' | { readonly bad: string } {
    const name = logPath(file, generation);
    let readOnlyBecause: NodeJS.ErrnoException | null = null;
    let fd: number | undefined;
    try {
      fd = openIfExists(name, 'r+');
    } catch (error) {
      if (!isUnwritable(error)) throw error;
      readOnlyBecause = error as NodeJS.ErrnoException;
      fd = openIfExists(name, 'r');
    }
    if (fd === undefined) return 'missing';
    const header = Buffer.alloc(LOG_HEADER_BYTES);
    const decoded = readHeaderBlock(fd, header) ? decodeHeader(header) : undefined;
    if (!decoded || decoded.generation !== generation) {
      fs.closeSync(fd);
      return { bad: decoded ? `its header names generation ${decoded.generation}` : 'its header is damaged' };
    }
    return new LogFile(file, generation, fd, fs.fstatSync(fd).size, header, readOnlyBecause);
  }

  /** Opens an existing generation with a valid header, or undefined. */
  static open(file: string, generation: number): LogFile | undefined {
    const opened = LogFile.tryOpen(file, generation);
    return opened instanceof LogFile ? opened : undefined;
  }

  /**
   * Creates generation `g` atomically: header + a preallocated zero chunk written to a temporary file,
   * fsynced, renamed into place, folder fsynced. Returns undefined if another process created it first.
   * A failed write (full disk) removes the temporary file. `faults` (tests) may fail it as a full disk
   * does, after the header (the `rotate` seam).
   */
  static create(file: string, generation: number, preallocBytes: number, now: number, sqljs: string, faults: FaultSeams = FaultSeams.none): LogFile | undefined {
    const final = logPath(file, generation);
    const tmp = `${final}.tmp-${process.pid}`;
    writeTemporaryFile(tmp, (fd) => {
      const header = encodeHeader({ format: LOG_FORMAT_VERSION, generation, createdAt: now, sqljs, id: randomUUID() });
      writeFully(fd, header, 0);
      faults.check('rotate');
      writeFully(fd, Buffer.alloc(preallocBytes), LOG_HEADER_BYTES);
    });
    try {
      fs.linkSync(tmp, final); // fails with EEXIST instead of replacing another process's generation
    } catch (error) {
      fs.rmSync(tmp, { force: true });
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
      throw error;
    }
    fs.rmSync(tmp, { force: true });
    fsyncDirSync(path.dirname(final));
    return LogFile.open(file, generation);
  }

  private readonly frameScratch = Buffer.alloc(FRAME_BYTES);

  /**
   * True when no frame starts at `offset`: the file ends there or its frame header is all zero
   * (preallocated room, or a cut torn tail). One 8-byte read, for the writer lease's fence.
   */
  endsAt(offset: number): boolean {
    const n = fs.readSync(this.fd, this.frameScratch, 0, FRAME_BYTES, offset);
    return n < FRAME_BYTES || (this.frameScratch.readUInt32LE(0) === 0 && this.frameScratch.readUInt32LE(4) === 0);
  }

  /** Reads the frame at `offset`. */
  readAt(offset: number): ReadOutcome {
    return this.reader()(offset);
  }

  /**
   * A reader of consecutive frames: the outcome at each offset asked (`end`, `bad` — including a
   * record that runs past the end of the file — or the record), read through a buffer that starts
   * at 4 KiB and doubles up to 1 MiB, so replaying thousands of records costs a few system calls
   * instead of four per record, while a catch-up that finds nothing reads one page.
   */
  reader(): (offset: number) => ReadOutcome {
    let buf = Buffer.alloc(0);
    let start = 0;
    let chunk = 4096;
    // No fstat here: a short read is the end of the file. On Linux 6.13+ (multigrain timestamps),
    // asking for a file's times makes its next write stamp a fine-grained mtime, which cost every
    // following fdatasync ~0.04 ms here (0.09 → 0.13 ms); the fence reads through this per write.
    const fill = (offset: number, need: number): boolean => {
      if (offset >= start && offset + need <= start + buf.length) return true;
      const want = Math.max(chunk, need);
      chunk = Math.min(chunk * 2, 1024 * 1024);
      buf = Buffer.allocUnsafe(want);
      const n = fs.readSync(this.fd, buf, 0, want, offset);
      buf = buf.subarray(0, n);
      start = offset;
      return n >= need;
    };
    return (offset) => {
      if (!fill(offset, FRAME_BYTES)) return { type: 'end' };
      const frame = buf.subarray(offset - start, offset - start + FRAME_BYTES);
      const length = frame.readUInt32LE(0);
      if (length === 0 || length > MAX_RECORD_BYTES) return decodeFrame(frame, undefined, offset);
      if (!fill(offset, FRAME_BYTES + length)) return { type: 'bad', length, why: 'record runs past the end of the file' };
      const at = offset - start;
      return decodeFrame(buf.subarray(at, at + FRAME_BYTES), buf.subarray(at + FRAME_BYTES, at + FRAME_BYTES + length), offset);
    };
  }

  /**
   * Writes `bytes` at `offset` (growing the preallocation if needed) and makes them durable.
   * Before growing, the file's size is read again (another process may have grown it: never
   * zero-fill over its records), and a short write (file-size limit, quota) throws instead of being
   * acknowledged.
   */
  writeDurably(bytes: Buffer, offset: number, preallocBytes: number): void {
    if (offset + bytes.length > this.allocated) this.allocated = Math.max(this.allocated, fs.fstatSync(this.fd).size);
    if (offset + bytes.length > this.allocated) {
      const grow = Math.max(preallocBytes, offset + bytes.length - this.allocated);
      writeFully(this.fd, Buffer.alloc(grow), this.allocated);
      fs.fsyncSync(this.fd); // the size changes: a full fsync, once per chunk
      this.allocated += grow;
    }
    writeFully(this.fd, bytes, offset);
    fs.fdatasyncSync(this.fd);
  }

  private readonly headerScratch = Buffer.alloc(LOG_HEADER_BYTES);

  /**
   * True when this file is no longer the generation's file: deleted (a compaction removed it), or
   * another file now has its name (the folder was emptied and a fresh journal started, or a
   * quarantine moved the files aside and a fresh journal reached this generation). Opens the name
   * and compares its header block, which holds a random id, with this file's; it never asks the
   * open file for its attributes (fstat), which would stamp a fine-grained mtime on the next write
   * and slow its fdatasync (see `reader`).
   */
  isDetached(): boolean {
    const fd = openIfExists(logPath(this.file, this.generation), 'r');
    if (fd === undefined) return true;
    try {
      return !readHeaderBlock(fd, this.headerScratch) || !this.headerScratch.equals(this.header);
    } finally {
      fs.closeSync(fd);
    }
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

/** Opens `file` with `flags`, or undefined when it does not exist. @throws any other error. */
function openIfExists(file: string, flags: string): number | undefined {
  try {
    return fs.openSync(file, flags);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Reads a log file's header block into `into` (LOG_HEADER_BYTES); false when the file is shorter. */
function readHeaderBlock(fd: number, into: Buffer): boolean {
  return fs.readSync(fd, into, 0, LOG_HEADER_BYTES, 0) === LOG_HEADER_BYTES;
}

/**
 * Creates `tmp`, lets `write` fill it, and fsyncs it. When anything fails, the file is removed and
 * the error rethrown: a half-written temporary file never stays behind this process.
 */
export function writeTemporaryFile(tmp: string, write: (fd: number) => void): void {
  const fd = fs.openSync(tmp, 'w');
  try {
    write(fd);
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw error;
  }
  fs.closeSync(fd);
}

/** Writes all of `bytes` at `position`, or throws (EFBIG/EIO) if the system takes fewer. */
export function writeFully(fd: number, bytes: Buffer, position: number): void {
  let done = 0;
  while (done < bytes.length) {
    const n = fs.writeSync(fd, bytes, done, bytes.length - done, position + done);
    if (n <= 0) throw Object.assign(new Error(`short write: ${done} of ${bytes.length} bytes (file-size limit or quota?)`), { code: 'EFBIG' });
    done += n;
  }
}

/** fsyncs folder `dir` (a rename or link in it is durable after); a no-op where folders cannot be synced. */
export function fsyncDirSync(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL') throw error;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
