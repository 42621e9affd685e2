/**
 * Live facts of a chat, from this window's runs and the journal: whether a run is in flight (here
 * or in another live window), which pending requests may be answered from this window — those a
 * live run waits on, here or in another window — and why the chat is read-only, if it is. A pending
 * request whose owner is dead is never actionable.
 */
import type { RunRecord } from '../journal/records';
import type { LiveState } from '../protocol/messages';
import type { RuntimeScope } from './scope';

/** The chat's live facts now (see module docstring). */
export async function liveStateOf(scope: RuntimeScope, sessionId: string): Promise<LiveState> {
  const run = scope.active.get(sessionId);
  const actionable = new Set(run ? run.waitingIds() : []);
  let running = run !== undefined;
  const pending = await scope.journal.read('listSessionPendingBoundaryRequests', sessionId);
  const elsewhere = new Set((await runsElsewhere(scope, sessionId)).map((r) => r.id));
  running ||= elsewhere.size > 0;
  for (const request of pending) if (request.runId && elsewhere.has(request.runId)) actionable.add(request.id);
  const fence = await scope.journal.read('getFenceDetail', sessionId);
  return {
    running,
    actionableRequestIds: [...actionable],
    readOnlyReason: scope.journal.readOnlyReason ?? fence?.message ?? null,
    fencedBy: fence && !scope.journal.readOnlyReason ? { table: fence.table, row: fence.rowKey, damaged: fence.damaged } : null,
  };
}

/** The chat's in-flight runs that another live window drives (a dead owner's run is not one). */
export async function runsElsewhere(scope: RuntimeScope, sessionId: string): Promise<RunRecord[]> {
  const inFlight = (await scope.journal.read('listRunsInFlight')).filter((r) => r.sessionId === sessionId && r.instanceId !== scope.instance.id);
  const live: RunRecord[] = [];
  for (const r of inFlight) {
    const owner = await scope.journal.read('getInstance', r.instanceId);
    if (owner && scope.isAlive(owner)) live.push(r);
  }
  return live;
}

/** How many other extension hosts (windows) are alive now, by the journal's `instances` table. */
export async function otherLiveInstances(scope: RuntimeScope): Promise<number> {
  return (await scope.journal.read('listInstances')).filter((i) => i.id !== scope.instance.id && scope.isAlive(i)).length;
}
