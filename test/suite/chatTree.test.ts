// The Agent Chats view in a real workbench: its container and view are contributed, it lists chats
// under day groups (All Workspaces), follows a rename and a delete made by commands without a
// refresh, and its item commands take the tree's node as their argument.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ChatTree } from '../../src/host/chatTree';
import { api, EXTENSION_ID, waitFor } from './helpers';

/** The titles the view shows, by group: [[group, [titles…]]…]. */
async function shown(tree: ChatTree): Promise<[string, string[]][]> {
  const out: [string, string[]][] = [];
  for (const group of await tree.getChildren()) {
    const label = tree.getTreeItem(group).label as string;
    out.push([label, (await tree.getChildren(group)).map((n) => tree.getTreeItem(n).label as string)]);
  }
  return out;
}

suite('the Agent Chats view', () => {
  teardown(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  test('is contributed to the activity bar with its commands', () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { viewsContainers: { activitybar: { id: string }[] }; views: Record<string, { id: string }[]> } };
    assert.deepEqual(pkg.contributes.viewsContainers.activitybar.map((c) => c.id), ['nativeAgentChats']);
    assert.deepEqual(pkg.contributes.views.nativeAgentChats!.map((v) => v.id), ['nativeAgentChats.chats']);
  });

  test('lists chats by day, follows a rename and a delete, and acts on its nodes', async () => {
    const tree = (await api()).chatTreeForTests;
    assert.ok(tree, 'the extension runs in test mode');
    await vscode.commands.executeCommand('nativeAgentChats.showAllWorkspaces');
    const sessionId = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'local' });
    await vscode.commands.executeCommand('nativeAgentChats.renameChat', { sessionId, title: 'Tree view chat' });
    await waitFor('the renamed chat under Today', async () => ((await shown(tree)).find(([g]) => g === 'Today')?.[1].includes('Tree view chat') ? true : undefined));

    const node = (await tree.getChildren((await tree.getChildren())[0])).find((n) => tree.getTreeItem(n).label === 'Tree view chat');
    assert.ok(node && node.kind === 'chat');
    const item = tree.getTreeItem(node);
    assert.equal(item.contextValue, 'chat', 'a new chat belongs to this workspace');
    assert.match(String(item.description), /^just now · Local agent$/);
    assert.deepEqual(item.command?.arguments, [{ sessionId }]);

    // A context-menu command gets the node itself.
    await vscode.commands.executeCommand('nativeAgentChats.renameChat', { ...node, title: 'Renamed from the view' });
    await waitFor('the new title in the view', async () => ((await shown(tree)).some(([, titles]) => titles.includes('Renamed from the view')) ? true : undefined));

    await vscode.commands.executeCommand('nativeAgentChats.showThisWorkspace');
    assert.ok((await shown(tree)).some(([, titles]) => titles.includes('Renamed from the view')), 'this workspace\'s chat shows under This Workspace');

    await vscode.commands.executeCommand('nativeAgentChats.deleteChat', { sessionId, confirmed: true });
    await waitFor('the chat gone from the view', async () => ((await shown(tree)).some(([, titles]) => titles.includes('Renamed from the view')) ? undefined : true));
    await vscode.commands.executeCommand('nativeAgentChats.showThisWorkspace');
  });
});
