// Rename Chat…, Delete Chat… and Stop act only on a chat the user can see: with another kind of tab
// active, Rename and Delete ask which chat (a picker), and Stop does nothing. The dialogs are
// replaced for the test by recorders on `vscode.window` (this suite shares the extension's API
// object), so what the command would have shown is asserted without a person to answer it. And a
// failing command's notification carries its message, not the stack trace.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { DELETE_CONFIRMATION } from '../../src/host/confirmDelete';
import { api, EXTENSION_ID, recordQuickPicks, waitFor } from './helpers';

type WindowFn = 'showWarningMessage' | 'showInformationMessage' | 'showErrorMessage' | 'showInputBox';

/** Replaces `vscode.window[name]` by a recorder answering undefined; returns its calls and a restore function. */
function record(name: WindowFn): { calls: unknown[][]; restore: () => void } {
  const win = vscode.window as unknown as Record<WindowFn, unknown>;
  const original = win[name];
  const calls: unknown[][] = [];
  win[name] = (...args: unknown[]) => {
    calls.push(args);
    return Promise.resolve(undefined);
  };
  return { calls, restore: () => (win[name] = original) };
}

/** Opens a chat, then makes a text editor the active tab; returns the chat's session id. */
async function chatThenTextEditor(): Promise<string> {
  const sessionId = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'local' });
  await vscode.commands.executeCommand('nativeAgentChats.renameChat', { sessionId, title: 'Chat out of sight' });
  // A file with no unsaved changes (closing it at the end asks nothing).
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(vscode.extensions.getExtension(EXTENSION_ID)!.extensionUri, 'package.json'));
  await vscode.window.showTextDocument(doc, { preview: false });
  await waitFor('the text editor to be the active tab', () => (vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputText ? true : undefined));
  return sessionId;
}

suite('commands act on the active chat tab only', () => {
  teardown(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  test('with a text editor active, Delete Chat… shows a picker, not a confirmation for the last chat', async () => {
    const runtime = await (await api()).ready;
    const sessionId = await chatThenTextEditor();
    const pick = recordQuickPicks();
    const warn = record('showWarningMessage');
    try {
      assert.equal(await vscode.commands.executeCommand<boolean>('nativeAgentChats.deleteChat'), false);
    } finally {
      pick.restore();
      warn.restore();
    }
    assert.equal(warn.calls.length, 0, `no confirmation for a chat out of sight: ${JSON.stringify(warn.calls)}`);
    assert.equal(pick.shown.length, 1, 'a picker of chats');
    assert.equal(pick.shown[0]!.placeholder, 'Delete which chat?');
    assert.ok(await runtime.getSession(sessionId), 'the chat is still there');
  });

  test('with a text editor active, Rename Chat… shows a picker', async () => {
    await (await api()).ready;
    await chatThenTextEditor();
    const pick = recordQuickPicks();
    const input = record('showInputBox');
    try {
      await vscode.commands.executeCommand('nativeAgentChats.renameChat');
    } finally {
      pick.restore();
      input.restore();
    }
    assert.equal(pick.shown.length, 1, 'a picker of chats');
    assert.equal(input.calls.length, 0, 'no title asked for a chat out of sight');
  });

  test('with a text editor active, Stop stops nothing and says why', async () => {
    await (await api()).ready;
    await chatThenTextEditor();
    const info = record('showInformationMessage');
    let stopped: boolean | undefined;
    try {
      stopped = await vscode.commands.executeCommand<boolean>('nativeAgentChats.stop');
    } finally {
      info.restore();
    }
    assert.equal(stopped, false);
    assert.match(String(info.calls[0]?.[0]), /active chat tab/);
  });

  test('with the chat tab active, the confirmation names the chat and Delete is not its first (Enter) button', async () => {
    const runtime = await (await api()).ready;
    const sessionId = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'local' });
    await vscode.commands.executeCommand('nativeAgentChats.renameChat', { sessionId, title: 'Visible chat' });
    await waitFor('the chat tab to be active', () => (vscode.window.tabGroups.activeTabGroup.activeTab?.label === 'Visible chat' ? true : undefined));
    const warn = record('showWarningMessage');
    try {
      assert.equal(await vscode.commands.executeCommand<boolean>('nativeAgentChats.deleteChat'), false);
    } finally {
      warn.restore();
    }
    assert.equal(warn.calls.length, 1);
    const [message, options, ...items] = warn.calls[0]! as [string, vscode.MessageOptions, ...vscode.MessageItem[]];
    assert.match(message, /“Visible chat”/);
    assert.equal(options.modal, true);
    // VS Code's modal dialog focuses its first item that is not the close affordance: Enter presses it.
    const first = items.find((i) => !i.isCloseAffordance);
    assert.equal(first?.title, DELETE_CONFIRMATION.keep);
    assert.ok(items.some((i) => i.title === DELETE_CONFIRMATION.delete));
    assert.ok(await runtime.getSession(sessionId), 'dismissed: the chat is still there');
  });
});

suite('notifications', () => {
  test('a command that fails in the journal worker shows its message without the stack trace', async () => {
    const runtime = await (await api()).ready;
    const original = runtime.getSession.bind(runtime);
    // A programming error inside the journal worker: its reply carries the worker's stack.
    runtime.getSession = () => runtime.journal.write('createSession', null as never) as never;
    const error = record('showErrorMessage');
    try {
      await vscode.commands.executeCommand('nativeAgentChats.renameChat', { sessionId: 'any', title: 'x' });
    } finally {
      error.restore();
      runtime.getSession = original;
    }
    assert.equal(error.calls.length, 1);
    const text = String(error.calls[0]![0]);
    assert.match(text, /^Agent Chats: Cannot read properties of null/);
    assert.doesNotMatch(text, /\n|\s+at\s+\S+ \(.*:\d+:\d+\)/, `one line, no stack: ${text}`);
  });
});
