/**
 * `JournalWorker`: the journal worker thread's state and its answers. It opens the store
 * (workerOpen.ts), migrates the schema (or stays read-only), reports `opened`, then serves the
 * door's messages through its queue (writeQueue.ts): reads one at a time, consecutive writes as one
 * group commit, and catches up with other processes' commits when the opening thread says the
 * journal's files changed (`changed`, commitWatch.ts) and every `pollIntervalMs` ms whatever happens. Compactions and
 * the integrity check run in its helper thread (backgroundJobs.ts).
 *
 * Read-only: set once, never cleared while open — a newer build's schema (at open, or replayed from
 * another window's log), a part of the log that cannot be read, a folder that cannot be written (a
 * read-only mount, no permission), a migration that cannot run, or a snapshot the integrity check
 * finds damaged. Writes are then refused with its reason.
 */
import { parentPort } from 'node:worker_threads';
import * as fs from 'node:fs';
import type { Database } from 'sql.js';
import { BackgroundJobs } from './backgroundJobs';
import { JournalCore } from './core';
import { JournalRefusedError } from './errors';
import type { Outcome } from './groupCommit';
import type { LogStore } from './logStore';
import { refusalOf, runOperation } from './ops';
import { migrateOrStay } from './plainErrors';
import { MIGRATIONS, SCHEMA_VERSION } from './schema';
import { newerSchemaMessage, openStore, type OpenedStore } from './workerOpen';
import { post } from './workerPort';
import type { ToWorker, WorkerOpenOptions } from './workerProtocol';
import { WriteQueue, type OtherMessage, type WriteMessage } from './writeQueue';

/** Least time between two progress messages of a migration (ms): a notification needs no more. */
const PROGRESS_EVERY_MS = 100;

/** A migration's progress callback that posts `progress` to the door, at most every PROGRESS_EVERY_MS and at the end. */
function migrationProgress(version: number): (done: number, total: number) => void {
  let last = performance.now();
  return (done, total) => {
    const now = performance.now();
    if (done < total && now - last < PROGRESS_EVERY_MS) return;
    last = now;
    post({ kind: 'progress', version, done, total });
  };
}

/** The journal worker (see module docstring). */
export class JournalWorker {
  private core: JournalCore;
  private readonly store: LogStore;
  /** Why writes are refused (see module docstring), or null. */
  private readOnlyReason: string | null = null;
  // Only records applied from the log (another process's commits) can bring a newer schema: this
  // process's own writes never raise user_version past SCHEMA_VERSION. So the check reads
  // user_version again only when the store applied something since (it ran three times per write).
  private versionCheckedAt = -1;
  private newerThanThis: string | null = null;
  private closed = false;
  private readonly jobs: BackgroundJobs;
  private readonly queue: WriteQueue;
  private readonly poll: NodeJS.Timeout;
  private readonly checkTimer: NodeJS.Timeout;

  /**
   * Opens the journal of `options` in this thread and serves it until `close`. `entryFile`: the
   * worker script, started again in its `helper` role for the helper thread.
   * @throws what opening throws (the caller reports `openFailed`).
   */
  static async start(options: WorkerOpenOptions, entryFile: string): Promise<void> {
    // The store calls back from its first write on (the migration, inside the constructor).
    const bound: { worker?: JournalWorker } = {};
    const opened = await openStore(options, {
      onReload: (db) => bound.worker?.reloaded(db),
      checkWritable: () => bound.worker?.checkWritable() ?? null,
    });
    new JournalWorker(options, entryFile, opened, bound);
  }

  private constructor(
    private readonly options: WorkerOpenOptions,
    entryFile: string,
    opened: OpenedStore,
    bound: { worker?: JournalWorker },
  ) {
    this.store = opened.store;
    this.core = this.newCore(this.store.db);
    bound.worker = this;
    this.jobs = new BackgroundJobs({
      entryFile, file: options.file, wasmPath: options.wasmPath, wasm: opened.wasm, sql: opened.sql,
      store: () => this.store,
      closed: () => this.closed,
      integrityChecked: (problem) => this.integrityChecked(problem),
    });
    this.reportOpened(opened);
    // Integrity check of the snapshot in the helper thread (a full check of a large file takes a while
    // and must not hold up opening or writes). A snapshot with unreadable pages makes the journal read-only.
    this.checkTimer = setTimeout(() => {
      if (!fs.existsSync(options.file) || this.closed) return;
      this.jobs.checkIntegrity();
    }, options.integrityCheckDelayMs ?? 1500);
    this.checkTimer.unref?.();
    this.poll = setInterval(() => this.pollOnce(), options.pollIntervalMs);
    this.queue = new WriteQueue(
      {
        writeGroup: (group) => this.writeGroup(group),
        handle: (message) => this.handle(message),
        closed: () => this.closed,
        holdsLease: () => this.store.holdsLease,
        releaseLease: () => this.store.releaseLease(),
      },
      options.leaseIdleMs,
    );
    parentPort!.on('message', (message: ToWorker) => this.queue.push(message));
  }

  private newCore(db: Database): JournalCore {
    return new JournalCore(db, (sqlText, params) => this.store.record(sqlText, params));
  }

  /** The store reloaded its database from disk (another window compacted past it). */
  private reloaded(db: Database): void {
    this.core = this.newCore(db);
  }

  /** The store's check after catching up, before a write: the reason to refuse it, or null. */
  private checkWritable(): string | null {
    this.readOnlyReason ??= this.newerSchema();
    return this.readOnlyReason;
  }

  /** Migrates (or stays read-only) and posts `opened`, then the notes of opening to the log. */
  private reportOpened(opened: OpenedStore): void {
    const { report } = opened;
    const created = !report.snapshotFound && report.recordsReplayed === 0;
    const versionFound = this.core.userVersion();
    this.readOnlyReason = report.unreadable ?? report.unwritable;
    if (!this.readOnlyReason && versionFound > SCHEMA_VERSION) this.readOnlyReason = newerSchemaMessage(versionFound);
    // Said on the log once the opener listens (a failed migration's error, a failed compaction).
    const openNotes = this.readOnlyReason ? [] : this.migrate(versionFound, report.snapshotFound);
    if (this.readOnlyReason && created) this.emptySchemaInMemory();
    const version = this.core.userVersion();
    const phases = {
      startMs: 0, // the opener's to fill in
      wasmMs: opened.wasmMs,
      sqljsMs: opened.sqljsMs,
      readMs: opened.readMs,
      loadMs: report.loadMs,
      replayMs: report.replayMs,
      migrateMs: performance.now() - opened.openedAt,
      workerStartedAt: performance.timeOrigin + opened.started,
    };
    const { readOnlyReason } = this;
    post({
      kind: 'opened',
      report: { created, versionFound, version, readOnlyReason, quarantined: opened.quarantined, recordsReplayed: report.recordsReplayed, tornTailCut: report.tornTailCut, openMs: performance.now() - opened.started, phases },
    });
    for (const note of openNotes) post({ kind: 'log', line: `[journal] ${note}` });
  }

  /**
   * Runs the migrations up to SCHEMA_VERSION, then compacts a new or migrated journal at once.
   * Returns the notes for the log.
   */
  private migrate(versionFound: number, snapshotFound: boolean): string[] {
    const notes: string[] = [];
    // Each migration is its own logged transaction; a process that migrated first leaves nothing to
    // do. A journal already at this version needs no lock to know it (versions only go up). One that
    // cannot run leaves the journal read-only at the version it has (plainErrors.ts).
    const migrated = versionFound < SCHEMA_VERSION
      ? migrateOrStay(() => this.store.write(() => this.core.migrateOne(MIGRATIONS, migrationProgress(this.core.userVersion() + 1)), () => []).value, () => this.core.userVersion(), SCHEMA_VERSION, this.options.file)
      : undefined;
    this.readOnlyReason = migrated?.readOnlyReason ?? null;
    if (migrated?.detail) notes.push(migrated.detail);
    try {
      if (!this.readOnlyReason && (versionFound < SCHEMA_VERSION || !snapshotFound)) this.jobs.compactSoon(true);
    } catch (error) {
      // The journal is open and its log takes writes; the next rotation compacts again.
      notes.push(`compacting after opening failed: ${(error as Error).message}`);
    }
    return notes;
  }

  /**
   * A journal that does not exist yet and cannot be made (its folder cannot be written, the disk is
   * full) gets this version's tables in memory only, unlogged, so it reads as empty instead of
   * failing every read. Nothing can reach the disk: every write is refused, and without a log
   * there is nothing to catch up with.
   */
  private emptySchemaInMemory(): void {
    while (this.core.migrateOne(MIGRATIONS) !== undefined) {
      // one migration per call, recorded nowhere (no write group is open)
    }
  }

  /** The user_version check, redone only when the store applied records since (see versionCheckedAt). */
  private newerSchema(): string | null {
    if (this.store.applied === this.versionCheckedAt) return this.newerThanThis;
    this.versionCheckedAt = this.store.applied;
    const version = this.core.userVersion();
    this.newerThanThis = version > SCHEMA_VERSION ? newerSchemaMessage(version) : null;
    return this.newerThanThis;
  }

  /** Re-derives read-only (newer schema replayed, part of the log unreadable or unwritable); true if it changed. */
  private checkVersion(): boolean {
    const before = this.readOnlyReason;
    this.readOnlyReason ??= this.store.unreadableReason ?? this.store.unwritableReason ?? this.newerSchema();
    return this.readOnlyReason !== before;
  }

  private integrityChecked(problem: string | null): void {
    if (problem && !this.readOnlyReason) {
      this.readOnlyReason =
        `Part of the chat journal (${this.options.file}) cannot be read: ${problem}. ` +
        'History that can be read is shown; nothing can be changed until the file is repaired or moved aside.';
      post({ kind: 'log', line: `[journal] integrity check failed: ${problem}` });
      post({ kind: 'external', sessionIds: [], readOnlyReason: this.readOnlyReason });
    }
  }

  /** Applies other processes' commits and tells the door which sessions changed. */
  private catchUpAndTell(): void {
    const touched = this.store.catchUp();
    const changed = this.checkVersion();
    if (touched.size > 0 || changed) post({ kind: 'external', sessionIds: [...touched], readOnlyReason: this.readOnlyReason });
  }

  private pollOnce(): void {
    try {
      this.catchUpAndTell();
    } catch (error) {
      post({ kind: 'log', line: `[journal] reading other windows' changes failed: ${(error as Error).message}` });
    }
  }

  private reply(id: number, error: unknown): void {
    if (error instanceof JournalRefusedError) post({ kind: 'refused', id, reason: error.reason, message: error.message });
    else post({ kind: 'error', id, message: (error as Error).stack ?? String(error) });
  }

  /** Consecutive writes waiting in the queue commit as one group (one lock, one fdatasync). */
  private writeGroup(group: WriteMessage[]): void {
    // Read-only may be found before the group (a poll), or inside it (its catch-up replays a newer
    // build's migration: `checkWritable`); either way the door must hear of it.
    const reasonBefore = this.readOnlyReason;
    this.checkVersion();
    const runnable = group.filter((m) => {
      const refusal = refusalOf('write', m.op);
      if (this.readOnlyReason) post({ kind: 'refused', id: m.id, reason: 'read_only', message: this.readOnlyReason });
      else if (refusal) post({ kind: 'error', id: m.id, message: refusal });
      else return true;
      return false;
    });
    if (runnable.length === 0) {
      if (this.readOnlyReason !== reasonBefore) post({ kind: 'external', sessionIds: [], readOnlyReason: this.readOnlyReason });
      return;
    }
    this.commit(runnable);
    // What the write's catch-up applied from other windows must reach this window's views too.
    const caughtUp = this.store.takeCaughtUp();
    this.checkVersion();
    if (this.readOnlyReason !== reasonBefore || caughtUp.size > 0) post({ kind: 'external', sessionIds: [...caughtUp], readOnlyReason: this.readOnlyReason });
  }

  /** Commits `runnable` as one group and answers each message. */
  private commit(runnable: WriteMessage[]): void {
    this.core.takeTouched();
    let answered = false;
    const answer = (outcomes: readonly Outcome[]) => {
      answered = true;
      // What the write's catch-up applied from other windows is told before the write's results:
      // a view must get another window's event on a run before this window's later ones on it.
      const caughtUp = this.store.takeCaughtUp();
      if (caughtUp.size > 0) post({ kind: 'external', sessionIds: [...caughtUp], readOnlyReason: this.readOnlyReason });
      outcomes.forEach((o, i) => (o.ok ? post({ kind: 'result', id: runnable[i]!.id, value: o.value }) : this.reply(runnable[i]!.id, o.error)));
    };
    try {
      // Answered as soon as the group is on disk (before the in-memory COMMIT), or after a refusal.
      const { outcomes, rotated, acknowledged } = this.store.writeGroup(
        runnable.map((m) => () => runOperation(this.core, m.op, m.args)),
        () => this.core.takeTouched(),
        answer,
      );
      if (!acknowledged) answer(outcomes);
      if (rotated) this.jobs.compactSoon();
      const rotationFailure = this.store.takeRotationFailure();
      if (rotationFailure) post({ kind: 'log', line: `[journal] ${rotationFailure}` });
    } catch (error) {
      this.core.takeTouched();
      if (answered) post({ kind: 'log', line: `[journal] after a saved write: ${(error as Error).message}` });
      else for (const m of runnable) this.reply(m.id, error);
    }
  }

  /** A read, a close or a compaction request. */
  private handle(message: OtherMessage): void {
    if (message.kind === 'close') return this.close(message.id);
    if (message.kind === 'compact') {
      this.jobs.compactSoon(true);
      post({ kind: 'result', id: message.id, value: null });
      return;
    }
    if (message.kind === 'wasm') return; // only ever the first message, taken by receiveWasm()
    if (message.kind === 'changed') return this.pollOnce();
    if (message.kind === 'checkFiles') return this.jobs.checkFiles(message.id); // answered by the helper thread
    if (message.kind === 'salvageRead') return this.jobs.salvageRead(message.id, message.name); // so is this
    // Only a read runs here: a write run as one would change this database without logging it.
    const refusal = refusalOf('read', message.op);
    if (refusal) {
      post({ kind: 'error', id: message.id, message: refusal });
      return;
    }
    try {
      this.catchUpAndTell();
      post({ kind: 'result', id: message.id, value: runOperation(this.core, message.op, message.args) });
    } catch (error) {
      this.reply(message.id, error);
    }
  }

  private close(id: number): void {
    clearInterval(this.poll);
    clearTimeout(this.checkTimer);
    this.queue.stop();
    this.store.close();
    this.store.db.close();
    post({ kind: 'result', id, value: null });
    this.jobs.close(); // a running compaction stops soon; the helper exits after its job, this thread after it
    parentPort!.close();
    this.closed = true;
  }
}
