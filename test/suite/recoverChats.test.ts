// Agent Chats: Recover Chats from a Moved-Aside Journal… in the real extension host: contributed in
// the palette and the view's menu; on a copy of this host's own journal files named as a moved-aside
// journal, after a chat was deleted, the dry run opens as a Markdown document and the confirmed apply
// brings back that chat (and only it: the others are in the journal already), which opens in a tab.
// The copy is removed at
// the end, so other suites see no moved-aside journal.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api } from './helpers';

const COMMAND = 'nativeAgentChats.recoverChats';

suite('Recover Chats from a Moved-Aside Journal', () => {
  test('is contributed with its title, in the palette and the view\'s menu', () => {
    const ext = vscode.extensions.getExtension('native-agent-chats.native-agent-chats')!;
    const contributes = ext.packageJSON.contributes as { commands: { command: string; title: string; category: string }[]; menus: Record<string, { command: string; when?: string }[]> };
    assert.deepEqual(contributes.commands.find((c) => c.command === COMMAND), { command: COMMAND, title: 'Recover Chats from a Moved-Aside Journal…', category: 'Agent Chats' });
    assert.equal(contributes.menus.commandPalette!.some((m) => m.command === COMMAND), false, 'not hidden from the palette');
    assert.deepEqual(contributes.menus['view/title']!.filter((m) => m.command === COMMAND).map((m) => m.when), ['view == nativeAgentChats.chats']);
  });

  test('shows the dry run, then brings back a deleted chat from a moved-aside copy', async () => {
    const runtime = await (await api()).ready;
    const created = await runtime.createSession('local');
    assert.ok(created.ok);
    assert.ok((await runtime.send(created.value.id, 'help')).ok);
    await runtime.whenIdle(created.value.id);
    const file = runtime.journal.file;
    const name = `${path.basename(file)}.unreadable-${Date.now()}`;
    const copies: string[] = [];
    for (const n of fs.readdirSync(path.dirname(file))) {
      const match = n === path.basename(file) ? '' : n.startsWith(`${path.basename(file)}.log.`) ? n.slice(path.basename(file).length) : undefined;
      if (match === undefined) continue;
      const to = path.join(path.dirname(file), `${name}${match}`);
      fs.copyFileSync(path.join(path.dirname(file), n), to);
      copies.push(to);
    }
    try {
      assert.ok((await runtime.deleteSession(created.value.id)).ok);
      const outcome = await vscode.commands.executeCommand<{ verdict: string; recovered?: number }>(COMMAND, { name, confirm: true });
      assert.equal(outcome?.recovered, 1, JSON.stringify(outcome));
      assert.match(outcome.verdict, /^1 chat can be recovered \(1 whole\)[.;]/);
      const document = vscode.window.activeTextEditor?.document;
      assert.equal(document?.languageId, 'markdown');
      assert.equal(document?.getText().split('\n')[0], `# Recover chats from \`${name}\``);
      assert.equal((await runtime.getSession(created.value.id))?.id, created.value.id);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      // It opens in a chat tab like any chat.
      assert.equal(await vscode.commands.executeCommand('nativeAgentChats.openChat', { sessionId: created.value.id }), created.value.id);
      assert.equal((await runtime.transcript(created.value.id)).turns.length, 1);
    } finally {
      for (const c of copies) fs.rmSync(c, { force: true });
    }
  });
});
