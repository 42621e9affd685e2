/**
 * The outbox as the runtime drives it (docs/ARCHITECTURE.md, "Prompts: the outbox, the queue and
 * delivery"): a message the user sends (`submit`) becomes a turn at once or waits in the chat's
 * queue; a queued message is edited, discarded or sent (Send, Send now); a claimed message is
 * driven by the window whose transaction claimed it. What goes out and when is decided inside the
 * journal's transactions (operations/outbox.ts); this module only drives what they started, stops
 * the run a Send now replaces, and tells views (`queue` notifications) of what this window changed.
 */
import { randomUUID } from 'node:crypto';
import type { SessionRecord } from '../core/events';
import { MAX_QUEUED_PROMPTS, queuedPromptView, type QueuedPromptView } from '../core/outbox';
import { fail, ok, type Result } from '../core/result';
import type { QueuedPromptState } from '../core/vocabulary';
import type { NextTurnIds } from '../journal/core';
import { MAX_PROMPT_CHARS } from '../protocol/messages';
import { readAttachments, type AttachmentRequest } from './attachments/readAttachments';
import type { RuntimeRefusal } from './refusals';
import { RunContext } from './runContext';
import type { ClaimedTurn, RunEnds } from './runEnd';
import type { RuntimeScope } from './scope';
import { STOP_ELSEWHERE_NOTICE, stopLocal } from './stopAcrossWindows';
import { BUSY_MESSAGE, driveJournaledTurn, type TurnSettings } from './turns';

/** What the outbox needs: the scope, the turn settings (agents) and the run ends. */
export interface OutboxDeps {
  readonly scope: RuntimeScope;
  readonly settings: TurnSettings;
  readonly ends: RunEnds;
}

/** What became of a submitted message (`ChatRuntime.submit`). */
export type SubmitOutcome =
  | { readonly kind: 'started'; readonly turnId: string }
  | { readonly kind: 'queued'; readonly prompt: QueuedPromptView }
  | { readonly kind: 'duplicate'; readonly turnId: string | null };

/** What the user's Send / Send now did (`ChatRuntime.sendQueued`). */
export type SendQueuedOutcome = { readonly kind: 'started'; readonly turnId: string } | { readonly kind: 'stopping' };

/** Why a message's text is refused, or null: empty (after trimming) or over MAX_PROMPT_CHARS. */
export function messageProblem(text: string): string | null {
  if (text.trim().length === 0) return 'A message needs some text.';
  if (text.length > MAX_PROMPT_CHARS) return `A message holds at most ${MAX_PROMPT_CHARS} characters.`;
  return null;
}

/**
 * A message the user sent: its client id, its text, for an edit and resend the turn it replaces
 * (that turn must be the chat's last and over: see `SubmitPromptInput.replacesTurnId`), and what
 * they attached (read here: readAttachments.ts).
 */
export interface OutgoingMessage {
  readonly clientId: string;
  readonly text: string;
  readonly replacesTurnId?: string;
  readonly attachments?: readonly AttachmentRequest[];
}

/**
 * The user sent a message (see `ChatRuntime.submit`). `queue` false: start now or answer `busy`
 * (`ChatRuntime.send`, whose callers have no queue), with a client id made here. Its attachments
 * are read first (an unreadable one refuses the message, `invalid`) and journaled with it. An edit
 * and resend refused by the journal (not the last turn, a reply still running) is `not_actionable`.
 */
export async function submit(
  deps: OutboxDeps, sessionId: string, message: OutgoingMessage, queue = true,
): Promise<Result<SubmitOutcome, RuntimeRefusal>> {
  const { scope } = deps;
  const problem = messageProblem(message.text) ?? (message.clientId.length === 0 ? 'A message needs a client id.' : null);
  if (problem) return fail('invalid', problem);
  const ready = await agentReady(deps, sessionId);
  if (!ready.ok) return ready;
  const attachments = await readAttachments(message.attachments ?? [], deps.settings.workspaceRoot());
  if (!attachments.ok) return fail('invalid', attachments.message);
  const next = nextIds(scope, ready.value.provider);
  const r = await scope.journal.write('submitPrompt', {
    sessionId, clientId: message.clientId, text: message.text, at: scope.now(), next, queue, endedRunIds: deps.ends.endedHere(sessionId),
    ...(message.replacesTurnId ? { replacesTurnId: message.replacesTurnId } : {}),
    ...(attachments.value.length ? { attachments: attachments.value } : {}),
  });
  if (!r.ok) return r;
  const v = r.value;
  switch (v.kind) {
    case 'started':
      await startDriving(deps, { turn: v.turn, run: v.run }, ready.value)();
      return ok({ kind: 'started', turnId: v.turn.id });
    case 'queued':
      scope.log(`[runtime] chat ${sessionId}: message ${message.clientId} queued`);
      scope.notifier.emit({ type: 'queue', sessionId });
      return ok({ kind: 'queued', prompt: queuedPromptView(v.prompt) });
    case 'duplicate':
      return ok({ kind: 'duplicate', turnId: v.turnId });
    case 'conflict':
      return fail('conflict', 'This message was already sent with another text; it was not sent again.');
    case 'full':
      return fail('invalid', `The queue holds ${MAX_QUEUED_PROMPTS} messages already: wait for the agent, or discard one.`);
    case 'busy':
      return fail('busy', BUSY_MESSAGE);
    case 'not_replaceable':
      return fail('not_actionable', v.message);
  }
}

/**
 * Sends a prompt now or refuses it (`ChatRuntime.send`): `busy` while the chat's agent works in
 * any window or messages wait in its queue; never queued. The same transaction as `submit`, so it
 * never starts a second run beside one.
 */
export async function sendOrBusy(deps: OutboxDeps, sessionId: string, prompt: string): Promise<Result<{ turnId: string }, RuntimeRefusal>> {
  if (deps.scope.active.has(sessionId)) return fail('busy', BUSY_MESSAGE);
  const r = await submit(deps, sessionId, { clientId: randomUUID(), text: prompt }, false);
  if (!r.ok) return r;
  return r.value.kind === 'started' ? ok({ turnId: r.value.turnId }) : fail('busy', BUSY_MESSAGE);
}

/** The chat's messages still queued, in the order they go out. */
export async function queueOf(scope: RuntimeScope, sessionId: string): Promise<QueuedPromptView[]> {
  return (await scope.journal.read('listQueuedPrompts', sessionId)).map(queuedPromptView);
}

/** Replaces a queued message's text (see `ChatRuntime.editQueued`). */
export async function editQueued(scope: RuntimeScope, sessionId: string, clientId: string, text: string): Promise<Result<QueuedPromptView, RuntimeRefusal>> {
  const problem = messageProblem(text);
  if (problem) return fail('invalid', problem);
  const r = await scope.journal.write('editQueuedPrompt', sessionId, clientId, text, scope.now());
  if (!r.ok) return r;
  if (r.value.kind === 'not_queued') return fail('not_actionable', notQueuedMessage(r.value.state));
  scope.notifier.emit({ type: 'queue', sessionId });
  return ok(queuedPromptView(r.value.prompt));
}

/** Discards a queued message (see `ChatRuntime.discardQueued`); discarding twice is not an error. */
export async function discardQueued(scope: RuntimeScope, sessionId: string, clientId: string): Promise<Result<void, RuntimeRefusal>> {
  const r = await scope.journal.write('discardQueuedPrompt', sessionId, clientId, scope.now());
  if (!r.ok) return r;
  if (r.value.kind === 'not_queued') return r.value.state === 'discarded' ? ok(undefined) : fail('not_actionable', notQueuedMessage(r.value.state));
  scope.notifier.emit({ type: 'queue', sessionId });
  return ok(undefined);
}

/**
 * The user's Send or Send now (see `ChatRuntime.sendQueued`): the journal starts the message's turn
 * now, or marks it to go next; then the runs that were running when it was marked (read in the
 * marking transaction) are stopped — only those: a run that ended later and sent this very message
 * is never the one stopped, and a reply that another message's send started just before the mark
 * is (a list read before the mark would miss it, and Send now would stop nothing).
 */
export async function sendQueued(deps: OutboxDeps, sessionId: string, clientId: string): Promise<Result<SendQueuedOutcome, RuntimeRefusal>> {
  const { scope } = deps;
  const ready = await agentReady(deps, sessionId);
  if (!ready.ok) return ready;
  const r = await scope.journal.write('sendQueuedPrompt', sessionId, clientId, nextIds(scope, ready.value.provider), scope.now());
  if (!r.ok) return r;
  const v = r.value;
  if (v.kind === 'not_queued') return fail('not_actionable', notQueuedMessage(v.state));
  scope.notifier.emit({ type: 'queue', sessionId });
  if (v.kind === 'started') {
    await startDriving(deps, { turn: v.turn, run: v.run })();
    return ok({ kind: 'started', turnId: v.turn.id });
  }
  scope.log(`[runtime] chat ${sessionId}: Send now for message ${clientId}`);
  for (const runId of v.running) {
    const here = scope.active.get(sessionId);
    if (here?.runId === runId) {
      await stopLocal(scope, here);
      continue;
    }
    const asked = await scope.journal.write('requestStop', runId, scope.instance.id, STOP_ELSEWHERE_NOTICE, scope.now());
    if (!asked.ok) return asked;
    scope.notifier.publish(sessionId, asked.value);
  }
  scope.notifier.live(sessionId);
  return ok({ kind: 'stopping' });
}

/**
 * Registers a turn a transaction of this window started (by a submit, a Send, or the end of the
 * run before it: `RunEnds`) as this window's run of its chat, at once; returns what starts driving
 * it (resolved once the agent has its prompt). Until then its `done` waits for the drive, so
 * `whenIdle` never sees it idle in between.
 * `session`: the chat as read before the turn, given when its first prompt may name it.
 */
export function startDriving(deps: OutboxDeps, claimed: ClaimedTurn, session?: SessionRecord): () => Promise<void> {
  const { scope, settings, ends } = deps;
  const run = new RunContext(scope, claimed.run.id, claimed.turn.id, claimed.turn.sessionId, settings.flushIntervalMs);
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  run.done = gate.then(() => run.done);
  scope.active.set(run.sessionId, run);
  return async () => {
    try {
      await driveJournaledTurn(scope, settings, ends, run, claimed.turn, session);
    } finally {
      release();
    }
  };
}

/** The chat (it exists, and its agent is available here), or a refusal: `not_found`, `no_agent`. */
async function agentReady(deps: OutboxDeps, sessionId: string): Promise<Result<SessionRecord, RuntimeRefusal>> {
  const session = await deps.scope.journal.read('getSession', sessionId);
  if (!session) return fail('not_found', 'This chat no longer exists in the journal.');
  if (!deps.settings.agentFor(session.provider)) return fail('no_agent', `The agent "${session.provider}" is not available in this version.`);
  return ok(session);
}

/** Fresh ids for a turn and run this window would drive, with the model its settings name for `provider`. */
export function nextIds(scope: RuntimeScope, provider: string): NextTurnIds {
  return { turnId: randomUUID(), runId: randomUUID(), instanceId: scope.instance.id, model: scope.defaultModel(provider) };
}

/** Why a message can no longer be edited, sent or discarded. */
function notQueuedMessage(state: QueuedPromptState): string {
  return state === 'sent' ? 'This message was sent already: it is in the transcript.' : 'This message was discarded.';
}
