/**
 * File names and the index of an export of several chats (Agent Chats: Export All Chats…): a file
 * name from a chat's title that every file system takes, unique within one export, and an index
 * document linking the chats' files, newest first. Pure.
 */
import type { SessionRecord } from './events';
import { isoTime } from './exportMarkdown';
import { providerName } from './labels';
import { escapeText } from './markdownText';

/** The file name of the index an export of several chats writes next to the chats' files. */
export const EXPORT_INDEX_FILE = 'README.md';

/** Most characters of a file name's stem taken from a title (file systems allow 255 bytes). */
const MAX_STEM_CHARS = 80;

/** Names Windows refuses for a file, whatever the extension. */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/i;

/**
 * A file name for a chat titled `title`: characters no file system takes (`/ \ : * ? " < > |`,
 * control characters) and whitespace become `-`, dots and dashes at either end go, at most 80
 * characters, then `.md`. Never empty (`chat.md`), never a name Windows reserves, never the index's.
 */
export function markdownFileName(title: string): string {
  let stem = title
    .normalize('NFC')
    .replace(/[/\\:*?"<>|\p{Cc}\p{Cf}]/gu, '-')
    .replace(/\s+/gu, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[.-]+|[.-]+$/g, '');
  stem = [...stem].slice(0, MAX_STEM_CHARS).join('').replace(/[.-]+$/, '');
  if (stem === '') stem = 'chat';
  if (WINDOWS_RESERVED.test(stem) || `${stem}.md`.toLowerCase() === EXPORT_INDEX_FILE.toLowerCase()) stem = `${stem}-chat`;
  return `${stem}.md`;
}

/**
 * Unique file names for the chats of one export, in the order given: a name already taken (compared
 * without case: macOS and Windows file systems ignore it) gets `-2`, `-3`, … before `.md`.
 */
export function uniqueFileNames(titles: readonly string[]): string[] {
  const taken = new Set<string>([EXPORT_INDEX_FILE.toLowerCase()]);
  return titles.map((title) => {
    const base = markdownFileName(title).slice(0, -'.md'.length);
    let name = `${base}.md`;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base}-${n}.md`;
    taken.add(name.toLowerCase());
    return name;
  });
}

/** A relative link's destination for `fileName`: percent-encoded, parentheses too (they would end it). */
function linkTarget(fileName: string): string {
  return encodeURIComponent(fileName).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** One chat of an export: its record, the file it was written to, and why it is incomplete, if it is. */
export interface ExportedChat {
  readonly session: SessionRecord;
  readonly fileName: string;
  readonly turns: number;
  /** A sentence when the chat was written with only the records that could be read. */
  readonly problem?: string;
}

/**
 * The index of an export: a title, when it was written, and a list linking each chat's file with its
 * agent, last activity and number of turns, newest first (by last activity). `utcOffsetMinutes` as
 * in `ExportOptions`.
 */
export function exportIndexMarkdown(chats: readonly ExportedChat[], exportedAt: number, utcOffsetMinutes?: (ms: number) => number): string {
  const sorted = [...chats].sort((a, b) => b.session.updatedAt - a.session.updatedAt || (a.fileName < b.fileName ? -1 : 1));
  const lines = sorted.map((c) => {
    const facts = [providerName(c.session.provider), `last active ${isoTime(c.session.updatedAt, utcOffsetMinutes)}`, `${c.turns} ${c.turns === 1 ? 'turn' : 'turns'}`];
    const problem = c.problem ? ` — ${escapeText(c.problem)}` : '';
    return `- [${escapeText(c.session.title) || 'Untitled chat'}](${linkTarget(c.fileName)}) — ${escapeText(facts.join(', '))}${problem}`;
  });
  const count = `${chats.length} ${chats.length === 1 ? 'chat' : 'chats'}`;
  return `# Agent Chats\n\n${count}, exported ${isoTime(exportedAt, utcOffsetMinutes)}, newest first.\n\n${lines.join('\n')}\n`;
}
