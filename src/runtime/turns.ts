/**
 * Turns: a prompt, a retry of a failed turn, or the continuation of one a restart interrupted, each
 * a new turn and run journaled in one transaction and then driven by the chat's agent. A chat has
 * at most one run this window drives; the first prompt of a new chat names it.
 */
import { randomUUID } from 'node:crypto';
import type { SessionRecord, TurnRecord } from '../core/events';
import { fail, ok, type Result } from '../core/result';
import { buildTranscript, type Transcript } from '../core/transcript';
import type { Agent, AgentTurnOutcome, AgentTurnRequest, HistoryEntry } from './agent';
import { agentContextFor } from './agentContext';
import type { RuntimeRefusal } from './refusals';
import { RunContext } from './runContext';
import type { RunEnds } from './runEnd';
import type { RuntimeScope } from './scope';
import { distinctTitle, NEW_CHAT_TITLE, titleFromPrompt } from './titles';

/** What turns need besides the scope. */
export interface TurnSettings {
  /** The agent for a provider id, or undefined if unavailable. */
  readonly agentFor: (provider: string) => Agent | undefined;
  /** Workspace folder (absolute) the agents work in, or undefined. */
  readonly workspaceRoot: () => string | undefined;
  /** Kill `run` commands after this many ms (default 30,000). */
  readonly commandTimeoutMs?: () => number;
  /** Batch interval of streamed events, ms. */
  readonly flushIntervalMs?: number;
}

/** How a turn came to be, and the turn it follows up (null for a prompt). */
interface TurnOrigin {
  readonly origin: TurnRecord['origin'];
  readonly parentTurnId: string | null;
}

/** The chat's transcript rebuilt from the journal. */
export async function transcriptOf(scope: RuntimeScope, sessionId: string): Promise<Transcript> {
  const [turns, events] = await Promise.all([
    scope.journal.read('listTurns', sessionId),
    scope.journal.read('listEvents', sessionId),
  ]);
  return buildTranscript(turns, events);
}

/**
 * Earlier exchanges for agents without their own history, from the journal's `listHistory`: each
 * turn's prompt, then its agent's text when it wrote any.
 */
export function historyFrom(exchanges: readonly { prompt: string; reply: string }[]): HistoryEntry[] {
  return exchanges.flatMap(({ prompt, reply }): HistoryEntry[] => (reply ? [{ role: 'user', text: prompt }, { role: 'assistant', text: reply }] : [{ role: 'user', text: prompt }]));
}

/**
 * The failed turn a retry or continue follows up: refused with `not_found` outside this chat, and
 * `not_retryable` when it did not fail or was followed up already.
 */
export async function followUpTarget(scope: RuntimeScope, sessionId: string, turnId: string): Promise<Result<TurnRecord, RuntimeRefusal>> {
  const turn = await scope.journal.read('getTurn', turnId);
  if (!turn || turn.sessionId !== sessionId) return fail('not_found', 'That turn is not part of this chat.');
  if (turn.status !== 'failed') return fail('not_retryable', 'Only a failed turn can be retried or continued.');
  if (await scope.journal.read('isFollowedUp', turnId)) return fail('not_retryable', 'That turn was already retried or continued.');
  return ok(turn);
}

/**
 * Starts a turn and its run, then drives the agent without waiting for it (`RunContext.done`).
 * Refused with `busy` while this window drives the chat, `not_found`, `no_agent`, or the journal's refusal.
 */
export async function startTurn(
  scope: RuntimeScope, settings: TurnSettings, ends: RunEnds, sessionId: string, prompt: string, from: TurnOrigin,
): Promise<Result<{ turnId: string }, RuntimeRefusal>> {
  const { journal } = scope;
  if (scope.active.has(sessionId)) return fail('busy', 'The agent is still working on this chat. Wait for it or press Stop.');
  const session = await journal.read('getSession', sessionId);
  if (!session) return fail('not_found', 'This chat no longer exists in the journal.');
  const agent = settings.agentFor(session.provider);
  if (!agent) return fail('no_agent', `The agent "${session.provider}" is not available in this version.`);
  const history = historyFrom(await journal.read('listHistory', sessionId));
  const providerState = await journal.read('getProviderState', sessionId);
  const run = new RunContext(scope, randomUUID(), randomUUID(), sessionId, settings.flushIntervalMs);
  // Reserve the session before the first await that could interleave with another send.
  if (scope.active.has(sessionId)) return fail('busy', 'The agent is still working on this chat.');
  scope.active.set(sessionId, run);
  const started = await journal.write('startTurn', {
    turn: { id: run.turnId, sessionId, prompt, origin: from.origin, parentTurnId: from.parentTurnId, createdAt: scope.now() },
    run: { id: run.runId, instanceId: scope.instance.id, provider: session.provider },
  });
  if (!started.ok) {
    scope.active.delete(sessionId);
    return started;
  }
  scope.log(`[runtime] chat ${sessionId}: turn ${run.turnId} (${from.origin}${from.parentTurnId ? ` of ${from.parentTurnId}` : ''}) started, run ${run.runId} with ${session.provider}`);
  scope.notifier.emit({ type: 'update', sessionId, update: { type: 'turn', turn: started.value.turn } });
  scope.notifier.live(sessionId);
  if (session.title === NEW_CHAT_TITLE && from.origin === 'prompt') void nameSession(scope, session, prompt);
  const request: AgentTurnRequest = {
    sessionId, turnId: run.turnId, prompt, origin: from.origin, history, providerState, cwd: settings.workspaceRoot() ?? process.cwd(),
  };
  run.done = drive(scope, settings, ends, run, agent, request);
  return ok({ turnId: run.turnId });
}

/** Names a new chat after its first prompt, only while it still has the default title (the user may have renamed it meanwhile). */
async function nameSession(scope: RuntimeScope, session: SessionRecord, prompt: string): Promise<void> {
  const others = (await scope.journal.read('listSessions')).filter((s) => s.id !== session.id).map((s) => s.title);
  const named = await scope.journal.write('renameSession', session.id, distinctTitle(titleFromPrompt(prompt), others), NEW_CHAT_TITLE);
  if (named.ok && named.value.renamed) scope.notifier.emit({ type: 'session', session: named.value.session });
}

/** Runs the agent, then ends the run; a throwing agent is `agent_error`. */
async function drive(scope: RuntimeScope, settings: TurnSettings, ends: RunEnds, run: RunContext, agent: Agent, request: AgentTurnRequest): Promise<void> {
  const ctx = agentContextFor(scope, run, {
    workspaceRoot: settings.workspaceRoot(),
    commandTimeoutMs: settings.commandTimeoutMs?.() ?? 30_000,
  });
  let outcome: AgentTurnOutcome;
  try {
    outcome = await agent.runTurn(request, ctx);
  } catch (error) {
    outcome = { status: 'failed', errorClass: 'agent_error', message: `The agent failed: ${(error as Error).message}` };
  }
  // A host shutting down leaves the run as it is: the next host's recovery settles it honestly.
  if (scope.disposed()) return;
  try {
    await ends.finish(run, outcome);
  } catch (error) {
    scope.log(`[runtime] ending run ${run.runId} failed: ${(error as Error).message}`);
    scope.active.delete(run.sessionId);
    scope.notifier.live(run.sessionId);
  }
}
