/**
 * Reads one table of a possibly damaged SQLite database (sql.js) row by row past its damaged pages.
 *
 * A damaged page of a table's b-tree (a leaf, an interior page, an overflow page) makes SQLite fail
 * every read that reaches it, and only those: the rowids under a damaged page form one contiguous
 * range (a b-tree page covers a key range), so a read by rowid range succeeds exactly when the range
 * misses every damaged page. `probeTable` reads `rowid BETWEEN lo AND hi`; a range that fails is
 * split in two, and a failing range whose first rowid fails alone is measured by galloping (the run
 * of rowids that fail alone) and recorded as lost, so a damaged page costs a few dozen queries, not
 * one per rowid under it. A table declared WITHOUT ROWID (schema 1's events) is read by a scan from
 * each end instead.
 */
import type { Database, SqlValue } from 'sql.js';
import type { SalvageRow } from '../../core/salvage';

/** Queries one table's probe may run before it gives up on the rest (a guard against pathological damage). */
const MAX_QUERIES = 200_000;

/** What probing a table read: rows (with `_rowid_`), lost rowid ranges, and why it stopped early. */
export interface ProbedTable {
  rows: SalvageRow[];
  lost: { from: number; to: number }[];
  /** Rows dropped because a value read as a blob (the journal stores none: damage). */
  blobRows: number;
  error: string | null;
}

/**
 * Reads every readable row of `table` in `db` (see module docstring). Each row carries its rowid as
 * `_rowid_`. Never throws for damage: what could not be read is in `lost` / `error`.
 */
export function probeTable(db: Database, table: string, pageCount: number): ProbedTable {
  const out: ProbedTable = { rows: [], lost: [], blobRows: 0, error: null };
  if (withoutRowid(db, table)) return scanBothEnds(db, table, out);
  const bounds = rowidBounds(db, table, pageCount);
  if (!bounds) return out;
  const probe = new Prober(db, table, out);
  try {
    probe.range(bounds.lo, bounds.hi);
  } catch (error) {
    out.error = (error as Error).message;
  } finally {
    probe.free();
  }
  return out;
}

/** The lowest and highest rowid (either read from the b-tree's ends, or bounded by the file's size when an end is damaged); null: empty. */
function rowidBounds(db: Database, table: string, pageCount: number): { lo: number; hi: number } | null {
  const end = (fn: 'MIN' | 'MAX'): number | null | undefined => {
    try {
      const v = db.exec(`SELECT ${fn}(rowid) FROM "${table}"`)[0]?.values[0]?.[0];
      return typeof v === 'number' ? v : null;
    } catch {
      return undefined; // that end of the b-tree is damaged
    }
  };
  const lo = end('MIN');
  const hi = end('MAX');
  if (lo === null && hi === null) return null;
  // Rowids are handed out as the highest + 1, so the rows ever written bound them; a page holds at
  // most a few hundred rows. Generous: a too-high bound costs a handful of queries, not rows.
  return { lo: lo ?? 1, hi: hi ?? Math.max(lo ?? 1, 1) + pageCount * 1024 };
}

/** The range reader of `probeTable` (one prepared statement per query shape). */
class Prober {
  private readonly rangeStmt;
  private readonly pointStmt;
  private queries = 0;
  /** Rowids already added (a point read and a later range read may both return a row). */
  private readonly seen = new Set<number>();

  constructor(db: Database, table: string, private readonly out: ProbedTable) {
    this.rangeStmt = db.prepare(`SELECT rowid AS _rowid_, * FROM "${table}" WHERE rowid BETWEEN ? AND ? ORDER BY rowid`);
    this.pointStmt = db.prepare(`SELECT rowid AS _rowid_, * FROM "${table}" WHERE rowid = ?`);
  }

  /** Reads rowids lo..hi (inclusive) into `out`, recording what fails as lost. */
  range(lo: number, hi: number): void {
    // An explicit stack, not recursion: a long run of splits stays flat.
    const todo: [number, number][] = [[lo, hi]];
    while (todo.length > 0) {
      const [a, b] = todo.pop()!;
      if (a > b) continue;
      if (this.read(this.rangeStmt, [a, b])) continue;
      if (this.pointFails(a)) {
        const end = this.failingRunEnd(a, b);
        this.lose(a, end);
        todo.push([end + 1, b]);
        continue;
      }
      // `a` itself reads (its row, if any, is in): split the rest.
      const mid = a + 1 + Math.floor((b - a - 1) / 2);
      todo.push([mid + 1, b], [a + 1, mid]);
    }
  }

  /** The last rowid of the run of rowids from `a` (which fails) that fail alone, at most `b`: gallop, then bisect. */
  private failingRunEnd(a: number, b: number): number {
    let ok = -1;
    let failing = a;
    for (let step = 1; ; step *= 2) {
      const at = Math.min(a + step, b);
      if (!this.pointFails(at)) {
        ok = at;
        break;
      }
      failing = at;
      if (at === b) return b;
    }
    while (ok - failing > 1) {
      const mid = failing + Math.floor((ok - failing) / 2);
      if (this.pointFails(mid)) failing = mid;
      else ok = mid;
    }
    return failing;
  }

  /** True when reading rowid `at` alone fails (its row, if any, is added when it does not). */
  private pointFails(at: number): boolean {
    return !this.read(this.pointStmt, [at]);
  }

  /** Runs a statement, adding its rows only when every step succeeded; false when it failed. */
  private read(stmt: ReturnType<Database['prepare']>, params: number[]): boolean {
    if (++this.queries > MAX_QUERIES) throw new Error(`gave up after ${MAX_QUERIES} queries (damage everywhere)`);
    const rows: SalvageRow[] = [];
    try {
      stmt.bind(params);
      while (stmt.step()) rows.push(stmt.getAsObject() as Record<string, SqlValue> as SalvageRow);
    } catch {
      return false;
    } finally {
      try {
        stmt.reset();
      } catch {
        /* a failed step leaves the error on reset too */
      }
    }
    for (const row of rows) {
      const rowid = row._rowid_ as number;
      if (this.seen.has(rowid)) continue;
      this.seen.add(rowid);
      if (Object.values(row as Record<string, unknown>).some((v) => v instanceof Uint8Array)) this.out.blobRows++;
      else this.out.rows.push(row);
    }
    return true;
  }

  private lose(from: number, to: number): void {
    const last = this.out.lost[this.out.lost.length - 1];
    if (last && last.to + 1 === from) last.to = to;
    else this.out.lost.push({ from, to });
  }

  free(): void {
    this.rangeStmt.free();
    this.pointStmt.free();
  }
}

/** True when `table` is declared WITHOUT ROWID (schema 1's events). */
function withoutRowid(db: Database, table: string): boolean {
  try {
    const sql = db.exec('SELECT sql FROM sqlite_master WHERE type = ? AND name = ?', ['table', table])[0]?.values[0]?.[0];
    return typeof sql === 'string' && /WITHOUT\s+ROWID/i.test(sql);
  } catch {
    return false;
  }
}

/** A WITHOUT ROWID table: a scan from the start until it fails, then one from the end (what lies between is lost). */
function scanBothEnds(db: Database, table: string, out: ProbedTable): ProbedTable {
  const seen = new Set<string>();
  let failed = false;
  for (const order of ['ASC', 'DESC']) {
    const stmt = db.prepare(`SELECT * FROM "${table}" ORDER BY run_id ${order}, seq ${order}`);
    try {
      while (stmt.step()) {
        const row = stmt.getAsObject() as Record<string, SqlValue>;
        const key = `${String(row.run_id)}#${String(row.seq)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.rows.push(row as SalvageRow);
      }
      if (order === 'ASC') return out; // read to the end: nothing lost
    } catch (error) {
      failed = true;
      out.error = `part of the table could not be read: ${(error as Error).message}`;
    } finally {
      stmt.free();
    }
  }
  if (!failed) out.error = null;
  return out;
}
