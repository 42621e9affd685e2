/**
 * Salvage's read of one moved-aside journal (`journal.sqlite.unreadable-<ms>` and its
 * `.log.<g>`), read-only: the snapshot table by table past its damaged pages (readSnapshot.ts), its
 * log replayed onto what was read (replayLogs.ts), the chats made consistent with what is missing
 * from each (assembleChats.ts). Runs in the journal's helper thread (helperThread.ts); the files are
 * opened for reading only and never changed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import type { SalvageRead } from '../../core/salvage';
import { SCHEMA_VERSION } from '../schema';
import { assembleChats } from './assembleChats';
import { readSnapshot } from './readSnapshot';
import { replayLogs, scratchDatabase } from './replayLogs';

/** A moved-aside snapshot's file name: `<journal file>.unreadable-<ms>`. */
const MOVED_ASIDE = /\.unreadable-(\d+)$/;

/**
 * The path of the moved-aside journal `name` of the journal `file`: only a name of the form
 * `<file's name>.unreadable-<ms>` in `file`'s folder (nothing else is ever read through a salvage).
 * @throws when `name` is not one.
 */
export function movedAsidePath(file: string, name: string): string {
  const prefix = `${path.basename(file)}.unreadable-`;
  if (typeof name !== 'string' || !name.startsWith(prefix) || !/^\d+$/.test(name.slice(prefix.length))) {
    throw new Error(`${String(name)} is not a journal moved aside next to ${path.basename(file)}`);
  }
  return path.join(path.dirname(file), name);
}

/**
 * Reads the moved-aside journal at `aside` (see module docstring).
 * @throws when `aside` is not named as a moved-aside journal, or cannot be read at all (missing, no permission).
 */
export function readMovedAside(sql: SqlJsStatic, aside: string): SalvageRead {
  const match = MOVED_ASIDE.exec(path.basename(aside));
  if (!match) throw new Error(`${path.basename(aside)} is not a journal moved aside (journal.sqlite.unreadable-<time>)`);
  const bytes = fs.readFileSync(aside);
  const source = { name: path.basename(aside), path: aside, bytes: bytes.length, movedAt: Number(match[1]) };
  const snapshot = readSnapshot(sql, bytes);
  const base = { source, openError: snapshot.openError, schemaVersion: snapshot.schemaVersion, tables: snapshot.tables };
  if (snapshot.openError) return { ...base, newer: false, logs: [], notes: [], chats: [] };
  const version = snapshot.schemaVersion ?? SCHEMA_VERSION;
  const newer = version > SCHEMA_VERSION;
  const notes = [...snapshot.notes];
  if (snapshot.schemaVersion === null) notes.push(`Its schema version could not be read; it is read as version ${SCHEMA_VERSION}.`);
  const scratch = scratchDatabase(sql.Database, Math.min(version, SCHEMA_VERSION), snapshot.rows);
  try {
    // A newer build's log may hold statements this build cannot run: the snapshot's rows are shown, nothing is imported.
    const replay = newer ? { logs: [], notApplied: new Map<string, number>(), failed: new Map<string, number>(), notes: [] } : replayLogs(scratch, aside, snapshot.checkpoint);
    notes.push(...replay.notes);
    // A newer build's migration may be only in the log (logged like any write): its version is then
    // the scratch database's after the replay, and the columns it added would be lost as well.
    const newerByLog = !newer && scratchVersion(scratch) > SCHEMA_VERSION;
    if (newerByLog) notes.push(`Its log holds a newer version's change of the journal's structure (schema ${scratchVersion(scratch)}).`);
    const chats = assembleChats(scratch, { lost: snapshot.lostByChat, notApplied: replay.notApplied, failed: replay.failed });
    const found = new Set(chats.map((c) => c.sessionId));
    const gone = [...snapshot.lostByChat.keys()].filter((id) => !found.has(id));
    if (gone.length > 0) notes.push(`${gone.length} chat${gone.length === 1 ? ' is' : 's are'} known to have existed (${gone.slice(0, 5).join(', ')}${gone.length > 5 ? ', …' : ''}) but none of ${gone.length === 1 ? 'its' : 'their'} prompts could be read.`);
    // Tool calls and approval requests are matched to their chats through the chats' events
    // (assembleChats.ts), which holds when no event was lost.
    const eventsWhole = snapshot.tables.find((t) => t.table === 'events')?.lost.length === 0 && replay.notApplied.size === 0;
    for (const t of snapshot.tables) {
      const viaEvents = eventsWhole && (t.table === 'invocations' || t.table === 'boundary_requests');
      if (t.lost.length > 0 && !t.lostCounted && !viaEvents) {
        notes.push(`Rows of ${t.table} in ${t.lost.length} range${t.lost.length === 1 ? '' : 's'} could not be read and not all could be matched to their chats: a chat shown whole may still miss some of them.`);
      }
    }
    return { ...base, newer: newer || newerByLog, logs: replay.logs, notes, chats };
  } finally {
    scratch.close();
  }
}

/** The scratch database's `user_version` (0 when unreadable). */
function scratchVersion(db: Database): number {
  return Number(db.exec('PRAGMA user_version')[0]?.values[0]?.[0] ?? 0);
}
