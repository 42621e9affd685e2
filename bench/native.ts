/**
 * The native comparison: better-sqlite3 (a dev-only dependency) on a copy of the same journal file,
 * `journal_mode=WAL`, `synchronous=FULL`, doing the transaction the engine does for one
 * `appendEvents` write: read the run, read the run's last seq, INSERT the event, COMMIT.
 */
import { LIVE } from './build';

interface BetterStatement {
  get(...params: unknown[]): Record<string, unknown> | undefined;
  run(...params: unknown[]): unknown;
}
interface BetterDatabase {
  pragma(source: string, options?: { simple?: boolean }): unknown;
  prepare(sql: string): BetterStatement;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  close(): void;
}
type BetterSqlite3 = new (file: string) => BetterDatabase;

/** A native writer on one database file. */
export interface NativeWriter {
  /** One durable transaction (returns when SQLite returned from COMMIT). */
  write(text: string, at: number): void;
  /** SQLite version of better-sqlite3's build. */
  readonly sqliteVersion: string;
  /** Journal mode and synchronous level actually in effect. */
  readonly settings: string;
  close(): void;
}

/** Opens `file` (a copy of a bench journal) with better-sqlite3 in WAL + synchronous=FULL. */
export function openNative(file: string): NativeWriter {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Database = require('better-sqlite3') as BetterSqlite3;
  const db = new Database(file);
  const mode = db.pragma('journal_mode = WAL', { simple: true });
  db.pragma('synchronous = FULL');
  const sync = db.pragma('synchronous', { simple: true });
  const getRun = db.prepare('SELECT * FROM runs WHERE id = ?');
  const lastSeq = db.prepare('SELECT COALESCE(MAX(seq), 0) AS s FROM events WHERE run_id = ?');
  const insert = db.prepare('INSERT INTO events (run_id, seq, session_id, turn_id, kind, payload, at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const tx = db.transaction((text: string, at: number) => {
    const run = getRun.get(LIVE.runId);
    if (!run) throw new Error('live run missing');
    const next = Number(lastSeq.get(LIVE.runId)!.s) + 1;
    insert.run(LIVE.runId, next, run.session_id, run.turn_id, 'text', JSON.stringify({ text }), at);
  });
  const version = String((db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v);
  return {
    write: (text, at) => {
      tx(text, at);
    },
    sqliteVersion: version,
    settings: `journal_mode=${String(mode)}, synchronous=${String(sync)} (2 = FULL)`,
    close: () => db.close(),
  };
}
