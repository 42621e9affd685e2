/**
 * A chat panel's part of the outbox (docs/ARCHITECTURE.md, "Prompts: the outbox, the queue and
 * delivery"): the view's `send` and its queue actions go to the runtime, each answered with
 * `succeeded` or `error` carrying the message's `clientId` (the view keeps a message until then), and
 * the chat's queue goes to the view whenever it changed since the one the view was last sent.
 *
 * The panel keeps no copy of the queue beyond the last one sent (a few dozen short rows at most,
 * `MAX_QUEUED_PROMPTS`), compared whole: a `queue` notification of this window or another window's
 * `refresh` re-reads it, and an unchanged one is not sent again.
 */
import type { QueuedPromptView } from '../core/outbox';
import type { ErrorCode, HostMessage, WebviewMessage } from '../protocol/messages';
import { MAX_ID_CHARS } from '../protocol/messages';
import type { AttachmentRef } from '../core/attachments';
import { Sequencer } from '../core/sequencer';
import type { AttachmentRequest } from '../runtime/attachments/readAttachments';
import type { WebviewMessageHandlersFor } from '../protocol/hostHandlers';
import type { Result } from '../core/result';
import type { ChatRuntime, RuntimeRefusal } from '../runtime/chatRuntime';
import { inChat, type PanelContext } from './panelContext';

/** The view's messages this module answers. */
export type OutboxMessage = Extract<WebviewMessage, { type: 'send' | 'editQueued' | 'discardQueued' | 'sendQueued' }>;

/** A queue action's message (Edit, Discard, Send / Send now of a queued message). */
type QueueActionMessage = Exclude<OutboxMessage, { type: 'send' }>;

/**
 * What an `internal` error answering `message` names: the action and `clientId` of a message of the
 * view's outbox (the only ones that carry a `clientId`: the view gives its text back on it), else nothing.
 */
export function outboxAbout(message: WebviewMessage): { action?: OutboxMessage['type']; clientId?: string } {
  return 'clientId' in message ? { action: message.type, clientId: message.clientId } : {};
}

/**
 * The `clientId` of a message the decoder refused, when it has one that is an id (a string of
 * 1..MAX_ID_CHARS characters), else undefined. The refusal carries it so that the view gives the
 * user their text back instead of keeping (and re-posting) a message that will never be answered.
 */
export function clientIdOf(raw: unknown): string | undefined {
  const id = typeof raw === 'object' && raw !== null ? (raw as { clientId?: unknown }).clientId : undefined;
  return typeof id === 'string' && id.length > 0 && id.length <= MAX_ID_CHARS ? id : undefined;
}

/** What the outbox needs of its panel. */
export interface OutboxPanel {
  readonly runtime: Pick<ChatRuntime, 'submit' | 'queue' | 'editQueued' | 'discardQueued' | 'sendQueued'>;
  /** Posts in order with the panel's other messages (`ChatPanel.post`). */
  post(message: HostMessage | (() => Promise<HostMessage | undefined>)): Promise<void>;
  /** Re-sends the live state (after a refusal: what the view showed may be stale). */
  sendLive(): Promise<void>;
  /**
   * The text of the attachments only the host can read (a selection's lines in its editor, the
   * problems of a file: attachmentSources.ts); files and folders pass as they are (the runtime reads them).
   * Absent: every reference passes as it is.
   */
  attachmentRequests?(refs: readonly AttachmentRef[]): Promise<AttachmentRequest[]>;
  /**
   * An edit and resend with `undoReplacedFiles`: undoes the replaced turn's file changes first
   * (`undoBeforeResend` in checkpointActions.ts); a refusal gives the message back. Absent: not undone.
   */
  undoBeforeResend?(sessionId: string, turnId: string): Promise<{ code: ErrorCode; message: string } | null>;
}

/** One panel's outbox handling (see module docstring). */
export class PanelOutbox {
  /** The queue the view was last sent (JSON), or undefined before the first. */
  private lastSent: string | undefined;
  /** The messages being handled, one after another (see `handle`). */
  private readonly handling = new Sequencer();

  constructor(private readonly panel: OutboxPanel) {}

  /**
   * Reads the queue for a snapshot and records it as sent (the snapshot carries it). Throws what the
   * runtime's read throws.
   */
  async snapshotQueue(sessionId: string): Promise<QueuedPromptView[]> {
    const queue = await this.panel.runtime.queue(sessionId);
    this.lastSent = JSON.stringify(queue);
    return queue;
  }

  /**
   * Posts the chat's queue if it changed since the last one the view was sent (in order with the
   * panel's other messages: the comparison happens when its turn comes, after the messages before it).
   */
  sendQueueIfChanged(sessionId: string): Promise<void> {
    return this.panel.post(async () => {
      const prompts = await this.panel.runtime.queue(sessionId);
      const key = JSON.stringify(prompts);
      if (key === this.lastSent) return undefined;
      this.lastSent = key;
      return { type: 'queue', prompts };
    });
  }

  /**
   * Hands a `send` or a queue action to the runtime and answers it: `succeeded` (for `send`, with
   * `queued`: whether the message waits in the queue) or `error` with the refusal's code, both
   * carrying the `clientId`. The queue itself reaches the view through the runtime's `queue`
   * notification; a running reply that Send now stops ends through the usual updates.
   * One message at a time, in the order the view posted them: two messages typed quickly are queued
   * in the order they were typed, and an edit is applied after the send it follows. The next message
   * waits for this one, not for its success (a throw is the caller's to report).
   */
  send(sessionId: string, message: Extract<OutboxMessage, { type: 'send' }>): Promise<void> {
    return this.handling.run(() => this.submit(sessionId, message));
  }

  /** A queue action (Edit, Discard, Send / Send now): `act` is its runtime call; in order as `send`. */
  queueAction(sessionId: string, message: QueueActionMessage, act: (runtime: OutboxPanel['runtime']) => Promise<Result<unknown, RuntimeRefusal>>): Promise<void> {
    return this.handling.run(async () => this.answerQueueAction(sessionId, message, await act(this.panel.runtime)));
  }

  private async submit(sessionId: string, message: Extract<OutboxMessage, { type: 'send' }>): Promise<void> {
    const { runtime } = this.panel;
    const { clientId } = message;
    if (message.replacesTurnId && message.undoReplacedFiles && this.panel.undoBeforeResend) {
      const refusal = await this.panel.undoBeforeResend(sessionId, message.replacesTurnId);
      if (refusal) return this.refused(message, refusal.code, refusal.message);
    }
    const refs = message.attachments ?? [];
    const attachments = refs.length && this.panel.attachmentRequests ? await this.panel.attachmentRequests(refs) : refs;
    const result = await runtime.submit(sessionId, {
      clientId, text: message.text,
      ...(message.replacesTurnId ? { replacesTurnId: message.replacesTurnId } : {}),
      ...(attachments.length ? { attachments } : {}),
    });
    if (result.ok) {
      const outcome = result.value;
      // A message posted again (a rebuilt view) that is still queued says so too.
      const queued = outcome.kind === 'queued'
        || (outcome.kind === 'duplicate' && outcome.turnId === null && (await runtime.queue(sessionId)).some((p) => p.clientId === clientId));
      void this.panel.post({ type: 'succeeded', action: 'send', clientId, queued });
      return;
    }
    return this.refused(message, result.reason, result.message);
  }

  private async answerQueueAction(sessionId: string, message: QueueActionMessage, result: Result<unknown, RuntimeRefusal>): Promise<void> {
    if (result.ok) {
      void this.panel.post({ type: 'succeeded', action: message.type, clientId: message.clientId });
      return;
    }
    await this.refused(message, result.reason, result.message);
    // A message sent or discarded meanwhile (another window) is no longer what the view shows.
    void this.sendQueueIfChanged(sessionId);
  }

  private refused(message: OutboxMessage, code: Extract<HostMessage, { type: 'error' }>['code'], text: string): Promise<void> {
    void this.panel.post({ type: 'error', code, message: text, action: message.type, clientId: message.clientId });
    return this.panel.sendLive();
  }
}

/** A queue action's handler: `act` is its runtime call (`PanelOutbox.queueAction`). */
function queueActionHandler<M extends QueueActionMessage>(act: (runtime: OutboxPanel['runtime'], sessionId: string, message: M) => Promise<Result<unknown, RuntimeRefusal>>) {
  return inChat<M>((message, panel, sessionId) => panel.prompts.queueAction(sessionId, message, (runtime) => act(runtime, sessionId, message)));
}

/** The outbox's messages, on the panel's chat: one at a time, in the order the view posted them (`PanelOutbox.send`). */
export const outboxHandlers = {
  send: inChat((message, panel, sessionId) => panel.prompts.send(sessionId, message)),
  editQueued: queueActionHandler((runtime, sessionId, message) => runtime.editQueued(sessionId, message.clientId, message.text)),
  discardQueued: queueActionHandler((runtime, sessionId, message) => runtime.discardQueued(sessionId, message.clientId)),
  sendQueued: queueActionHandler((runtime, sessionId, message) => runtime.sendQueued(sessionId, message.clientId)),
} satisfies WebviewMessageHandlersFor<OutboxMessage['type'], PanelContext>;
