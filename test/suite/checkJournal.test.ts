// Agent Chats: Check Journal in the real extension host: the command is contributed (palette and
// the Agent Chats view's `...` menu) and opens a read-only Markdown document (no save prompt on
// close) whose verdict is the one the command returns; on this suite's journal (chats written by the
// local agent) it is Healthy.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api } from './helpers';

const COMMAND = 'nativeAgentChats.checkJournal';

suite('Check Journal', () => {
  test('is contributed with its title, in the palette and the view\'s menu', async () => {
    const ext = vscode.extensions.getExtension('native-agent-chats.native-agent-chats')!;
    const contributes = ext.packageJSON.contributes as { commands: { command: string; title: string; category: string }[]; menus: Record<string, { command: string; when?: string }[]> };
    assert.deepEqual(contributes.commands.find((c) => c.command === COMMAND), { command: COMMAND, title: 'Check Journal', category: 'Agent Chats' });
    assert.equal(contributes.menus.commandPalette!.some((m) => m.command === COMMAND), false, 'not hidden from the palette');
    assert.deepEqual(contributes.menus['view/title']!.filter((m) => m.command === COMMAND).map((m) => m.when), ['view == nativeAgentChats.chats']);
    await (await api()).ready;
    assert.ok((await vscode.commands.getCommands(true)).includes(COMMAND), 'registered');
  });

  test('opens a Markdown document with the verdict', async () => {
    const runtime = await (await api()).ready;
    const created = await runtime.createSession('local');
    assert.ok(created.ok);
    assert.ok((await runtime.send(created.value.id, 'help')).ok);
    await runtime.whenIdle(created.value.id);
    const verdict = await vscode.commands.executeCommand<string>(COMMAND);
    assert.equal(verdict, 'Healthy.');
    const document = vscode.window.activeTextEditor?.document;
    assert.ok(document, 'a document is open');
    assert.equal(document.languageId, 'markdown');
    assert.equal(document.uri.scheme, 'agent-chats-report', 'a read-only report, not an untitled document that asks to be saved');
    assert.equal(document.isUntitled, false);
    assert.equal(document.isDirty, false);
    assert.equal(document.getText().split('\n').slice(0, 3).join('\n'), '# Agent Chats journal check\n\n**Verdict: Healthy.**');
    assert.match(document.getText(), /^## Chats that cannot be changed\n\nNone: every record of every chat could be read\.$/m);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    assert.notEqual(vscode.window.activeTextEditor?.document.uri.toString(), document.uri.toString(), 'closed without a save prompt');
  });
});
