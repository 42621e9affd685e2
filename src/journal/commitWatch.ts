/**
 * Wakes the journal worker when another process may have committed: a file-system watch (inotify,
 * FSEvents, ReadDirectoryChangesW through `fs.watch`) on the journal's folder, filtered to the
 * snapshot and its log generations. It runs on the thread that opened the journal (journal.ts), which
 * posts the worker a `changed` message. The worker's poll stays as the floor: where watching is not
 * supported or fails (some network file systems, a folder removed), changes still arrive within one
 * poll interval, only later. An event is a hint, never a fact: the catch-up it triggers reads the log
 * and finds what is there, or nothing (the event of this process's own append).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** A started watch; `close` is idempotent. */
export interface CommitWatch {
  close(): void;
}

/**
 * Watches the folder of `file` (the journal's snapshot) and calls `changed` at most once per turn of
 * the event loop after the snapshot or one of its logs (`<file>.log.<n>`) changed. `onError` hears a
 * watch that failed to start or broke (the caller logs it; the poll carries on). Returns the watch,
 * or undefined when none could be started.
 */
export function watchCommits(file: string, changed: () => void, onError: (error: Error) => void): CommitWatch | undefined {
  const base = path.basename(file);
  const logPrefix = `${base}.log`;
  let pending = false;
  let watcher: fs.FSWatcher | undefined;
  const close = () => {
    watcher?.close();
    watcher = undefined;
  };
  try {
    watcher = fs.watch(path.dirname(file), { persistent: false }, (_event, name) => {
      // No name (some platforms): any change in the folder may be a commit.
      const about = typeof name === 'string' ? name : name === null ? null : String(name);
      if (about !== null && about !== base && !about.startsWith(logPrefix)) return;
      if (pending) return;
      pending = true;
      setImmediate(() => {
        pending = false;
        if (watcher) changed();
      });
    });
    watcher.on('error', (error: Error) => {
      close();
      onError(error);
    });
  } catch (error) {
    onError(error as Error);
    return undefined;
  }
  return { close };
}
