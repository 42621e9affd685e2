/**
 * `RunContext`: one run this window drives — its abort signal, its event ledger, why the journal
 * refused it (if it did), and the boundary requests its agent waits on.
 *
 * The run context is the one owner of boundary waiters: an agent's wait is registered with
 * `waitFor`, and every answer (a decision here, one taken in another window, Stop, the end of the
 * run) reaches the agent through `deliver`, the one place that resolves a waiter, exactly once.
 */
import type { BoundaryOutcome } from './agent';
import { RunLedger } from './runLedger';
import { runJournal, type RuntimeScope } from './scope';

/** A run this window drives (see module docstring). */
export class RunContext {
  readonly abort = new AbortController();
  readonly ledger: RunLedger;
  /** Resolves when the run has ended (its end journaled, or given up). */
  done: Promise<void> = Promise.resolve();
  /** Why the journal refused a write of the run (it ends as `journal_refused`), if it did. */
  refused: string | undefined;
  /** Requests the agent waits on and nobody has answered yet, by request id. */
  private readonly waiting = new Map<string, (outcome: BoundaryOutcome) => void>();
  /** Requests an answer was claimed for and is still being journaled, by request id. */
  private readonly claimed = new Map<string, (outcome: BoundaryOutcome) => void>();

  constructor(
    private readonly scope: RuntimeScope,
    readonly runId: string,
    readonly turnId: string,
    readonly sessionId: string,
    flushIntervalMs?: number,
  ) {
    this.ledger = new RunLedger(
      runJournal(scope), runId, scope.now,
      (events) => scope.notifier.publish(sessionId, events),
      (message) => this.refuse(message),
      flushIntervalMs,
    );
  }

  /** Whether the run is stopping or ended (Stop, a refused write, or the host shutting down). */
  get aborted(): boolean {
    return this.abort.signal.aborted;
  }

  /** Registers the agent's wait for `requestId`; resolves with the answer `deliver` gives. */
  waitFor(requestId: string): Promise<BoundaryOutcome> {
    return new Promise<BoundaryOutcome>((resolve) => this.waiting.set(requestId, resolve));
  }

  /** Ids of the requests the agent waits on and nobody has claimed. */
  waitingIds(): string[] {
    return [...this.waiting.keys()];
  }

  /** Whether the agent waits on `requestId` and nobody has claimed its answer. */
  isWaiting(requestId: string): boolean {
    return this.waiting.has(requestId);
  }

  /**
   * Claims the answer to `requestId` before journaling it, so no one else answers it meanwhile.
   * False when nobody waits on it or its answer was claimed already.
   */
  claim(requestId: string): boolean {
    const resolve = this.waiting.get(requestId);
    if (!resolve) return false;
    this.waiting.delete(requestId);
    this.claimed.set(requestId, resolve);
    return true;
  }

  /**
   * Hands the answer to the waiting agent — the one place a waiter is resolved. A request waited
   * on and not claimed is claimed here; one answered already is left alone (false).
   */
  deliver(requestId: string, outcome: BoundaryOutcome): boolean {
    this.claim(requestId);
    const resolve = this.claimed.get(requestId);
    if (!resolve) return false;
    this.claimed.delete(requestId);
    resolve(outcome);
    return true;
  }

  /** A journal write of the run was refused: stop the run and remember why (shown on the turn). */
  refuse(message: string): void {
    this.scope.log(`[runtime] journal refused a write of run ${this.runId}: ${message}`);
    if (!this.aborted) this.refused ??= message; // after a Stop, it stays a Stop
    this.abort.abort();
  }
}
