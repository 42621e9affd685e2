/**
 * Test helpers: temporary folders, journals on real files, raw edits of a journal file with sql.js,
 * and instance records for simulated extension hosts (runtimes on them: harness.ts).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Database } from 'sql.js';
import { Journal, type OpenJournalOptions } from '../../src/journal/journal';
import type { InstanceRecord } from '../../src/journal/records';
import { JournalCore } from '../../src/journal/core';
import { LogStore, compact, type LogStoreOptions } from '../../src/journal/logStore';
import { MIGRATIONS } from '../../src/journal/schema';
import { loadSqlJs } from '../../src/journal/sqljs';

/** sql-wasm.wasm inside node_modules. */
export const WASM_PATH = path.join(path.dirname(require.resolve('sql.js')), 'sql-wasm.wasm');

/**
 * Node flags a child Node process of a test gets too. The unit stage runs with
 * `--no-concurrent-recompilation` (scripts/test-all.sh): Node 20 can deadlock when a worker thread
 * exits while V8 compiles its code in the background (docs/ARCHITECTURE.md), and
 * the suite opens and closes hundreds of journal workers. A child process exits its workers too.
 */
export const CHILD_NODE_FLAGS: readonly string[] = process.execArgv.filter((a) => a === '--no-concurrent-recompilation');

/** The journal writer tool (test/tools/journalWriter.ts). */
const WRITER = path.resolve(__dirname, '../tools/journalWriter.js');

/** How a journal writer process ended: its acknowledged write numbers (`ack N` lines) and output. */
export interface WriterRun {
  readonly acks: number[];
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly out: string;
  readonly err: string;
}

/**
 * Runs the journal writer tool with `args` (see its docstring) and extra environment `env`;
 * SIGKILLs it after `killAfterMs` ms if given, or `killAfterFirstAckMs` ms after its first
 * acknowledged write (whichever comes first). Resolves once it exited and its output closed.
 */
export function runWriter(args: readonly string[], options: { env?: Record<string, string>; killAfterMs?: number; killAfterFirstAckMs?: number } = {}): Promise<WriterRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, WRITER, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
    let out = '';
    let err = '';
    const timer = options.killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
    let afterAck: NodeJS.Timeout | undefined;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      // Counted from the first acknowledged write, the kill lands among writes however slowly the
      // writer started (on a loaded machine the first write took longer than a fixed delay).
      if (options.killAfterFirstAckMs !== undefined && afterAck === undefined && /^ack /m.test(out)) {
        afterAck = setTimeout(() => child.kill('SIGKILL'), options.killAfterFirstAckMs);
      }
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(afterAck);
      const acks = out.split('\n').filter((l) => l.startsWith('ack ')).map((l) => Number(l.slice(4)));
      resolve({ acks, code, signal, out, err });
    });
  });
}

/**
 * Every folder `tempDir` made in this process, removed when the process exits. Node's test runner
 * runs each test file in a process of its own, so a file's folders outlive all of its tests (and
 * their `after` hooks, which may still read them) and go when the file is done. Removing at 'exit'
 * is safe for what a test leaves behind: its child processes never write into these folders after
 * their parent test is done, and a journal worker a test forgot to close only holds files open,
 * which Linux lets us remove. A file killed by a signal (its timeout) removes nothing: the unit
 * stage of scripts/test-all.sh counts what a run left in the temp directory and fails on any.
 */
const tracked: string[] = [];
process.on('exit', () => {
  for (const dir of tracked) {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch (error) {
      // Never throw in an 'exit' listener (it would turn a passing file into a failed one); the
      // folder left is reported by the unit stage's count.
      process.stderr.write(`could not remove temp folder ${dir}: ${(error as Error).message}\n`);
    }
  }
});

/**
 * A fresh temporary folder `os.tmpdir()/<prefix>XXXXXX`, removed with everything in it when the
 * test process exits (a test may also remove it earlier itself).
 */
export function tempDir(prefix = 'nac-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tracked.push(dir);
  return dir;
}

/**
 * Points this process's TMPDIR (so `os.tmpdir()` and every child's temp directory) at a fresh
 * `tempDir` folder, and returns it. For test files that start the real agent CLIs: Claude Code
 * leaves `claude-<uid>/` and `cc-socks/`, Codex `codex-bwrap-synthetic-mount-targets-<uid>/`, in
 * the temp directory; inside this folder they are removed with it when the process exits. Call it
 * at the top of the file, before its other temp folders (those are then made inside this one).
 */
export function isolateTempDir(): string {
  const dir = tempDir('nac-tmp-');
  process.env.TMPDIR = dir;
  return dir;
}

/**
 * A promise with its resolve and reject outside, for work the test ends when it chooses (a journal
 * read it answers, a task it lets finish): assertions then follow order, not time.
 */
export function gate<T = void>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** Lets pending promise callbacks run (every microtask queued, then one turn of the event loop). */
export async function settle(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

/** The same as `tempDir` (every temp folder is removed at exit); the name older tests import. */
export const trackedTempDir: (prefix?: string) => string = tempDir;

/** The journal worker compiled by tsc (out/src/journal/worker.js). */
export const WORKER_PATH = path.resolve(__dirname, '../../src/journal/worker.js');

/** Opens a journal at `file` (a new store lifetime: its own worker). */
export function openJournal(file: string, options: Partial<OpenJournalOptions> = {}): Promise<Journal> {
  return Journal.open({ file, wasmPath: WASM_PATH, workerPath: WORKER_PATH, ...options });
}

/**
 * Folds every log generation into the snapshot (the journal must be closed), then opens the snapshot
 * with raw sql.js, lets `edit` change it, and writes it back (simulates other builds or crashes).
 */
export async function editJournalFile(file: string, edit: (db: Database) => void): Promise<void> {
  const SQL = await loadSqlJs(WASM_PATH);
  compact(SQL, file, Number.MAX_SAFE_INTEGER);
  const db = new SQL.Database(fs.readFileSync(file));
  edit(db);
  fs.writeFileSync(file, db.export());
  db.close();
}

/**
 * SQL that takes a schema-13 database back to schema 12 (drops the chats' activity counter, indexes a
 * chat's turns by creation time again); before UNDO_SCHEMA_12.
 */
export const UNDO_SCHEMA_13 = `
  DROP INDEX sessions_by_activity; ALTER TABLE sessions DROP COLUMN activity;
  DROP INDEX turns_by_session; CREATE INDEX turns_by_session ON turns(session_id, created_at);
  PRAGMA user_version = 12;
`;

/** SQL that takes a schema-12 database back to schema 11 (drops the attachments); before UNDO_SCHEMA_11. */
export const UNDO_SCHEMA_12 = `
  DROP TABLE attachments;
  PRAGMA user_version = 11;
`;

/** SQL that takes a schema-11 database back to schema 10 (drops the checkpoints' tables); before UNDO_SCHEMA_10. */
export const UNDO_SCHEMA_11 = `
  DROP TABLE file_undo_items; DROP TABLE file_undos; DROP TABLE file_changes;
  PRAGMA user_version = 10;
`;

/** SQL that takes a schema-10 database back to schema 9 (drops the replaced turn's link); before UNDO_SCHEMA_9. */
export const UNDO_SCHEMA_10 = `
  DROP INDEX turns_by_replaced; ALTER TABLE turns DROP COLUMN replaces_turn_id;
  PRAGMA user_version = 9;
`;

/** SQL that takes a schema-9 database back to schema 8 (drops the model columns); before UNDO_SCHEMA_8. */
export const UNDO_SCHEMA_9 = `
  ALTER TABLE turns DROP COLUMN model; ALTER TABLE sessions DROP COLUMN model;
  PRAGMA user_version = 8;
`;

/** SQL that takes a schema-8 database back to schema 7 (drops Repair Journal's quarantined_rows); before UNDO_SCHEMA_7. */
export const UNDO_SCHEMA_8 = `
  DROP INDEX quarantined_rows_by_session; DROP TABLE quarantined_rows;
  PRAGMA user_version = 7;
`;

/** SQL that takes a schema-7 database back to schema 6 (drops the salvage's provenance table); before UNDO_SCHEMA_6. */
export const UNDO_SCHEMA_7 = `
  DROP TABLE recovered_chats;
  PRAGMA user_version = 6;
`;

/** SQL that takes a schema-6 database back to schema 5 (drops the content store); before UNDO_SCHEMA_5. */
export const UNDO_SCHEMA_6 = `
  DROP TABLE contents;
  PRAGMA user_version = 5;
`;

/**
 * SQL that takes a schema-5 database back to schema 4 (drops the outbox migration 5 added); before
 * UNDO_SCHEMA_4 for an older journal still.
 */
export const UNDO_SCHEMA_5 = `
  DROP INDEX queued_prompts_by_session; DROP TABLE queued_prompts; DROP INDEX turns_by_client_id;
  ALTER TABLE turns DROP COLUMN sent_from; ALTER TABLE turns DROP COLUMN delivery; ALTER TABLE turns DROP COLUMN client_id;
  PRAGMA user_version = 4;
`;

/**
 * SQL that takes a schema-4 database back to schema 3 (drops what migration 4 added), for tests that
 * turn a journal made by this build into an older build's journal.
 */
export const UNDO_SCHEMA_4 = `
  DROP TRIGGER events_search_insert; DROP TRIGGER events_search_delete; DROP TRIGGER events_search_update_before; DROP TRIGGER events_search_update_after;
  DROP TRIGGER turns_search_insert; DROP TRIGGER turns_search_delete; DROP TRIGGER turns_search_update_before; DROP TRIGGER turns_search_update_after;
  DROP TABLE event_search; DROP TABLE prompt_search; DROP VIEW event_search_text; DROP VIEW event_search_body; DROP VIEW prompt_search_text;
  DROP TABLE event_search_pending;
  DROP INDEX turns_by_search_doc; ALTER TABLE turns DROP COLUMN search_doc; ALTER TABLE sessions DROP COLUMN workspace;
  PRAGMA user_version = 3;
`;

/** An instance record for a simulated extension host. */
export function fakeInstance(id: string, pid = 999_999): InstanceRecord {
  return { id, pid, processStart: 'test', hostname: os.hostname(), startedAt: 1, lastSeenAt: 1 };
}

/** A clock that advances 1 ms per call, starting at `start`. */
export function steppingClock(start = 1_700_000_000_000): () => number {
  let t = start;
  return () => t++;
}

/**
 * Polls `probe` every 10 ms until it returns a value other than undefined/false.
 * @throws Error naming `what` after `timeoutMs` (default 20 s).
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A `LogStore` opened on a file without a worker (no background compaction), with its core. */
export interface OpenStore {
  readonly store: LogStore;
  readonly core: JournalCore;
  /** Runs `fn` as one logged transaction; returns its value. */
  write<T>(fn: (core: JournalCore) => T): T;
  /** Closes the log file (and lets a lease go) and the database. */
  done(): void;
}

/** Opens `file` as a bare store (see `OpenStore`), migrated to the current schema. */
export async function openStore(file: string, options: Partial<Omit<LogStoreOptions, 'file' | 'sql' | 'now'>> = {}): Promise<OpenStore> {
  const sql = await loadSqlJs(WASM_PATH);
  const { store } = LogStore.open({ file, sql, now: Date.now, ...options });
  const core = new JournalCore(store.db, (text, params) => store.record(text, params));
  while (store.write(() => core.migrateOne(MIGRATIONS), () => []).value !== undefined) { /* next migration */ }
  return {
    store,
    core,
    write: (fn) => store.write(() => fn(core), () => core.takeTouched()).value,
    done: () => {
      store.close();
      store.db.close();
    },
  };
}

/** Opens the journal at `file` in a new store lifetime, runs `fn`, closes it; returns `fn`'s value. */
export async function lifetime<T>(file: string, fn: (j: Journal) => Promise<T>): Promise<T> {
  const j = await openJournal(file);
  try {
    return await fn(j);
  } finally {
    await j.close();
  }
}

/**
 * Logs `statements` into the journal at `file` as one group, the way a newer build's migration
 * reaches an older build; `execute` false logs them without running them here (for statements this
 * sql.js build cannot run, such as FTS5).
 */
export async function logAsNewerBuild(file: string, statements: readonly string[], execute = true): Promise<void> {
  const sql = await loadSqlJs(WASM_PATH);
  const { store } = LogStore.open({ file, sql, now: Date.now });
  store.write(() => {
    for (const s of statements) {
      if (execute) store.db.exec(s);
      store.record(s, []);
    }
  }, () => []);
  store.close();
  store.db.close();
}
