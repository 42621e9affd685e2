/**
 * Registers the Agent Chats view (`ChatTree`) and the commands around it: Refresh, the This
 * Workspace / All Workspaces toggle (two commands, one shown at a time by the
 * `nativeAgentChats.chatListScope` context key), Search Chats…, and Assign to This Workspace for
 * chats of an older version, whose folder the journal does not know.
 */
import * as vscode from 'vscode';
import { PICK_LIMIT } from '../core/chatPick';
import type { ChatRuntime } from '../runtime/chatRuntime';
import type { ChatPanels } from './chatPanels';
import { ChatTree } from './chatTree';
import { chatCommand } from './commands';
import { searchChats } from './searchChats';

/** How long after the journal is ready the picker's first page is read ahead (ms). */
const PREFETCH_DELAY_MS = 250;

/** The view's data (it waits for `ready`), before the panels, whose picker shows its list. */
export function createChatTree(context: vscode.ExtensionContext, ready: Promise<ChatRuntime>): ChatTree {
  // The same key the journal's tab records use: a window without a folder is ''.
  const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '';
  return new ChatTree(ready, workspace, context.workspaceState);
}

/** Creates the view of `tree` and its commands; both are disposed with `context.subscriptions`. */
export function registerChatTree(context: vscode.ExtensionContext, tree: ChatTree, ready: Promise<ChatRuntime>, panels: ChatPanels, log: (line: string) => void): void {
  const workspace = tree.workspace;
  tree.createView();
  // The picker's first page, read a moment after the journal is ready: restored tabs read first.
  void ready.then(() => {
    const timer = setTimeout(() => tree.prefetchFirstPage(PICK_LIMIT), PREFETCH_DELAY_MS);
    context.subscriptions.push({ dispose: () => clearTimeout(timer) });
  }, () => undefined);
  const command = chatCommand(context, ready, log);
  context.subscriptions.push(
    tree,
    vscode.commands.registerCommand('nativeAgentChats.refreshChats', () => tree.reload()),
    vscode.commands.registerCommand('nativeAgentChats.showAllWorkspaces', () => tree.setScope('all')),
    vscode.commands.registerCommand('nativeAgentChats.showThisWorkspace', () => tree.setScope('workspace')),
  );
  command('nativeAgentChats.searchChats', async (runtime, args) => {
    const initial = typeof (args as { query?: unknown } | undefined)?.query === 'string' ? (args as { query: string }).query : undefined;
    const found = await searchChats(runtime, { ...(tree.scope === 'workspace' ? { workspace } : {}), ...(initial ? { initial } : {}) });
    if (!found) return undefined;
    const session = await runtime.getSession(found.sessionId);
    if (!session) throw new Error('That chat is no longer in the journal.');
    const panel = await panels.open(session);
    panel.revealTurn(found.turnId, found.snippet, found.matchRanges);
    return found;
  });
  command('nativeAgentChats.assignToThisWorkspace', async (runtime, args) => {
    const sessionId = (args as { sessionId?: unknown } | undefined)?.sessionId;
    if (typeof sessionId !== 'string') return undefined;
    const assigned = await runtime.assignWorkspace([sessionId]);
    if (!assigned.ok) void vscode.window.showErrorMessage(assigned.message);
    return assigned.ok;
  });
}
