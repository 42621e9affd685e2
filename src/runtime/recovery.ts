/**
 * Startup (and watchdog) recovery of runs orphaned by a dead extension host.
 *
 * For each run still marked running whose owning instance is dead (or unknown), in this order, each
 * step its own transaction so that a recovery which itself dies half-way is finished by the next pass:
 *   1. settle every pending boundary request of the run fail-closed: denied, decision `deny`,
 *      closure reason `host_restarted`;
 *   2. read the run's restart closures back from the request rows (matched by run id; by turn id
 *      only for rows without a run id) — the durable fact, not anything remembered in memory;
 *   3. end the run's open tool invocations and then the run and its turn with error class
 *      `sandbox_boundary_closed_by_restart` if a closure belongs to the run, else
 *      `prompt_delivery_unknown` if its turn's prompt was never acknowledged (delivery `sending`: the
 *      agent may or may not have it), else `app_restarted`. The run's end (`interrupted`) holds the
 *      chat's queued messages (`restarted`) in the same transaction, and sends none.
 *      Before an open invocation is ended, a `run` command of it still running (its journaled process
 *      group, checked by pid and start time: `orphanedCommands.ts`) is stopped, and the invocation's
 *      end says so (`processGroupStopped`). Signals are not transactions: a pass that dies between the
 *      stop and the write leaves the next pass a group already gone, and that end says nothing of it.
 * A second pass finds the run terminal and does nothing, so there is never a second terminal state.
 * The request row carries its provenance (turn, run, invocation), so a closure is attributed by run id.
 */
import type { LedgerEvent, ProcessGroupRecord } from '../core/events';
import { HOST_RESTART_CLOSURE_REASON, RESTART_CLOSURE_ERROR_CLASS, type DeliveryState, type ErrorClass } from '../core/vocabulary';
import type { Journal } from '../journal/journal';
import type { BoundaryRequestRecord, InstanceRecord, RunRecord } from '../journal/records';
import { stopOrphanedProcessGroup } from './orphanedCommands';

/** What one recovery pass did, per run. */
export interface RecoveredRun {
  readonly runId: string;
  readonly sessionId: string;
  readonly turnId: string;
  readonly errorClass: ErrorClass;
  /** Requests this pass settled as `host_restarted` (empty on a pass that finished an earlier one). */
  readonly closedRequestIds: readonly string[];
  /** Invocations whose still-running command this pass stopped. */
  readonly stoppedInvocationIds: readonly string[];
  /** Events appended (for live views). */
  readonly events: readonly LedgerEvent[];
  /** Queued messages of the chat the run's end held (`restarted`). */
  readonly queueHeld: number;
}

/** Options of `recoverOrphanedRuns`. */
export interface RecoveryOptions {
  /** This host's instance id: its own runs are never recovered. */
  readonly selfInstanceId: string;
  /** Liveness of another instance (default `isInstanceAlive`). */
  readonly isAlive: (instance: InstanceRecord) => boolean;
  /** Clock in ms. */
  readonly now: () => number;
  /** Receives a line per process group found (what was done with it). */
  readonly log?: (line: string) => void;
}

/** The restart closures that belong to `run`: by run id, or by turn id for rows without a run id. */
export function closuresOfRun(run: RunRecord, closures: readonly BoundaryRequestRecord[]): BoundaryRequestRecord[] {
  return closures.filter((c) => (c.runId !== null ? c.runId === run.id : c.turnId === run.turnId));
}

/**
 * The error class of an interrupted run, from the closures that belong to it (a restart closure
 * wins), then its turn's delivery state: `sending` is `prompt_delivery_unknown`; `delivered`, or
 * none (a turn before schema 5), `app_restarted`.
 */
export function classifyInterruptedRun(run: RunRecord, closures: readonly BoundaryRequestRecord[], delivery: DeliveryState | null = null): ErrorClass {
  if (closuresOfRun(run, closures).length > 0) return RESTART_CLOSURE_ERROR_CLASS;
  return delivery === 'sending' ? 'prompt_delivery_unknown' : 'app_restarted';
}

/**
 * Recovers every in-flight run whose owner is dead. Returns what it did. A write the journal refuses
 * (read-only, full disk) stops that run's recovery; it is retried on the next pass.
 */
export async function recoverOrphanedRuns(journal: Journal, options: RecoveryOptions): Promise<RecoveredRun[]> {
  if (journal.readOnly) return [];
  const runs = await journal.read('listRunsInFlight');
  if (runs.length === 0) return [];
  const instances = new Map((await journal.read('listInstances')).map((i) => [i.id, i] as const));
  const recovered: RecoveredRun[] = [];
  for (const run of runs) {
    if (run.instanceId === options.selfInstanceId) continue;
    const owner = instances.get(run.instanceId);
    if (owner && options.isAlive(owner)) continue;
    const result = await recoverRun(journal, run, options);
    if (result) recovered.push(result);
  }
  return recovered;
}

/** Recovers one orphaned run (steps 1-3 of the module docstring). Undefined if a write was refused. */
export async function recoverRun(
  journal: Journal,
  run: RunRecord,
  options: Pick<RecoveryOptions, 'now' | 'log'>,
): Promise<RecoveredRun | undefined> {
  const now = options.now;
  const events: LedgerEvent[] = [];
  const closedRequestIds: string[] = [];
  const stoppedInvocationIds: string[] = [];
  for (const request of await journal.read('listPendingBoundaryRequests', run.id)) {
    const settled = await journal.write('settleBoundaryRequest', {
      id: request.id, status: 'denied', decision: 'deny', closureReason: HOST_RESTART_CLOSURE_REASON, at: now(),
    });
    if (!settled.ok) return undefined;
    if (settled.value.settled) closedRequestIds.push(request.id);
    events.push(...settled.value.events);
  }
  const turn = await journal.read('getTurn', run.turnId);
  const errorClass = classifyInterruptedRun(run, await journal.read('listRestartClosures', run.sessionId), turn?.delivery ?? null);
  const open = await journal.read('listOpenInvocations', run.id);
  const groups = open.length > 0 ? await journal.read('listProcessGroups', run.id) : [];
  for (const invocation of open) {
    const processGroupStopped = await stopCommandsOf(invocation.id, groups, options);
    if (processGroupStopped) stoppedInvocationIds.push(invocation.id);
    const finished = await journal.write('finishInvocation', { id: invocation.id, status: 'failed', failureClass: errorClass, processGroupStopped, at: now() });
    if (!finished.ok) return undefined;
    events.push(...finished.value.events);
  }
  const finished = await journal.write('finishRun', { runId: run.id, status: 'interrupted', turnStatus: 'failed', errorClass, at: now() });
  if (!finished.ok) return undefined;
  events.push(...finished.value.events);
  return { runId: run.id, sessionId: run.sessionId, turnId: run.turnId, errorClass, closedRequestIds, stoppedInvocationIds, events, queueHeld: finished.value.queue.held };
}

/** Stops the still-running process groups of one invocation; true if one was stopped. */
async function stopCommandsOf(
  invocationId: string,
  groups: readonly { invocationId: string; group: ProcessGroupRecord }[],
  options: Pick<RecoveryOptions, 'log'>,
): Promise<boolean> {
  let stopped = false;
  for (const { group } of groups.filter((g) => g.invocationId === invocationId)) {
    const outcome = await stopOrphanedProcessGroup(group, options.log ? { log: options.log } : {});
    options.log?.(`[recovery] invocation ${invocationId}: process group ${group.pid} (${group.hostname}) → ${outcome}`);
    if (outcome === 'stopped') stopped = true;
  }
  return stopped;
}
