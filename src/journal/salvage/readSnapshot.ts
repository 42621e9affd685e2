/**
 * The first step of a salvage: every readable row of the moved-aside snapshot, table by table
 * (probeTable.ts), with the rowid ranges that could not be read and the chats those rows belonged to
 * (lostRows.ts), its schema version and its checkpoint (which log records it already holds). Works
 * on the file's bytes in a database of its own: the file is only read.
 */
import type { Database, SqlJsStatic } from 'sql.js';
import { SALVAGED_TABLES, type SalvageRow, type SalvageTableRead, type SalvagedTable } from '../../core/salvage';
import { lostRowsByChat } from './lostRows';
import { probeTable } from './probeTable';

/** What the snapshot gave (see module docstring). */
export interface SnapshotSalvage {
  /** Why nothing could be read (null: it opened). */
  readonly openError: string | null;
  readonly schemaVersion: number | null;
  /** The log position the snapshot holds (null: its checkpoint could not be read). */
  readonly checkpoint: { readonly generation: number; readonly seq: number } | null;
  readonly tables: readonly SalvageTableRead[];
  readonly rows: Record<SalvagedTable, SalvageRow[]>;
  /** Rows that could not be read, by chat, by table. */
  readonly lostByChat: Map<string, Map<SalvagedTable, number>>;
  readonly notes: string[];
}

/** Reads the snapshot `bytes` (see module docstring). Never throws for damage. */
export function readSnapshot(sql: SqlJsStatic, bytes: Uint8Array): SnapshotSalvage {
  const rows = Object.fromEntries(SALVAGED_TABLES.map((t) => [t, [] as SalvageRow[]])) as Record<SalvagedTable, SalvageRow[]>;
  const empty = { schemaVersion: null, checkpoint: null, tables: [], rows, lostByChat: new Map(), notes: [] };
  let db: Database;
  try {
    db = new sql.Database(bytes);
    db.exec('SELECT count(*) FROM sqlite_master');
  } catch (error) {
    return { ...empty, openError: `its first page, which lists its tables, cannot be read (${(error as Error).message})` };
  }
  try {
    const notes: string[] = [];
    const pageCount = Math.max(1, Math.ceil(bytes.length / pageSizeOf(bytes)));
    const tables: SalvageTableRead[] = [];
    const lostByChat = new Map<string, Map<SalvagedTable, number>>();
    const present = new Set(names(db));
    for (const table of SALVAGED_TABLES) {
      if (!present.has(table)) {
        tables.push({ table, rows: 0, lost: [], unattributed: 0, lostCounted: true, error: null });
        continue;
      }
      const probed = probeTable(db, table, pageCount);
      rows[table] = probed.rows;
      const lost = lostRowsByChat(db, table, probed.lost, rows.runs);
      for (const [session, n] of lost.bySession) {
        const byTable = lostByChat.get(session) ?? new Map<SalvagedTable, number>();
        byTable.set(table, (byTable.get(table) ?? 0) + n);
        lostByChat.set(session, byTable);
      }
      if (probed.blobRows > 0) notes.push(`${probed.blobRows} row(s) of ${table} held bytes where text was expected (damage) and were left out.`);
      tables.push({ table, rows: probed.rows.length, lost: probed.lost, unattributed: lost.unattributed, lostCounted: lost.counted, error: probed.error });
    }
    const checkpoint = readCheckpointSafely(db, present, notes);
    return { openError: null, schemaVersion: userVersion(db), checkpoint, tables, rows, lostByChat, notes };
  } finally {
    db.close();
  }
}

/** The page size from the file header (bytes 16-17; 1 means 65,536), or SQLite's default when the header is damaged. */
function pageSizeOf(bytes: Uint8Array): number {
  if (bytes.length < 100) return 4096;
  const raw = (bytes[16]! << 8) | bytes[17]!;
  const size = raw === 1 ? 65536 : raw;
  return size >= 512 && (size & (size - 1)) === 0 ? size : 4096;
}

/** The tables the database lists (empty when its list cannot be read). */
function names(db: Database): string[] {
  try {
    return (db.exec("SELECT name FROM sqlite_master WHERE type = 'table'")[0]?.values ?? []).map((r) => String(r[0]));
  } catch {
    return [];
  }
}

function userVersion(db: Database): number | null {
  try {
    const v = db.exec('PRAGMA user_version')[0]?.values[0]?.[0];
    return typeof v === 'number' ? v : null;
  } catch {
    return null;
  }
}

/** The snapshot's checkpoint row; (1, 0) when it has none (never compacted); null with a note when it cannot be read. */
function readCheckpointSafely(db: Database, present: ReadonlySet<string>, notes: string[]): { generation: number; seq: number } | null {
  if (!present.has('journal_checkpoint')) return { generation: 1, seq: 0 };
  try {
    const row = db.exec('SELECT generation, seq FROM journal_checkpoint WHERE id = 1')[0]?.values[0];
    return row ? { generation: Number(row[0]), seq: Number(row[1]) } : { generation: 1, seq: 0 };
  } catch (error) {
    notes.push(`Which log records the snapshot already holds could not be read (${(error as Error).message}): every log record was tried, and one already in the snapshot fails to apply and is skipped.`);
    return null;
  }
}
