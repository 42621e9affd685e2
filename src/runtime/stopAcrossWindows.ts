/**
 * Stop across windows. Stop aborts the run this window drives and closes its waiting requests; when
 * another live window drives the chat's run, this window asks it through the journal
 * (`requestStop`, a notice in the transcript), and that window stops the run when it sees the
 * request (within its poll interval, 50 ms), as if Stop had been pressed there.
 */
import { ok, type Result } from '../core/result';
import { closeWaiting } from './boundaryDecisions';
import { runsElsewhere } from './liveState';
import type { RuntimeRefusal } from './refusals';
import type { RunContext } from './runContext';
import type { RuntimeScope } from './scope';

/** The transcript line for a Stop pressed in a window that does not drive the run. */
export const STOP_ELSEWHERE_NOTICE = 'Stop was pressed in a VS Code window other than the one running this reply.';

/** Stops the chat's run, here or in the window driving it; `stopped` is false when there was nothing to stop. */
export async function stop(scope: RuntimeScope, sessionId: string): Promise<Result<{ stopped: boolean }, RuntimeRefusal>> {
  const run = scope.active.get(sessionId);
  if (!run) return askOwnerToStop(scope, sessionId);
  return ok({ stopped: await stopLocal(scope, run) });
}

/** Stops a run this window drives; false when it was already stopping (a replayed Stop). */
export async function stopLocal(scope: RuntimeScope, run: RunContext): Promise<boolean> {
  // A replayed Stop (already stopping) never interrupts twice.
  if (run.aborted) return false;
  // The interrupt comes first: bookkeeping writes below may fail (full disk) without blocking it.
  run.abort.abort();
  scope.log(`[runtime] chat ${run.sessionId}: Stop (run ${run.runId})`);
  await closeWaiting(scope, run, 'run_stopped');
  return true;
}

/**
 * Stops `run` if another window asked to: only the run the request names, and only if this window
 * still drives it — the run may have ended while the request was read (then there is nothing here
 * to stop, and a Stop must not be passed on to some other window's run of the chat).
 */
export async function stopIfAskedElsewhere(scope: RuntimeScope, run: RunContext): Promise<void> {
  if (run.aborted || !(await stopRequestedFor(scope, run))) return;
  if (scope.active.get(run.sessionId) !== run || run.aborted) return;
  scope.log(`[runtime] chat ${run.sessionId}: Stop pressed in another window`);
  await stopLocal(scope, run);
}

/** Whether another window asked to stop the run; a failed read is logged and answers no. */
async function stopRequestedFor(scope: RuntimeScope, run: RunContext): Promise<boolean> {
  try {
    return await scope.journal.read('stopRequested', run.runId);
  } catch (error) {
    scope.log(`[runtime] could not read stop requests of run ${run.runId}: ${(error as Error).message}`);
    return false;
  }
}

/**
 * Asks every other live window's in-flight run of the chat to stop (`requestStop` is once per
 * run). Every run, not just the first: a run its owner could not finish (full disk) stays in
 * flight in the journal, and asking only it would leave the reply actually running unstoppable.
 */
async function askOwnerToStop(scope: RuntimeScope, sessionId: string): Promise<Result<{ stopped: boolean }, RuntimeRefusal>> {
  let stopped = false;
  for (const run of await runsElsewhere(scope, sessionId)) {
    const asked = await scope.journal.write('requestStop', run.id, scope.instance.id, STOP_ELSEWHERE_NOTICE, scope.now());
    if (!asked.ok) return asked;
    if (asked.value.length === 0) continue; // it ended, or was asked already
    scope.log(`[runtime] chat ${sessionId}: Stop asked of the window driving run ${run.id}`);
    scope.notifier.publish(sessionId, asked.value);
    stopped = true;
  }
  if (stopped) scope.notifier.live(sessionId);
  return ok({ stopped });
}
