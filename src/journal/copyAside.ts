/**
 * A copy of the journal's files made before Repair Journal changes anything: the log generations
 * (`journal.sqlite.log.<g>` → `journal.sqlite.before-repair-<ms>.log.<g>`), then the snapshot
 * (`journal.sqlite` → `journal.sqlite.before-repair-<ms>`). Nothing is moved or deleted; the copies
 * are named so that neither opening nor Check Journal takes them for the journal or its logs.
 *
 * Logs first: a compaction that runs meanwhile writes a new snapshot holding the closed logs, then
 * deletes them; copying the logs before the snapshot gets either the old snapshot with every log it
 * needs or the new snapshot that holds them, never an old snapshot without its logs.
 */
import * as fs from 'node:fs';
import { listGenerations, logPath } from './logFile';

/** The name of the copy made at `stamp` (ms since the epoch) of the journal `file`. */
export function copyAsidePath(file: string, stamp: number): string {
  return `${file}.before-repair-${stamp}`;
}

/**
 * Copies the journal at `file` aside (see module docstring); resolves the copy's snapshot path and
 * its files' names. The copy's name is claimed first (its snapshot name created exclusively, at
 * `stamp` or the next free millisecond), so two repairs never write into one copy. A log generation
 * compacted away while copying is skipped (its records are in the snapshot copied after it).
 * @throws the file system's error (no room, no permission): the caller then changes nothing.
 */
export async function copyJournalAside(file: string, stamp: number): Promise<{ readonly path: string; readonly files: readonly string[] }> {
  const aside = await claimName(file, stamp);
  const files: string[] = [];
  for (const g of listGenerations(file)) {
    const target = `${aside}.log.${g}`;
    try {
      await fs.promises.copyFile(logPath(file, g), target, fs.constants.COPYFILE_EXCL);
      files.push(target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  // Over the empty file claimed above (a journal with no snapshot yet keeps it empty).
  if (fs.existsSync(file)) await fs.promises.copyFile(file, aside);
  files.push(aside);
  return { path: aside, files };
}

/** Creates the copy's snapshot name exclusively, at `stamp` or the first free millisecond after it; resolves the path. */
async function claimName(file: string, stamp: number): Promise<string> {
  for (let at = stamp; ; at++) {
    const aside = copyAsidePath(file, at);
    try {
      await (await fs.promises.open(aside, 'wx')).close();
      return aside;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
