/**
 * Prepared statements kept per SQL text, so the hot paths (every write, every replayed record)
 * do not parse and plan the same SQL again: sql.js's `db.run(sql, params)` prepares and frees a
 * statement on each call. Statements of a cache die with its database; call `clear()` before
 * anything that frees them (sql.js's `export()` does).
 */
import type { BindParams, Database, Statement } from 'sql.js';

/** Most distinct statements kept (the journal uses a few dozen). */
export const MAX_CACHED_STATEMENTS = 256;

/** A per-database cache of prepared statements (see module docstring). */
export class StatementCache {
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly db: Database) {}

  /** The prepared statement for `sql` (prepared on first use). Throws SQLite's error for bad SQL. */
  get(sql: string): Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      if (this.statements.size >= MAX_CACHED_STATEMENTS) this.clear();
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  /** Runs a statement that returns no rows; returns the number of rows it changed. */
  run(sql: string, params: BindParams): number {
    const stmt = this.get(sql);
    try {
      stmt.run(params);
    } finally {
      stmt.reset();
    }
    return this.db.getRowsModified();
  }

  /** Frees every statement. */
  clear(): void {
    for (const stmt of this.statements.values()) stmt.free();
    this.statements.clear();
  }
}
