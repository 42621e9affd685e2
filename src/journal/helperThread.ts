/**
 * The helper thread: one per journal worker, started at its first job and kept until the journal
 * closes. It runs the background jobs one after another: rebuilding the snapshot from closed log
 * generations after a rotation (`compact`), so writes never wait for a compaction, and the
 * integrity check of the snapshot after opening, Check Journal's look at the files, and salvage's read of a moved-aside journal. Each job instantiates sql.js afresh, so its WASM
 * memory (up to the journal's size) is released after the job. It does not exit between jobs:
 * every worker-thread exit risks Node's teardown deadlock (docs/ARCHITECTURE.md), which, once met,
 * also holds every later worker exit of the process.
 *
 * This file is the helper's side; the journal worker's side (starting it, queueing jobs, hearing
 * their ends) is backgroundJobs.ts.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { parentPort, threadId } from 'node:worker_threads';
import type { SqlJsStatic } from 'sql.js';
import type { FileCheck } from '../core/journalCheck';
import { CompactionStoppedError, compact } from './compaction';
import { checkFiles } from './fileCheck';
import { movedAsidePath, readMovedAside } from './salvage/readMovedAside';
import type { SalvageRead } from '../core/salvage';
import { Sequencer } from '../core/sequencer';
import { instantiateSqlJs } from './sqljs';
import { post } from './workerPort';

/**
 * Lowers this thread's CPU priority (nice 10) where the system allows it per thread (Linux: a
 * thread's id is its `/proc/thread-self` entry, and setpriority applies to that one thread), so a
 * compaction or integrity check competes less with the window's own threads. Elsewhere a no-op.
 */
function lowerThreadPriority(): void {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0 && tid !== process.pid) os.setPriority(tid, 10);
  } catch {
    /* not Linux, or not allowed: keep the default priority */
  }
}

/** The background compactor writes the new snapshot 256 KiB at a time, 2 ms apart. */
const COMPACT_PACE = { chunkBytes: 256 * 1024, pauseMs: 2 } as const;

/** A job for the helper thread. */
export type HelperJob =
  | { readonly kind: 'compact'; readonly file: string; readonly below: number; readonly stop: Int32Array }
  | { readonly kind: 'check'; readonly file: string }
  /** Check Journal's look at the files (fileCheck.ts); `id`: the door's request it answers. */
  | { readonly kind: 'checkFiles'; readonly file: string; readonly id: number }
  /** Salvage's read of the journal moved aside as `name` next to `file` (salvage/readMovedAside.ts). */
  | { readonly kind: 'salvageRead'; readonly file: string; readonly name: string; readonly id: number }
  | { readonly kind: 'exit' };

/** The helper's answer at the end of each job (besides `log` lines on the way). */
export type HelperAnswer =
  | { readonly kind: 'compacted' }
  | { readonly kind: 'checked'; readonly problem: string | null }
  /** `error`: why the file check could not run (then `result` is null). */
  | { readonly kind: 'filesChecked'; readonly id: number; readonly result: FileCheck | null; readonly error: string | null }
  | { readonly kind: 'salvageRead'; readonly id: number; readonly result: SalvageRead | null; readonly error: string | null };

/**
 * The helper thread: runs jobs one after another until `exit` (see module docstring). Every job
 * ends with its answer, whatever happened in it, so the journal worker never waits for a lost one.
 */
export function runHelper(data: { wasmPath: string; wasm: WebAssembly.Module | null }): Promise<void> {
  lowerThreadPriority();
  const port = parentPort!;
  const jobs = new Sequencer();
  const runJob = async (job: Exclude<HelperJob, { kind: 'exit' }>): Promise<HelperAnswer> => {
    try {
      // A fresh sql.js each job: the instance, and its WASM memory, is garbage once the job is done.
      const sql = await instantiateSqlJs(data.wasmPath, data.wasm ?? undefined);
      if (job.kind === 'check') return { kind: 'checked', problem: checkIntegrity(sql, job.file) };
      if (job.kind === 'checkFiles') return { kind: 'filesChecked', id: job.id, result: checkFiles(sql, job.file), error: null };
      if (job.kind === 'salvageRead') return { kind: 'salvageRead', id: job.id, result: readMovedAside(sql, movedAsidePath(job.file, job.name)), error: null };
      compactInBackground(sql, job);
    } catch (error) {
      if (job.kind === 'checkFiles') return { kind: 'filesChecked', id: job.id, result: null, error: (error as Error).message };
      if (job.kind === 'salvageRead') return { kind: 'salvageRead', id: job.id, result: null, error: (error as Error).message };
      post({ kind: 'log', line: `[journal] ${job.kind === 'check' ? 'integrity check could not run' : 'compaction failed'}: ${(error as Error).message}` });
    }
    return job.kind === 'check' ? { kind: 'checked', problem: null } : { kind: 'compacted' };
  };
  port.on('message', (job: HelperJob) => {
    void jobs.run(async () => {
      if (job.kind === 'exit') return port.close();
      port.postMessage(await runJob(job));
      collectGarbage();
    });
  });
  return Promise.resolve();
}

let fullGc: (() => void) | null | undefined;

/**
 * Runs a full garbage collection of this thread's heap. The helper idles between jobs, and an idle
 * isolate collects nothing: a finished job's sql.js instance, with its WASM memory (about twice the
 * journal's size during a compaction), stayed allocated until the next job. Measured here: a thread
 * that had built a 147 MB database kept 376 MB RSS after it, and 88 MB after one collection.
 * `gc` is taken from a new context with `--expose-gc` set for that moment only (the idiom of Node's
 * `v8.setFlagsFromString` documentation); when that fails, nothing is collected early.
 */
function collectGarbage(): void {
  if (fullGc === undefined) {
    const existing = (globalThis as { gc?: () => void }).gc;
    if (typeof existing === 'function') fullGc = existing;
    else {
      try {
        v8.setFlagsFromString('--expose-gc');
        fullGc = vm.runInNewContext('gc') as () => void;
      } catch {
        fullGc = null;
      } finally {
        v8.setFlagsFromString('--no-expose-gc');
      }
    }
  }
  fullGc?.();
}

/** One paced background compaction (logs what it did; a stop request is not a failure). */
function compactInBackground(sql: SqlJsStatic, job: Extract<HelperJob, { kind: 'compact' }>): void {
  const started = performance.now();
  let result: ReturnType<typeof compact>;
  try {
    result = compact(sql, job.file, job.below, 0, { ...COMPACT_PACE, shouldStop: () => Atomics.load(job.stop, 0) === 1 });
  } catch (error) {
    if (!(error instanceof CompactionStoppedError)) throw error;
    post({ kind: 'log', line: `[journal] ${error.message}` });
    return;
  }
  if (result) {
    post({ kind: 'log', line: `[journal] compacted ${result.records} record(s) into a ${(result.bytes / 1048576).toFixed(1)} MB snapshot in ${(performance.now() - started).toFixed(0)} ms (background thread ${threadId})` });
  }
}

/** `PRAGMA quick_check` of the snapshot file: the problem in words, or null when sound. */
function checkIntegrity(sql: SqlJsStatic, file: string): string | null {
  try {
    const db = new sql.Database(fs.readFileSync(file));
    try {
      const rows = db.exec('PRAGMA quick_check')[0]?.values.map((r) => String(r[0])) ?? ['no answer'];
      return rows.length !== 1 || rows[0] !== 'ok' ? `SQLite integrity check: ${rows.slice(0, 3).join('; ')}` : null;
    } finally {
      db.close();
    }
  } catch (error) {
    return `SQLite integrity check failed: ${(error as Error).message}`;
  }
}

