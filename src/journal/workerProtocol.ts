/**
 * Messages between the `Journal` door (extension-host thread) and the journal worker thread.
 * Plain data only (structured clone).
 */
import type { JournalRefusal } from './errors';
import type { ReadOp, WriteOp } from './ops';

/** Store options the door passes on to the worker as given (unset: the worker's defaults). Sizes in bytes, times in ms. */
export interface StoreTuning {
  /** Start a new log generation (and compact the old ones) past this size (default 2 MiB). */
  readonly rotateAtBytes?: number;
  readonly preallocBytes?: number;
  readonly lockTimeoutMs?: number;
  /** Tests only (see LogStoreOptions.faultInjection). */
  readonly faultInjection?: boolean;
  /** Delay before the background integrity check of the snapshot (default 1500 ms). */
  readonly integrityCheckDelayMs?: number;
  /** Writer lease in ms (see LogStoreOptions.leaseMs; default 200, 0 = take the lock per write group). */
  readonly leaseMs?: number;
  /** The lease is let go after this long without a queued write (ms, default 2; tests). */
  readonly leaseIdleMs?: number;
}

/** Options the worker opens the journal with. Sizes in bytes, times in ms. */
export interface WorkerOpenOptions extends StoreTuning {
  readonly file: string;
  readonly wasmPath: string;
  /** How often the worker looks for other processes' commits. */
  readonly pollIntervalMs: number;
  /** True: the first message is `{kind: 'wasm'}` with sql.js's WASM compiled by the opener. */
  readonly precompiledWasm?: boolean;
}

/**
 * The entries of `options` named in `keys` whose value `keep` accepts (default: those not
 * undefined), as an object to spread into another layer's options: the rest keep that layer's
 * defaults. The one rule for passing options on, from the door to the worker and from the worker
 * to its store.
 */
export function optionsToPass<T extends object, K extends keyof T>(
  options: T,
  keys: readonly K[],
  keep: (value: T[K]) => boolean = (value) => value !== undefined,
): Partial<Pick<T, K>> {
  const passed: Partial<Pick<T, K>> = {};
  for (const key of keys) if (keep(options[key])) passed[key] = options[key];
  return passed;
}

/**
 * Extension host → worker. `op` is typed for the sender; the worker still checks it (`refusalOf`),
 * since nothing types a message once it crossed the thread boundary.
 */
export type ToWorker =
  | { readonly kind: 'read'; readonly id: number; readonly op: ReadOp; readonly args: readonly unknown[] }
  | { readonly kind: 'write'; readonly id: number; readonly op: WriteOp; readonly args: readonly unknown[] }
  | { readonly kind: 'close'; readonly id: number }
  | { readonly kind: 'compact'; readonly id: number }
  /** Check Journal's look at the files, run in the helper thread; answered with a `FileCheck`. */
  | { readonly kind: 'checkFiles'; readonly id: number }
  /** Salvage's read of the journal moved aside as `name`, run in the helper thread; answered with a `SalvageRead`. */
  | { readonly kind: 'salvageRead'; readonly id: number; readonly name: string }
  /**
   * The journal's folder changed (commitWatch.ts, watched by the opening thread): catch up with other
   * processes' commits now rather than at the next poll. A hint: the catch-up may find nothing.
   */
  | { readonly kind: 'changed' }
  /** First message when `precompiledWasm`: the compiled module, or null if compiling failed. */
  | { readonly kind: 'wasm'; readonly module: WebAssembly.Module | null };

/** What the worker found and did when it opened the journal. */
export interface WorkerOpenReport {
  readonly created: boolean;
  readonly versionFound: number;
  readonly version: number;
  readonly readOnlyReason: string | null;
  readonly quarantined: { readonly path: string; readonly reason: string } | null;
  readonly recordsReplayed: number;
  readonly tornTailCut: boolean;
  /** Milliseconds the worker spent opening (load + replay + migrations). */
  readonly openMs: number;
  /** Where the time to open went (see OpenPhases). */
  readonly phases: OpenPhases;
}

/**
 * Where opening the journal went, in ms, each phase measured from the end of the one before. The
 * worker fills all but `startMs`, which the opener computes from `workerStartedAt`.
 */
export interface OpenPhases {
  /** From `Journal.open` to the worker's code running: starting the thread and loading its bundle. */
  readonly startMs: number;
  /** Then waiting for the opener's compiled WASM. */
  readonly wasmMs: number;
  /** Instantiating sql.js. */
  readonly sqljsMs: number;
  /** Waiting for the rest of the snapshot's bytes (read on libuv's thread pool since the start). */
  readonly readMs: number;
  /** Building the database and its first queries (LogOpenReport.loadMs). */
  readonly loadMs: number;
  /** Replaying the log (LogOpenReport.replayMs). */
  readonly replayMs: number;
  /** Checking or running the schema migrations (and a new journal's first compaction). */
  readonly migrateMs: number;
  /** `performance.timeOrigin + performance.now()` when the worker's code started (ms, shared clock). */
  readonly workerStartedAt: number;
}

/** Worker → extension host. */
export type FromWorker =
  | { readonly kind: 'opened'; readonly report: WorkerOpenReport }
  /** A migration running at open: `done` of `total` rows (keys) of its backfill covered. Before `opened`. */
  | { readonly kind: 'progress'; readonly version: number; readonly done: number; readonly total: number }
  /** `message`: the error's own message; `detail`: its stack, for the log only. */
  | { readonly kind: 'openFailed'; readonly message: string; readonly detail: string }
  | { readonly kind: 'result'; readonly id: number; readonly value: unknown }
  | { readonly kind: 'refused'; readonly id: number; readonly reason: JournalRefusal; readonly message: string }
  | { readonly kind: 'error'; readonly id: number; readonly message: string }
  /** Other processes committed changes to these sessions (and `readOnlyReason` if that changed). */
  | { readonly kind: 'external'; readonly sessionIds: readonly string[]; readonly readOnlyReason: string | null }
  | { readonly kind: 'log'; readonly line: string };
