/**
 * Plain sentences for what the disk or an old row did to the journal, and the rule that a migration
 * which cannot run leaves the journal read-only at the version it has instead of failing the open.
 *
 * A user reads these in a notification or the chat's banner: each says what happened, that nothing
 * was lost, and what to do, without error codes' internals or stack traces (those go to the log).
 */
import { JournalRefusedError } from './errors';

/** The error's errno code (`ENOSPC`, `EIO`…), also when it is only named in its message; or undefined. */
export function errnoCode(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return code;
  return /\b(E[A-Z]{2,})\b/.exec(String((error as Error | undefined)?.message ?? error))?.[1];
}

/**
 * The refusal of a write whose lock file could not be made (`error`: what `LockFile.acquire` threw).
 * A full disk says so; a lock held too long keeps its own sentence (it names the holder).
 */
export function lockFailedMessage(error: unknown): string {
  const code = errnoCode(error);
  if (code === 'ENOSPC') return 'The disk is full, so the chat journal could not take this change. Nothing was lost; free some space and try again.';
  if (code) return `The chat journal could not take this change: the disk refused it (${code}). Nothing was lost; try again.`;
  return (error as Error).message;
}

/** The errno codes of a folder this process may not write: mounted read-only, or not its to change. */
const UNWRITABLE_CODES: ReadonlySet<string> = new Set(['EROFS', 'EACCES', 'EPERM']);

/**
 * True when `error` says the file system will not let this process write there (EROFS: mounted
 * read-only; EACCES/EPERM: no permission, or an immutable file), rather than that it failed.
 */
export function isUnwritable(error: unknown): boolean {
  const code = errnoCode(error);
  return code !== undefined && UNWRITABLE_CODES.has(code);
}

/**
 * Why writes are refused when the journal's folder `dir` cannot be written (`error`: what the
 * attempt threw, one `isUnwritable` accepts). Names the folder and the reason in plain words, never
 * the system error with its path (that goes to the log).
 */
export function unwritableFolderMessage(error: unknown, dir: string): string {
  const why = errnoCode(error) === 'EROFS'
    ? `its storage folder (${dir}) is read-only. Nothing was lost; make the folder writable, then reload the window.`
    : `you are not allowed to write to its storage folder (${dir}). Nothing was lost; give yourself write access to the folder, then reload the window.`;
  return `Agent Chats can show your chats but cannot save them: ${why}`;
}

/**
 * Why writes are refused when no log file could be created at open (`error`: what creating it
 * threw). History stays readable; a reload after freeing space goes on as before.
 */
export function noRoomForLogMessage(error: unknown): string {
  const code = errnoCode(error);
  const what = code === 'ENOSPC' ? 'the disk is full' : `the disk refused to create a file (${code ?? 'unknown error'})`;
  return `Agent Chats can show your chats but not change them: ${what}. Nothing was lost; free some space, then reload the window.`;
}

/**
 * Why writes are refused after migration `to` could not run on a journal at `from` (`error`: what
 * the migration's write threw). A full disk or an I/O error says so (a reload after freeing space
 * migrates); anything else is a row the new format does not take, which no update fixes by itself.
 */
export function migrationFailedMessage(error: unknown, from: number, to: number, file: string): string {
  const storage = error instanceof JournalRefusedError && error.reason === 'storage_failed';
  const code = errnoCode(error);
  // The essential first: a collapsed notification shows about 70 characters.
  const opening = `Agent Chats can show your chats but not change them: its chat journal could not be updated to this version's format (${from} → ${to})`;
  if (storage && code === 'ENOSPC') return `${opening} because the disk is full. Nothing was lost; free some space, then reload the window.`;
  if (storage) return `${opening}: the disk refused the change${code ? ` (${code})` : ''}. Nothing was lost; reload the window to try again.`;
  return (
    `${opening} because a stored row does not fit it. Nothing was lost; to start a new journal, quit VS Code and ` +
    `move ${file} aside (Agent Chats: Show Logs has the details).`
  );
}

/** What `migrateOrStay` did: the version reached and, if a migration could not run, why (plain) and its error (for the log). */
export interface MigrationOutcome {
  readonly version: number;
  readonly readOnlyReason: string | null;
  readonly detail: string | null;
}

/**
 * Runs `migrateOne` (one logged transaction per migration, see `JournalCore.migrateOne`) until it
 * has nothing left to do. A migration that throws was rolled back (the journal stays at the last
 * version reached, untouched by it): its failure becomes a read-only reason, never an exception.
 * @param migrateOne runs the next migration; returns the version reached, or undefined when done.
 */
export function migrateOrStay(migrateOne: () => number | undefined, versionNow: () => number, target: number, file: string): MigrationOutcome {
  for (;;) {
    const from = versionNow();
    try {
      if (migrateOne() === undefined) return { version: versionNow(), readOnlyReason: null, detail: null };
    } catch (error) {
      const detail = `migration ${from} → ${from + 1} failed, the journal stays at version ${from} (read-only): ${(error as Error).stack ?? String(error)}`;
      return { version: versionNow(), readOnlyReason: migrationFailedMessage(error, from, target, file), detail };
    }
  }
}

/** What a row of each table is, in the chat's own words. */
const ROW_WORDS: Readonly<Record<string, string>> = { turns: 'a prompt', runs: 'a reply', events: 'part of a reply', invocations: 'a tool call', boundary_requests: 'an approval request' };

/**
 * Why writes to a chat are refused when one of its rows cannot be decoded (its fence). `newer`: the
 * row holds a value this build does not know but a newer build could write (an unknown status or
 * kind); otherwise it is damaged (a NULL, text that is not JSON), which no update makes readable,
 * so updating is advised only for `newer`.
 */
export function fenceMessage(table: string, newer: boolean): string {
  const what = ROW_WORDS[table] ?? 'a record';
  return newer
    ? `This chat holds ${what} written by a newer version of Agent Chats, which this version leaves out; update the extension to change this chat. Other chats are not affected.`
    : `This chat holds ${what} that could not be read (it is damaged), so it is left out and the chat cannot be changed. Other chats are not affected.`;
}
