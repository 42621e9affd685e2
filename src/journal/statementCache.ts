/**
 * Prepared statements kept per SQL text, so the hot paths (every write, every replayed record)
 * do not parse and plan the same SQL again: sql.js's `db.run(sql, params)` prepares and frees a
 * statement on each call. Statements of a cache die with its database; call `clear()` before
 * anything that frees them (sql.js's `export()` does).
 *
 * Long text is bound as its UTF-8 bytes where the SQL asks for it: a `?` written as
 * `CAST(? AS TEXT)` takes a string of `BYTES_BIND_MIN_CHARS` or more as a blob of its UTF-8, which
 * the cast makes text again. The row is the same as with the string bound as text (the database's
 * encoding is UTF-8), but sql.js copies bytes in one call, where it encodes a bound string one
 * character at a time in JavaScript (about 2 ms per 100 KB: the larger part of storing a file's
 * content). Logged records keep the string, so any build replays them to the same row. Strings
 * that are not well-formed UTF-16 or that hold U+0000 are bound as text as before: sql.js encodes
 * lone surrogates its own way (not as U+FFFD, as Buffer does), and every window must build the same
 * row from the same record; a NUL is kept either way (sql.js 1.17 binds a string by its byte
 * length), and such rare text simply stays on the path every build took.
 */
import type { BindParams, Database, Statement } from 'sql.js';

/** Most distinct statements kept (the journal uses a few dozen). */
export const MAX_CACHED_STATEMENTS = 256;

/** Strings this long (UTF-16 code units) or longer are bound as bytes at a `CAST(? AS TEXT)`. */
export const BYTES_BIND_MIN_CHARS = 1024;

/**
 * The 0-based positions of the `?` placeholders of `sql` written as `CAST(? AS TEXT)` (any case
 * and spacing). A `?` inside a quoted literal or identifier (`'…'`, `"…"`, `` `…` ``, `[…]`) or a
 * comment (`-- …`, `/* … *\/`) is no placeholder and is not counted (counted, it would move the
 * slots onto the wrong parameters: a long string bound as a blob where no cast makes it text); numbered
 * (`?1`) and named placeholders are not supported (the journal's SQL uses none).
 */
export function textCastSlots(sql: string): number[] {
  const slots: number[] = [];
  let index = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"' || c === '`' || c === '[') {
      const end = sql.indexOf(c === '[' ? ']' : c, i + 1);
      i = end < 0 ? sql.length : end;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i + 2);
      i = end < 0 ? sql.length : end;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 1;
    } else if (c === '?') {
      if (/CAST\s*\(\s*$/i.test(sql.slice(Math.max(0, i - 16), i)) && /^\s*AS\s+TEXT\s*\)/i.test(sql.slice(i + 1, i + 17))) slots.push(index);
      index++;
    }
  }
  return slots;
}

/** `params` with the long, well-formed, NUL-free strings at `slots` as UTF-8 bytes (see module docstring). */
export function withTextBytes(params: BindParams, slots: readonly number[]): BindParams {
  if (slots.length === 0 || !Array.isArray(params)) return params;
  let out: unknown[] | undefined;
  for (const slot of slots) {
    const value = params[slot];
    if (typeof value !== 'string' || value.length < BYTES_BIND_MIN_CHARS || value.includes('\0') || !isWellFormed(value)) continue;
    out ??= [...params];
    out[slot] = Buffer.from(value, 'utf8');
  }
  return (out ?? params) as BindParams;
}

/** True when `s` has no lone surrogate (`String.prototype.isWellFormed` where the runtime has it). */
function isWellFormed(s: string): boolean {
  const native = (s as { isWellFormed?: () => boolean }).isWellFormed;
  return native ? native.call(s) : !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

/** A per-database cache of prepared statements (see module docstring). */
export class StatementCache {
  private readonly statements = new Map<string, Statement>();
  private readonly castSlots = new Map<string, number[]>();

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
    let slots = this.castSlots.get(sql);
    if (!slots) this.castSlots.set(sql, (slots = textCastSlots(sql)));
    try {
      stmt.run(withTextBytes(params, slots));
    } finally {
      stmt.reset();
    }
    return this.db.getRowsModified();
  }

  /** Frees every statement. */
  clear(): void {
    for (const stmt of this.statements.values()) stmt.free();
    this.statements.clear();
    this.castSlots.clear();
  }
}
