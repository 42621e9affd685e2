/**
 * Boundary decisions: the user's answer to a pending boundary request, a decision another window
 * took reaching the run waiting here, and the requests a run leaves waiting closed when it stops or
 * ends. Each settles the request in the journal first; the agent hears the answer through
 * `RunContext.deliver`, exactly once.
 */
import { fail, ok, type Result } from '../core/result';
import type { BoundaryDecision } from '../core/vocabulary';
import type { BoundaryRequestRecord } from '../journal/records';
import { liveStateOf } from './liveState';
import type { RunContext } from './runContext';
import type { RuntimeRefusal } from './refusals';
import type { RuntimeScope } from './scope';

/**
 * Decides a pending boundary request owned by a live run of this runtime, or of another live
 * window (then through the journal, which that window reads within its poll interval). The decision
 * reaches the agent exactly once: a second decision (or one for a request already settled
 * elsewhere) is refused with `already_decided`.
 */
export async function decide(
  scope: RuntimeScope, sessionId: string, requestId: string, decision: BoundaryDecision,
): Promise<Result<{ approved: boolean }, RuntimeRefusal>> {
  const run = scope.active.get(sessionId);
  if (!run || !run.isWaiting(requestId)) return decideElsewhere(scope, sessionId, requestId, decision);
  const approved = decision !== 'deny';
  const settled = await scope.journal.write('settleBoundaryRequest', {
    id: requestId, status: approved ? 'approved' : 'denied', decision, closureReason: 'user_decision', at: scope.now(),
  });
  if (!settled.ok) return settled;
  if (!settled.value.settled) {
    // Another window decided first: hand its decision to the waiting agent, then say so here.
    const row = settled.value.request;
    run.deliver(requestId, outcomeOf(row));
    scope.notifier.live(sessionId);
    return fail('already_decided', describeSettled(row.status));
  }
  scope.log(`[runtime] request ${requestId}: ${decision}`);
  scope.notifier.publish(sessionId, settled.value.events);
  scope.notifier.live(sessionId);
  run.deliver(requestId, { approved, decision, requestId });
  return ok({ approved });
}

/** Decides a request no run of this window waits on: refused unless a live run elsewhere waits on it. */
async function decideElsewhere(
  scope: RuntimeScope, sessionId: string, requestId: string, decision: BoundaryDecision,
): Promise<Result<{ approved: boolean }, RuntimeRefusal>> {
  const row = await scope.journal.read('getBoundaryRequest', requestId);
  if (!row || row.sessionId !== sessionId) return fail('not_found', 'That request is not part of this chat.');
  if (row.status !== 'pending') return fail('already_decided', describeSettled(row.status));
  if (!(await liveStateOf(scope, sessionId)).actionableRequestIds.includes(requestId)) {
    return fail('not_actionable', 'No running agent is waiting for this request any more, so it cannot be answered.');
  }
  const approved = decision !== 'deny';
  const settled = await scope.journal.write('settleBoundaryRequest', {
    id: requestId, status: approved ? 'approved' : 'denied', decision, closureReason: 'user_decision', at: scope.now(),
  });
  if (!settled.ok) return settled;
  if (!settled.value.settled) return fail('already_decided', describeSettled(settled.value.request.status));
  scope.notifier.publish(sessionId, settled.value.events);
  scope.notifier.live(sessionId);
  return ok({ approved });
}

/**
 * Hands decisions another window journaled to the agent waiting here (each exactly once: a request
 * still pending, or answered meanwhile, is left alone).
 */
export async function deliverDecidedElsewhere(scope: RuntimeScope, run: RunContext): Promise<void> {
  for (const requestId of run.waitingIds()) {
    const row = await scope.journal.read('getBoundaryRequest', requestId);
    if (!row || row.status === 'pending' || !run.isWaiting(requestId)) continue;
    run.deliver(requestId, outcomeOf(row));
  }
}

/** Denies every request the run leaves waiting (it stopped or ended); nothing stays pending. */
export async function closeWaiting(scope: RuntimeScope, run: RunContext, closureReason: 'run_stopped' | 'run_ended'): Promise<void> {
  for (const requestId of run.waitingIds()) {
    if (!run.claim(requestId)) continue;
    const settled = await scope.journal.write('settleBoundaryRequest', {
      id: requestId, status: 'denied', decision: 'deny', closureReason, at: scope.now(),
    });
    if (settled.ok) scope.notifier.publish(run.sessionId, settled.value.events);
    run.deliver(requestId, { approved: false, decision: 'deny', requestId });
  }
  scope.notifier.live(run.sessionId);
}

/** The answer a settled request row gives its agent. */
function outcomeOf(row: BoundaryRequestRecord): { approved: boolean; decision: BoundaryDecision; requestId: string } {
  return { approved: row.status === 'approved', decision: row.decision ?? 'deny', requestId: row.id };
}

/** The `already_decided` refusal; why it was settled is the closure reason its card words (src/core/errorClassWords.ts). */
function describeSettled(status: string): string {
  return `This request was already decided (${status}); its card says why.`;
}
