/**
 * The end of a run. How it ended is decided in one place (`runEndOf`): a Stop is `stopped`, a
 * write the journal refused is `journal_refused` with its reason, otherwise the agent's outcome.
 * Nothing the run left waiting stays pending, and open invocations are closed before the run. An
 * end the journal refuses (full disk) is kept and written again at the next check
 * (`retryUnfinished`): left in flight in the journal, the run would look live to every other
 * window for as long as this one lives.
 *
 * The end of a run also moves the chat's queue, in the same transaction (`finishRun` with the ids
 * of the next turn: the one-sender rule, docs/ARCHITECTURE.md "Prompts"). A message it claimed is
 * driven by this window at once: the claimed run becomes the chat's run here before the ended one
 * stops being it, so the chat never looks idle between the two.
 */
import { randomUUID } from 'node:crypto';
import type { TurnRecord } from '../core/events';
import type { ErrorClass } from '../core/vocabulary';
import type { RunRecord } from '../journal/records';
import type { AgentTurnOutcome } from './agent';
import { closeWaiting } from './boundaryDecisions';
import type { RunContext } from './runContext';
import type { RuntimeScope } from './scope';

/** How a run ended, as `finishRun` records it. */
export type RunEnd = {
  readonly status: 'completed' | 'failed' | 'stopped';
  readonly turnStatus: 'completed' | 'failed' | 'stopped';
  readonly errorClass?: ErrorClass;
  readonly message?: string;
};

/** A run whose end is to be written. */
interface UnfinishedRun {
  readonly runId: string;
  readonly sessionId: string;
  readonly turnId: string;
  readonly end: RunEnd;
}

/** How a run ends, from whether it was stopped, why the journal refused it, and the agent's outcome. */
export function runEndOf(stopped: boolean, refused: string | undefined, outcome: AgentTurnOutcome): RunEnd {
  if (stopped) return { status: 'stopped', turnStatus: 'stopped', message: 'Stopped.' };
  if (refused !== undefined) return { status: 'failed', turnStatus: 'failed', errorClass: 'journal_refused', message: refused };
  if (outcome.status === 'completed') return { status: 'completed', turnStatus: 'completed' };
  return { status: 'failed', turnStatus: 'failed', errorClass: outcome.errorClass, message: outcome.message };
}

/** A turn and run the end of a run claimed from the chat's queue, for this window to drive. */
export type ClaimedTurn = { readonly turn: TurnRecord; readonly run: RunRecord };

/** Writes the ends of this window's runs, and again those the journal refused (see module docstring). */
export class RunEnds {
  /** Runs that ended here but whose end the journal refused (full disk), by run id. */
  private readonly unfinished = new Map<string, UnfinishedRun>();

  /**
   * @param driveClaimed registers a claimed turn as this window's run of its chat at once and returns
   *                     what starts driving it (called once the ended run's end is published).
   */
  constructor(private readonly scope: RuntimeScope, private readonly driveClaimed: (claimed: ClaimedTurn) => () => Promise<void> = () => async () => undefined) {}

  /** Ends a run this window drove with the agent's outcome; it stops being this window's run once durable. */
  async finish(run: RunContext, outcome: AgentTurnOutcome): Promise<void> {
    const scope = this.scope;
    await run.ledger.flush();
    // A refused write aborts the run too (`RunContext.refuse`): that run ends as journal_refused, not as a Stop.
    const stopped = run.aborted && !run.refused;
    await closeWaiting(scope, run, stopped ? 'run_stopped' : 'run_ended');
    const unfinished = { runId: run.runId, sessionId: run.sessionId, turnId: run.turnId, end: runEndOf(stopped, run.refused, outcome) };
    const ended = await this.writeEnd(unfinished, () => {
      if (scope.active.get(run.sessionId) === run) scope.active.delete(run.sessionId);
    });
    if (!ended) {
      this.unfinished.set(run.runId, unfinished);
      scope.notifier.live(run.sessionId);
    }
  }

  /** Runs of the chat that ended here but whose end the journal has not recorded yet (`retryUnfinished`). */
  endedHere(sessionId: string): string[] {
    return [...this.unfinished.values()].filter((r) => r.sessionId === sessionId).map((r) => r.runId);
  }

  /** Writes again the ends of runs the journal refused earlier; stops at the first still refused. */
  async retryUnfinished(): Promise<void> {
    for (const run of [...this.unfinished.values()]) {
      if (this.scope.disposed()) return;
      if (await this.writeEnd(run)) this.unfinished.delete(run.runId);
      else return; // still refused: try again at the next check
    }
  }

  /**
   * Writes a run's end: closes its open invocations, then `finishRun`. `onDurable` runs as soon as
   * the end is durable, before anything is published (nothing may read "ended" yet find it live).
   * False when the journal refused the end (it was logged).
   */
  private async writeEnd(run: UnfinishedRun, onDurable: () => void = () => undefined): Promise<boolean> {
    const { journal, notifier } = this.scope;
    const stopped = run.end.status === 'stopped';
    for (const inv of await journal.read('listOpenInvocations', run.runId)) {
      const r = await journal.write('finishInvocation', stopped
        ? { id: inv.id, status: 'stopped', message: 'Stopped.', at: this.scope.now() }
        : { id: inv.id, status: 'failed', message: 'The run ended first.', at: this.scope.now() });
      if (r.ok) notifier.publish(run.sessionId, r.value.events);
    }
    // The provider of the chat names the model a claimed message's turn records (the chat's own choice goes first).
    const provider = (await journal.read('getSession', run.sessionId))?.provider ?? '';
    const next = { turnId: randomUUID(), runId: randomUUID(), instanceId: this.scope.instance.id, model: this.scope.defaultModel(provider) };
    const endedRunIds = this.endedHere(run.sessionId).filter((id) => id !== run.runId);
    const finished = await journal.write('finishRun', { runId: run.runId, ...run.end, at: this.scope.now(), next, endedRunIds });
    const claimed = finished.ok ? finished.value.queue.claimed : undefined;
    // The claimed run replaces the ended one as the chat's run here before `onDurable` lets it go.
    const startClaimed = claimed && !this.scope.disposed() ? this.driveClaimed(claimed) : undefined;
    onDurable();
    if (!finished.ok) {
      this.scope.log(`[runtime] could not finish run ${run.runId}: ${finished.message}`);
      return false;
    }
    this.scope.log(`[runtime] run ${run.runId} ${run.end.status}${run.end.errorClass ? ` (${run.end.errorClass})` : ''}`);
    notifier.publish(run.sessionId, finished.value.events);
    notifier.live(run.sessionId);
    const turn = await journal.read('getTurn', run.turnId);
    if (turn) notifier.emit({ type: 'update', sessionId: run.sessionId, update: { type: 'turn', turn } });
    if (claimed || finished.value.queue.held > 0) notifier.emit({ type: 'queue', sessionId: run.sessionId });
    await startClaimed?.();
    return true;
  }
}
