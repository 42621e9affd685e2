/**
 * `Journal`: the one door to the chat journal (a SQLite database run by sql.js under the extension's
 * `globalStorageUri`). Callers name an operation of `JournalCore` and its arguments:
 *
 *   const sessions = await journal.read('listSessions');
 *   const result = await journal.write('startTurn', input);   // Result<…, JournalRefusal>
 *
 * Every `write` is one transaction, acknowledged (resolved with `ok`) only once it is on disk.
 * A refused write resolves with `{ ok: false, reason, message }` and changes nothing:
 * `read_only` (journal written by a newer schema version), `storage_failed` (full disk, I/O error),
 * `not_found`. Operations run one at a time, in call order.
 *
 * Operations are named, with plain-data arguments and results, so the database can move off the
 * calling thread (issue #3) without changing this interface.
 *
 * Opening: a missing file starts a new journal; migrations run one transaction each; a journal at a
 * newer `user_version` opens read-only; a file that is not a readable SQLite database is moved aside
 * (never deleted or overwritten) and a fresh journal starts, reported in `report.quarantined`.
 */
import * as fs from 'node:fs';
import type { Database, SqlJsStatic } from 'sql.js';
import { fail, ok, type Result } from '../core/result';
import { JournalCore } from './core';
import { JournalRefusedError, type JournalRefusal } from './errors';
import { FileStore } from './fileStore';
import { MIGRATIONS, SCHEMA_VERSION } from './schema';
import { loadSqlJs } from './sqljs';

/** Names of JournalCore methods. */
export type JournalOp = {
  [K in keyof JournalCore]: JournalCore[K] extends (...args: never[]) => unknown ? K : never;
}[keyof JournalCore];

type OpFn<K extends JournalOp> = JournalCore[K] extends (...args: infer A) => infer R ? (...args: A) => R : never;
/** Arguments of operation K. */
export type OpArgs<K extends JournalOp> = Parameters<OpFn<K>>;
/** Result of operation K. */
export type OpResult<K extends JournalOp> = ReturnType<OpFn<K>>;

/** Options of `Journal.open`. */
export interface OpenJournalOptions {
  /** Absolute path of the database file; its folder is created on first write. */
  readonly file: string;
  /** Absolute path of `sql-wasm.wasm` (the extension's `dist/` copy; tests use node_modules'). */
  readonly wasmPath: string;
  /** Clock in ms (tests inject one). */
  readonly now?: () => number;
}

/** What opening found and did. */
export interface JournalOpenReport {
  /** The file did not exist; a new journal was started. */
  readonly created: boolean;
  /** `user_version` found on disk (0 for a new file) and after migrations. */
  readonly versionFound: number;
  readonly version: number;
  /** Set when writes are refused for the whole journal, with a sentence for people. */
  readonly readOnlyReason: string | null;
  /** Set when an unreadable file was moved aside: where it went and why. */
  readonly quarantined: { readonly path: string; readonly reason: string } | null;
}

/** The journal (see module docstring). */
export class Journal {
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(
    private readonly sql: SqlJsStatic,
    private db: Database,
    private core: JournalCore,
    private readonly store: FileStore,
    readonly report: JournalOpenReport,
  ) {}

  /** Opens (or starts) the journal at `options.file`. Rejects only when sql.js itself cannot load. */
  static async open(options: OpenJournalOptions): Promise<Journal> {
    const sql = await loadSqlJs(options.wasmPath);
    const store = new FileStore(options.file);
    const now = options.now ?? Date.now;
    let bytes: Uint8Array | undefined;
    let quarantined: JournalOpenReport['quarantined'] = null;
    bytes = store.read();
    let db: Database | undefined;
    if (bytes) {
      const problem = unreadableReason(sql, bytes);
      if (problem) {
        const aside = `${options.file}.unreadable-${now()}`;
        fs.renameSync(options.file, aside);
        quarantined = { path: aside, reason: problem };
        bytes = undefined;
        store.read();
      } else {
        db = new sql.Database(bytes);
      }
    }
    const created = !bytes;
    db ??= new sql.Database();
    const versionFound = userVersion(db);
    let readOnlyReason: string | null = null;
    if (versionFound > SCHEMA_VERSION) {
      readOnlyReason =
        `This chat journal was written by a newer version of Native Agent Chats (schema ${versionFound}; this version knows ${SCHEMA_VERSION}). ` +
        'History can be read, but nothing can be changed until you update the extension.';
    } else if (versionFound < SCHEMA_VERSION) {
      for (const migration of MIGRATIONS.filter((m) => m.version > versionFound)) {
        db.exec('BEGIN IMMEDIATE');
        try {
          db.exec(migration.sql);
          db.exec(`PRAGMA user_version = ${migration.version}`);
          db.exec('COMMIT');
        } catch (error) {
          db.exec('ROLLBACK');
          throw new Error(`Journal migration ${migration.version} (${migration.description}) failed: ${(error as Error).message}`);
        }
      }
      await store.write(db.export());
    }
    const report: JournalOpenReport = { created, versionFound, version: userVersion(db), readOnlyReason, quarantined };
    return new Journal(sql, db, new JournalCore(db), store, report);
  }

  /** True when every write is refused (see `report.readOnlyReason`). */
  get readOnly(): boolean {
    return this.report.readOnlyReason !== null;
  }

  /** Path of the database file. */
  get file(): string {
    return this.store.file;
  }

  /** Runs a read-only operation on the current journal state (re-read first if another process wrote). */
  read<K extends JournalOp>(op: K, ...args: OpArgs<K>): Promise<OpResult<K>> {
    return this.enqueue(() => {
      this.refreshIfChanged();
      return (this.core[op] as (...a: unknown[]) => OpResult<K>)(...args);
    });
  }

  /**
   * Runs operation K as one transaction and acknowledges it once durable.
   * Resolves with `{ ok: true, value }` or a refusal; rejects only on programming errors
   * (e.g. a constraint violation from a bad id), after rolling back.
   */
  write<K extends JournalOp>(op: K, ...args: OpArgs<K>): Promise<Result<OpResult<K>, JournalRefusal>> {
    if (this.closed) return Promise.resolve(fail('closed', 'The chat journal is closed.'));
    return this.enqueue(async () => {
      if (this.report.readOnlyReason) return fail('read_only', this.report.readOnlyReason);
      this.refreshIfChanged();
      let value: OpResult<K>;
      this.db.exec('BEGIN IMMEDIATE');
      try {
        value = (this.core[op] as (...a: unknown[]) => OpResult<K>)(...args);
        this.db.exec('COMMIT');
      } catch (error) {
        this.db.exec('ROLLBACK');
        if (error instanceof JournalRefusedError) return fail(error.reason, error.message);
        throw error;
      }
      try {
        await this.store.write(this.db.export());
      } catch (error) {
        // Not durable: drop the in-memory change by re-reading the last durable state.
        this.reload();
        const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
        return fail(
          'storage_failed',
          `The chat journal could not be saved (${code}${code === 'ENOSPC' ? ': the disk is full' : ''}). Nothing was changed.`,
        );
      }
      return ok(value);
    });
  }

  /** Waits for queued operations, then releases the database. Later calls reject. */
  async close(): Promise<void> {
    if (this.closed) return;
    const last = this.enqueue(async () => this.db.close());
    this.closed = true;
    await last;
  }

  private enqueue<T>(task: () => T | Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('The chat journal is closed.'));
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private refreshIfChanged(): void {
    if (this.store.changedOnDisk()) this.reload();
  }

  private reload(): void {
    const bytes = this.store.read();
    this.db.close();
    this.db = bytes ? new this.sql.Database(bytes) : new this.sql.Database();
    this.core = new JournalCore(this.db);
  }
}

function userVersion(db: Database): number {
  return (db.exec('PRAGMA user_version')[0]?.values[0]?.[0] as number | undefined) ?? 0;
}

/** Why `bytes` cannot be used as a journal, or undefined when it can. */
function unreadableReason(sql: SqlJsStatic, bytes: Uint8Array): string | undefined {
  let db: Database | undefined;
  try {
    db = new sql.Database(bytes);
    const check = db.exec('PRAGMA quick_check')[0]?.values[0]?.[0];
    if (check !== 'ok') return `SQLite integrity check failed: ${String(check)}`;
    return undefined;
  } catch (error) {
    return `not a readable SQLite database (${(error as Error).message})`;
  } finally {
    db?.close();
  }
}
