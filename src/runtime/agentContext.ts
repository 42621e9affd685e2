/**
 * The `AgentTurnContext` a run hands its agent: streamed text and output go to the run's ledger,
 * invocations and boundary requests are journaled before they are shown, and the product's tools
 * run through the sandbox (`toolRuntime.ts`). A refused write stops the run (`RunContext.refuse`).
 */
import { randomUUID } from 'node:crypto';
import type { FileChangeInput } from '../journal/operations/checkpoints';
import type { AgentTurnContext, BoundaryOutcome, InvocationHandle } from './agent';
import { closeWaiting } from './boundaryDecisions';
import type { RunContext } from './runContext';
import { runJournal, type RuntimeScope } from './scope';
import { SandboxedToolRunner, type ToolRuntimeOptions } from './toolRuntime';

/** A boundary request as the agent raises it. */
type AgentBoundaryRequest = Parameters<AgentTurnContext['requestBoundary']>[0];

/** The context an agent drives `run` through (see module docstring). */
export function agentContextFor(scope: RuntimeScope, run: RunContext, tools: ToolRuntimeOptions): AgentTurnContext {
  const ctx: AgentTurnContext = {
    signal: run.abort.signal,
    text: (delta) => run.ledger.text(delta),
    tools: undefined as never,
    startInvocation: (tool, input, summary, diff, fileChanges) => startInvocation(scope, run, { tool, input, summary, diff, fileChanges }),
    requestBoundary: (request) => requestBoundary(scope, run, request),
    setProviderState: async (state) => {
      const r = await runJournal(scope).write('setProviderState', run.sessionId, state, scope.now());
      if (!r.ok) run.refuse(r.message);
    },
    promptDelivered: () => promptDelivered(scope, run),
  };
  return { ...ctx, tools: new SandboxedToolRunner(ctx, tools) };
}

/**
 * The agent acknowledged the run's prompt: its turn becomes `delivered` (`markDelivered`).
 * Idempotent; a refusal is logged, never thrown (the run goes on either way).
 */
async function promptDelivered(scope: RuntimeScope, run: RunContext): Promise<void> {
  try {
    const r = await runJournal(scope).write('markDelivered', run.turnId);
    if (!r.ok) scope.log(`[runtime] could not record the delivery of turn ${run.turnId}: ${r.message}`);
  } catch (error) {
    scope.log(`[runtime] could not record the delivery of turn ${run.turnId}: ${(error as Error).message}`);
  }
}

/** An invocation as the agent announces it. */
interface NewInvocation {
  readonly tool: string;
  readonly input: unknown;
  readonly summary: string;
  readonly diff: string | undefined;
  readonly fileChanges: readonly FileChangeInput[] | undefined;
}

/** Journals an invocation's start (after the text before it) and gives the agent its handle. */
async function startInvocation(scope: RuntimeScope, run: RunContext, inv: NewInvocation): Promise<InvocationHandle> {
  const journal = runJournal(scope);
  await run.ledger.flush();
  const id = randomUUID();
  const started = await journal.write('startInvocation', {
    id, runId: run.runId, tool: inv.tool, input: JSON.stringify(inv.input ?? null), summary: inv.summary,
    ...(inv.diff ? { diff: inv.diff } : {}), ...(inv.fileChanges?.length ? { fileChanges: inv.fileChanges } : {}), at: scope.now(),
  });
  if (started.ok) scope.notifier.publish(run.sessionId, started.value);
  else run.refuse(started.message);
  return {
    id,
    output: (chunk) => run.ledger.output(id, chunk),
    processStarted: (group) => run.ledger.processGroup(id, group),
    recordFileChanges: async (changes) => {
      const recorded = await journal.write('recordFileChanges', id, changes, scope.now());
      if (recorded.ok) scope.notifier.filesChanged(run.sessionId);
      else run.refuse(recorded.message);
    },
    finish: async (result) => {
      await run.ledger.flush();
      const finished = await journal.write('finishInvocation', { id, ...result, at: scope.now() });
      if (finished.ok) scope.notifier.publish(run.sessionId, finished.value.events);
      if (finished.ok && (inv.fileChanges?.length || result.fileChanges?.length || result.fileChangesApplied !== undefined)) scope.notifier.filesChanged(run.sessionId);
    },
  };
}

/**
 * Journals a boundary request, then waits for its answer (see `RunContext.waitFor`). A session
 * grant answers it at once; a stopped run, or a refused write, denies it.
 */
async function requestBoundary(scope: RuntimeScope, run: RunContext, request: AgentBoundaryRequest): Promise<BoundaryOutcome> {
  const journal = runJournal(scope);
  await run.ledger.flush();
  const requestId = randomUUID();
  const denied: BoundaryOutcome = { approved: false, decision: 'deny', requestId };
  if (run.aborted || run.refused) return denied;
  const granted = !request.ignoreSessionGrant && (await journal.read('hasSessionGrant', run.sessionId, request.scopeKey));
  const created = await journal.write('createBoundaryRequest', {
    id: requestId, runId: run.runId, invocationId: request.invocationId ?? null, kind: request.kind,
    subject: request.subject, why: request.why, detail: request.detail ?? null, scopeKey: request.scopeKey,
    ...(request.grants ? { grants: request.grants } : {}),
    at: scope.now(), autoApproved: granted,
  });
  if (!created.ok) {
    run.refuse(created.message);
    return denied;
  }
  scope.notifier.publish(run.sessionId, created.value.events);
  if (granted) return { approved: true, decision: 'allow_session', requestId };
  const outcome = run.waitFor(requestId);
  // Stopped (or refused) while the request was journaled: the closing of the run's waiting requests
  // ran before this one waited, so it is closed here, or the agent would wait for ever. (A host
  // shutting down writes nothing: the next host's recovery closes it.)
  if (run.aborted && !scope.disposed()) await closeWaiting(scope, run, run.refused ? 'run_ended' : 'run_stopped');
  else scope.notifier.live(run.sessionId);
  return outcome;
}
