/**
 * A chat panel's `live` messages against its snapshots: a live state carried by the runtime's
 * notification is dropped when a snapshot began reading the journal after that state was read, so
 * a state read before the snapshot never lands after it and undoes it (a Stop that stays visible);
 * and the live state a `changes` message carries is the one the window's status (status bar, the
 * running context key) reads, as a snapshot's or a `live` message's is.
 * ChatPanel is host code: `vscode` and the WebviewPanel are the stand-ins of fakePanels.ts.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { LiveState } from '../../src/protocol/messages';
import { ChatPanel, fakePanel } from './fakePanels';
import { gate } from './helpers';

const session = { id: 'chat-1', title: 'Chat', provider: 'local', createdAt: 1, updatedAt: 1 };
const idle: LiveState = { running: false, actionableRequestIds: [], readOnlyReason: null };
const mark = { eventId: 0, turnRow: 0, turns: 0 };
/** The runtime's answers a snapshot of an empty chat reads (`liveState` as given). */
const emptyChat = (liveState: () => Promise<LiveState>) => ({
  getSession: async () => session, transcriptPage: async () => ({ transcript: { turns: [] }, hasOlder: false, turnCount: 0, mark }), liveState, queue: async () => [],
});
/** The panel's host around `runtime`; `panelStateChanged` hears what the tab's status reads. */
const hostOf = (runtime: object, panelStateChanged?: (p: { live: LiveState | undefined }) => void) => ({
  runtime, extensionUri: {}, log: () => undefined, pickSessionFor: async () => undefined, panelDisposed: () => undefined, ...(panelStateChanged ? { panelStateChanged } : {}),
});

describe('chat panel live state', () => {
  it('drops a carried live state read before a snapshot that began before it arrived', async () => {
    const { panel, posted } = fakePanel();
    const running: LiveState = { running: true, actionableRequestIds: [], readOnlyReason: null };
    const sessionRead = gate<typeof session>();
    // What the journal says once the snapshot reads it: the run ended.
    const runtime = { ...emptyChat(async () => idle), getSession: () => sessionRead.promise };
    const chat = new ChatPanel(panel as never, 'chat-1', hostOf(runtime) as never);

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
    const { panel, posted } = fakePanel();
    const running: LiveState = { running: true, actionableRequestIds: ['r-1'], readOnlyReason: null };
    const chat = new ChatPanel(panel as never, 'chat-1', hostOf(emptyChat(async () => idle)) as never);
    await chat.sendSnapshot();
    await chat.sendLive(running, performance.now());
    assert.deepEqual(posted.map((m) => m.type), ['snapshot', 'live']);
    assert.deepEqual(posted[1], { type: 'live', live: running, hostNow: (posted[1] as { hostNow: number }).hostNow, seq: 2 });
  });

  it("takes the live state of another window's change as the tab's, for the status bar and the Stop key", async () => {
    const { panel, posted } = fakePanel();
    const running: LiveState = { running: true, actionableRequestIds: ['r-1'], readOnlyReason: null };
    let now = idle;
    const runtime = { ...emptyChat(async () => now), changesWithSession: async () => ({ changes: { updates: [], turnCount: 0, mark }, session }) };
    const seen: (LiveState | undefined)[] = [];
    const chat = new ChatPanel(panel as never, 'chat-1', hostOf(runtime, (p) => seen.push(p.live)) as never);
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
