/**
 * Chats read for export: one chat as Markdown (its whole transcript, read on demand), and every chat
 * written one file each plus an index, stopping between chats when asked. A chat with rows this build
 * cannot read (fenced) is written with what could be read and a note saying so; a chat that cannot be
 * read at all is written as its title and facts with a note, and the export goes on. No `vscode`: the
 * host passes where files go (`ExportSink`) and how to tell a cancel (`ExportAllOptions.cancelled`).
 */
import type { SessionRecord } from '../core/events';
import { EXPORT_INDEX_FILE, exportIndexMarkdown, uniqueFileNames, type ExportedChat } from '../core/exportFiles';
import { chatToMarkdown } from '../core/exportMarkdown';
import { EMPTY_TRANSCRIPT } from '../core/transcript';
import type { ChatRuntime } from './chatRuntime';

/** A chat as Markdown, how many turns it has, and why it is incomplete (when it is). */
export interface ChatMarkdown {
  readonly markdown: string;
  readonly turns: number;
  /** A sentence when some or all of the chat's records could not be read. */
  readonly problem?: string;
}

/** Minutes east of UTC at an instant (ms since the epoch), as `ExportOptions.utcOffsetMinutes`. */
export type UtcOffset = (ms: number) => number;

/** The machine's offset from UTC at the instant `ms`, daylight saving included (`Date`'s time zone). */
export const localUtcOffset: UtcOffset = (ms) => -new Date(ms).getTimezoneOffset();

/**
 * The chat `session` as Markdown (`chatToMarkdown`), its whole transcript read from the journal.
 * Never throws for a chat that cannot be read: the document then says so.
 */
export async function chatMarkdown(runtime: ChatRuntime, session: SessionRecord, utcOffsetMinutes: UtcOffset = localUtcOffset): Promise<ChatMarkdown> {
  let transcript = EMPTY_TRANSCRIPT;
  let problem: string | undefined;
  try {
    transcript = await runtime.transcript(session.id);
    // Reading the rows is what fences a chat whose rows this build cannot read: ask after it.
    problem = (await runtime.journal.read('getFence', session.id)) ?? undefined;
  } catch (error) {
    problem = `The chat's turns could not be read (${error instanceof Error ? error.message : String(error)}), so only its title and times are here.`;
  }
  const notes = problem ? [problem] : [];
  return { markdown: chatToMarkdown(session, transcript, { utcOffsetMinutes, notes }), turns: transcript.turns.length, ...(problem ? { problem } : {}) };
}

/** Where an export of several chats writes its files (a folder). */
export interface ExportSink {
  /** Writes `text` (UTF-8) as the file `fileName` of the export's folder. @throws when it cannot. */
  write(fileName: string, text: string): Promise<void>;
}

/** How `exportAllChats` runs. */
export interface ExportAllOptions {
  /** Asked before each chat: true stops the export there (the index still lists what was written). */
  readonly cancelled: () => boolean;
  /** Told before each chat is read: how many are done, of how many, and which one comes. */
  readonly progress?: (done: number, total: number, session: SessionRecord) => void;
  /** When the export ran (ms since the epoch), for the index. */
  readonly exportedAt: number;
  readonly utcOffsetMinutes?: UtcOffset;
}

/** What an export of several chats wrote. */
export interface ExportAllResult {
  /** The chats written, in the order given. */
  readonly chats: readonly ExportedChat[];
  /** How many chats there were to write. */
  readonly total: number;
  /** It stopped before the last chat because `cancelled` said so. */
  readonly cancelled: boolean;
}

/**
 * Writes each of `sessions` (newest first, as `listSessions` gives them) as its own file with a
 * unique name from its title, then the index (`EXPORT_INDEX_FILE`) linking those written, newest
 * first. A chat's unreadable rows never stop the others (`chatMarkdown`).
 * @throws when the sink cannot write a file (a full disk, no permission): the files written so far stay.
 */
export async function exportAllChats(runtime: ChatRuntime, sessions: readonly SessionRecord[], sink: ExportSink, options: ExportAllOptions): Promise<ExportAllResult> {
  const names = uniqueFileNames(sessions.map((s) => s.title));
  const chats: ExportedChat[] = [];
  let cancelled = false;
  for (const [i, session] of sessions.entries()) {
    if (options.cancelled()) {
      cancelled = true;
      break;
    }
    options.progress?.(i, sessions.length, session);
    const chat = await chatMarkdown(runtime, session, options.utcOffsetMinutes);
    await sink.write(names[i]!, chat.markdown);
    chats.push({ session, fileName: names[i]!, turns: chat.turns, ...(chat.problem ? { problem: chat.problem } : {}) });
  }
  await sink.write(EXPORT_INDEX_FILE, exportIndexMarkdown(chats, options.exportedAt, options.utcOffsetMinutes));
  return { chats, total: sessions.length, cancelled };
}
