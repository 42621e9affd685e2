/**
 * Reading the snapshot file (`journal.sqlite`) for sql.js, with spare zeroed room after it.
 *
 * sql.js keeps the database file in a JS array sized exactly to what it was given and grows it by
 * copying the whole file: at 200 MB, the first write after opening (or a replay) paid ~85 ms for
 * that copy (profiled). SQLite reads the database size from the header, so spare zero bytes past it
 * are free room; the live database is never exported (compaction reads the snapshot file itself),
 * so they never reach a snapshot.
 *
 * Two readers share the sizing (`slackFor`) and the completeness check (`withSlackIfComplete`):
 * `readWithSlack` (synchronous, the worker's re-reads) and `readSnapshotWithSlack` (on libuv's
 * thread pool: the opener reads while the worker thread starts, then hands the bytes over).
 */
import * as fs from 'node:fs';

/**
 * Reads the snapshot into a buffer with spare zeroed room after it (`slackFor`), given only when
 * its header proves it complete (`withSlackIfComplete`). Undefined when there is no file.
 * @throws the file system's error for anything but a missing file.
 */
export function readWithSlack(file: string): Uint8Array | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size === 0) return new Uint8Array(0);
    const buffer = Buffer.allocUnsafeSlow(size + slackFor(size));
    let done = 0;
    while (done < size) {
      const n = fs.readSync(fd, buffer, done, size - done, done);
      if (n === 0) break;
      done += n;
    }
    return withSlackIfComplete(buffer, done);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Spare bytes given to a snapshot of `size` bytes: an eighth, at least 1 MiB and at most 8 MiB
 * (zeroing 25 MB of room for a 200 MB snapshot took ~11 ms of its open; a session rarely grows the
 * database by more than a few MB between compactions, and past the room sql.js grows by 1/8).
 */
function slackFor(size: number): number {
  return Math.min(8 * 1024 * 1024, Math.max(1024 * 1024, Math.ceil(size / 8)));
}

/**
 * `buffer` holds `length` bytes of a snapshot (and room after them). Returns it with the room
 * zeroed only when the SQLite header proves the file complete: a valid in-header database size
 * (its change counter equals "version valid for") no larger than the bytes read. Otherwise returns
 * exactly the bytes read, so a truncated or unusual file meets SQLite as it is (a truncated one is
 * reported malformed and quarantined, as without the spare room).
 */
function withSlackIfComplete(buffer: Buffer, length: number): Uint8Array {
  const exact = buffer.subarray(0, length);
  if (length < 100 || buffer.toString('latin1', 0, 16) !== 'SQLite format 3\u0000') return exact;
  const rawPageSize = buffer.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  const pages = buffer.readUInt32BE(28);
  const valid = pages > 0 && buffer.readUInt32BE(24) === buffer.readUInt32BE(92);
  if (!valid || pageSize < 512 || pages * pageSize > length) return exact;
  buffer.fill(0, length);
  return buffer;
}

/**
 * `readWithSlack` without blocking the calling thread (libuv's pool reads); null when there is no
 * file. The result owns its ArrayBuffer (never a pooled slice), so it can be transferred to the
 * worker thread without a copy.
 */
export async function readSnapshotWithSlack(file: string): Promise<Uint8Array | null> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const size = (await handle.stat()).size;
    if (size === 0) return new Uint8Array(0);
    const buffer = Buffer.allocUnsafeSlow(size + slackFor(size));
    let done = 0;
    while (done < size) {
      const { bytesRead } = await handle.read(buffer, done, size - done, done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return withSlackIfComplete(buffer, done);
  } finally {
    await handle.close();
  }
}
