// Agent Chats: Repair Journal… in the real extension host: the command is contributed (palette and
// the Agent Chats view's `...` menu); on this suite's healthy journal its dry run opens an untitled
// Markdown document saying there is nothing to repair, asks nothing and changes nothing.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api } from './helpers';

const COMMAND = 'nativeAgentChats.repairJournal';

suite('Repair Journal', () => {
  test('is contributed with its title, in the palette and the view\'s menu', async () => {
    const ext = vscode.extensions.getExtension('native-agent-chats.native-agent-chats')!;
    const contributes = ext.packageJSON.contributes as { commands: { command: string; title: string; category: string }[]; menus: Record<string, { command: string; when?: string }[]> };
    assert.deepEqual(contributes.commands.find((c) => c.command === COMMAND), { command: COMMAND, title: 'Repair Journal…', category: 'Agent Chats' });
    assert.equal(contributes.menus.commandPalette!.some((m) => m.command === COMMAND), false, 'not hidden from the palette');
    assert.deepEqual(contributes.menus['view/title']!.filter((m) => m.command === COMMAND).map((m) => m.when), ['view == nativeAgentChats.chats']);
    await (await api()).ready;
    assert.ok((await vscode.commands.getCommands(true)).includes(COMMAND), 'registered');
  });

  test('on a healthy journal: a dry run saying there is nothing to repair, and nothing more', async () => {
    const runtime = await (await api()).ready;
    const created = await runtime.createSession('local');
    assert.ok(created.ok);
    assert.ok((await runtime.send(created.value.id, 'help')).ok);
    await runtime.whenIdle(created.value.id);
    const result = await vscode.commands.executeCommand<unknown>(COMMAND);
    assert.deepEqual(result, { stopped: 'nothing_to_do' });
    const document = vscode.window.activeTextEditor?.document;
    assert.ok(document, 'a document is open');
    assert.equal(document.languageId, 'markdown');
    assert.equal(document.uri.scheme, 'agent-chats-report', 'a read-only report: closing it never asks to save');
    assert.equal(document.getText().split('\n').slice(0, 3).join('\n'), '# Agent Chats journal repair: what it would do\n\n**Nothing to repair.** Nothing has been changed.');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});
