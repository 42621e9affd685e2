/**
 * A chat tab shows the chat it showed, whatever order tabs are drawn, opened or restored in: its
 * chat comes from the tab itself (the webview options VS Code saves with it, else its state), never
 * from a title or the journal's tab records (which hold other windows' tabs too), and opening a chat
 * whose tab VS Code restored but has not drawn shows that tab instead of opening a second one.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
// Before anything that loads `vscode`: it installs the stand-in.
import { ChatPanels, chatTab, fakePanel, layout, nextPanel, type FakePanel } from './fakePanels';
import { closeWindows, openWindow, type Win } from './harness';
import { trackedTempDir } from './helpers';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const identity = require('../../src/host/tabIdentity') as typeof import('../../src/host/tabIdentity');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const unrestored = require('../../src/host/unrestoredTabs') as typeof import('../../src/host/unrestoredTabs');

const EXTENSION = { path: '/ext/native-agent-chats-0.1.0' };

/** A stand-in panel as VS Code restores it: `title`, and the options a panel of chat `sessionId` was saved with. */
function restoredPanel(title: string, sessionId: string | undefined, visible = true): FakePanel {
  const fake = fakePanel();
  const p = fake.panel as { title: string; active: boolean; visible: boolean; webview: { options: unknown } };
  p.title = title;
  p.active = false;
  p.visible = visible;
  p.webview.options = { enableScripts: true, localResourceRoots: [{ path: '/ext/dist' }, ...(sessionId ? [identity.identityRoot(EXTENSION as never, sessionId)] : [])] };
  return fake;
}

describe('which chat a tab shows', () => {
  it('is read back from the options the host set, for any id; malformed entries name none', () => {
    for (const id of ['3f6c2a9e-0b1d-4c52-9a57-1d2f0e8b7c41', 'id with spaces/and%25', 'x']) {
      const root = identity.identityRoot(EXTENSION as never, id);
      assert.equal(identity.sessionIdFromOptions({ localResourceRoots: [{ path: '/ext/dist' }, root] }), id, id);
    }
    assert.equal(identity.sessionIdFromOptions({ localResourceRoots: [{ path: '/ext/media' }] }), undefined);
    assert.equal(identity.sessionIdFromOptions({ localResourceRoots: [{ path: '/ext/media/chat-tab/%E0%A4%A' }] }), undefined, 'bad escape');
    assert.equal(identity.sessionIdFromOptions({ localResourceRoots: [{ path: '/ext/media/chat-tab/' }] }), undefined, 'empty id');
    assert.equal(identity.sessionIdFromOptions(undefined), undefined);
    assert.equal(identity.sessionIdFromOptions({ localResourceRoots: [null as never] }), undefined, 'a damaged entry');
  });

  it('comes from the options first, then the state, else none', () => {
    const options = { localResourceRoots: [identity.identityRoot(EXTENSION as never, 'from-options')] };
    assert.deepEqual(identity.restoredIdentity(options, { sessionId: 'from-state' }), { sessionId: 'from-options', from: 'options' });
    assert.deepEqual(identity.restoredIdentity({}, { sessionId: 'from-state' }), { sessionId: 'from-state', from: 'state' });
    assert.deepEqual(identity.restoredIdentity({}, undefined), { sessionId: undefined, from: 'none' });
  });
});

describe('a chat tab restored after a reload', () => {
  let window: Win;
  let panels: InstanceType<typeof ChatPanels>;
  let unbind: { dispose(): void };
  const ids: Record<string, string> = {};
  const logs: string[] = [];

  before(async () => {
    window = await openWindow(path.join(trackedTempDir(), 'journal.sqlite'), undefined, 'window-a');
    for (const title of ['run echo one', 'run echo two', 'run echo three']) {
      const s = await window.runtime.createSession('local');
      assert.ok(s.ok);
      await window.runtime.renameSession(s.value.id, title);
      // Every chat has a tab record, as in the journal shared with another window.
      await window.runtime.recordTab(s.value.id);
      ids[title] = s.value.id;
    }
  });
  after(async () => {
    unbind?.dispose();
    layout.groups = [];
    layout.onCommand = () => undefined;
    await closeWindows(window);
  });

  /** One editor group, the stand-in layout's only one, no command run yet; returns it. */
  const oneGroup = () => {
    const group = { viewColumn: 1, tabs: [] as never[] };
    layout.groups = [group];
    layout.commands = [];
    return group;
  };

  const freshPanels = () => {
    unbind?.dispose();
    panels = new ChatPanels(Promise.resolve(window.runtime), EXTENSION as never, (line) => logs.push(line), { chatEntries: () => window.runtime.listSessions() } as never);
    unbind = panels.bind(window.runtime);
  };

  it('shows the chat its options name, not the one its title or the tab records suggest', async () => {
    freshPanels();
    // Titled as chat one (a title can be stale or repeated), but the tab is chat two's.
    await panels.deserializeWebviewPanel(restoredPanel('run echo one', ids['run echo two']).panel as never, undefined);
    assert.deepEqual(panels.openSessionIds(), [ids['run echo two']]);
  });

  it('names no chat: offers a picker, never the oldest unclaimed tab record', async () => {
    freshPanels();
    const fake = restoredPanel('run echo one', undefined);
    await panels.deserializeWebviewPanel(fake.panel as never, undefined);
    assert.deepEqual(panels.openSessionIds(), [], 'no chat taken');
    assert.ok(fake.posted.some((m) => m.type === 'orphan'), 'the picker is offered');
  });

  it('names a chat another tab of this window shows: is closed, and that tab shown', async () => {
    freshPanels();
    const first = nextPanel();
    await panels.open({ ...(await window.runtime.getSession(ids['run echo one']!))! });
    const duplicate = restoredPanel('run echo one', ids['run echo one']);
    (duplicate.panel as { active: boolean }).active = true;
    await panels.deserializeWebviewPanel(duplicate.panel as never, { sessionId: ids['run echo one'] });
    assert.deepEqual(duplicate.events, ['dispose']);
    assert.deepEqual(first.events, ['reveal'], 'the chat\'s tab takes the focus the closed one had');
    assert.deepEqual(panels.openSessionIds(), [ids['run echo one']]);
  });

  it('names a chat deleted meanwhile: is closed', async () => {
    freshPanels();
    const s = await window.runtime.createSession('local');
    assert.ok(s.ok);
    await window.runtime.deleteSession(s.value.id);
    const fake = restoredPanel('gone', s.value.id);
    await panels.deserializeWebviewPanel(fake.panel as never, undefined);
    assert.deepEqual(fake.events, ['dispose']);
    assert.deepEqual(panels.openSessionIds(), []);
  });

  it('closed by the user while it waits for the journal: is left alone, and its chat opens in a new tab', async () => {
    unbind?.dispose();
    let open: (runtime: typeof window.runtime) => void = () => undefined;
    panels = new ChatPanels(new Promise((resolve) => (open = resolve)), EXTENSION as never, (line) => logs.push(line), {} as never);
    unbind = { dispose: () => undefined };
    const group = oneGroup();
    chatTab(group, 'run echo two');
    const restored = restoredPanel('run echo one', ids['run echo one']);
    const restoring = panels.deserializeWebviewPanel(restored.panel as never, undefined);
    // The tab still says "Loading the chat…" when the user closes it.
    restored.close();
    assert.deepEqual(panels.webviewPanels(), [], 'a closed tab is no panel of this window');
    assert.deepEqual(unrestored.unrestoredChatTabs(panels.webviewPanels()).map((t) => t.label), ['run echo two']);
    open(window.runtime);
    unbind = panels.bind(window.runtime);
    await restoring;
    assert.deepEqual(panels.openSessionIds(), [], 'the closed tab shows no chat');
    const created = nextPanel();
    const chat = await panels.open((await window.runtime.getSession(ids['run echo one']!))!, undefined, false);
    assert.equal(chat.panel, created.panel, 'the chat opens in a new tab, not the closed one');
  });

  it('opening a chat whose tab VS Code restored but has not drawn shows that tab, not a new one', async () => {
    freshPanels();
    // Three restored tabs; the active one (chat three) is drawn, the other two are not.
    const group = oneGroup();
    chatTab(group, 'run echo one');
    chatTab(group, 'run echo two');
    chatTab(group, 'run echo three', true);
    await panels.deserializeWebviewPanel(restoredPanel('run echo three', ids['run echo three']).panel as never, undefined);
    const undrawn: Record<number, FakePanel> = {
      0: restoredPanel('run echo one', ids['run echo one']),
      1: restoredPanel('run echo two', ids['run echo two']),
    };
    // VS Code hands a tab to the serializer as it draws it.
    layout.onCommand = (id, index) => {
      if (id === 'workbench.action.openEditorAtIndex') void panels.deserializeWebviewPanel(undrawn[index as number]!.panel as never, undefined);
    };
    let created = 0;
    const createdPanel = fakePanel();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const stub = (require('vscode') as { window: { createWebviewPanel: () => object } }).window;
    const create = stub.createWebviewPanel;
    stub.createWebviewPanel = () => (created++, createdPanel.panel);
    try {
      const chat = await panels.open((await window.runtime.getSession(ids['run echo one']!))!);
      assert.equal(created, 0, 'no second tab of chat one');
      assert.equal(chat.panel, undrawn[0]!.panel, 'chat one shows in its own restored tab');
      assert.deepEqual(layout.commands.filter((c) => c.id === 'workbench.action.openEditorAtIndex').map((c) => c.args), [[0]]);
      // The other undrawn tab, drawn later, is still chat two's.
      await panels.deserializeWebviewPanel(undrawn[1]!.panel as never, undefined);
      assert.deepEqual([...panels.openSessionIds()].sort(), [ids['run echo one'], ids['run echo two'], ids['run echo three']].sort());
      assert.equal(panels.openSessionIds().length, 3, 'one tab per chat');
    } finally {
      stub.createWebviewPanel = create;
    }
  });

  it('another tab handed over while the undrawn tab is shown is not taken for it', async () => {
    freshPanels();
    const group = oneGroup();
    chatTab(group, 'run echo two');
    const undrawn = restoredPanel('run echo two', ids['run echo two']);
    // A tab of another group (chat three, not labelled as chat two) is handed over first.
    const elsewhere = restoredPanel('run echo three', ids['run echo three']);
    (elsewhere.panel as { viewColumn: number }).viewColumn = 2;
    layout.onCommand = (id) => {
      if (id !== 'workbench.action.openEditorAtIndex') return;
      void panels.deserializeWebviewPanel(elsewhere.panel as never, undefined);
      setTimeout(() => void panels.deserializeWebviewPanel(undrawn.panel as never, undefined), 20);
    };
    const created = nextPanel();
    const chat = await panels.open((await window.runtime.getSession(ids['run echo two']!))!);
    assert.equal(chat.panel, undrawn.panel, 'chat two shows in its own restored tab');
    assert.notEqual(chat.panel, created.panel);
    assert.equal(panels.openSessionIds().filter((id) => id === ids['run echo two']).length, 1, 'one tab of chat two');
  });

  it('two chats of one title in a group: opening the undrawn one shows its tab, not a new one, when the other\'s tab is tried first', async () => {
    freshPanels();
    const one = ids['run echo one']!;
    const two = ids['run echo two']!;
    await window.runtime.renameSession(two, 'run echo one');
    try {
      const group = oneGroup();
      // Chat one's tab is not drawn; chat two's (same title) is drawn but hidden behind chat three's.
      const tabs = [chatTab(group, 'run echo one'), chatTab(group, 'run echo one'), chatTab(group, 'run echo three', true)];
      const drawnTwo = restoredPanel('run echo one', two, false);
      const drawnThree = restoredPanel('run echo three', ids['run echo three']);
      await panels.deserializeWebviewPanel(drawnTwo.panel as never, undefined);
      await panels.deserializeWebviewPanel(drawnThree.panel as never, undefined);
      const undrawnOne = restoredPanel('run echo one', one);
      // Which of two same-titled tabs a panel stands in the tab API does not say: the host may show
      // chat two's tab first. VS Code then shows that drawn panel; the undrawn tab is handed over.
      layout.onCommand = (id, index) => {
        if (id !== 'workbench.action.openEditorAtIndex') return;
        for (const [i, tab] of tabs.entries()) tab.isActive = i === index;
        drawnThree.setViewState({ active: false, visible: false });
        if (index === 1) drawnTwo.setViewState({ active: true, visible: true });
        else drawnTwo.setViewState({ active: false, visible: false });
        if (index === 0) void panels.deserializeWebviewPanel(undrawnOne.panel as never, undefined);
      };
      const created = nextPanel();
      const chat = await panels.open((await window.runtime.getSession(one))!);
      assert.equal(chat.panel, undrawnOne.panel, 'chat one shows in its own restored tab');
      assert.notEqual(chat.panel, created.panel);
      assert.deepEqual(layout.commands.filter((c) => c.id === 'workbench.action.openEditorAtIndex').map((c) => c.args), [[1], [0]]);
      assert.equal(panels.openSessionIds().filter((id) => id === one).length, 1, 'one tab of chat one');
    } finally {
      await window.runtime.renameSession(two, 'run echo two');
    }
  });

  it('a tab labelled as the chat that turns out to be another chat\'s keeps its chat; the chat opens in a new tab', async () => {
    freshPanels();
    const group = oneGroup();
    // Chat two was renamed elsewhere to chat one's title while its tab here was not drawn.
    chatTab(group, 'run echo one');
    const undrawn = restoredPanel('run echo one', ids['run echo two']);
    layout.onCommand = (id) => {
      if (id === 'workbench.action.openEditorAtIndex') void panels.deserializeWebviewPanel(undrawn.panel as never, undefined);
    };
    const created = nextPanel();
    const chat = await panels.open((await window.runtime.getSession(ids['run echo one']!))!);
    assert.equal(chat.panel, created.panel, 'chat one got a tab of its own');
    assert.deepEqual([...panels.openSessionIds()].sort(), [ids['run echo one'], ids['run echo two']].sort(), 'the tab tried still shows chat two');
  });

  it('a chat renamed while its tab was undrawn: its tab, under the old title, is the one shown', async () => {
    freshPanels();
    const s = await window.runtime.createSession('local');
    assert.ok(s.ok);
    await window.runtime.renameSession(s.value.id, 'run echo gamma');
    const group = oneGroup();
    // Chat three's tab (a current title) and the renamed chat's tab under its old title.
    chatTab(group, 'run echo three');
    chatTab(group, 'run echo gamma');
    const undrawn = restoredPanel('run echo gamma', s.value.id);
    await window.runtime.renameSession(s.value.id, 'Gamma renamed');
    layout.onCommand = (id, index) => {
      if (id === 'workbench.action.openEditorAtIndex' && index === 1) void panels.deserializeWebviewPanel(undrawn.panel as never, undefined);
    };
    const created = nextPanel();
    const chat = await panels.open((await window.runtime.getSession(s.value.id))!);
    assert.equal(chat.panel, undrawn.panel, 'the renamed chat shows in its own tab');
    assert.notEqual(chat.panel, created.panel, 'no second tab');
    assert.equal((undrawn.panel as { title: string }).title, 'Gamma renamed', 'the tab takes the new title');
    assert.deepEqual(layout.commands.filter((c) => c.id === 'workbench.action.openEditorAtIndex').map((c) => c.args), [[1]], "chat three's tab, whose title is current, is not tried");
  });

  it('a chat with no tab here opens a new tab without drawing the undrawn tabs of other chats', async () => {
    freshPanels();
    const group = oneGroup();
    chatTab(group, 'run echo two');
    chatTab(group, 'run echo three');
    layout.onCommand = () => assert.fail('no tab is drawn');
    const created = nextPanel();
    const chat = await panels.open((await window.runtime.getSession(ids['run echo one']!))!);
    assert.equal(chat.panel, created.panel);
    assert.deepEqual(layout.commands.filter((c) => c.id === 'workbench.action.openEditorAtIndex'), []);
  });

  it('two chats with undrawn tabs opened at once each get their own tab (a tab hidden before it is drawn is never handed over)', async () => {
    freshPanels();
    const group = oneGroup();
    chatTab(group, 'run echo one');
    chatTab(group, 'run echo two');
    const undrawn = [restoredPanel('run echo one', ids['run echo one']), restoredPanel('run echo two', ids['run echo two'])];
    // As VS Code: the tab shown is drawn a moment later, if it is still the one shown then.
    let shown = -1;
    layout.onCommand = (id, index) => {
      if (id !== 'workbench.action.openEditorAtIndex') return;
      shown = index as number;
      setTimeout(() => {
        if (shown === index) void panels.deserializeWebviewPanel(undrawn[index as number]!.panel as never, undefined);
      }, 20);
    };
    let created = 0;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const stub = (require('vscode') as { window: { createWebviewPanel: () => object } }).window;
    const create = stub.createWebviewPanel;
    stub.createWebviewPanel = () => (created++, fakePanel().panel);
    try {
      const [one, two] = await Promise.all([
        panels.open((await window.runtime.getSession(ids['run echo one']!))!),
        panels.open((await window.runtime.getSession(ids['run echo two']!))!),
      ]);
      assert.equal(created, 0, 'no second tab of either chat');
      assert.equal(one.panel, undrawn[0]!.panel);
      assert.equal(two.panel, undrawn[1]!.panel);
    } finally {
      stub.createWebviewPanel = create;
    }
  });
});
