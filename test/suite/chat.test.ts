// The chat in the real extension host: New Chat opens a chat tab (a webview panel of the chat view
// type), the journal lives under globalStorageUri, and a prompt to the local agent lands in it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { api, EXTENSION_ID, waitFor } from './helpers';



function chatTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('nativeAgentChats.chat'));
}


suite('chat tabs and the journal', () => {
  test('the journal is a sql.js database under globalStorageUri', async () => {
    const a = await api();
    await a.ready;
    assert.match(a.journalFile, /globalStorage[\\/]native-agent-chats\.native-agent-chats[\\/]journal\.sqlite$/);
    assert.equal(fs.readFileSync(a.journalFile).subarray(0, 15).toString('latin1'), 'SQLite format 3');
  });

  test('New Chat opens a chat tab and records it in the journal', async () => {
    const a = await api();
    const runtime = await a.ready;
    const before = chatTabs().length;
    const sessionId = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'local' });
    assert.equal(typeof sessionId, 'string');
    await waitFor('a chat tab', () => (chatTabs().length === before + 1 ? true : undefined));
    assert.ok(a.openSessionIds().includes(sessionId));
    const tabs = await runtime.listTabs();
    assert.ok(tabs.some((t) => t.sessionId === sessionId), 'the tab record is in the journal');
    const session = await runtime.getSession(sessionId);
    assert.equal(session?.provider, 'local');
  });

  test('Rename Chat renames the chat in the journal and its open tab', async () => {
    const a = await api();
    const runtime = await a.ready;
    const sessionId = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'local' });
    const title = await vscode.commands.executeCommand<string>('nativeAgentChats.renameChat', { sessionId, title: ' Release checklist ' });
    assert.equal(title, 'Release checklist');
    assert.equal((await runtime.getSession(sessionId))?.title, 'Release checklist');
    await waitFor('the tab to show the new title', () => (chatTabs().some((t) => t.label === 'Release checklist') ? true : undefined));
  });

  test('Delete Chat removes the chat from the journal and closes its tab', async () => {
    const a = await api();
    const runtime = await a.ready;
    const sessionId = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'local' });
    await runtime.send(sessionId, 'help');
    await runtime.whenIdle(sessionId);
    await vscode.commands.executeCommand('nativeAgentChats.renameChat', { sessionId, title: 'Doomed chat' });
    await waitFor('its tab', () => (chatTabs().some((t) => t.label === 'Doomed chat') ? true : undefined));
    assert.equal(await vscode.commands.executeCommand<boolean>('nativeAgentChats.deleteChat', { sessionId, confirmed: true }), true);
    assert.equal(await runtime.getSession(sessionId), undefined);
    assert.equal((await runtime.journal.read('listTurns', sessionId)).length, 0);
    assert.ok(!(await runtime.listTabs()).some((t) => t.sessionId === sessionId), 'no tab record left');
    await waitFor('its tab to close', () => (chatTabs().some((t) => t.label === 'Doomed chat') ? undefined : true));
    assert.ok(!a.openSessionIds().includes(sessionId));
  });

  test('a prompt to the local agent lands in the journal with its reply', async () => {
    const a = await api();
    const runtime = await a.ready;
    const sessionId = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'local' });
    const sent = await runtime.send(sessionId, 'help');
    assert.ok(sent.ok, !sent.ok ? sent.message : '');
    await runtime.whenIdle(sessionId);
    const turns = await runtime.journal.read('listTurns', sessionId);
    assert.equal(turns.length, 1);
    assert.equal(turns[0]!.prompt, 'help');
    assert.equal(turns[0]!.status, 'completed');
    const text = (await runtime.journal.read('listEvents', sessionId))
      .filter((e) => e.kind === 'text')
      .map((e) => (e.kind === 'text' ? e.payload.text : ''))
      .join('');
    assert.match(text, /local agent/);
  });

  test('closing a chat tab by hand removes its tab record', async () => {
    const a = await api();
    const runtime = await a.ready;
    const opened: vscode.Tab[] = [];
    const listener = vscode.window.tabGroups.onDidChangeTabs((e) => opened.push(...e.opened));
    const sessionId = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'local' });
    await waitFor('the tab record', async () => ((await runtime.listTabs()).some((t) => t.sessionId === sessionId) ? true : undefined));
    const tab = await waitFor('the new chat tab', () =>
      opened.find((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('nativeAgentChats.chat')),
    );
    listener.dispose();
    assert.ok(await vscode.window.tabGroups.close(tab));
    await waitFor('the tab record to go', async () => ((await runtime.listTabs()).some((t) => t.sessionId === sessionId) ? undefined : true));
    assert.equal(a.openSessionIds().includes(sessionId), false);
  });

  test('a restored tab shows the chat view at once, before the journal is ready', async () => {
    // After a reload the tab stayed empty for 2-5 s: the serializer waited for the journal before
    // giving the panel its view. Now the view (saying it is loading) comes first.
    const { ChatPanels } = await import('../../src/host/chatPanels');
    const extensionUri = vscode.extensions.getExtension(EXTENSION_ID)!.extensionUri;
    const journalNeverReady = new Promise<never>(() => undefined);
    const panels = new ChatPanels(journalNeverReady, extensionUri, () => undefined, {} as never);
    const panel = vscode.window.createWebviewPanel('nativeAgentChats.restoreTest', 'restore test', vscode.ViewColumn.Active, {});
    try {
      void panels.deserializeWebviewPanel(panel, { sessionId: 'restored-session' });
      assert.match(panel.webview.html, /<body data-session-id="restored-session">/);
      assert.match(panel.webview.html, /<script nonce="[^"]+" src="[^"]+webview\.js"><\/script>/);
    } finally {
      panel.dispose();
      panels.dispose();
    }
  });

  test('Stop with no running agent says so and stops nothing', async () => {
    await api();
    await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'local' });
    const stopped = await vscode.commands.executeCommand<boolean>('nativeAgentChats.stop');
    assert.equal(stopped, false);
  });
});
