/**
 * Reading a journal's schema version without opening it.
 */
import * as fs from 'node:fs';

/**
 * Reads a SQLite file's `user_version` from its header (bytes 60-63, big-endian) without opening it
 * and without creating it. Returns undefined when the file does not exist or is not SQLite.
 * For a journal this is the snapshot's version (a migration is followed by a compaction).
 */
export function probeUserVersion(file: string): number | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const header = Buffer.alloc(100);
    if (fs.readSync(fd, header, 0, 100, 0) < 100) return undefined;
    if (header.toString('latin1', 0, 16) !== 'SQLite format 3\u0000') return undefined;
    return header.readUInt32BE(60);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
