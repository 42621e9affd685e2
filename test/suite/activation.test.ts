// Smoke test: the extension is installed in the host, activates, and registers its commands.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const EXTENSION_ID = 'native-agent-chats.native-agent-chats';
const COMMANDS = ['nativeAgentChats.newChat', 'nativeAgentChats.openChat', 'nativeAgentChats.stop', 'nativeAgentChats.showLogs'];

suite('activation', () => {
  test('the extension is present', () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is not among ${vscode.extensions.all.length} extensions`);
  });

  test('it activates', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    await ext.activate();
    assert.equal(ext.isActive, true);
  });

  test('its four commands are registered', async () => {
    await vscode.extensions.getExtension(EXTENSION_ID)!.activate();
    const all = new Set(await vscode.commands.getCommands(true));
    const missing = COMMANDS.filter((c) => !all.has(c));
    assert.deepEqual(missing, [], `missing commands: ${missing.join(', ')}`);
  });
});
