/**
 * Words the chat view (through `webview/labels.ts`) and the Markdown export show for the fixed
 * vocabulary of boundary requests, invocations, turn origins and agents. Pure and DOM-free
 * (unit-tested). Error classes and closure reasons are NOT here: their words live only in
 * `errorClassWords.ts`.
 */
import type { TranscriptItem, TranscriptTurn } from './transcript';
import type { BoundaryDecision, InvocationStatus } from './vocabulary';
import { isRestartErrorClass, settledRequestText } from './errorClassWords';

export { boundaryKindLabel, boundaryKindVerb, codeSpan, oneLine } from './words';

/** A boundary item of the transcript. */
export type BoundaryItem = Extract<TranscriptItem, { type: 'boundary' }>;

/** A tool invocation item of the transcript. */
export type InvocationItem = Extract<TranscriptItem, { type: 'invocation' }>;

/**
 * Whether an invocation never started its work: denied, still waiting for approval, or one of its
 * boundary requests (`requests`, those made by it) was closed unapproved — by the user, a reload, a
 * Stop or Send now — whatever its own status says of how the turn ended.
 */
export function neverRan(item: InvocationItem, requests: readonly BoundaryItem[]): boolean {
  return item.status === 'denied' || item.status === 'awaiting_approval' || requests.some((r) => r.status !== 'approved');
}

/**
 * A turn's boundary requests grouped by the invocation of the same turn that made them
 * (`requestsOf`, each list in ledger order), and the ids of the turn's invocations
 * (`invocationIds`): a request whose invocation is in the turn is shown with that invocation, not at
 * its own place. One pass over `items`.
 */
export function requestsByInvocation(items: readonly TranscriptItem[]): {
  readonly invocationIds: ReadonlySet<string>;
  readonly requestsOf: ReadonlyMap<string, readonly BoundaryItem[]>;
} {
  const invocationIds = new Set<string>();
  for (const item of items) if (item.type === 'invocation') invocationIds.add(item.id);
  const requestsOf = new Map<string, BoundaryItem[]>();
  for (const item of items) {
    if (item.type !== 'boundary' || !item.invocationId || !invocationIds.has(item.invocationId)) continue;
    const list = requestsOf.get(item.invocationId);
    if (list) list.push(item);
    else requestsOf.set(item.invocationId, [item]);
  }
  return { invocationIds, requestsOf };
}

/** Words shown on a pending request the user cannot decide from this window. */
export const NOT_ACTIONABLE_TEXT = 'Waiting in another window or no longer answerable';

/** Words shown on a pending request while VS Code's extension host does not answer the view. */
export const HOST_LOST_WAITING_TEXT = "Waiting — VS Code's extension host is not answering; decide once it is back";

/** Words shown on a pending request this window may decide. */
export const ACTIONABLE_TEXT = 'Waiting for your decision';

/** How a boundary request presents itself right now. */
export interface BoundaryState {
  /** `actionable` shows the three decision buttons; `waiting` shows text only; the rest are settled. */
  readonly state: 'actionable' | 'waiting' | 'approved' | 'denied';
  /** The sentence shown on the card. */
  readonly text: string;
}

/**
 * The outcome or waiting state of a boundary request, in words. A pending request is actionable
 * only when a live run owns it and this window may decide it (`actionableIds`); while the extension
 * host does not answer (`hostLost`) nothing is, and the card says why rather than blaming another window.
 */
export function describeBoundary(item: BoundaryItem, actionableIds: ReadonlySet<string>, hostLost = false): BoundaryState {
  if (item.status === 'pending') {
    if (hostLost) return { state: 'waiting', text: HOST_LOST_WAITING_TEXT };
    return actionableIds.has(item.id)
      ? { state: 'actionable', text: ACTIONABLE_TEXT }
      : { state: 'waiting', text: NOT_ACTIONABLE_TEXT };
  }
  return { state: item.status, text: settledRequestText(item.status, item.decision, item.closureReason) };
}

/** A decision as the card's button names it. */
export const DECISION_LABELS: Readonly<Record<BoundaryDecision, string>> = {
  allow_once: 'Allow once',
  allow_session: 'Allow for this session',
  deny: 'Deny',
};

const INVOCATION_WORDS: Readonly<Record<InvocationStatus, string>> = {
  running: 'Running',
  awaiting_approval: 'Waiting for approval',
  completed: 'Done',
  failed: 'Failed',
  denied: 'Denied',
  stopped: 'Stopped',
};

/**
 * How long something has run, for a running invocation's badge: "12 s", "1 min 05 s", "1 h 02 min".
 * `ms` below 0 (clocks a little apart) reads as 0 s.
 */
export function elapsedLabel(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/**
 * The status an invocation's badge shows: its journaled status, except that one failed by a restart
 * shows `interrupted` (a fresh user saw "Failed" next to a card saying the request was denied by the
 * restart, and read it as the command having run and failed).
 */
export function invocationBadgeStatus(item: Pick<InvocationItem, 'status' | 'failureClass'>): InvocationStatus | 'interrupted' {
  return item.status === 'failed' && item.failureClass && isRestartErrorClass(item.failureClass) ? 'interrupted' : item.status;
}

/** The status badge text of an invocation ("Done", "Failed (exit 2)", "Interrupted", …). */
export function invocationStatusLabel(item: Pick<InvocationItem, 'status' | 'exitCode' | 'failureClass'>): string {
  if (invocationBadgeStatus(item) === 'interrupted') return 'Interrupted';
  const words = INVOCATION_WORDS[item.status] ?? item.status;
  if (typeof item.exitCode === 'number' && item.exitCode !== 0 && (item.status === 'failed' || item.status === 'completed')) {
    return `${words} (exit ${item.exitCode})`;
  }
  return words;
}

/**
 * The line under an invocation's head: the error class's short label, that a restart's recovery
 * stopped the command if it did (`processGroupStopped`), and the invocation's message,
 * without a message that only repeats the status badge (a stopped command said "Stopped" twice).
 * Empty when there is nothing to add. `shortLabel` names an error class (errorClassWords.ts).
 */
export function invocationDetail(
  item: Pick<InvocationItem, 'status' | 'exitCode' | 'message' | 'failureClass' | 'processGroupStopped'>,
  shortLabel: (errorClass: NonNullable<InvocationItem['failureClass']>) => string,
): string {
  const norm = (text: string) => text.trim().replace(/\.$/, '').toLowerCase();
  const message = item.message && norm(item.message) !== norm(invocationStatusLabel(item)) ? item.message : null;
  const stopped = item.processGroupStopped ? PROCESS_GROUP_STOPPED_TEXT : null;
  return [item.failureClass ? shortLabel(item.failureClass) : null, stopped, message].filter(Boolean).join(' — ');
}

/** Said of a command that recovery found still running after its window's host died, and stopped. */
export const PROCESS_GROUP_STOPPED_TEXT = 'The command was still running after the reload, restart or crash that ended this reply; it was stopped.';

/**
 * The small label of a turn that retries or continues an earlier one, or of a message that left the
 * queue (`sentFrom`: when the reply before it ended, or by the user's Send / Send now), or null for a
 * message sent at once from the composer.
 */
export function turnOriginLabel(turn: Pick<TranscriptTurn, 'origin' | 'sentFrom' | 'replacesTurnId'>): string | null {
  if (turn.replacesTurnId) return 'Edited and sent again';
  if (turn.origin === 'retry') return 'Retry of an earlier request';
  if (turn.origin === 'continue') return 'Continued after restart';
  if (turn.sentFrom === 'queue') return 'Sent from the queue';
  if (turn.sentFrom === 'send_now') return 'Sent from the queue at your request';
  return null;
}

const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  local: 'Local agent',
  claude: 'Claude',
  codex: 'Codex',
  'openai-compatible': 'OpenAI-compatible',
  'vscode-lm': 'VS Code model',
};

/** The name of a chat's agent as the tab header shows it (the id itself for an unknown one). */
export function providerName(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider;
}
