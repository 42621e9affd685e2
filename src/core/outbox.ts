/**
 * The rules of a chat's outbox: what a message does when the user sends it while the agent works,
 * which queued message goes out when a reply ends, and the words of a message that waits for the
 * user. Pure and DOM-free (unit-tested); the journal applies them inside the transaction that ends a
 * run, so exactly one window sends each message (docs/ARCHITECTURE.md, "Prompts: the outbox").
 */
import type { AttachmentView } from './attachments';
import type { QueuedPromptRecord } from './events';
import type { HoldReason, RunStatus } from './vocabulary';

/** Most messages a chat's queue holds at once; one more is refused (the composer keeps its text). */
export const MAX_QUEUED_PROMPTS = 50;

/** A queued message as views show it (a projection of `QueuedPromptRecord`). */
export interface QueuedPromptView {
  readonly clientId: string;
  readonly text: string;
  readonly hold: HoldReason | null;
  readonly sendNow: boolean;
  readonly createdAt: number;
  /** What the user attached to it (absent: nothing). */
  readonly attachments?: readonly AttachmentView[];
}

/** The queue's order: Send now first, then by position (the order the messages were queued in). */
export function compareQueued(a: Pick<QueuedPromptRecord, 'sendNow' | 'position'>, b: Pick<QueuedPromptRecord, 'sendNow' | 'position'>): number {
  return Number(b.sendNow) - Number(a.sendNow) || a.position - b.position;
}

/**
 * Why the messages still queued wait for the user after a run ended with `status`: none after a
 * reply that completed (the next one goes out), otherwise the reason its end gives. `sentNow`: the
 * end sent a message the user asked to Send now; a Stop that only made way for it holds nothing
 * (the user chose what goes next, not to halt the queue: the others follow it in order).
 */
export function holdReasonOf(status: Exclude<RunStatus, 'running'>, sentNow = false): HoldReason | null {
  if (sentNow && status === 'stopped') return null;
  switch (status) {
    case 'completed': return null;
    case 'stopped': return 'stopped';
    case 'failed': return 'failed';
    case 'interrupted': return 'restarted';
  }
}

/**
 * The message that goes out when a run ends with `status`, of the chat's `queued` messages (any
 * order), or undefined. After a completed reply: the first of the queue that is not held. After a
 * Stop or a failure: only a message the user asked to Send now (a live decision). After a restart
 * (`interrupted`, written by recovery): none, ever — a restart never sends on its own.
 */
export function nextToSend(queued: readonly QueuedPromptRecord[], status: Exclude<RunStatus, 'running'>): QueuedPromptRecord | undefined {
  const waiting = queued.filter((p) => p.state === 'queued').sort(compareQueued);
  if (status === 'interrupted') return undefined;
  if (status === 'completed') return waiting.find((p) => p.sendNow || p.hold === null);
  return waiting.find((p) => p.sendNow);
}

/** What a held message says, with Send and Discard beside it. */
export function heldWords(hold: HoldReason): string {
  switch (hold) {
    case 'stopped': return 'Not sent: the reply was stopped';
    case 'failed': return 'Not sent: the reply failed';
    case 'restarted': return 'Not sent: the window reloaded or restarted';
  }
}

/** The view of a queued record. */
export function queuedPromptView(p: QueuedPromptRecord): QueuedPromptView {
  return { clientId: p.clientId, text: p.text, hold: p.hold, sendNow: p.sendNow, createdAt: p.createdAt, ...(p.attachments ? { attachments: p.attachments } : {}) };
}
