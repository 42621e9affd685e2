// The editor's attach commands in the real extension host: Add Selection to Chat attaches the
// selected lines (a selection ending at the start of a line leaves that line out) to the open chat
// tab, Add File to Chat a file or a folder, and with no chat tab open a new chat is opened for it.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, waitFor } from './helpers';

interface Attached {
  readonly sessionId: string | undefined;
  readonly attachments: readonly { kind: string; path: string; range?: { startLine: number; endLine: number } }[];
}

const workspace = () => vscode.workspace.workspaceFolders![0]!.uri;

suite('attach commands', () => {
  test('Add Selection to Chat attaches the selected lines to the open chat tab', async () => {
    const a = await api();
    await a.ready;
    const sessionId = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'local' });
    const editor = await vscode.window.showTextDocument(vscode.Uri.joinPath(workspace(), 'src', 'greet.js'), { viewColumn: vscode.ViewColumn.Beside });
    // Lines 2-3 as a user selects them: from the start of line 2 to the start of line 4.
    editor.selection = new vscode.Selection(1, 0, 3, 0);
    const attached = await vscode.commands.executeCommand<Attached>('nativeAgentChats.addSelectionToChat');
    assert.deepEqual(attached, { sessionId, attachments: [{ kind: 'selection', path: 'src/greet.js', range: { startLine: 2, endLine: 3 } }] });
    // Within one line: that line.
    editor.selection = new vscode.Selection(3, 2, 3, 9);
    const one = await vscode.commands.executeCommand<Attached>('nativeAgentChats.addSelectionToChat');
    assert.deepEqual(one.attachments, [{ kind: 'selection', path: 'src/greet.js', range: { startLine: 4, endLine: 4 } }]);
  });

  test('Add File to Chat attaches a file or a folder of the Explorer', async () => {
    const a = await api();
    await a.ready;
    const file = await vscode.commands.executeCommand<Attached>('nativeAgentChats.addFileToChat', vscode.Uri.joinPath(workspace(), 'package.json'));
    assert.deepEqual(file.attachments, [{ kind: 'file', path: 'package.json' }]);
    const folder = await vscode.commands.executeCommand<Attached>('nativeAgentChats.addFileToChat', vscode.Uri.joinPath(workspace(), 'src'));
    assert.deepEqual(folder.attachments, [{ kind: 'folder', path: 'src' }]);
    assert.ok(folder.sessionId && a.openSessionIds().includes(folder.sessionId));
  });

  test('Ask About Selection… with no chat tab open opens a new chat for it', async () => {
    const a = await api();
    const runtime = await a.ready;
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await waitFor('no chat tab', () => (a.openSessionIds().length === 0 ? true : undefined));
    const editor = await vscode.window.showTextDocument(vscode.Uri.joinPath(workspace(), 'src', 'greeting.js'));
    editor.selection = new vscode.Selection(0, 0, 0, 5);
    const attached = await vscode.commands.executeCommand<Attached>('nativeAgentChats.askAboutSelection');
    assert.ok(attached.sessionId);
    assert.deepEqual(attached.attachments, [{ kind: 'selection', path: 'src/greeting.js', range: { startLine: 1, endLine: 1 } }]);
    await waitFor('the new chat tab', () => (a.openSessionIds().includes(attached.sessionId!) ? true : undefined));
    assert.equal((await runtime.getSession(attached.sessionId))?.provider, 'local');
  });
});
