/**
 * What a screen reader hears of a chat, in one polite live region (`role=status`) rather than the
 * whole transcript being live: the transcript draws turns as the user scrolls (only those near the
 * viewport are in the DOM), and a live transcript announced every turn drawn by a scroll as if it
 * were new. Announced: a boundary request that waits for the user, how the newest turn ended, a
 * message queued, queued messages held (not sent after a Stop, a failure or a restart), and a queued
 * message sent.
 * Streamed text is not announced as it arrives (it is read where it is, in the transcript).
 * Pure: `announcementsFor` compares two view states.
 */
import { errorClassShortLabel } from '../src/core/errorClassWords';
import { heldWords } from '../src/core/outbox';
import { compareCursors, type TranscriptTurn } from '../src/core/transcript';
import type { BoundaryKind } from '../src/core/vocabulary';
import { boundaryKindVerb, oneLine } from '../src/core/words';
import type { ViewState } from './state';

/** Where a keyboard user finds a card's buttons from the message box (Tab leaves the view). */
export const APPROVAL_WHERE = 'Shift+Tab from the message box goes to its Deny button.';

/** The sentences to announce after the view went from `before` to `after` (often none). */
export function announcementsFor(before: ViewState, after: ViewState): string[] {
  // A first snapshot, another chat, or the same chat again after a resync: the user did not see anything new happen.
  if (after.mode !== 'chat' || before.mode !== 'chat' || before.session?.id !== after.session?.id) return [];
  const out: string[] = [];
  const waitingBefore = new Set(before.live.actionableRequestIds);
  for (const id of after.live.actionableRequestIds) {
    if (waitingBefore.has(id)) continue;
    const card = findCard(after.transcript.turns, id);
    out.push(`${card ? `Approval needed to ${boundaryKindVerb(card.kind)} ${oneLine(card.subject, 120)}` : 'Approval needed'}. ${APPROVAL_WHERE}`);
  }
  const newest = after.transcript.turns.at(-1);
  const was = newest && findTurn(before.transcript.turns, newest.id);
  if (newest && was && was.status === 'running' && newest.status !== 'running') out.push(endWords(newest));
  out.push(...queueWords(before, after));
  return out;
}

/** What changed in the queue: messages added, held, or sent (a new turn sent from the queue). */
function queueWords(before: ViewState, after: ViewState): string[] {
  const out: string[] = [];
  const was = new Map(before.queue.map((p) => [p.clientId, p]));
  const added = after.queue.filter((p) => !was.has(p.clientId)).length;
  if (added > 0) out.push(added === 1 ? 'Message queued: it is sent when the agent is done.' : `${added} messages queued.`);
  const held = after.queue.filter((p) => p.hold !== null && was.has(p.clientId) && was.get(p.clientId)!.hold === null);
  if (held.length > 0) out.push(`${held.length === 1 ? 'A queued message' : `${held.length} queued messages`} waiting. ${heldWords(held[0]!.hold!)}.`);
  // Only turns after the newest the view had: an older page loading brings turns that are not new.
  const newestBefore = before.transcript.turns.at(-1);
  let sent = 0;
  // From the newest back to the first turn not newer than before's newest (turns are in cursor order).
  for (let i = after.transcript.turns.length - 1; i >= 0; i--) {
    const t = after.transcript.turns[i]!;
    if (newestBefore && compareCursors(t, newestBefore) <= 0) break;
    if (t.sentFrom === 'queue' || t.sentFrom === 'send_now') sent++;
  }
  if (sent > 0) out.push(sent === 1 ? 'Queued message sent.' : `${sent} queued messages sent.`);
  return out;
}

function endWords(turn: TranscriptTurn): string {
  if (turn.status === 'completed') return 'The agent replied.';
  if (turn.status === 'stopped') return 'The reply was stopped.';
  return turn.errorClass ? `The reply failed: ${errorClassShortLabel(turn.errorClass)}.` : 'The reply failed.';
}

/** Turn `id` of `turns`, searched from the newest (the one asked for is the newest or near it). */
function findTurn(turns: readonly TranscriptTurn[], id: string): TranscriptTurn | undefined {
  for (let i = turns.length - 1; i >= 0; i--) if (turns[i]!.id === id) return turns[i];
  return undefined;
}

function findCard(turns: readonly TranscriptTurn[], requestId: string): { kind: BoundaryKind; subject: string } | undefined {
  for (let i = turns.length - 1; i >= 0; i--) {
    for (const item of turns[i]!.items) if (item.type === 'boundary' && item.id === requestId) return item;
  }
  return undefined;
}
