/**
 * The view's messages that act outside its chat: pick a chat for an orphan tab, run Check Journal
 * or Repair Journal… from a notice, open a setting or a file the chat links to, and log what failed
 * in the view. None needs the panel's chat; a refusal goes to the view's error bar and the log.
 */
import * as vscode from 'vscode';
import type { WebviewMessageHandlersFor } from '../protocol/hostHandlers';
import { CHECK_JOURNAL_COMMAND } from './checkJournal';
import { openWorkspaceFile } from './openFile';
import { openOwnSetting } from './openSetting';
import type { PanelContext } from './panelContext';
import { REPAIR_JOURNAL_COMMAND } from './repairJournal';

/** The messages of this module (see module docstring). */
export const commandHandlers = {
  pickSession: (_message, panel) => panel.pickSession(),
  checkJournal: () => void vscode.commands.executeCommand(CHECK_JOURNAL_COMMAND),
  repairJournal: () => void vscode.commands.executeCommand(REPAIR_JOURNAL_COMMAND),
  // The view went on without the part that failed; the log keeps what failed for a bug report.
  viewError: ({ message }, panel) => panel.log(`[view] ${panel.sessionId ?? '(no chat)'}: ${message}`),
  openSetting: async ({ id }, panel) => {
    if (await openOwnSetting(id, panel.extensionUri)) return;
    panel.log(`[panel] refused to open setting ${id}: not a setting of this extension`);
    void panel.post({ type: 'error', code: 'unknown_setting', message: `${id} is not a setting of Native Agent Chats.` });
  },
  // Inside the workspace only (`openFile.ts`).
  openFile: async (ref, panel) => {
    const roots = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
    const refused = await openWorkspaceFile(ref, roots);
    if (!refused) return;
    panel.log(`[panel] did not open ${ref.path}: ${refused.message}`);
    void panel.post({ type: 'error', code: refused.reason, message: refused.message });
  },
} satisfies WebviewMessageHandlersFor<'pickSession' | 'checkJournal' | 'repairJournal' | 'viewError' | 'openSetting' | 'openFile', PanelContext>;
