/**
 * Chat tabs of this window's layout that no panel stands for yet, and showing one of them.
 *
 * VS Code restores a window's tabs with its layout but hands a webview tab to the serializer only
 * when the tab is first shown: until then the tab API says only its label and view type. To open a
 * chat whose tab was restored but not drawn, the host shows the tab (VS Code then hands it over and
 * its own identity says which chat it is: tabIdentity.ts) instead of opening a second tab.
 */
import * as vscode from 'vscode';
import { unownedTabs } from '../core/tabMatch';
import { CHAT_VIEW_TYPE } from './chatPanel';

/**
 * True for a tab of a chat webview. `TabInputWebview.viewType` is VS Code's internal view type,
 * which prefixes the extension's (`mainThreadWebview-nativeAgentChats.chat` in VS Code 1.139).
 */
export function isChatTab(tab: vscode.Tab): boolean {
  const input = tab.input;
  return input instanceof vscode.TabInputWebview && (input.viewType === CHAT_VIEW_TYPE || input.viewType.endsWith(`-${CHAT_VIEW_TYPE}`));
}

/**
 * The chat tabs of the layout that none of `panels` (this window's, adopted or being restored)
 * stands for, group by group in tab order. A panel stands for a tab of its group with its title
 * (the tab API tells no more: `unownedTabs`), so which of two same-titled tabs is left is a guess;
 * callers only use the result to choose which tab to show, never to say which chat a tab holds.
 */
export function unrestoredChatTabs(panels: readonly vscode.WebviewPanel[]): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((group) => {
    const chatTabs = group.tabs.filter(isChatTab);
    const mine = panels.filter((p) => p.viewColumn === group.viewColumn).map((p) => ({ title: p.title, visible: p.visible }));
    return unownedTabs(chatTabs.map((t) => ({ label: t.label, active: t.isActive })), mine).map((i) => chatTabs[i]!);
  });
}

/** The workbench commands that focus editor group 1..8 (VS Code has no API to show a given tab). */
const FOCUS_GROUP = ['First', 'Second', 'Third', 'Fourth', 'Fifth', 'Sixth', 'Seventh', 'Eighth'].map((n) => `workbench.action.focus${n}EditorGroup`);

/**
 * Makes `tab` the active editor of its group and that group the active one (which takes the focus).
 * @returns false when it could not be done: the tab is gone, or its group is past the eighth.
 */
export async function showTab(tab: vscode.Tab): Promise<boolean> {
  const group = tab.group;
  const index = group.tabs.indexOf(tab);
  if (index < 0) return false;
  if (vscode.window.tabGroups.activeTabGroup.viewColumn !== group.viewColumn) {
    const focus = FOCUS_GROUP[group.viewColumn - 1];
    if (!focus) return false;
    await vscode.commands.executeCommand(focus);
    if (vscode.window.tabGroups.activeTabGroup.viewColumn !== group.viewColumn) return false;
  }
  await vscode.commands.executeCommand('workbench.action.openEditorAtIndex', index);
  return true;
}
