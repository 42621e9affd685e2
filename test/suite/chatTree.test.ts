// The Agent Chats view in a real workbench: its container and view are contributed, it lists chats
// under day groups (All Workspaces), follows a rename and a delete made by commands without a
// refresh, and its item commands take the tree's node as their argument.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ChatListEntry } from '../../src/core/chatList';
import { pickChat, type ChatListSource } from '../../src/host/chatPicker';
import type { ChatTree } from '../../src/host/chatTree';
import { PICK_LIMIT } from '../../src/core/chatPick';
import { api, EXTENSION_ID, pickLabels, recordQuickPicks, waitFor } from './helpers';

/** The titles the view shows, by group: [[group, [titles…]]…]. */
async function shown(tree: ChatTree): Promise<[string, string[]][]> {
  const out: [string, string[]][] = [];
  for (const group of await tree.getChildren()) {
    const label = tree.getTreeItem(group).label as string;
    out.push([label, (await tree.getChildren(group)).map((n) => tree.getTreeItem(n).label as string)]);
  }
  return out;
}

/** A chat list entry of the folder '/here'. */
const entry = (id: string, updatedAt: number) => ({ id, title: `Chat ${id}`, provider: 'local', workspace: '/here', updatedAt, state: 'idle' }) as ChatListEntry;

/**
 * A picker source whose list is not loaded: `first` is its first page, `ahead` a page read ahead
 * (none when unset); the whole list (the first entry of `ahead ?? first`, then 'old') comes once
 * `release` is called. `asked` records the reads.
 */
function gatedSource(first: ChatListEntry[], ahead?: ChatListEntry[]) {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  const asked: string[] = [];
  const newest = (ahead ?? first)[0]!;
  const source: ChatListSource = {
    workspace: '/here',
    listLoaded: false,
    firstEntries: async (n) => (asked.push(`first ${n}`), first),
    ...(ahead ? { firstEntriesNow: (n: number) => (n === PICK_LIMIT ? ahead : undefined) } : {}),
    chatEntries: async () => (asked.push('whole'), await gate, [newest, entry('old', 1)]),
    onDidChangeList: new vscode.EventEmitter<void>().event,
  };
  return { source, asked, release: () => release() };
}

/** Watches the next quick picks created: the latest one, and its item labels when it was shown. */
function spyPicker() {
  const win = vscode.window as unknown as { createQuickPick: () => vscode.QuickPick<vscode.QuickPickItem> };
  const original = win.createQuickPick;
  const spy = { picker: undefined as vscode.QuickPick<vscode.QuickPickItem> | undefined, atShow: undefined as string[] | undefined, restore: () => void (win.createQuickPick = original) };
  win.createQuickPick = () => {
    const created = original.call(vscode.window);
    const show = created.show.bind(created);
    created.show = () => ((spy.atShow = pickLabels(created.items)), show());
    return (spy.picker = created);
  };
  return spy;
}

suite('the Agent Chats view', () => {
  teardown(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  test('is contributed to the activity bar with its commands', () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { viewsContainers: { activitybar: { id: string }[] }; views: Record<string, { id: string }[]> } };
    assert.deepEqual(pkg.contributes.viewsContainers.activitybar.map((c) => c.id), ['nativeAgentChats']);
    assert.deepEqual(pkg.contributes.views.nativeAgentChats!.map((v) => v.id), ['nativeAgentChats.chats']);
  });

  test('lists chats by day, follows a rename and a delete, and acts on its nodes', async () => {
    const tree = (await api()).chatTreeForTests;
    assert.ok(tree, 'the extension runs in test mode');
    await vscode.commands.executeCommand('nativeAgentChats.showAllWorkspaces');
    const sessionId = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'local' });
    await vscode.commands.executeCommand('nativeAgentChats.renameChat', { sessionId, title: 'Tree view chat' });
    await waitFor('the renamed chat under Today', async () => ((await shown(tree)).find(([g]) => g === 'Today')?.[1].includes('Tree view chat') ? true : undefined));

    const node = (await tree.getChildren((await tree.getChildren())[0])).find((n) => tree.getTreeItem(n).label === 'Tree view chat');
    assert.ok(node && node.kind === 'chat');
    const item = tree.getTreeItem(node);
    assert.equal(item.contextValue, 'chat', 'a new chat belongs to this workspace');
    assert.match(String(item.description), /^just now · Local agent$/);
    assert.deepEqual(item.command?.arguments, [{ sessionId }]);

    // A context-menu command gets the node itself.
    await vscode.commands.executeCommand('nativeAgentChats.renameChat', { ...node, title: 'Renamed from the view' });
    await waitFor('the new title in the view', async () => ((await shown(tree)).some(([, titles]) => titles.includes('Renamed from the view')) ? true : undefined));

    await vscode.commands.executeCommand('nativeAgentChats.showThisWorkspace');
    assert.ok((await shown(tree)).some(([, titles]) => titles.includes('Renamed from the view')), 'this workspace\'s chat shows under This Workspace');

    await vscode.commands.executeCommand('nativeAgentChats.deleteChat', { sessionId, confirmed: true });
    await waitFor('the chat gone from the view', async () => ((await shown(tree)).some(([, titles]) => titles.includes('Renamed from the view')) ? undefined : true));
    await vscode.commands.executeCommand('nativeAgentChats.showThisWorkspace');
  });

  test('Open Chat… lists this workspace\'s chats first, the others under a separator', async () => {
    const runtime = await (await api()).ready;
    const here = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'local' });
    await vscode.commands.executeCommand('nativeAgentChats.renameChat', { sessionId: here, title: 'Chat of this folder' });
    const at = Date.now() + 60_000; // newer than every chat here: it would come first if not grouped
    const elsewhere = await runtime.journal.write('createSession', { id: `elsewhere-${at}`, title: 'Chat of another folder', provider: 'local', createdAt: at, updatedAt: at, workspace: '/another/folder' });
    assert.ok(elsewhere.ok);
    // Written past the runtime (as another window would, whose write arrives as a notification): read the list again.
    await vscode.commands.executeCommand('nativeAgentChats.refreshChats');
    const pick = recordQuickPicks();
    try {
      await vscode.commands.executeCommand('nativeAgentChats.openChat');
    } finally {
      pick.restore();
    }
    const labels = pickLabels(pick.shown[0]!.items);
    assert.equal(labels[0], '-- This workspace');
    assert.ok(labels.indexOf('Chat of this folder') < labels.indexOf('-- Other workspaces'), labels.join(' | '));
    assert.ok(labels.indexOf('-- Other workspaces') < labels.indexOf('Chat of another folder'), labels.join(' | '));
    await runtime.deleteSession(elsewhere.value.id);
    await runtime.deleteSession(here);
  });

  test('Open Chat… shows the view\'s list without reading the journal, and a chat created while it is open appears', async () => {
    const { ready, chatTreeForTests: tree } = await api();
    const runtime = await ready;
    const before = await runtime.createSession('local'); // a chat to pick from, run alone or not
    assert.ok(before.ok);
    await tree!.chatEntries(); // the view's list is loaded
    const original = runtime.chatList.bind(runtime);
    let listReads = 0;
    runtime.chatList = () => ((listReads += 1), original());
    let created: string | undefined;
    const pick = recordQuickPicks(async (picker) => {
      // Through the runtime, not New Chat: a new tab would take the focus and close the picker.
      const session = await runtime.createSession('local');
      assert.ok(session.ok);
      created = session.value.id;
      await runtime.renameSession(created, 'Created while the picker is open');
      await waitFor('the new chat in the open picker', () => (picker.items.some((i) => i.label === 'Created while the picker is open') ? true : undefined));
      picker.hide();
    });
    try {
      await vscode.commands.executeCommand('nativeAgentChats.openChat');
    } finally {
      pick.restore();
      runtime.chatList = original;
    }
    pick.check();
    assert.equal(listReads, 0, 'the picker reads no list of its own');
    assert.equal(pick.shown.length, 1);
    await runtime.deleteSession(created!);
    await runtime.deleteSession(before.value.id);
  });

  test('Open Chat… before the list is loaded shows the newest chats at once, busy, then the whole list', async () => {
    const { source, asked, release } = gatedSource([entry('new', 2)]);
    const spy = spyPicker();
    try {
      const picked = pickChat(source, 'Open a chat');
      const early = await waitFor('the first page', () => (spy.picker && spy.picker.items.length > 0 ? { labels: pickLabels(spy.picker.items), busy: spy.picker.busy } : undefined));
      assert.deepEqual(early, { labels: ['Chat new'], busy: true }, 'the newest chat, while the list still loads');
      assert.deepEqual(asked, [`first ${PICK_LIMIT}`, 'whole'], 'the first page asked first (the journal answers in call order)');
      release();
      await waitFor('the whole list', () => (!spy.picker!.busy && spy.picker!.items.length === 2 ? true : undefined));
      assert.deepEqual(pickLabels(spy.picker!.items), ['Chat new', 'Chat old']);
      spy.picker!.hide();
      assert.equal(await picked, undefined);
    } finally {
      spy.restore();
      release();
    }
  });

  test('Open Chat… shows a first page read ahead with the picker itself, and reads no page', async () => {
    const { source, asked, release } = gatedSource([], [entry('ahead', 2)]);
    const spy = spyPicker();
    try {
      const picked = pickChat(source, 'Open a chat');
      const atShow = await waitFor('the picker shown', () => spy.atShow);
      assert.deepEqual(atShow, ['Chat ahead'], 'the items are set before the picker shows');
      assert.deepEqual(asked, ['whole'], 'no first page read');
      release();
      await waitFor('the whole list', () => (!spy.picker!.busy && spy.picker!.items.length === 2 ? true : undefined));
      spy.picker!.hide();
      assert.equal(await picked, undefined);
    } finally {
      spy.restore();
      release();
    }
  });

  test("the view's read-ahead first page is the journal's, goes when a chat changes, and is read again", async () => {
    const { ChatTree: Tree } = await import('../../src/host/chatTree');
    const runtime = await (await api()).ready;
    const made = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'local' });
    const memento = { get: <T>(_key: string, fallback: T) => fallback, update: async () => undefined, keys: () => [] } as unknown as vscode.Memento;
    const tree = new Tree(Promise.resolve(runtime), '', memento);
    try {
      assert.equal(tree.firstEntriesNow(PICK_LIMIT), undefined, 'nothing before it is read');
      tree.prefetchFirstPage(PICK_LIMIT);
      const ahead = await waitFor('the page read ahead', () => tree.firstEntriesNow(PICK_LIMIT));
      assert.deepEqual(ahead.map((e) => e.id), (await runtime.chatList({ newest: PICK_LIMIT, workspace: '' })).map((e) => e.id));
      assert.ok(ahead.some((e) => e.id === made));
      assert.equal(tree.firstEntriesNow(PICK_LIMIT - 1), undefined, 'only the size read');
      await runtime.renameSession(made, 'Renamed after the read-ahead');
      await waitFor('the page dropped', () => (tree.firstEntriesNow(PICK_LIMIT) === undefined ? true : undefined));
      const again = await waitFor('the page read again once the changes pause', () => tree.firstEntriesNow(PICK_LIMIT));
      assert.equal(again.find((e) => e.id === made)?.title, 'Renamed after the read-ahead');
    } finally {
      tree.dispose();
      await runtime.deleteSession(made);
    }
  });

  test('Open Chat… with more chats than it shows finds an old one by its title', async () => {
    const runtime = await (await api()).ready;
    const t = Date.now();
    const ids: string[] = [];
    const create = async (id: string, title: string, at: number) => {
      const r = await runtime.journal.write('createSession', { id, title, provider: 'local', createdAt: at, updatedAt: at, workspace: '/many/chats' });
      assert.ok(r.ok);
      ids.push(id);
    };
    await create(`needle-${t}`, 'The oldest needle chat', 1);
    for (let i = 0; i < PICK_LIMIT + 20; i++) await create(`many-${t}-${i}`, `Newer chat ${i}`, t + i);
    await vscode.commands.executeCommand('nativeAgentChats.refreshChats');
    let typed: readonly vscode.QuickPickItem[] = [];
    const pick = recordQuickPicks(async (picker) => {
      picker.value = 'oldest needle';
      typed = await waitFor('the old chat among the items', () => (picker.items.some((i) => i.label === 'The oldest needle chat') ? picker.items : undefined));
      picker.hide();
    });
    try {
      await vscode.commands.executeCommand('nativeAgentChats.openChat');
    } finally {
      pick.restore();
    }
    pick.check();
    const first = pickLabels(pick.shown[0]!.items).filter((l) => !l.startsWith('-- '));
    assert.equal(first.length, PICK_LIMIT, 'VS Code gets the newest chats only');
    assert.ok(!first.includes('The oldest needle chat'));
    assert.deepEqual(pickLabels(typed).filter((l) => !l.startsWith('-- ')), ['The oldest needle chat']);
    for (const id of ids) await runtime.deleteSession(id);
  });
});
