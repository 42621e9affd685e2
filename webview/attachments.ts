/**
 * The composer's attachment rules, pure and DOM-free (unit-tested): the chips of the message being
 * written (added once each, at most MAX_ATTACHMENTS), the `@` being typed at the caret, what picking
 * an item of the `@` list does to the text, the list's keyboard navigation, and the URIs of a drop.
 */
import { attachmentLabel, MAX_ATTACHMENTS, type AttachmentRef } from '../src/core/attachments';
import type { CompletionItem } from '../src/protocol/messages';

/** Whether two references attach the same thing (kind, path and lines). */
export function sameAttachment(a: AttachmentRef, b: AttachmentRef): boolean {
  return a.kind === b.kind && a.path === b.path && a.range?.startLine === b.range?.startLine && a.range?.endLine === b.range?.endLine;
}

/**
 * `list` with `added` appended, each thing once (one already there stays where it is) and at most
 * MAX_ATTACHMENTS; `refused`: how many did not fit.
 */
export function addAttachments(list: readonly AttachmentRef[], added: readonly AttachmentRef[]): { list: AttachmentRef[]; refused: number } {
  const next = [...list];
  let refused = 0;
  for (const ref of added) {
    if (next.some((a) => sameAttachment(a, ref))) continue;
    if (next.length >= MAX_ATTACHMENTS) refused++;
    else next.push(ref);
  }
  return { list: next, refused };
}

/** A chip's accessible name: what it attaches. */
export function chipName(ref: AttachmentRef): string {
  const what = ref.kind === 'folder' ? 'Folder' : ref.kind === 'selection' ? 'Selection' : ref.kind === 'problems' ? '' : 'File';
  return what ? `${what} ${attachmentLabel(ref)}` : attachmentLabel(ref);
}

/** An `@` being typed: where it starts in the text and what follows it up to the caret. */
export interface Mention {
  readonly start: number;
  readonly query: string;
}

/**
 * The `@` the caret is in (`text` up to `caret` ends with `@` and non-blank characters, the `@` at the
 * start or after a blank), or undefined. An e-mail address (`a@b`) is not one.
 */
export function mentionAt(text: string, caret: number): Mention | undefined {
  const before = text.slice(0, caret);
  const m = /(^|\s)@([^\s@]*)$/.exec(before);
  if (!m) return undefined;
  return { start: before.length - m[2]!.length - 1, query: m[2]! };
}

/** The text with the `@query` of `mention` removed (the caret goes where it was), for a picked item. */
export function withoutMention(text: string, mention: Mention): { text: string; caret: number } {
  const end = mention.start + 1 + mention.query.length;
  return { text: text.slice(0, mention.start) + text.slice(end), caret: mention.start };
}

/** The `@` list as the view holds it: its items, the highlighted one, and the request they answer. */
export interface MentionList {
  readonly requestId: number;
  readonly items: readonly CompletionItem[];
  readonly active: number;
  /** The host has not answered `requestId` yet. */
  readonly searching?: boolean;
}

/** The list after an arrow key (`delta` -1 or 1), wrapping at the ends. */
export function moveActive(list: MentionList, delta: number): MentionList {
  const n = list.items.length;
  return n === 0 ? list : { ...list, active: (list.active + delta + n) % n };
}

/**
 * The URIs of a drop, from `application/vnd.code.uri-list` (what VS Code's Explorer and editor tabs
 * put on a drag) or `text/uri-list`: one per line, comment lines (`#`) and blanks left out, at most
 * MAX_ATTACHMENTS.
 */
export function droppedUris(codeUriList: string, textUriList: string): string[] {
  const raw = codeUriList.trim() ? codeUriList : textUriList;
  return raw.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#')).slice(0, MAX_ATTACHMENTS);
}
