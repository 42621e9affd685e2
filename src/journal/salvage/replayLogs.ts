/**
 * The second step of a salvage: the moved-aside journal's log generations (`<aside>.log.<g>`, read
 * only) replayed onto the rows the snapshot gave, in a scratch database built by this build's
 * migrations up to the snapshot's schema version (search triggers dropped: nothing is searched
 * there). Records go in sequence order from the snapshot's checkpoint, each under its own savepoint:
 * one that fails to apply (it changes a row the snapshot lost) is rolled back and counted against
 * the chats it names. Like replay at open (replay.ts), the first frame that is not a valid record, a
 * sequence gap or a missing generation ends the replay of what came before: the valid records found
 * after it are not applied to the chats that existed then or that the damaged record names (its list
 * of chats, written last, is usually still legible) — their changes may depend on the one lost — and
 * count against those chats, which are imported as they were before the damage and marked partial.
 * A chat made after the damage depends on nothing lost: its records are applied (unless the damaged
 * record's chats cannot be told, or records are missing: then nothing after is applied).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'sql.js';
import { SALVAGED_TABLES, type SalvageLogRead, type SalvageRow, type SalvagedTable } from '../../core/salvage';
import { FRAME_BYTES, LOG_HEADER_BYTES, decodeFrame, decodeHeader, recordsAfter, type LogRecord } from '../logFormat';
import { generationsAmong } from '../logFile';
import { applyStatement } from '../memoryDb';
import { MIGRATIONS } from '../schema';

/** What the replay did: per generation, and the chats whose changes were not applied or failed (count by chat). */
export interface LogReplay {
  readonly logs: SalvageLogRead[];
  readonly notApplied: Map<string, number>;
  readonly failed: Map<string, number>;
  readonly notes: string[];
}

/**
 * A scratch database at schema `version` (this build's migrations, triggers dropped) holding `rows`
 * (each table's columns that exist at that version). The caller closes it.
 */
export function scratchDatabase(Sql: new () => Database, version: number, rows: Record<SalvagedTable, SalvageRow[]>): Database {
  const db = new Sql();
  for (const m of MIGRATIONS) if (m.version <= version) db.exec(m.sql);
  db.exec(`PRAGMA user_version = ${version}`);
  dropTriggers(db);
  db.exec('BEGIN');
  for (const table of SALVAGED_TABLES) {
    const columns = new Set((db.exec(`PRAGMA table_info("${table}")`)[0]?.values ?? []).map((r) => String(r[1])));
    for (const row of rows[table]) {
      const cols = Object.keys(row).filter((c) => columns.has(c));
      if (cols.length === 0) continue;
      db.run(`INSERT OR IGNORE INTO "${table}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, cols.map((c) => row[c] ?? null));
    }
  }
  db.exec('COMMIT');
  return db;
}

/** Drops every trigger (the search index's): the scratch database is read, never searched. */
export function dropTriggers(db: Database): void {
  for (const r of db.exec("SELECT name FROM sqlite_master WHERE type = 'trigger'")[0]?.values ?? []) db.exec(`DROP TRIGGER "${String(r[0])}"`);
}

/**
 * Replays the logs of the moved-aside snapshot `aside` onto `db` from `checkpoint` (null: unknown,
 * every record is tried). See module docstring. Only reads the log files.
 */
export function replayLogs(db: Database, aside: string, checkpoint: { generation: number; seq: number } | null): LogReplay {
  const out: LogReplay = { logs: [], notApplied: new Map(), failed: new Map(), notes: [] };
  let names: string[];
  try {
    names = fs.readdirSync(path.dirname(aside));
  } catch {
    names = [];
  }
  const generations = generationsAmong(aside, names).filter((g) => checkpoint === null || g >= checkpoint.generation);
  let lastSeq = checkpoint?.seq ?? -1;
  let known = checkpoint !== null; // whether lastSeq is a real position (else the first record sets it)
  let stopped: string | null = null;
  /** A damaged record whose chats could not be told. */
  let unknownDamage = false;
  /**
   * Past the damage, the chats that existed before it or that a change not applied names: their
   * later changes may depend on what was lost. A change naming only chats made after the damage
   * (and not named by the damaged change) depends on nothing lost and is applied.
   */
  let tainted = new Set<string>();
  const independentOfDamage = (record: LogRecord): boolean => {
    if (unknownDamage || !record.x || record.x.length === 0 || !record.x.every((s) => !tainted.has(s))) return false;
    return true;
  };
  let expected = generations[0];
  for (const g of generations) {
    const name = `${path.basename(aside)}.log.${g}`;
    if (!stopped && g !== expected) {
      stopped = `log generation ${expected} is missing`;
      unknownDamage = true;
    }
    expected = g + 1;
    const read = readGeneration(path.join(path.dirname(aside), name), g);
    const log = { generation: g, name, records: read.records.length, applied: 0, skipped: 0, failed: 0, damage: read.damage, notApplied: 0 };
    const take = (record: LogRecord): void => {
      if (!stopped && known && record.s <= lastSeq) {
        log.skipped++;
        return;
      }
      if (!stopped && known && record.s !== lastSeq + 1) {
        stopped = `sequence gap in ${name}: ${lastSeq} then ${record.s}`;
        unknownDamage = true; // what the missing records changed cannot be told
      }
      if (stopped && !independentOfDamage(record)) {
        log.notApplied++;
        count(out.notApplied, record.x);
        for (const s of record.x ?? []) tainted.add(s);
        return;
      }
      if (applyRecord(db, record)) log.applied++;
      else {
        log.failed++;
        count(out.failed, record.x);
      }
      lastSeq = record.s;
      known = true;
    };
    for (const record of read.records) take(record);
    if (!stopped && read.damage) {
      stopped = `${name} is damaged at byte ${read.damage.offset} (${read.damage.why})`;
      if (read.damagedSessions) count(out.notApplied, read.damagedSessions);
      else unknownDamage = true;
      tainted = new Set([...chatsIn(db), ...(read.damagedSessions ?? [])]);
    }
    for (const record of read.after) take(record);
    out.logs.push(log);
  }
  if (stopped) {
    const which = unknownDamage ? 'the damaged change itself cannot be told apart, so any chat may miss it' : 'the chats the damaged change named are marked partial';
    out.notes.push(`The log could not be read past one point: ${stopped}. Changes after it are not applied${out.logs.some((l) => l.notApplied > 0) ? '' : ' (none were found)'}; ${which}.`);
  }
  return out;
}

/** The chats the scratch database holds now (their rows' session ids). */
function chatsIn(db: Database): string[] {
  return (db.exec('SELECT id FROM sessions UNION SELECT session_id FROM turns')[0]?.values ?? []).map((r) => String(r[0]));
}

/** Applies one record under a savepoint; false (rolled back) when a statement fails. */
function applyRecord(db: Database, record: LogRecord): boolean {
  db.exec('SAVEPOINT record');
  try {
    for (const statement of record.t) applyStatement(db, statement);
    db.exec('RELEASE record');
    return true;
  } catch {
    db.exec('ROLLBACK TO record');
    db.exec('RELEASE record');
    return false;
  }
}

function count(map: Map<string, number>, sessions: readonly string[] | undefined): void {
  for (const s of sessions ?? []) map.set(s, (map.get(s) ?? 0) + 1);
}

/**
 * One generation's valid records up to its end or its first bad frame (`records`), where that was
 * (`damage`), and the valid records found after it by looking at every byte (`after`, logFormat.ts
 * `recordsAfter`: a damaged frame's own length may be what is wrong). A damaged header: no records before, all after.
 */
export function readGeneration(file: string, generation: number): { records: LogRecord[]; damage: { offset: number; why: string } | null; after: LogRecord[]; damagedSessions: string[] | null } {
  const bytes = fs.readFileSync(file);
  const header = decodeHeader(bytes.subarray(0, LOG_HEADER_BYTES));
  if (!header || header.generation !== generation) {
    const why = header ? `its header names generation ${header.generation}` : 'its header is damaged';
    return { records: [], damage: { offset: 0, why }, after: [...recordsAfter(bytes, LOG_HEADER_BYTES - 1)].map((f) => f.record), damagedSessions: null };
  }
  const records: LogRecord[] = [];
  let offset = LOG_HEADER_BYTES;
  for (;;) {
    if (offset + FRAME_BYTES > bytes.length) return { records, damage: null, after: [], damagedSessions: null };
    const length = bytes.readUInt32LE(offset);
    const outcome = decodeFrame(bytes.subarray(offset, offset + FRAME_BYTES), bytes.subarray(offset + FRAME_BYTES, Math.min(bytes.length, offset + FRAME_BYTES + length)), offset);
    if (outcome.type === 'end') return { records, damage: null, after: [], damagedSessions: null };
    if (outcome.type === 'bad') {
      const found = [...recordsAfter(bytes, offset)];
      const after = found.map((f) => f.record).filter((r) => r.s > (records[records.length - 1]?.s ?? -1));
      // Nothing valid after it: a torn tail, which a crash leaves and opening cuts; not damage.
      if (after.length === 0) return { records, damage: null, after, damagedSessions: null };
      const damagedSessions = sessionsNamedIn(bytes.subarray(offset + FRAME_BYTES, found[0]?.at ?? bytes.length));
      return { records, damage: { offset, why: outcome.why }, after, damagedSessions };
    }
    records.push(outcome.record);
    offset = outcome.next;
  }
}

/**
 * The chats a damaged record names, when its list (`"x":[…]`, written last) is still legible in its
 * bytes, else null: those chats lost a change, whatever else in the record is damaged.
 */
function sessionsNamedIn(region: Buffer): string[] | null {
  const text = region.subarray(0, 4 * 1024 * 1024).toString('latin1');
  const matches = [...text.matchAll(/"x":(\[(?:"(?:[^"\\]|\\.)*"(?:,"(?:[^"\\]|\\.)*")*)?\])\}/g)];
  const last = matches[matches.length - 1];
  if (!last) return null;
  try {
    return (JSON.parse(last[1]!) as unknown[]).map(String);
  } catch {
    return null;
  }
}
