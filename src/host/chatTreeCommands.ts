/**
 * Registers the Agent Chats view (`ChatTree`) and the commands of its title bar: Refresh, and the
 * This Workspace / All Workspaces toggle (two commands, one shown at a time by the
 * `nativeAgentChats.chatListScope` context key).
 */
import * as vscode from 'vscode';
import type { ChatRuntime } from '../runtime/chatRuntime';
import { ChatTree } from './chatTree';

/** Creates the view and its commands; both are disposed with `context.subscriptions`. Returns the tree. */
export function registerChatTree(context: vscode.ExtensionContext, ready: Promise<ChatRuntime>): ChatTree {
  // The same key the journal's tab records use: a window without a folder is ''.
  const tree = new ChatTree(ready, vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '', context.workspaceState);
  tree.createView();
  context.subscriptions.push(
    tree,
    vscode.commands.registerCommand('nativeAgentChats.refreshChats', () => tree.reload()),
    vscode.commands.registerCommand('nativeAgentChats.showAllWorkspaces', () => tree.setScope('all')),
    vscode.commands.registerCommand('nativeAgentChats.showThisWorkspace', () => tree.setScope('workspace')),
  );
  return tree;
}
