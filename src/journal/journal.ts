/**
 * `Journal`: the one door to the chat journal (a SQLite database run by sql.js under the extension's
 * `globalStorageUri`). Callers name an operation of `JournalCore` and its arguments:
 *
 *   const sessions = await journal.read('listSessions');
 *   const result = await journal.write('startTurn', input);   // Result<…, JournalRefusal>
 *
 * The database lives in a worker thread (`worker.ts`, `journalWorker.ts`) with its persistence
 * (`logStore.ts`: snapshot plus fdatasync'ed redo log, shared safely by several processes), so the
 * calling thread — the extension host's, shared by every extension of the window — never waits on
 * SQLite or the disk.
 *
 * Every `write` is one transaction, acknowledged (resolved `{ ok: true, value }`) only once it is
 * on disk. A refused write resolves `{ ok: false, reason, message }` and changed nothing: `read_only`
 * (newer schema, or part of the log unreadable), `storage_failed` (full disk, I/O error, lock),
 * `not_found`, `row_unreadable` (that one chat has a row this build cannot read), `closed`.
 * Programming errors (an unknown operation, an operation of the other kind, a constraint violation)
 * reject. Which operations read and which write is `ops.ts`: `read` takes only reads, `write` only
 * writes, and the worker refuses the other kind at run time too.
 *
 * `onExternalChange` reports sessions other processes (VS Code windows) changed: at once when this
 * thread's watch of the journal's folder sees their commit (commitWatch.ts), else within the
 * worker's poll interval (default 50 ms).
 */
import { Worker } from 'node:worker_threads';
import type { SalvageRead } from '../core/salvage';
import type { FileCheck } from '../core/journalCheck';
import { fail, ok, type Result } from '../core/result';
import { watchCommits, type CommitWatch } from './commitWatch';
import { compileSqlJsWasm } from './wasmModule';
import type { JournalRefusal } from './errors';
import type { OpArgs, OpResult, ReadOp, WriteOp } from './ops';
import { optionsToPass, type FromWorker, type StoreTuning, type ToWorker, type WorkerOpenOptions, type WorkerOpenReport } from './workerProtocol';

export type { JournalOp, OpArgs, OpResult, ReadOp, WriteOp } from './ops';

/** Options of `Journal.open`. Sizes in bytes, times in ms. */
export interface OpenJournalOptions extends StoreTuning {
  /** Absolute path of the snapshot file (`…/journal.sqlite`); its folder is created. */
  readonly file: string;
  /** Absolute path of `sql-wasm.wasm` (the extension's `dist/` copy; tests use node_modules'). */
  readonly wasmPath: string;
  /** Absolute path of the worker script (`dist/journal-worker.js`, or `out/src/journal/worker.js`). */
  readonly workerPath: string;
  /** How often to look for other windows' commits (default 50 ms). */
  readonly pollIntervalMs?: number;
  /**
   * Whether a change in the journal's folder wakes a catch-up at once (default true; commitWatch.ts).
   * False leaves the poll alone: tests that stage one interleaving of two windows set it.
   */
  readonly watchFolder?: boolean;
  /** How long `close` lets the worker exit by itself before terminating it, and then waits again (ms; default 3000). */
  readonly closeGraceMs?: number;
  /**
   * Called while a schema migration rebuilds something over every row at open (migration 4 indexes
   * every chat for search): `done` of `total` rows covered, at most every 100 ms and once at the
   * end, before `open` resolves. For a progress notification; never called when nothing migrates.
   */
  readonly onMigrationProgress?: (progress: MigrationProgress) => void;
}

/** Progress of a migration at open (see `OpenJournalOptions.onMigrationProgress`). */
export interface MigrationProgress {
  /** The schema version being reached. */
  readonly version: number;
  readonly done: number;
  readonly total: number;
}

/** What opening found and did (see `WorkerOpenReport`). */
export type JournalOpenReport = WorkerOpenReport;

type Pending = { resolve: (m: FromWorker) => void; reject: (e: Error) => void };

/** How long `close` lets the worker exit by itself before terminating it (ms). */
const CLOSE_GRACE_MS = 3000;

/**
 * `Journal.open` failed: `message` is the worker's error message (one line, for a notification);
 * `detail` is its stack in the worker thread (for the log only).
 */
export class JournalOpenError extends Error {
  constructor(message: string, readonly detail: string) {
    super(message);
    this.name = 'JournalOpenError';
  }
}

/** The journal (see module docstring). */
export class Journal {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly externalListeners = new Set<(sessionIds: readonly string[]) => void>();
  private readonly logListeners = new Set<(line: string) => void>();
  private closed = false;
  private failure: string | undefined;
  private readOnlyNow: string | null;

  private constructor(
    private readonly worker: Worker,
    readonly report: JournalOpenReport,
    readonly file: string,
    private readonly closeGraceMs = CLOSE_GRACE_MS,
  ) {
    this.readOnlyNow = report.readOnlyReason;
  }

  /**
   * Starts the worker and opens the journal. Rejects (`JournalOpenError` when the worker reported
   * it) when the worker cannot start or open it (sql.js missing, folder not writable); an unreadable
   * file is quarantined, and a migration that cannot run or a disk with no room for a log file opens
   * it read-only (`readOnlyReason`), not a rejection.
   */
  static open(options: OpenJournalOptions): Promise<Journal> {
    const calledAt = performance.timeOrigin + performance.now();
    const pollIntervalMs = options.pollIntervalMs ?? 50;
    const data: { role: 'journal' } & WorkerOpenOptions = {
      role: 'journal',
      file: options.file,
      wasmPath: options.wasmPath,
      pollIntervalMs,
      // Zeros and false pass too: the worker keeps its defaults for them (workerOpen.ts).
      ...optionsToPass(options, ['rotateAtBytes', 'preallocBytes', 'lockTimeoutMs', 'faultInjection', 'integrityCheckDelayMs', 'leaseMs', 'leaseIdleMs']),
      precompiledWasm: true,
    };
    const worker = new Worker(options.workerPath, { workerData: data });
    // Compile sql.js's WASM here (off-thread inside V8) while the worker boots, then hand it over.
    // The worker waits for this message: it must always be sent (null = compile it yourself).
    // (Reading the snapshot here too and transferring it was tried: on 2 vCPUs the read slowed the
    // worker's start more than it saved, 66-75 against 59-67 ms at 10 MB.)
    const handOver = (module: WebAssembly.Module | null) => {
      try {
        worker.postMessage({ kind: 'wasm', module } satisfies ToWorker);
      } catch {
        worker.postMessage({ kind: 'wasm', module: null } satisfies ToWorker); // a host that cannot clone modules
      }
    };
    compileSqlJsWasm(options.wasmPath).then(handOver, () => handOver(null));
    return new Promise((resolve, reject) => {
      const early = (m: FromWorker) => {
        if (m.kind === 'opened') {
          worker.off('message', early);
          worker.off('error', onError);
          const phases = { ...m.report.phases, startMs: m.report.phases.workerStartedAt - calledAt };
          const journal = new Journal(worker, { ...m.report, phases }, options.file, options.closeGraceMs);
          journal.listen();
          if (options.watchFolder ?? true) journal.watchFolder(pollIntervalMs);
          resolve(journal);
        } else if (m.kind === 'progress') {
          options.onMigrationProgress?.({ version: m.version, done: m.done, total: m.total });
        } else if (m.kind === 'openFailed') {
          void worker.terminate();
          reject(new JournalOpenError(`The chat journal could not be opened: ${m.message}`, m.detail));
        }
      };
      const onError = (e: Error) => reject(new Error(`The chat journal's worker failed to start: ${e.message}`));
      worker.on('message', early);
      worker.once('error', onError);
    });
  }

  /** True when every write is refused (see `readOnlyReason`). */
  get readOnly(): boolean {
    return this.readOnlyNow !== null;
  }

  /** Why every write is refused now, or null. */
  get readOnlyReason(): string | null {
    return this.readOnlyNow;
  }

  /** Subscribes to other processes' changes (session ids). Returns an unsubscribe function. */
  onExternalChange(listener: (sessionIds: readonly string[]) => void): () => void {
    this.externalListeners.add(listener);
    return () => this.externalListeners.delete(listener);
  }

  /** Subscribes to the worker's log lines (compactions, poll failures). */
  onLog(listener: (line: string) => void): () => void {
    this.logListeners.add(listener);
    return () => this.logListeners.delete(listener);
  }

  /**
   * Runs a read operation (`READ_OPS`) on the current journal state (other windows' commits
   * included). Rejects when the worker refuses it (an operation that is not a read, cast past the
   * compiler) or the operation throws.
   */
  async read<K extends ReadOp>(op: K, ...args: OpArgs<K>): Promise<OpResult<K>> {
    const m = await this.request({ kind: 'read', id: 0, op, args });
    if (m.kind === 'result') return m.value as OpResult<K>;
    throw new Error(m.kind === 'error' || m.kind === 'refused' ? m.message : `unexpected reply ${m.kind}`);
  }

  /** Runs write operation K (`WRITE_OPS`) as one durable transaction (see module docstring). */
  async write<K extends WriteOp>(op: K, ...args: OpArgs<K>): Promise<Result<OpResult<K>, JournalRefusal>> {
    if (this.closed) return fail('closed', 'The chat journal is closed.');
    if (this.failure) return fail('storage_failed', this.failure);
    const m = await this.request({ kind: 'write', id: 0, op, args }).catch((e: Error) => ({ kind: 'refused', reason: 'storage_failed', message: e.message }) as const);
    if (m.kind === 'result') return ok(m.value as OpResult<K>);
    if (m.kind === 'refused') return fail(m.reason, m.message);
    throw new Error(m.kind === 'error' ? m.message : `unexpected reply ${m.kind}`);
  }

  /**
   * Check Journal's look at the files on disk (src/journal/fileCheck.ts: the snapshot's integrity as
   * on disk, each log generation read to its end, the journals moved aside), run in the journal's
   * helper thread, changing nothing. Rejects when the check could not run or the journal is closed.
   */
  async checkFiles(): Promise<FileCheck> {
    const m = await this.request({ kind: 'checkFiles', id: 0 });
    if (m.kind === 'result') return m.value as FileCheck;
    throw new Error(m.kind === 'error' || m.kind === 'refused' ? m.message : `unexpected reply ${m.kind}`);
  }

  /**
   * Salvage's read of the journal moved aside next to this one as `name`
   * (`journal.sqlite.unreadable-<ms>`; src/journal/salvage/readMovedAside.ts), run in the journal's
   * helper thread, reading its files only. Rejects when `name` is not such a file of this journal,
   * it cannot be read at all, or the journal is closed.
   */
  async readMovedAside(name: string): Promise<SalvageRead> {
    const m = await this.request({ kind: 'salvageRead', id: 0, name });
    if (m.kind === 'result') return m.value as SalvageRead;
    throw new Error(m.kind === 'error' || m.kind === 'refused' ? m.message : `unexpected reply ${m.kind}`);
  }

  /** Asks the worker to start a compaction now (tests, benchmarks). */
  async compactNow(): Promise<void> {
    await this.request({ kind: 'compact', id: 0 });
  }

  /**
   * Waits for queued operations, then lets the worker finish: after `close` it has nothing left to
   * run and exits by itself. `worker.terminate()` is the fallback after `closeGraceMs`: terminating
   * a worker while V8 still compiles its code on a background thread can abort the whole process
   * (Node 20: "NodePlatform::ForIsolate … Assertion failed", seen once in this suite). Later writes answer `closed`.
   *
   * Never waits longer than twice `closeGraceMs` (default 3000 ms, so 6 s). A worker thread can
   * stay stuck in Node's own teardown: it waits for V8's background compile jobs while one of them
   * waits for a garbage collection only that thread can run (a known Node.js teardown deadlock;
   * docs/ARCHITECTURE.md tells how it was seen). No call reaches a thread stuck there,
   * `terminate()` included. By then the journal is closed (its files and lock released, nothing left
   * to write), so `close` resolves, says so on `onLog`, and unrefs the thread so it holds nothing up.
   * @returns once the worker exited or was given up on; never rejects.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watch?.close();
    if (!this.failure) await this.request({ kind: 'close', id: 0 }, true).catch(() => undefined);
    if (this.exited) return;
    let timer: NodeJS.Timeout | undefined;
    const exited = new Promise<boolean>((resolve) => this.worker.once('exit', () => resolve(true)));
    const gaveUp = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => {
        void this.worker.terminate();
        timer = setTimeout(() => resolve(false), this.closeGraceMs);
      }, this.failure ? 0 : this.closeGraceMs);
    });
    const done = await Promise.race([exited, gaveUp]);
    clearTimeout(timer);
    if (!done) {
      this.worker.unref();
      for (const l of this.logListeners) l(`[journal] the journal's worker thread did not exit within ${(2 * this.closeGraceMs) / 1000} s of closing (a known Node.js teardown deadlock, nodejs/node#54918); the journal itself was closed`);
    }
  }

  private exited = false;
  private watch: CommitWatch | undefined;

  /**
   * Watches the journal's folder from this thread and tells the worker (`changed`) when the snapshot
   * or a log changed, so another window's commit is read at once rather than up to `pollIntervalMs`
   * later. Here rather than in the worker: each thread's event loop holds its own inotify instance
   * (Linux allows a user 128 by default), while every journal a process opens shares this one.
   * A watch that cannot start or breaks is said on `onLog` (after the caller could listen); the
   * worker's poll carries on.
   */
  private watchFolder(pollIntervalMs: number): void {
    const failed = (error: Error) => setImmediate(() => {
      for (const l of this.logListeners) l(`[journal] watching the journal's folder failed (other windows' changes still arrive every ${pollIntervalMs} ms): ${error.message}`);
    });
    this.watch = watchCommits(this.file, () => {
      if (!this.closed && !this.failure) this.worker.postMessage({ kind: 'changed' } satisfies ToWorker);
    }, failed);
  }

  private request(message: ToWorker, evenIfClosed = false): Promise<FromWorker> {
    if (this.failure) return Promise.reject(new Error(this.failure));
    if (this.closed && !evenIfClosed) return Promise.reject(new Error('The chat journal is closed.'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id });
    });
  }

  private listen(): void {
    this.worker.on('message', (m: FromWorker) => {
      if (m.kind === 'external') {
        this.readOnlyNow = m.readOnlyReason;
        for (const l of this.externalListeners) l(m.sessionIds);
        return;
      }
      if (m.kind === 'log') {
        for (const l of this.logListeners) l(m.line);
        return;
      }
      if (m.kind === 'result' || m.kind === 'refused' || m.kind === 'error') {
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        p?.resolve(m);
      }
    });
    const die = (why: string) => {
      this.failure = `The chat journal stopped: ${why}`;
      this.watch?.close();
      for (const p of this.pending.values()) p.reject(new Error(this.failure));
      this.pending.clear();
      for (const l of this.logListeners) l(`[journal] ${this.failure}`);
    };
    this.worker.on('error', (e) => die(e.message));
    this.worker.on('exit', (code) => {
      this.exited = true;
      if (!this.closed) die(`its worker exited (code ${code})`);
    });
  }
}
