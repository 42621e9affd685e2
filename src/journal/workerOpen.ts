/**
 * How the journal worker opens its store: reads the snapshot (on libuv's thread pool) while sql.js
 * is instantiated — with the opener's compiled WASM when it sends one — then opens the `LogStore`,
 * moving an unreadable snapshot and its logs aside (never deleting them) and starting afresh.
 * Times each phase for the open report.
 */
import * as fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import type { Database, SqlJsStatic } from 'sql.js';
import { movedAsideReasonFile } from './fileCheck';
import { listGenerations, logPath } from './logFile';
import { LogStore, UnreadableSnapshotError, type LogOpenReport, type LogStoreOptions } from './logStore';
import { SCHEMA_VERSION } from './schema';
import { readSnapshotWithSlack } from './snapshotFile';
import { loadSqlJs } from './sqljs';
import { optionsToPass, type ToWorker, type WorkerOpenOptions, type WorkerOpenReport } from './workerProtocol';

/** Default writer lease (ms): how long the write lock may be kept across consecutive write groups. */
const DEFAULT_LEASE_MS = 200;

/** Sentence shown when the journal was written by a newer schema. */
export function newerSchemaMessage(found: number): string {
  return (
    `This chat journal was written by a newer version of Native Agent Chats (schema ${found}; this version knows ${SCHEMA_VERSION}). ` +
    'History can be read, but nothing can be changed until you update the extension.'
  );
}

/** The store's calls back into the worker (see LogStoreOptions). */
export interface StoreHooks {
  readonly onReload: (db: Database) => void;
  readonly checkWritable: () => string | null;
}

/** An opened store and what opening found, with the time (ms) of each phase so far. */
export interface OpenedStore {
  readonly sql: SqlJsStatic;
  /** The opener's compiled WASM (null: sql.js compiled its own). */
  readonly wasm: WebAssembly.Module | null;
  readonly store: LogStore;
  readonly report: LogOpenReport;
  readonly quarantined: WorkerOpenReport['quarantined'];
  /** performance.now() when the worker's code started. */
  readonly started: number;
  readonly wasmMs: number;
  readonly sqljsMs: number;
  readonly readMs: number;
  /** performance.now() when the store was open. */
  readonly openedAt: number;
}

/**
 * Opens the store of `options.file` (see module docstring).
 * @throws what opening throws besides an unreadable snapshot (a missing WASM file, an I/O error).
 */
export async function openStore(options: WorkerOpenOptions, hooks: StoreHooks): Promise<OpenedStore> {
  const started = performance.now();
  // Read the snapshot while sql.js is instantiated (the read runs on libuv's thread pool).
  const snapshot = readSnapshotWithSlack(options.file).catch(() => undefined);
  const wasm = options.precompiledWasm ? await receiveWasm() : null;
  const wasmAt = performance.now();
  const sql: SqlJsStatic = await loadSqlJs(options.wasmPath, wasm ?? undefined);
  const sqljsAt = performance.now();
  const storeOptions = storeOptionsOf(options, sql, hooks);
  let quarantined: WorkerOpenReport['quarantined'] = null;
  let opened: ReturnType<typeof LogStore.open>;
  let readAt = sqljsAt;
  try {
    // A read that failed or raced a missing folder is simply redone by open().
    const bytes = await snapshot;
    readAt = performance.now();
    opened = LogStore.open(bytes === undefined ? storeOptions : { ...storeOptions, snapshot: bytes });
  } catch (error) {
    if (!(error instanceof UnreadableSnapshotError)) throw error;
    const aside = quarantine(options.file, Date.now(), error.message);
    quarantined = { path: aside, reason: error.message };
    opened = LogStore.open(storeOptions);
  }
  return {
    sql, wasm, store: opened.store, report: opened.report, quarantined, started,
    wasmMs: wasmAt - started, sqljsMs: sqljsAt - wasmAt, readMs: readAt - sqljsAt, openedAt: performance.now(),
  };
}

/** The store's options from the worker's (the defaults of the store where the worker sets none). */
function storeOptionsOf(options: WorkerOpenOptions, sql: SqlJsStatic, hooks: StoreHooks): LogStoreOptions {
  return {
    file: options.file,
    sql,
    now: Date.now,
    // Unset, zero or false: the store's default.
    ...optionsToPass(options, ['rotateAtBytes', 'preallocBytes', 'lockTimeoutMs', 'faultInjection'], Boolean),
    leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
    onReload: hooks.onReload,
    checkWritable: hooks.checkWritable,
  };
}

/**
 * Moves an unreadable snapshot and its logs aside as `<file>.unreadable-<stamp>` and
 * `<file>.unreadable-<stamp>.log.<g>` (never deletes them) and, given a `reason`, writes it next to
 * them (`movedAsideReasonFile`), so a later Check Journal, in any window, can still say why.
 * Returns where the snapshot went.
 * @throws the rename's error.
 */
export function quarantine(file: string, stamp: number, reason?: string): string {
  const aside = `${file}.unreadable-${stamp}`;
  fs.renameSync(file, aside);
  for (const g of listGenerations(file)) fs.renameSync(logPath(file, g), `${aside}.log.${g}`);
  if (reason === undefined) return aside;
  try {
    fs.writeFileSync(movedAsideReasonFile(aside), `${JSON.stringify({ reason, movedAt: stamp, schemaVersion: SCHEMA_VERSION })}\n`);
  } catch {
    // The reason is a courtesy (a full disk must not stop the fresh journal from opening); the
    // report then says it was not recorded.
  }
  return aside;
}

/** The opener's first message: sql.js's compiled WASM (null: compile it here). */
function receiveWasm(): Promise<WebAssembly.Module | null> {
  return new Promise((resolve) => {
    parentPort!.once('message', (m: ToWorker) => resolve(m.kind === 'wasm' ? m.module : null));
  });
}
