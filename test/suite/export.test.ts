// The export commands in the real extension host: Copy Chat into an Untitled Markdown Editor opens an untitled Markdown
// editor with the chat; Export Chat as Markdown… writes the file (its `target` argument stands in for
// the save dialog, which a test cannot answer); Export All Chats… writes every chat and an index into
// a new folder inside the one given (`folder` stands in for the folder picker).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, waitFor } from './helpers';

/** A chat with the local agent's answer to `prompt`, titled `title`; resolves its session id. */
async function chatWith(prompt: string, title: string): Promise<string> {
  const runtime = await (await api()).ready;
  const created = await runtime.createSession('local');
  assert.ok(created.ok);
  const sent = await runtime.send(created.value.id, prompt);
  assert.ok(sent.ok);
  await runtime.whenIdle(created.value.id);
  assert.ok((await runtime.renameSession(created.value.id, title)).ok);
  return created.value.id;
}

/** Folders the tests write into, removed when the suite ends. */
const made: string[] = [];

/** A new temp folder `<tmp>/<prefix>XXXXXX`, removed when the suite ends. */
function scratch(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

suite('export as Markdown', () => {
  suiteTeardown(() => {
    for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('Copy Chat into an Untitled Markdown Editor opens an untitled Markdown editor with the chat, from a session id or a view item', async () => {
    const sessionId = await chatWith('run ls', 'Listing for the export');
    for (const arg of [sessionId, { sessionId }]) {
      const uri = await vscode.commands.executeCommand<string>('nativeAgentChats.openChatAsMarkdown', arg);
      const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
      assert.ok(document, 'the document is open');
      assert.equal(document.languageId, 'markdown');
      assert.equal(document.isUntitled, true);
      assert.equal(vscode.window.activeTextEditor?.document, document, 'in the active editor');
      const text = document.getText();
      assert.match(text, /^# Listing for the export$/m);
      assert.match(text, /^> run ls$/m);
      assert.match(text, /^\*\*Tool `run`:\*\* `ls`\\$/m);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  });

  test('with no argument, Copy Chat into an Untitled Markdown Editor takes the active chat tab\'s chat', async () => {
    const sessionId = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'local' });
    await vscode.commands.executeCommand('nativeAgentChats.renameChat', { sessionId, title: 'The active one' });
    await waitFor('its tab to be the active one', () => (vscode.window.tabGroups.activeTabGroup.activeTab?.label === 'The active one' ? true : undefined));
    const uri = await vscode.commands.executeCommand<string>('nativeAgentChats.openChatAsMarkdown');
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    assert.match(document?.getText() ?? '', /^# The active one$/m);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  test('Export Chat as Markdown writes the chat to the file given', async () => {
    const sessionId = await chatWith('help', 'Help for the export');
    const target = path.join(scratch('nac-suite-export-'), 'help.md');
    const written = await vscode.commands.executeCommand<string>('nativeAgentChats.exportChat', { sessionId, target });
    assert.equal(written, vscode.Uri.file(target).toString());
    const text = fs.readFileSync(target, 'utf8');
    assert.match(text, /^# Help for the export$/m);
    assert.match(text, /^> help$/m);
    assert.match(text, /local agent/);
  });

  test('Export All Chats writes every chat and an index into a new folder', async () => {
    const runtime = await (await api()).ready;
    await chatWith('help', 'One more for the export');
    const parent = scratch('nac-suite-export-all-');
    fs.writeFileSync(path.join(parent, 'README.md'), 'mine');
    const outcome = await vscode.commands.executeCommand<{ folder: string; written: number; total: number; cancelled: boolean }>('nativeAgentChats.exportAllChats', { folder: parent });
    const sessions = await runtime.listSessions();
    assert.equal(outcome.cancelled, false);
    assert.equal(outcome.written, sessions.length);
    assert.equal(fs.readFileSync(path.join(parent, 'README.md'), 'utf8'), 'mine', 'nothing in the folder picked is overwritten');
    const folder = vscode.Uri.parse(outcome.folder).fsPath;
    assert.equal(path.dirname(folder), parent);
    const index = fs.readFileSync(path.join(folder, 'README.md'), 'utf8');
    const links = [...index.matchAll(/^- \[[^\]]*\]\(([^)]+)\)/gm)].map((m) => decodeURIComponent(m[1]!));
    assert.equal(links.length, sessions.length);
    for (const link of links) assert.ok(fs.existsSync(path.join(folder, link)), `${link} exists`);
    assert.ok(links.some((l) => fs.readFileSync(path.join(folder, l), 'utf8').includes('# One more for the export')));
  });
});
