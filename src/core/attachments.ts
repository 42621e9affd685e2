/**
 * Attachments: context the user adds to a prompt (a file, a folder's listing, an editor selection,
 * the problems of a file) — their vocabulary, their limits, and how an agent is shown one. Pure:
 * shared by the journal, the runtime, the host and the view (docs/ARCHITECTURE.md, "Attachments").
 *
 * An attachment is journaled with its prompt (table `attachments`): the content actually sent is
 * in the content store (`contents`, by SHA-256), cut to `MAX_ATTACHMENT_BYTES` with a note saying
 * so; Retry and Continue send the same content again, read from the journal, never from the disk.
 */

/** What an attachment is: a file (or lines of it), a folder's listing, the editor's selection, a file's problems. */
export const ATTACHMENT_KINDS = ['file', 'folder', 'selection', 'problems'] as const;
export type AttachmentKind = (typeof ATTACHMENT_KINDS)[number];

/**
 * Where an attachment stands: `attached` (its content is journaled), `pending` (a file outside the
 * workspace: read only after the user allowed it through a boundary request when its turn runs),
 * `denied` (that request was denied: nothing was read or sent).
 */
export const ATTACHMENT_STATES = ['attached', 'pending', 'denied'] as const;
export type AttachmentState = (typeof ATTACHMENT_STATES)[number];

/** Most bytes of one attachment sent to the agent (256 KiB); the rest is cut, with a note. */
export const MAX_ATTACHMENT_BYTES = 256 * 1024;

/** Most attachments on one message. */
export const MAX_ATTACHMENTS = 20;

/** Longest path an attachment may name, in characters. */
export const MAX_ATTACHMENT_PATH_CHARS = 1024;

/** Lines of a file, 1-based, both ends included. */
export interface LineRange {
  readonly startLine: number;
  readonly endLine: number;
}

/**
 * What the view asks to attach: its kind, its path (relative to the workspace folder with `/`, or
 * absolute for a file outside it; '' for the problems of the whole workspace) and, for lines of a
 * file or a selection, the range.
 */
export interface AttachmentRef {
  readonly kind: AttachmentKind;
  readonly path: string;
  readonly range?: LineRange;
}

/**
 * An attachment as journaled and shown (a chip, a transcript line): no content, only its address
 * (`hash`, null while `pending` or once `denied`), the bytes sent (`sentSize`) and the size of what
 * it was cut from (`originalSize`), and `cutNote` when it was cut (or why it was not sent).
 */
export interface AttachmentView extends AttachmentRef {
  readonly state: AttachmentState;
  readonly hash: string | null;
  readonly sentSize: number;
  readonly originalSize: number;
  readonly cutNote: string | null;
}

/** An attachment as an agent receives it: what `AttachmentView` says, and the text sent. */
export interface AgentAttachment extends AttachmentRef {
  readonly text: string;
  readonly cutNote: string | null;
}

/** The note of an attachment cut to `sent` of `original` bytes. */
export function cutNoteOf(sent: number, original: number): string {
  return `cut: only the first ${sent.toLocaleString('en-US')} of ${original.toLocaleString('en-US')} bytes were sent (the limit is ${MAX_ATTACHMENT_BYTES.toLocaleString('en-US')} bytes per attachment)`;
}

/** A chip's or a header's label: the path (or "problems"/"selection" words) and its lines. */
export function attachmentLabel(a: AttachmentRef): string {
  const lines = a.range ? (a.range.startLine === a.range.endLine ? `:${a.range.startLine}` : `:${a.range.startLine}-${a.range.endLine}`) : '';
  if (a.kind === 'problems') return a.path ? `Problems in ${a.path}` : 'Problems in the workspace';
  if (a.kind === 'folder') return `${a.path || '.'}/`;
  return `${a.path}${lines}`;
}

/** What a journaled attachment's line says besides its label (the chat tab and the export): how much was sent, cut, or why not. */
export function attachmentStatus(a: AttachmentView): string {
  if (a.state === 'pending') return 'waits for your approval (outside the workspace)';
  if (a.state === 'denied') return a.cutNote ?? 'not sent';
  const size = `${a.sentSize.toLocaleString('en-US')} bytes`;
  return a.cutNote ? `${size}; ${a.cutNote}` : size;
}

/** The longest run of backticks in `text`, so a fence can be longer than any run inside it. */
function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/**
 * One attachment as a fenced block the model reads: a header line naming its kind, path and lines
 * (and the cut note), then the text in a fence longer than any backtick run inside it, so the text
 * cannot end its block early.
 */
export function attachmentBlock(a: AgentAttachment): string {
  const what = a.kind === 'folder' ? 'Folder listing' : a.kind === 'problems' ? 'Problems' : a.kind === 'selection' ? 'Selection' : 'File';
  const lines = a.range ? ` (lines ${a.range.startLine}-${a.range.endLine})` : '';
  const note = a.cutNote ? ` [${a.cutNote}]` : '';
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(a.text) + 1));
  return `${what}: ${a.path || 'the workspace'}${lines}${note}\n${fence}\n${a.text}${a.text.endsWith('\n') ? '' : '\n'}${fence}`;
}

/** The words before the attachments in a prompt. */
export const ATTACHED_HEADING = 'Attached by the user:';

/**
 * The prompt as the product's tool-using agents send it: the user's text, then each attachment as a
 * fenced block (`attachmentBlock`). The prompt alone when nothing is attached.
 */
export function promptWithAttachments(prompt: string, attachments: readonly AgentAttachment[]): string {
  if (attachments.length === 0) return prompt;
  return [prompt, ATTACHED_HEADING, ...attachments.map(attachmentBlock)].join('\n\n');
}
