/**
 * The second step of a salvage: the moved-aside journal's log generations (`<aside>.log.<g>`, read
 * only) replayed onto the rows the snapshot gave, in a scratch database built by this build's
 * migrations up to the snapshot's schema version (search triggers dropped: nothing is searched
 * there). Records go in sequence order from the snapshot's checkpoint, each under its own savepoint:
 * one that fails to apply (it changes a row the snapshot lost) is rolled back and counted against
 * the chats it names. Like replay at open (replay.ts), the first frame that is not a valid record, a
 * sequence gap or a missing generation ends the replay: the valid records found after it are not
 * applied — they may depend on the one lost — and count against the chats they name, so those chats
 * are imported as they were before the damage and marked partial.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'sql.js';
import { SALVAGED_TABLES, type SalvageLogRead, type SalvageRow, type SalvagedTable } from '../../core/salvage';
import { FRAME_BYTES, LOG_HEADER_BYTES, decodeFrame, decodeHeader, type LogRecord } from '../logFormat';
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
  db.exec(`PRAGMA user_version = ${Math.min(version, MIGRATIONS.length)}`);
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
  let expected = generations[0];
  for (const g of generations) {
    const name = `${path.basename(aside)}.log.${g}`;
    if (!stopped && g !== expected) stopped = `log generation ${expected} is missing`;
    expected = g + 1;
    const read = readGeneration(path.join(path.dirname(aside), name), g);
    const log = { generation: g, name, records: read.records.length, applied: 0, skipped: 0, failed: 0, damage: read.damage, notApplied: 0 };
    const take = (record: LogRecord): void => {
      if (!stopped && known && record.s <= lastSeq) {
        log.skipped++;
        return;
      }
      if (!stopped && known && record.s !== lastSeq + 1) stopped = `sequence gap in ${name}: ${lastSeq} then ${record.s}`;
      if (stopped) {
        log.notApplied++;
        count(out.notApplied, record.x);
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
    if (!stopped && read.damage) stopped = `${name} is damaged at byte ${read.damage.offset} (${read.damage.why})`;
    for (const record of read.after) take(record);
    out.logs.push(log);
  }
  if (stopped) out.notes.push(`The log could not be read past one point: ${stopped}. Changes after it are not applied${out.logs.some((l) => l.notApplied > 0) ? '' : ' (none were found)'}; the damaged record itself may have changed any chat.`);
  return out;
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
 * (`damage`), and the valid records found after it by looking at every byte (`after`: a damaged
 * frame's own length may be what is wrong). A damaged header: no records before, all after.
 */
export function readGeneration(file: string, generation: number): { records: LogRecord[]; damage: { offset: number; why: string } | null; after: LogRecord[] } {
  const bytes = fs.readFileSync(file);
  const header = decodeHeader(bytes.subarray(0, LOG_HEADER_BYTES));
  if (!header || header.generation !== generation) {
    const why = header ? `its header names generation ${header.generation}` : 'its header is damaged';
    return { records: [], damage: { offset: 0, why }, after: recordsFrom(bytes, LOG_HEADER_BYTES - 1) };
  }
  const records: LogRecord[] = [];
  let offset = LOG_HEADER_BYTES;
  for (;;) {
    if (offset + FRAME_BYTES > bytes.length) return { records, damage: null, after: [] };
    const length = bytes.readUInt32LE(offset);
    const outcome = decodeFrame(bytes.subarray(offset, offset + FRAME_BYTES), bytes.subarray(offset + FRAME_BYTES, Math.min(bytes.length, offset + FRAME_BYTES + length)), offset);
    if (outcome.type === 'end') return { records, damage: null, after: [] };
    if (outcome.type === 'bad') {
      const after = recordsFrom(bytes, offset).filter((r) => r.s > (records[records.length - 1]?.s ?? -1));
      // Nothing valid after it: a torn tail, which a crash leaves and opening cuts; not damage.
      return { records, damage: after.length > 0 ? { offset, why: outcome.why } : null, after };
    }
    records.push(outcome.record);
    offset = outcome.next;
  }
}

/** Every valid record starting after byte `badAt` (cheap sign first: a payload starts with `{"s":`), in file order. */
function recordsFrom(bytes: Buffer, badAt: number): LogRecord[] {
  const sign = Buffer.from('{"s":');
  const found: LogRecord[] = [];
  for (let i = badAt + 1; i + FRAME_BYTES + sign.length <= bytes.length; i++) {
    if (bytes[i + FRAME_BYTES] !== 0x7b) continue;
    const len = bytes.readUInt32LE(i);
    if (len < sign.length || i + FRAME_BYTES + len > bytes.length) continue;
    if (!bytes.subarray(i + FRAME_BYTES, i + FRAME_BYTES + sign.length).equals(sign)) continue;
    const outcome = decodeFrame(bytes.subarray(i, i + FRAME_BYTES), bytes.subarray(i + FRAME_BYTES, i + FRAME_BYTES + len), i);
    if (outcome.type !== 'record') continue;
    found.push(outcome.record);
    i = outcome.next - 1;
  }
  return found;
}
