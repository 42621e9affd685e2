/**
 * The export commands: **Export Chat as Markdown…** (a save dialog, then a notification with Open),
 * **Copy Chat into an Untitled Markdown Editor** (an untitled Markdown editor) and **Export All Chats…** (a folder picker,
 * then one file per chat and an index in a new folder inside it, under a cancellable progress
 * notification). The chat is the one given (a session id, or an object with `sessionId`: a view
 * item), else the active chat tab's, else a picked one. The Markdown itself is `chatMarkdown`
 * (src/runtime/chatExport.ts) over the chat's whole transcript.
 *
 * Arguments that skip the UI, for tests and other extensions: `{ sessionId, target }` (a `Uri` or a
 * file path) writes Export Chat's file without the save dialog; `{ folder }` gives Export All's folder.
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import type { SessionRecord } from '../core/events';
import { EXPORT_INDEX_FILE, markdownFileName } from '../core/exportFiles';
import type { ChatRuntime } from '../runtime/chatRuntime';
import { chatMarkdown, exportAllChats, localUtcOffset } from '../runtime/chatExport';
import type { ChatPanels } from './chatPanels';

/** Registers a command the way `registerCommands` does (waits for the runtime, reports failures). */
export type CommandRegistrar = (id: string, run: (runtime: ChatRuntime, args?: unknown) => Promise<unknown>) => unknown;

/** Registers the three export commands with `command`. */
export function registerExportCommands(command: CommandRegistrar, panels: ChatPanels): void {
  command('nativeAgentChats.exportChat', (runtime, args) => exportChat(runtime, panels, args));
  command('nativeAgentChats.openChatAsMarkdown', (runtime, args) => openChatAsMarkdown(runtime, panels, args));
  command('nativeAgentChats.exportAllChats', (runtime, args) => exportAll(runtime, args));
}

/** The session id in a command's argument: the argument itself, or its `sessionId`. */
function givenSessionId(args: unknown): string | undefined {
  if (typeof args === 'string') return args;
  const id = (args as { sessionId?: unknown } | undefined)?.sessionId;
  return typeof id === 'string' ? id : undefined;
}

/**
 * The chat an export command acts on: the one given, else the active chat tab's, else one the user
 * picks. Undefined when there is none or the pick was dismissed.
 * @throws Error when the given chat is no longer in the journal.
 */
async function chatToExport(runtime: ChatRuntime, panels: ChatPanels, args: unknown, placeHolder: string): Promise<SessionRecord | undefined> {
  const sessionId = givenSessionId(args) ?? panels.activeSessionId();
  if (!sessionId) return panels.pickSession(placeHolder);
  const session = await runtime.getSession(sessionId);
  if (!session) throw new Error('That chat is no longer in the journal.');
  return session;
}

/** A `Uri` from a command argument: a `Uri`, or a file path. */
function uriArgument(value: unknown): vscode.Uri | undefined {
  if (value instanceof vscode.Uri) return value;
  return typeof value === 'string' && value !== '' ? vscode.Uri.file(value) : undefined;
}

/** Where dialogs start: the first workspace folder, else the home folder. */
function defaultFolder(): vscode.Uri {
  return vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(os.homedir());
}

/** The name a message shows for a file or folder. */
function displayPath(uri: vscode.Uri): string {
  return uri.scheme === 'file' ? uri.fsPath : uri.toString(true);
}

/** Export Chat as Markdown…: resolves the written file's URI (as a string), or undefined when dismissed. */
async function exportChat(runtime: ChatRuntime, panels: ChatPanels, args: unknown): Promise<string | undefined> {
  const session = await chatToExport(runtime, panels, args, 'Export which chat?');
  if (!session) return undefined;
  const target = uriArgument((args as { target?: unknown } | undefined)?.target) ?? (await vscode.window.showSaveDialog({
    defaultUri: vscode.Uri.joinPath(defaultFolder(), markdownFileName(session.title)),
    filters: { Markdown: ['md'] },
    saveLabel: 'Export',
    title: `Export “${session.title}” as Markdown`,
  }));
  if (!target) return undefined;
  const chat = await chatMarkdown(runtime, session, localUtcOffset);
  await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(chat.markdown));
  const said = chat.problem ? ` Some of its records could not be read: ${chat.problem}` : '';
  void vscode.window.showInformationMessage(`Exported “${session.title}” to ${displayPath(target)}.${said}`, 'Open').then((choice) => {
    if (choice === 'Open') void vscode.window.showTextDocument(target);
  });
  return target.toString();
}

/** Copy Chat into an Untitled Markdown Editor: resolves the untitled document's URI (as a string), or undefined when dismissed. */
async function openChatAsMarkdown(runtime: ChatRuntime, panels: ChatPanels, args: unknown): Promise<string | undefined> {
  const session = await chatToExport(runtime, panels, args, 'Copy which chat into an untitled Markdown editor?');
  if (!session) return undefined;
  const chat = await chatMarkdown(runtime, session, localUtcOffset);
  const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: chat.markdown });
  await vscode.window.showTextDocument(document, { preview: false });
  return document.uri.toString();
}

/** What Export All Chats… resolves: the folder written and how many chats it holds, of how many. */
export interface ExportAllOutcome {
  readonly folder: string;
  readonly written: number;
  readonly total: number;
  readonly cancelled: boolean;
}

/**
 * Export All Chats…: every chat into a new folder `agent-chats-<local time>` inside the folder picked
 * (so no file already there is overwritten), under a cancellable progress notification.
 */
async function exportAll(runtime: ChatRuntime, args: unknown): Promise<ExportAllOutcome | undefined> {
  const sessions = await runtime.listSessions();
  if (sessions.length === 0) {
    void vscode.window.showInformationMessage('There are no chats to export yet.');
    return undefined;
  }
  const parent = uriArgument((args as { folder?: unknown } | undefined)?.folder)
    ?? (await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, defaultUri: defaultFolder(), openLabel: 'Export Here', title: `Export ${sessions.length} chats as Markdown into…` }))?.[0];
  if (!parent) return undefined;
  const folder = await freshFolder(parent, `agent-chats-${localStamp(Date.now())}`);
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Exporting chats', cancellable: true },
    (progress, token) =>
      exportAllChats(runtime, sessions, { write: (name, text) => Promise.resolve(vscode.workspace.fs.writeFile(vscode.Uri.joinPath(folder, name), new TextEncoder().encode(text))) }, {
        cancelled: () => token.isCancellationRequested,
        progress: (done, total, session) => progress.report({ message: `${done + 1} of ${total}: ${session.title}`, increment: done === 0 ? 0 : 100 / total }),
        exportedAt: Date.now(),
        utcOffsetMinutes: localUtcOffset,
      }),
  );
  const unreadable = result.chats.filter((c) => c.problem).length;
  const partly = unreadable > 0 ? ` ${unreadable} of them could be read only in part (see the index).` : '';
  const message = result.cancelled
    ? `Export stopped: ${result.chats.length} of ${result.total} chats were written to ${displayPath(folder)}.${partly}`
    : `Exported ${result.total} chats to ${displayPath(folder)}.${partly}`;
  void vscode.window.showInformationMessage(message, 'Open Index').then((choice) => {
    if (choice === 'Open Index') void vscode.window.showTextDocument(vscode.Uri.joinPath(folder, EXPORT_INDEX_FILE));
  });
  return { folder: folder.toString(), written: result.chats.length, total: result.total, cancelled: result.cancelled };
}

/** `2026-12-01T19-05-12`: an instant in the machine's time zone, fit for a file name. */
function localStamp(ms: number): string {
  const offset = localUtcOffset(ms);
  return new Date(ms + offset * 60_000).toISOString().slice(0, 19).replace(/:/g, '-');
}

/** Creates `name` in `parent`, or `name-2`, `name-3`, … when taken; resolves the new folder. */
async function freshFolder(parent: vscode.Uri, name: string): Promise<vscode.Uri> {
  for (let n = 1; ; n++) {
    const folder = vscode.Uri.joinPath(parent, n === 1 ? name : `${name}-${n}`);
    const exists = await Promise.resolve(vscode.workspace.fs.stat(folder)).then(() => true, () => false);
    if (!exists) {
      await vscode.workspace.fs.createDirectory(folder);
      return folder;
    }
  }
}
