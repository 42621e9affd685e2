/**
 * The editor's ways to attach to a chat (contributed in package.json with when clauses): **Add
 * Selection to Chat** (the selected lines of the active editor; its file when nothing is selected),
 * **Add File to Chat** (the file or folder of the Explorer's or the editor's context menu, else the
 * active editor's) and **Ask About Selection…** (the selection attached in a chat that is opened or
 * revealed with the focus in its text box). They attach to the active chat tab, else the one active
 * last, else a new chat with the default agent; the chips appear above its text box (`attach`).
 */
import * as vscode from 'vscode';
import type { AttachmentRef } from '../core/attachments';
import type { ChatRuntime } from '../runtime/chatRuntime';
import { attachmentPathOf } from './attachmentSources';
import type { ChatPanel } from './chatPanel';
import type { ChatPanels } from './chatPanels';
import { setting } from './providers';

/** The command ids. */
export const ADD_SELECTION_COMMAND = 'nativeAgentChats.addSelectionToChat';
export const ADD_FILE_COMMAND = 'nativeAgentChats.addFileToChat';
export const ASK_ABOUT_SELECTION_COMMAND = 'nativeAgentChats.askAboutSelection';

/**
 * The attachment of an editor's selection: its lines (a selection ending at the start of a line
 * leaves that line out), or the whole file when nothing is selected.
 */
export function selectionRef(editor: vscode.TextEditor): AttachmentRef {
  const path = attachmentPathOf(editor.document.uri);
  const s = editor.selection;
  if (s.isEmpty) return { kind: 'file', path };
  const endLine = s.end.character === 0 && s.end.line > s.start.line ? s.end.line : s.end.line + 1;
  return { kind: 'selection', path, range: { startLine: s.start.line + 1, endLine } };
}

/** The chat tab to attach to (see module docstring), a new chat's when none is open. */
async function targetPanel(runtime: ChatRuntime, panels: ChatPanels): Promise<ChatPanel> {
  const open = panels.attachTarget();
  if (open) return open;
  const created = await runtime.createSession(setting('defaultProvider', 'local'));
  if (!created.ok) throw new Error(created.message);
  return panels.open(created.value, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true });
}

/** What an attach command did: the chat it attached to and what it attached (for tests and callers). */
export interface Attached {
  readonly sessionId: string | undefined;
  readonly attachments: readonly AttachmentRef[];
}

/** Attaches `refs` to the target chat; `ask`: reveal it with the focus in its text box. */
async function attach(runtime: ChatRuntime, panels: ChatPanels, refs: AttachmentRef[], ask: boolean): Promise<Attached> {
  const panel = await targetPanel(runtime, panels);
  panel.reveal(!ask);
  await panel.attachToComposer({ type: 'attach', attachments: refs, focus: ask });
  return { sessionId: panel.sessionId, attachments: refs };
}

/** The editor a selection command acts on, or a message saying there is none. */
function activeEditor(): vscode.TextEditor {
  const editor = vscode.window.activeTextEditor;
  if (!editor) throw new Error('Open a file and select the lines to attach first.');
  return editor;
}

/** The attachment of a file or folder URI (a folder when VS Code says it is one). */
async function uriRef(uri: vscode.Uri): Promise<AttachmentRef> {
  const stat = await vscode.workspace.fs.stat(uri);
  return { kind: stat.type & vscode.FileType.Directory ? 'folder' : 'file', path: attachmentPathOf(uri) };
}

/** Registers the three commands with `command` (`chatCommand` of commands.ts). Each resolves what it did (`Attached`). */
export function registerAttachCommands(command: (id: string, run: (runtime: ChatRuntime, args?: unknown) => Promise<unknown>) => void, panels: ChatPanels): void {
  command(ADD_SELECTION_COMMAND, (runtime) => attach(runtime, panels, [selectionRef(activeEditor())], false));
  command(ASK_ABOUT_SELECTION_COMMAND, (runtime) => attach(runtime, panels, [selectionRef(activeEditor())], true));
  command(ADD_FILE_COMMAND, async (runtime, args) => {
    // The Explorer passes the clicked URI (and, with several selected, the list as a second argument).
    const uri = args instanceof vscode.Uri ? args : vscode.window.activeTextEditor?.document.uri;
    if (!uri) throw new Error('Choose a file in the Explorer, or open one, to attach it.');
    return attach(runtime, panels, [await uriRef(uri)], false);
  });
}
