/**
 * Whole-file persistence of the journal database: each acknowledged transaction is written as a
 * complete snapshot to a temporary file, flushed (fsync), renamed over the journal, and the folder
 * flushed, so the journal on disk is always one complete database — the old one or the new one.
 *
 * Cost grows with the database (≈5 ms at 1 MB, ≈150 ms at 50 MB on these machines; see
 * ../shared/notes/journal-durability.md); issue #3 replaces it with a snapshot plus redo log
 * behind the same `Journal` interface.
 *
 * `changedOnDisk()` tells when another process (a second VS Code window) replaced the file since
 * this process last read or wrote it, so the journal re-reads before acting on stale state.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Identity of the file as last seen: inode, size (bytes), mtime (ms). */
interface FileStamp {
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
}

/** The on-disk side of one journal file. */
export class FileStore {
  private stamp: FileStamp | undefined;

  /** @param file absolute path of the journal database file. */
  constructor(readonly file: string) {}

  /** Reads the whole file, or undefined when it does not exist. Throws on other I/O errors. */
  read(): Uint8Array | undefined {
    try {
      const bytes = fs.readFileSync(this.file);
      this.stamp = stampOf(fs.statSync(this.file));
      return bytes;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        this.stamp = undefined;
        return undefined;
      }
      throw error;
    }
  }

  /**
   * Durably replaces the file with `bytes`: write a temp file, fsync it, rename over the journal,
   * fsync the folder. Throws the underlying error (e.g. ENOSPC) with the old file intact.
   */
  async write(bytes: Uint8Array): Promise<void> {
    const dir = path.dirname(this.file);
    await fs.promises.mkdir(dir, { recursive: true });
    const tmp = `${this.file}.tmp-${process.pid}`;
    const handle = await fs.promises.open(tmp, 'w');
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } catch (error) {
      await handle.close().catch(() => undefined);
      await fs.promises.rm(tmp, { force: true }).catch(() => undefined);
      throw error;
    }
    await handle.close();
    await fs.promises.rename(tmp, this.file);
    await syncDirectory(dir);
    this.stamp = stampOf(await fs.promises.stat(this.file));
  }

  /** True when the file on disk is not the one this process last read or wrote. */
  changedOnDisk(): boolean {
    let now: FileStamp | undefined;
    try {
      now = stampOf(fs.statSync(this.file));
    } catch {
      now = undefined;
    }
    if (!now || !this.stamp) return now !== this.stamp;
    return now.ino !== this.stamp.ino || now.size !== this.stamp.size || now.mtimeMs !== this.stamp.mtimeMs;
  }
}

function stampOf(stat: fs.Stats): FileStamp {
  return { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
}

/** fsyncs a folder so a rename in it is durable (no-op where folders cannot be opened, e.g. Windows). */
export async function syncDirectory(dir: string): Promise<void> {
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(dir, 'r');
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL') throw error;
  } finally {
    await handle?.close();
  }
}

/**
 * Reads a SQLite file's `user_version` from its header (bytes 60-63, big-endian) without opening it
 * and without creating it. Returns undefined when the file does not exist or is too short.
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
