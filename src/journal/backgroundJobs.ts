/**
 * The journal worker's side of its helper thread (helperThread.ts): starts it at the first job,
 * schedules compactions after rotations (one at a time; a rotation during one asks for another
 * after it), runs a forced compaction right here, and asks for the integrity check of the snapshot
 * and Check Journal's look at the files.
 */
import { Worker } from 'node:worker_threads';
import type { SqlJsStatic } from 'sql.js';
import { compact } from './compaction';
import type { HelperAnswer, HelperJob } from './helperThread';
import { listGenerations } from './logFile';
import type { LogStore } from './logStore';
import { post } from './workerPort';
import type { FromWorker } from './workerProtocol';

/** What the background jobs need of the journal worker. */
export interface BackgroundJobsHost {
  /** The worker script (its `helper` role is the helper thread). */
  readonly entryFile: string;
  /** The snapshot's path. */
  readonly file: string;
  readonly wasmPath: string;
  /** sql.js's compiled WASM, shared with the helper (null: it compiles its own). */
  readonly wasm: WebAssembly.Module | null;
  /** This worker's sql.js (for a forced compaction). */
  readonly sql: SqlJsStatic;
  readonly store: () => LogStore;
  /** True once the journal closed: no new compaction starts. */
  readonly closed: () => boolean;
  /** The integrity check's answer: the problem in words, or null when the snapshot is sound. */
  readonly integrityChecked: (problem: string | null) => void;
}

/** The helper thread and the compactions of one journal worker. */
export class BackgroundJobs {
  private helper: Worker | undefined;
  private compacting = false;
  private compactAgain = false;
  /**
   * The running compactor's stop flag. Set to 1 when the journal closes, or when a forced compaction
   * takes over its work: it stops at its next stage or chunk and releases its lock (terminating it
   * mid-compaction left the compaction lock behind, and every window's next compaction waited 30 s
   * for it to age out; a forced compaction waited for the whole paced background one).
   */
  private compactorStop: Int32Array | undefined;

  constructor(private readonly host: BackgroundJobsHost) {}

  /**
   * Compacts the closed log generations in the helper thread (after one running now, if any).
   * `force` (new or just-migrated journal): closes the current generation and compacts it right
   * here, so the snapshot on disk (what `probeUserVersion` reads) carries the schema version at once.
   * @throws what a forced compaction or its rotation throws.
   */
  compactSoon(force = false): void {
    if (this.compacting && !force) {
      this.compactAgain = true;
      return;
    }
    const store = this.host.store();
    if (force) {
      if (this.compactorStop) Atomics.store(this.compactorStop, 0, 1); // this compaction covers its generations too
      store.rotateNow();
      compact(this.host.sql, this.host.file, store.generation, 60_000);
      return;
    }
    const below = store.generation;
    if (listGenerations(this.host.file).filter((g) => g < below).length === 0) return;
    this.compactorStop = new Int32Array(new SharedArrayBuffer(4));
    this.compacting = true;
    this.thread().postMessage({ kind: 'compact', file: this.host.file, below, stop: this.compactorStop } satisfies HelperJob);
  }

  /** Asks the helper for the integrity check of the snapshot (answered through `integrityChecked`). */
  checkIntegrity(): void {
    this.thread().postMessage({ kind: 'check', file: this.host.file } satisfies HelperJob);
  }

  /**
   * Asks the helper for Check Journal's look at the files (fileCheck.ts); its answer goes to the
   * door as the result of request `id` (an error when the check could not run).
   */
  checkFiles(id: number): void {
    this.thread().postMessage({ kind: 'checkFiles', file: this.host.file, id } satisfies HelperJob);
  }

  /** Asks the helper for salvage's read of the moved-aside journal `name`; its answer goes to the door as the result of request `id`. */
  salvageRead(id: number, name: string): void {
    this.thread().postMessage({ kind: 'salvageRead', file: this.host.file, name, id } satisfies HelperJob);
  }

  /** The journal closed: a running compaction stops soon; the helper exits after its job. */
  close(): void {
    if (this.compactorStop) Atomics.store(this.compactorStop, 0, 1);
    this.helper?.postMessage({ kind: 'exit' } satisfies HelperJob);
  }

  /** The helper thread, started on first use; it answers each job with `compacted` or `checked`. */
  private thread(): Worker {
    if (this.helper) return this.helper;
    const { entryFile, wasmPath, wasm } = this.host;
    const started = new Worker(entryFile, { workerData: { role: 'helper', wasmPath, wasm } });
    started.on('message', (m: FromWorker | HelperAnswer) => {
      if (m.kind === 'compacted') return this.compactionEnded();
      if (m.kind === 'checked') return this.host.integrityChecked(m.problem);
      if (m.kind === 'filesChecked') return post(m.result ? { kind: 'result', id: m.id, value: m.result } : { kind: 'error', id: m.id, message: `the journal's files could not be checked: ${m.error}` });
      if (m.kind === 'salvageRead') return post(m.result ? { kind: 'result', id: m.id, value: m.result } : { kind: 'error', id: m.id, message: `the moved-aside journal could not be read: ${m.error}` });
      post(m);
    });
    started.on('error', (e) => post({ kind: 'log', line: `[journal] the background thread failed: ${e.message}` }));
    started.on('exit', () => {
      if (this.helper === started) this.helper = undefined;
      if (this.compacting) this.compactionEnded(); // died mid-job: the next rotation tries again
    });
    this.helper = started;
    return started;
  }

  private compactionEnded(): void {
    this.compacting = false;
    this.compactorStop = undefined;
    if (this.compactAgain && !this.host.closed()) {
      this.compactAgain = false;
      this.compactSoon();
    }
  }
}
