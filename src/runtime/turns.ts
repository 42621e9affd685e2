/**
 * Turns: a prompt, a retry of a failed turn, or the continuation of one a restart interrupted, each
 * a new turn and run journaled in one transaction (Retry and Continue here, messages by the outbox:
 * outbox.ts) and then driven by the chat's agent (`driveJournaledTurn`). A chat has at most one run
 * this window drives; the first prompt of a new chat names it.
 */
import { randomUUID } from 'node:crypto';
import type { SessionRecord, TurnRecord } from '../core/events';
import { fail, ok, type Result } from '../core/result';
import { buildTranscript, type Transcript } from '../core/transcript';
import type { Agent, AgentTurnContext, AgentTurnOutcome, AgentTurnRequest, HistoryEntry } from './agent';
import { agentContextFor } from './agentContext';
import { fileNewsFor } from './fileNote';
import { attachedToTurn, attachmentsForAgent } from './attachments/pendingAttachments';
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
  /**
   * The model a provider's settings name (e.g. `nativeAgentChats.openaiCompatible.model`), or null
   * when they name none: what a turn of a chat without a model of its own records and runs with.
   * Unset: none for every provider.
   */
  readonly defaultModel?: (provider: string) => string | null;
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

/** What the history says after a request the user stopped (Stop, or Send now of another message). */
export const STOPPED_NOTE = '[The user stopped this request here.]';

/**
 * Earlier exchanges for agents without their own history, from the journal's `listHistory`: each
 * turn's prompt, then its agent's text when it wrote any. A turn the user stopped says so
 * (`STOPPED_NOTE`, after the reply so far, or after the prompt when there was none), so the model
 * does not take a request the user cut off, or replaced by Send now, as still to be done.
 */
export function historyFrom(exchanges: readonly { prompt: string; reply: string; stopped?: boolean }[]): HistoryEntry[] {
  return exchanges.flatMap(({ prompt, reply, stopped }): HistoryEntry[] => {
    if (reply) return [{ role: 'user', text: prompt }, { role: 'assistant', text: stopped ? `${reply}\n\n${STOPPED_NOTE}` : reply }];
    return [{ role: 'user', text: stopped ? `${prompt}\n\n${STOPPED_NOTE}` : prompt }];
  });
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
 * Starts a turn and its run (Retry, Continue), then drives the agent without waiting for it
 * (`RunContext.done`). Refused with `busy` while this window drives the chat, `not_found`,
 * `no_agent`, or the journal's refusal.
 */
export async function startTurn(
  scope: RuntimeScope, settings: TurnSettings, ends: RunEnds, sessionId: string, prompt: string, from: TurnOrigin,
): Promise<Result<{ turnId: string }, RuntimeRefusal>> {
  const { journal } = scope;
  if (scope.active.has(sessionId)) return fail('busy', BUSY_MESSAGE);
  const session = await journal.read('getSession', sessionId);
  if (!session) return fail('not_found', 'This chat no longer exists in the journal.');
  const agent = settings.agentFor(session.provider);
  if (!agent) return fail('no_agent', `The agent "${session.provider}" is not available in this version.`);
  const run = new RunContext(scope, randomUUID(), randomUUID(), sessionId, settings.flushIntervalMs);
  // Reserve the session before the first await that could interleave with another send.
  if (scope.active.has(sessionId)) return fail('busy', BUSY_MESSAGE);
  scope.active.set(sessionId, run);
  const started = await journal.write('startTurn', {
    turn: { id: run.turnId, sessionId, prompt, origin: from.origin, parentTurnId: from.parentTurnId, createdAt: scope.now(), model: scope.defaultModel(session.provider) },
    run: { id: run.runId, instanceId: scope.instance.id, provider: session.provider },
    endedRunIds: ends.endedHere(sessionId),
    // Retry and Continue send what the parent turn sent, from the journal (never re-read from disk).
    ...(from.parentTurnId ? { attachmentsOf: from.parentTurnId } : {}),
  });
  if (!started.ok) {
    if (scope.active.get(sessionId) === run) scope.active.delete(sessionId);
    return started;
  }
  await driveJournaledTurn(scope, settings, ends, run, started.value.turn, session);
  return ok({ turnId: run.turnId });
}

/** What `busy` says: the chat's agent is working. */
export const BUSY_MESSAGE = 'The agent is still working on this chat. Wait for it or press Stop.';

/**
 * Drives a turn already journaled with its run (`run`, registered as this window's run of the chat
 * by the caller): tells views, names a new chat after its first prompt (`session` given), reads
 * what the agent needs (the history without this turn, the provider state), then starts the agent
 * (`RunContext.done`) and resolves: the agent has its prompt by then, as when a send returns.
 */
export async function driveJournaledTurn(
  scope: RuntimeScope, settings: TurnSettings, ends: RunEnds, run: RunContext, turn: TurnRecord, session?: SessionRecord,
): Promise<void> {
  const from = turn.parentTurnId ? ` of ${turn.parentTurnId}` : '';
  scope.log(`[runtime] chat ${run.sessionId}: turn ${run.turnId} (${turn.origin}${from}${turn.sentFrom ? `, from ${turn.sentFrom}` : ''}) started, run ${run.runId}`);
  scope.notifier.emit({ type: 'update', sessionId: run.sessionId, update: { type: 'turn', turn } });
  scope.notifier.live(run.sessionId);
  if (session && session.title === NEW_CHAT_TITLE && turn.origin === 'prompt') void nameSession(scope, session, turn.prompt);
  const start = await agentStart(scope, settings, run, turn);
  run.done = drive(scope, ends, run, start);
}

/** What starts the agent on a turn: its agent and request, or the outcome the run gets without one. */
type AgentStart =
  | { readonly agent: Agent; readonly request: AgentTurnRequest; readonly ctx: AgentTurnContext }
  | { readonly outcome: AgentTurnOutcome };

/** Reads what the agent needs; a provider this build lacks is `agent_unavailable`, a failed read `agent_error`. */
async function agentStart(scope: RuntimeScope, settings: TurnSettings, run: RunContext, turn: TurnRecord): Promise<AgentStart> {
  const { journal } = scope;
  try {
    const session = await journal.read('getSession', run.sessionId);
    const agent = session && settings.agentFor(session.provider);
    if (!agent) return { outcome: { status: 'failed', errorClass: 'agent_unavailable', message: `The agent "${session?.provider ?? '?'}" is not available in this version.` } };
    const history = historyFrom(await journal.read('listHistory', run.sessionId, run.turnId));
    const providerState = await journal.read('getProviderState', run.sessionId);
    // After an undo or redo of its file changes the agent is told which files were put back.
    const fileNews = await fileNewsFor(scope, run.sessionId, turn);
    // Undefined while one waits for a boundary request: read in `drive` then (pendingAttachments.ts).
    // The turn's record says whether it has any: no read for the usual prompt without (a read more
    // here is a moment more before the agent holds its prompt).
    const attachments = turn.attachments?.length ? await attachedToTurn(scope, run.turnId) : [];
    const request: AgentTurnRequest = {
      sessionId: run.sessionId, turnId: run.turnId, prompt: turn.prompt, origin: turn.origin, history, providerState, cwd: settings.workspaceRoot() ?? process.cwd(),
      ...(fileNews ? { fileNews } : {}),
      ...(turn.model ? { model: turn.model } : {}),
      ...(await replacedPrompt(scope, turn)),
      ...(attachments ? { attachments } : {}),
    };
    const ctx = agentContextFor(scope, run, { workspaceRoot: settings.workspaceRoot(), commandTimeoutMs: settings.commandTimeoutMs?.() ?? 30_000 });
    return { agent, request, ctx };
  } catch (error) {
    return { outcome: { status: 'failed', errorClass: 'agent_error', message: `The agent failed: ${(error as Error).message}` } };
  }
}

/** `{ replaces }` for an edit and resend (the replaced turn's prompt), else nothing. */
async function replacedPrompt(scope: RuntimeScope, turn: TurnRecord): Promise<Pick<AgentTurnRequest, 'replaces'>> {
  const replaced = turn.replacesTurnId ? await scope.journal.read('getTurn', turn.replacesTurnId) : undefined;
  return replaced ? { replaces: { prompt: replaced.prompt } } : {};
}

/** Names a new chat after its first prompt, only while it still has the default title (the user may have renamed it meanwhile). */
async function nameSession(scope: RuntimeScope, session: SessionRecord, prompt: string): Promise<void> {
  const title = titleFromPrompt(prompt);
  const taken = await scope.journal.read('titlesLike', title, session.id);
  const named = await scope.journal.write('renameSession', session.id, distinctTitle(title, taken), NEW_CHAT_TITLE);
  if (named.ok && named.value.renamed) scope.notifier.emit({ type: 'session', session: named.value.session });
}

/** Runs the agent (unless `start` is an outcome already, or the run was stopped first), then ends the run; a throwing agent is `agent_error`. */
async function drive(scope: RuntimeScope, ends: RunEnds, run: RunContext, start: AgentStart): Promise<void> {
  let outcome: AgentTurnOutcome;
  if ('outcome' in start) outcome = start.outcome;
  // Stopped before its agent started (a Stop or Send now while the agent's needs were read): the
  // prompt is never handed over — an agent that only listens for `abort` would never end the run.
  else if (run.aborted) outcome = { status: 'completed' };
  else {
    try {
      // A file outside the workspace is asked for first (a boundary request): Stop may come meanwhile.
      const request = start.request.attachments ? start.request : { ...start.request, attachments: await attachmentsForAgent(scope, run, start.ctx) };
      outcome = run.aborted ? { status: 'completed' } : await start.agent.runTurn(request, start.ctx);
    } catch (error) {
      outcome = { status: 'failed', errorClass: 'agent_error', message: `The agent failed: ${(error as Error).message}` };
    }
  }
  // A host shutting down leaves the run as it is: the next host's recovery settles it honestly.
  if (scope.disposed()) return;
  try {
    await ends.finish(run, outcome);
  } catch (error) {
    scope.log(`[runtime] ending run ${run.runId} failed: ${(error as Error).message}`);
    if (scope.active.get(run.sessionId) === run) scope.active.delete(run.sessionId);
    scope.notifier.live(run.sessionId);
  }
}
