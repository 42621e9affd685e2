// A chat tab VS Code restores while the chat journal cannot be opened says what failed, instead of
// "Loading the chat…" forever and then a false "lost connection" once the host stopped answering pings.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ChatPanels } from '../../src/host/chatPanels';
import type { HostMessage } from '../../src/protocol/messages';
import { EXTENSION_ID } from './helpers';

suite('restoring a chat tab', () => {
  test('when the journal cannot be opened, the view is told why and the restore does not fail', async () => {
    const ready = Promise.reject(new Error('the journal is gone'));
    ready.catch(() => undefined);
    const logs: string[] = [];
    const panels = new ChatPanels(ready as never, vscode.extensions.getExtension(EXTENSION_ID)!.extensionUri, (line) => logs.push(line), {} as never);
    const panel = vscode.window.createWebviewPanel('nativeAgentChats.restoreTest', 'restore test', vscode.ViewColumn.Active, {});
    const posted: HostMessage[] = [];
    const post = panel.webview.postMessage.bind(panel.webview);
    (panel.webview as { postMessage: (m: HostMessage) => Thenable<boolean> }).postMessage = (m) => {
      posted.push(m);
      return post(m);
    };
    try {
      await panels.deserializeWebviewPanel(panel, { sessionId: 'some-chat' });
      assert.deepEqual(posted.map((m) => m.type), ['error']);
      const error = posted[0] as Extract<HostMessage, { type: 'error' }>;
      assert.match(error.message, /^The chat could not be loaded: the journal is gone\. See Agent Chats: Show Logs\.$/);
      assert.ok(logs.some((line) => line.includes('chat tab not restored') && line.includes('the journal is gone')), logs.join('\n'));
    } finally {
      panel.dispose();
      panels.dispose();
    }
  });
});
