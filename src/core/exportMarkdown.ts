/**
 * A chat as a Markdown document (Agent Chats: Export Chat as Markdown…, Copy Chat into an Untitled Markdown Editor,
 * Export All Chats…). The format is described in README.md ("Export format"); in short: a title, a
 * list of facts (agent, times, turns), then per turn a `## Turn N` heading, when it was sent and how
 * it ended, the prompt as a quote, and the turn's items in the chat's order: the agent's reply as
 * Markdown, each tool invocation with its status, exit code, duration, diff and output in fenced
 * blocks, each boundary request with what was asked, why, the decision and the closure reason in
 * words, notices, and a failed turn's banner. Words come from the same tables as the chat view's
 * (`labels.ts`, `errorClassWords.ts`). The document holds no raw HTML (`markdownText.ts`).
 *
 * Pure: the session and its whole transcript in, a string out. Times are ISO-8601 with the offset
 * the caller gives for each instant (the host: the machine's time zone, daylight saving included).
 */
import { attachmentLabel, attachmentStatus, type AttachmentView } from './attachments';
import type { SessionRecord } from './events';
import { describeErrorClass, errorClassShortLabel, isRestartErrorClass, settledRequestText } from './errorClassWords';
import {
  boundaryKindLabel, codeSpan, DECISION_LABELS, oneLine, elapsedLabel, invocationDetail, invocationStatusLabel, providerName, turnOriginLabel,
  neverRan, requestsByInvocation, type BoundaryItem, type InvocationItem,
} from './labels';
import { escapeText, fencedBlock, markdownWithoutHtml, quote } from './markdownText';
import { MAX_INVOCATION_OUTPUT_CHARS, type Transcript, type TranscriptItem, type TranscriptTurn } from './transcript';
import type { TurnStatus } from './vocabulary';

/** How `chatToMarkdown` writes a chat. */
export interface ExportOptions {
  /**
   * Minutes east of UTC at the instant `ms` (ms since the epoch): 60 for UTC+01:00. Default: 0
   * (UTC). The host passes the machine's offset at that instant.
   */
  readonly utcOffsetMinutes?: (ms: number) => number;
  /** Sentences (plain text) shown as notes under the facts, e.g. that some records could not be read. */
  readonly notes?: readonly string[];
}

/** An instant as ISO-8601 with its offset, to the second: `2026-12-01T19:05:12+01:00`. */
export function isoTime(ms: number, utcOffsetMinutes: (ms: number) => number = () => 0): string {
  const offset = Math.round(utcOffsetMinutes(ms));
  const local = new Date(ms + offset * 60_000).toISOString().slice(0, 19);
  const abs = Math.abs(offset);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${local}${offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** How long something ran: "350 ms" under a second, else the view's words ("12 s", "1 min 05 s"). */
export function durationLabel(ms: number): string {
  return ms < 1000 ? `${Math.max(0, Math.round(ms))} ms` : elapsedLabel(ms);
}

/** The anchor of a turn's heading (`## Turn 3` → `turn-3`), as GitHub and VS Code's preview make it. */
export function turnAnchor(n: number): string {
  return `turn-${n}`;
}

const TURN_STATUS_WORDS: Readonly<Record<TurnStatus, string>> = {
  running: 'Still running when exported',
  completed: 'Completed',
  failed: 'Failed',
  stopped: 'Stopped',
};

const NOTICE_WORDS = { info: 'Note', warning: 'Warning', error: 'Error' } as const;

/** What writing one turn needs to know of the chat. */
interface ChatContext {
  /** Turn id → its number (1-based, the chat's order). */
  readonly numbers: ReadonlyMap<string, number>;
  /** Turn id → the first later turn that retries or continues it. */
  readonly followUps: ReadonlyMap<string, TranscriptTurn>;
  /** Turn id → the later turn that replaces it (edit and resend). */
  readonly replacedBy: ReadonlyMap<string, TranscriptTurn>;
  readonly time: (ms: number) => string;
}

/** The chat as a Markdown document (see the module docstring), ending with one newline. */
export function chatToMarkdown(session: SessionRecord, transcript: Transcript, options: ExportOptions = {}): string {
  const time = (ms: number) => isoTime(ms, options.utcOffsetMinutes);
  const numbers = new Map(transcript.turns.map((t, i) => [t.id, i + 1]));
  const followUps = new Map<string, TranscriptTurn>();
  for (const t of transcript.turns) if (t.parentTurnId !== null && !followUps.has(t.parentTurnId)) followUps.set(t.parentTurnId, t);
  const replacedBy = new Map(transcript.turns.filter((t) => t.replacesTurnId).map((t) => [t.replacesTurnId!, t]));
  const chat: ChatContext = { numbers, followUps, replacedBy, time };
  const blocks = [
    `# ${escapeText(session.title) || 'Untitled chat'}`,
    [
      `- **Agent:** ${escapeText(providerName(session.provider))}`,
      `- **Created:** ${time(session.createdAt)}`,
      `- **Last active:** ${time(session.updatedAt)}`,
      `- **Turns:** ${transcript.turns.length}`,
    ].join('\n'),
    ...(options.notes ?? []).map((note) => quote(`**Note:** ${escapeText(note, true)}`)),
    ...transcript.turns.map((turn) => turnToMarkdown(turn, chat)),
  ];
  return `${blocks.join('\n\n')}\n`;
}

/** A link to turn `turnId`, or null when the chat has no such turn. */
function turnLink(turnId: string | null, chat: ChatContext): string | null {
  const n = turnId === null ? undefined : chat.numbers.get(turnId);
  return n === undefined ? null : `[turn ${n}](#${turnAnchor(n)})`;
}

/** One turn: a rule and heading, its origin, time and status, the prompt, its items, its banner. */
function turnToMarkdown(turn: TranscriptTurn, chat: ChatContext): string {
  const n = chat.numbers.get(turn.id)!;
  const parent = turnLink(turn.parentTurnId, chat);
  const replaces = turnLink(turn.replacesTurnId ?? null, chat);
  const origin = turn.origin === 'retry' && parent ? `Retry of ${parent}` : turn.origin === 'continue' && parent ? `Continues ${parent} after a restart`
    : replaces ? `Edited and sent again: replaces ${replaces}` : turnOriginLabel(turn);
  const replacer = chat.replacedBy.get(turn.id);
  const edited = replacer ? `Edited: replaced by ${turnLink(replacer.id, chat)}` : null;
  // A reply a reload or restart cut short reads as the chat tab says it: interrupted, not failed.
  const status = turn.status === 'failed' && turn.errorClass && isRestartErrorClass(turn.errorClass) ? 'Interrupted' : TURN_STATUS_WORDS[turn.status] ?? turn.status;
  const meta = [`Sent ${chat.time(turn.createdAt)}`, status, origin, edited, turn.model ? `Model ${codeSpan(turn.model)}` : null].filter(Boolean).join(' · ');
  const prompt = markdownWithoutHtml(turn.prompt, true);
  return [
    '---',
    `## Turn ${n}`,
    `*${meta}*`,
    quote(prompt === '' ? '*(empty prompt)*' : prompt),
    ...(turn.attachments?.length ? [attachmentsToMarkdown(turn.attachments)] : []),
    ...itemsToMarkdown(turn.items),
    ...(turn.errorClass ? [bannerToMarkdown(turn, chat)] : []),
  ].join('\n\n');
}

/** What was attached to a prompt, as the chat tab lists it under the prompt: label, then bytes sent and the cut note (or why it was not sent). */
function attachmentsToMarkdown(attachments: readonly AttachmentView[]): string {
  return ['**Attached:**', ...attachments.map((a) => `- ${escapeText(attachmentLabel(a))}: ${escapeText(attachmentStatus(a))}`)].join('\n');
}

/**
 * A turn's items in the chat's order. As in the view, a boundary request made by an invocation of the
 * turn is written with that invocation (before its output), not at its own place.
 */
function itemsToMarkdown(items: readonly TranscriptItem[]): string[] {
  const { invocationIds, requestsOf } = requestsByInvocation(items);
  return items.flatMap((item): string[] => {
    switch (item.type) {
      case 'text':
        return item.text.trim() === '' ? [] : [markdownWithoutHtml(item.text)];
      case 'invocation':
        return [invocationToMarkdown(item, requestsOf.get(item.id) ?? [])];
      case 'boundary':
        return item.invocationId && invocationIds.has(item.invocationId) ? [] : [boundaryToMarkdown(item, null)];
      case 'notice':
        return [quote(`**${NOTICE_WORDS[item.level] ?? 'Note'}:** ${escapeText(item.message, true)}`)];
    }
  });
}

/** An invocation: tool and summary, status line, detail, diff, its boundary requests, output. */
function invocationToMarkdown(item: InvocationItem, requests: readonly BoundaryItem[]): string {
  const status = [
    invocationStatusLabel({ status: item.status, failureClass: item.failureClass }),
    typeof item.exitCode === 'number' ? `exit code ${item.exitCode}` : null,
    ranFor(item, requests),
  ].filter(Boolean).join(' · ');
  // A denied invocation's request already says who denied it (as in the view).
  const shown = item.status === 'denied' && requests.some((r) => r.status !== 'pending') ? { ...item, message: undefined } : item;
  const detail = invocationDetail(shown, errorClassShortLabel);
  const head = [`**Tool ${codeSpan(item.tool)}:** ${codeSpan(oneLine(item.summary, Infinity))}`, status, detail ? escapeText(detail, true) : null].filter(Boolean).join('\\\n');
  return [
    head,
    ...(item.diff ? [fencedBlock(item.diff, 'diff')] : []),
    ...requests.map((r) => boundaryToMarkdown(r, item)),
    ...(item.output ? [`Output${item.outputCut ? ` (cut: only its last ${MAX_INVOCATION_OUTPUT_CHARS.toLocaleString('en-US')} characters are kept)` : ''}:`, fencedBlock(item.output)] : []),
  ].join('\n\n');
}

/**
 * "ran 1.2 s" for an invocation that ran and ended by itself (or by Stop), else null: one denied, or
 * stopped while its request waited, never ran; one a restart ended ran until the window died, which
 * the journal does not know (its end is when recovery found it).
 */
function ranFor(item: InvocationItem, requests: readonly BoundaryItem[]): string | null {
  if (item.finishedAt === undefined || item.runningSince === undefined) return null;
  if (item.status !== 'completed' && item.status !== 'failed' && item.status !== 'stopped') return null;
  if ((item.failureClass && isRestartErrorClass(item.failureClass)) || neverRan(item, requests)) return null;
  return `ran ${durationLabel(item.finishedAt - item.runningSince)}`;
}

/**
 * A boundary request: what it asks (kind and subject), why, what "Allow for this session" would also
 * approve, its diff (unless its invocation shows the same one), and how it was decided and closed.
 */
function boundaryToMarkdown(item: BoundaryItem, invocation: InvocationItem | null): string {
  const decision = item.status === 'pending'
    ? 'Decision: none, it was still waiting when the chat was exported'
    : `Decision: ${item.decision ? DECISION_LABELS[item.decision] ?? item.decision : 'none'} — ${settledRequestText(item.status, item.decision, item.closureReason)}`;
  const lines = [
    `**Approval asked — ${escapeText(boundaryKindLabel(item.kind))}:** ${codeSpan(oneLine(item.subject, Infinity))}`,
    item.why ? `Why: ${escapeText(item.why, true)}` : null,
    item.grants ? `“Allow for this session” would also approve ${escapeText(item.grants, true)}` : null,
    decision,
  ].filter(Boolean);
  const diff = item.diff && item.diff !== invocation?.diff ? [fencedBlock(item.diff, 'diff')] : [];
  return quote([lines.join('\\\n'), ...diff].join('\n\n'));
}

/** A failed turn's banner: its error class in words, and where it was retried or continued. */
function bannerToMarkdown(turn: TranscriptTurn, chat: ChatContext): string {
  const view = describeErrorClass(turn.errorClass!, turn, {});
  const followUp = chat.followUps.get(turn.id);
  const link = followUp ? turnLink(followUp.id, chat) : null;
  const next = followUp && link ? `${followUp.origin === 'continue' ? 'Continued' : 'Retried'} in ${link}.` : null;
  const label = view.tone === 'restart' ? 'Note' : 'Error';
  return quote([`**${label}: ${escapeText(view.title)}.** ${view.body}`, next].filter(Boolean).join('\\\n'));
}
