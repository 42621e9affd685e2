/**
 * A chat panel's `live` messages against its snapshots: a live state carried by the runtime's
 * notification is dropped when a snapshot began reading the journal after that state was read, so
 * a state read before the snapshot never lands after it and undoes it (a Stop that stays visible);
 * and the live state a `changes` message carries is the one the window's status (status bar, the
 * running context key) reads, as a snapshot's or a `live` message's is.
 * ChatPanel is host code: `vscode` is replaced by the little its constructor touches.
 */
import { strict as assert } from 'node:assert';
import Module from 'node:module';
import { describe, it } from 'node:test';
import type { HostMessage, LiveState } from '../../src/protocol/messages';

type Loader = (request: string, parent: unknown, isMain: boolean) => unknown;
const moduleWithLoad = Module as unknown as { _load: Loader };
const realLoad = moduleWithLoad._load;
moduleWithLoad._load = (request, parent, isMain) =>
  request === 'vscode' ? { Uri: { joinPath: () => ({}) } } : realLoad(request, parent, isMain);
// Loaded after the stand-in is in place (a static import would load the real `vscode` first).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ChatPanel } = require('../../src/host/chatPanel') as typeof import('../../src/host/chatPanel');

/** A promise with its resolve function. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('chat panel live state', () => {
  it('drops a carried live state read before a snapshot that began before it arrived', async () => {
    const posted: HostMessage[] = [];
    const webview = { html: 'shown', options: {}, onDidReceiveMessage: () => ({ dispose: () => undefined }), postMessage: async (m: HostMessage) => posted.push(m) };
    const panel = { webview, title: '', iconPath: undefined, onDidDispose: () => ({ dispose: () => undefined }), onDidChangeViewState: () => ({ dispose: () => undefined }), dispose: () => undefined };
    const session = { id: 'chat-1', title: 'Chat', provider: 'local', createdAt: 1, updatedAt: 1 };
    const running: LiveState = { running: true, actionableRequestIds: [], readOnlyReason: null };
    const idle: LiveState = { running: false, actionableRequestIds: [], readOnlyReason: null };
    const sessionRead = deferred<typeof session>();
    const runtime = {
      getSession: () => sessionRead.promise,
      transcriptPage: async () => ({ transcript: { turns: [] }, hasOlder: false, turnCount: 0, mark: { eventId: 0, turnRow: 0, turns: 0 } }),
      liveState: async () => idle, // what the journal says once the snapshot reads it: the run ended
      queue: async () => [],
    };
    const host = { runtime, extensionUri: {}, log: () => undefined, pickSessionFor: async () => undefined, panelDisposed: () => undefined };
    const chat = new ChatPanel(panel as never, 'chat-1', host as never);

    // The runtime begins reading the live state (the run is still in flight)…
    const liveReadAt = performance.now();
    // …another window's end of the run reaches this one: the panel re-reads the chat…
    const snapshot = chat.sendSnapshot();
    await new Promise((r) => setImmediate(r)); // the snapshot has begun reading
    // …and the live state read before arrives while the snapshot is still being read.
    const live = chat.sendLive(running, liveReadAt);
    sessionRead.resolve(session);
    await snapshot;
    await live;

    assert.deepEqual(posted.map((m) => m.type), ['snapshot'], 'the older live state is not posted after the snapshot');
    const last = posted.at(-1);
    assert.ok(last?.type === 'snapshot');
    assert.deepEqual(last.live, idle);
  });

  it('posts a carried live state read after the last snapshot began', async () => {
    const posted: HostMessage[] = [];
    const webview = { html: 'shown', options: {}, onDidReceiveMessage: () => ({ dispose: () => undefined }), postMessage: async (m: HostMessage) => posted.push(m) };
    const panel = { webview, title: '', iconPath: undefined, onDidDispose: () => ({ dispose: () => undefined }), onDidChangeViewState: () => ({ dispose: () => undefined }), dispose: () => undefined };
    const session = { id: 'chat-1', title: 'Chat', provider: 'local', createdAt: 1, updatedAt: 1 };
    const running: LiveState = { running: true, actionableRequestIds: ['r-1'], readOnlyReason: null };
    const idle: LiveState = { running: false, actionableRequestIds: [], readOnlyReason: null };
    const runtime = { getSession: async () => session, transcriptPage: async () => ({ transcript: { turns: [] }, hasOlder: false, turnCount: 0, mark: { eventId: 0, turnRow: 0, turns: 0 } }), liveState: async () => idle, queue: async () => [] };
    const host = { runtime, extensionUri: {}, log: () => undefined, pickSessionFor: async () => undefined, panelDisposed: () => undefined };
    const chat = new ChatPanel(panel as never, 'chat-1', host as never);
    await chat.sendSnapshot();
    await chat.sendLive(running, performance.now());
    assert.deepEqual(posted.map((m) => m.type), ['snapshot', 'live']);
    assert.deepEqual(posted[1], { type: 'live', live: running, hostNow: (posted[1] as { hostNow: number }).hostNow, seq: 2 });
  });

  it("takes the live state of another window's change as the tab's, for the status bar and the Stop key", async () => {
    const posted: HostMessage[] = [];
    const webview = { html: 'shown', options: {}, onDidReceiveMessage: () => ({ dispose: () => undefined }), postMessage: async (m: HostMessage) => posted.push(m) };
    const panel = { webview, title: '', iconPath: undefined, onDidDispose: () => ({ dispose: () => undefined }), onDidChangeViewState: () => ({ dispose: () => undefined }), dispose: () => undefined };
    const session = { id: 'chat-1', title: 'Chat', provider: 'local', createdAt: 1, updatedAt: 1 };
    const running: LiveState = { running: true, actionableRequestIds: ['r-1'], readOnlyReason: null };
    const idle: LiveState = { running: false, actionableRequestIds: [], readOnlyReason: null };
    let now = idle;
    const mark = { eventId: 0, turnRow: 0, turns: 0 };
    const runtime = {
      getSession: async () => session,
      transcriptPage: async () => ({ transcript: { turns: [] }, hasOlder: false, turnCount: 0, mark }),
      changesWithSession: async () => ({ changes: { updates: [], turnCount: 0, mark }, session }),
      liveState: async () => now,
      queue: async () => [],
    };
    const seen: (LiveState | undefined)[] = [];
    const host = {
      runtime, extensionUri: {}, log: () => undefined, pickSessionFor: async () => undefined, panelDisposed: () => undefined,
      panelStateChanged: (p: { live: LiveState | undefined }) => seen.push(p.live),
    };
    const chat = new ChatPanel(panel as never, 'chat-1', host as never);
    await chat.sendSnapshot();
    assert.deepEqual(chat.live, idle);

    // Another window starts a run that asks for a decision: this window hears of it as a change.
    now = running;
    await chat.sendChanges();
    assert.deepEqual(posted.map((m) => m.type), ['snapshot', 'changes']);
    assert.deepEqual(chat.live, running, 'the tab counts as working and waiting, as its view shows it');
    assert.deepEqual(seen.at(-1), running, 'the status bar and the context keys were told');

    // The run ends there.
    now = idle;
    await chat.sendChanges();
    assert.deepEqual(chat.live, idle, 'no Stop key nor "Agent working" left behind');
    assert.deepEqual(seen.at(-1), idle);
  });
});
