// Checkpoints in the real extension host: a file the local agent wrote opens in VS Code's own diff
// editor, both sides served by the journal's read-only content provider; Undo Last Turn's Changes
// puts the file back.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, waitFor } from './helpers';

suite('checkpoints', () => {
  test('the diff editor opens on the journal\'s content provider; Undo Last Turn\'s Changes puts the file back', async () => {
    const runtime = await (await api()).ready;
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the suite runs with a folder open');
    const file = path.join(folder.uri.fsPath, 'checkpoint-suite.txt');
    fs.writeFileSync(file, 'before\r\n');
    const sessionId = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'local' });
    const sent = await runtime.send(sessionId, 'write checkpoint-suite.txt\n```\nafter\n```');
    assert.ok(sent.ok);
    await runtime.whenIdle(sessionId);
    assert.equal(fs.readFileSync(file, 'utf8'), 'after\n');
    const opened = await vscode.commands.executeCommand<boolean>('nativeAgentChats.openFileDiff', { sessionId, turnId: sent.value.turnId, path: 'checkpoint-suite.txt' });
    assert.equal(opened, true);
    const input = await waitFor('the diff editor', () => {
      const i = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return i instanceof vscode.TabInputTextDiff ? i : undefined;
    });
    assert.equal(input.original.scheme, 'nativeAgentChats-checkpoint');
    assert.equal(input.modified.scheme, 'nativeAgentChats-checkpoint');
    assert.equal((await vscode.workspace.openTextDocument(input.original)).getText(), 'before\r\n');
    assert.equal((await vscode.workspace.openTextDocument(input.modified)).getText(), 'after\n');
    await vscode.commands.executeCommand('nativeAgentChats.undoLastTurnChanges', { sessionId });
    assert.deepEqual(fs.readFileSync(file), Buffer.from('before\r\n'));
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});
