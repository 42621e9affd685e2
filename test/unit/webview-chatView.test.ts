/**
 * The chat view as a whole (webview/chatView.ts), on happy-dom with its timers, clock and the tab's
 * state given by the test: what it asks the host for, how snapshots and live updates reach the
 * screen (once per animation frame), the tab's state kept with VS Code's `setState` and read back
 * from `getState` by a rebuilt view, the outbox (messages posted in order, kept until answered,
 * posted again by a rebuilt view), the heartbeat, and the handler table that dispatches host messages.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TranscriptTurn } from '../../src/core/transcript';
import type { HostMessage, LiveState, WebviewMessage, WebviewPersistedState } from '../../src/protocol/messages';
import type { ViewTiming } from '../../webview/chatView';
import { session, useHappyDom } from './happyDom';

const window = useHappyDom();

const idle: LiveState = { running: false, actionableRequestIds: [], readOnlyReason: null };
const turn = (id: string, prompt: string, over: Partial<TranscriptTurn> = {}): TranscriptTurn => ({
  id, sessionId: 's1', prompt, origin: 'prompt', parentTurnId: null, status: 'completed', errorClass: null, seq: Number(id.slice(1)), createdAt: Number(id.slice(1)),
  items: [{ type: 'text', text: `reply to ${prompt}` }], applied: {}, ...over,
});
const snapshot = (seq: number, turns: TranscriptTurn[], live = idle): HostMessage =>
  ({ type: 'snapshot', seq, session, transcript: { turns }, hasOlder: false, turnCount: turns.length, live, queue: [] });

/** Timers, clock and User Timing the test drives: frames and intervals run only when it says. */
function fakeTiming() {
  let nextId = 1;
  const frames = new Map<number, () => void>();
  const intervals = new Map<number, { readonly run: () => void; readonly ms: number }>();
  const marks: string[] = [];
  const clock = { now: 1_000_000 };
  const timing: ViewTiming = {
    now: () => clock.now,
    requestAnimationFrame: (run) => (frames.set(nextId, run), nextId++),
    setTimeout: () => nextId++,
    setInterval: (run, ms) => (intervals.set(nextId, { run, ms }), nextId++),
    clearInterval: (id) => void intervals.delete(id),
    timed: (_name, work) => work(),
    mark: (name) => void marks.push(name),
  };
  /** Runs the frames asked for (and those they ask for), as the browser would before its next paints; returns how many. */
  const flush = (): number => {
    let ran = 0;
    for (let round = 0; frames.size > 0 && round < 20; round++) {
      const due = [...frames.values()];
      frames.clear();
      for (const run of due) {
        run();
        ran++;
      }
    }
    return ran;
  };
  /** Runs the intervals of `ms` once, `ms` later on the clock. */
  const every = (ms: number): void => {
    clock.now += ms;
    for (const { run, ms: m } of [...intervals.values()]) if (m === ms) run();
  };
  return { timing, frames, marks, flush, every };
}

/** A started chat view in the document, with what it posted and persisted; `kept`: the tab's state from before (`getState`). */
async function chatView(kept?: WebviewPersistedState) {
  const { ChatView } = await import('../../webview/chatView');
  const { ChatRenderer } = await import('../../webview/render');
  const app = window.document.createElement('div') as unknown as HTMLElement;
  window.document.body.replaceChildren(app as never);
  const posted: WebviewMessage[] = [];
  const persisted: WebviewPersistedState[] = [];
  const fake = fakeTiming();
  let ids = 0;
  const view = new ChatView({
    app, post: (m) => posted.push(m), timing: fake.timing,
    store: { restore: () => kept, persist: (s) => void persisted.push(s) },
    renderer: (sk, onError, options) => new ChatRenderer(sk, onError, { ...options, geometry: { height: () => 100, viewportHeight: () => 600, contentTop: () => 0 } }),
    makeClientId: () => `c${++ids}`,
  });
  view.start(false);
  const composer = app.querySelector('#composer') as unknown as HTMLElement & { value: string };
  const type = (text: string) => {
    composer.value = text;
    composer.dispatchEvent(new window.Event('input', { bubbles: true }) as unknown as Event);
  };
  const enter = () => composer.dispatchEvent(new window.KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }) as unknown as Event);
  const turnIds = () => [...app.querySelectorAll<HTMLElement>('section.turn')].map((el) => el.dataset.turnId);
  const sends = () => posted.flatMap((m) => (m.type === 'send' ? [`${m.clientId}:${m.text}`] : []));
  const lastState = () => persisted.at(-1);
  return { view, app, posted, persisted, composer, type, enter, turnIds, sends, lastState, ...fake };
}

describe('the chat view', () => {
  test('asks for the chat, then draws its snapshot and live updates, one render per frame', async () => {
    const { view, posted, flush, frames, marks, turnIds, app } = await chatView();
    assert.deepEqual(posted, [{ type: 'ready' }], 'the first thing it says is ready');
    assert.equal(view.viewState.mode, 'loading');

    view.receive(snapshot(1, [turn('t1', 'one')]));
    view.receive({ type: 'live', seq: 2, live: { ...idle, running: true } } satisfies HostMessage);
    assert.equal(frames.size, 1, 'two messages in one frame: one render asked for');
    assert.deepEqual(turnIds(), [], 'nothing drawn before the frame');
    flush();
    assert.deepEqual(turnIds(), ['t1']);
    assert.equal(view.viewState.live.running, true);
    assert.equal(app.querySelector('#stop')!.hasAttribute('hidden'), false, 'Stop shows while the agent works');
    assert.deepEqual(marks.filter((m) => m.startsWith('nac:snapshot')), ['nac:snapshot', 'nac:snapshot-rendered']);

    const { items: _items, applied: _applied, ...t2 } = turn('t2', 'two', { status: 'running' });
    view.receive({ type: 'update', seq: 3, update: { type: 'turn', turn: t2 } } satisfies HostMessage);
    flush();
    assert.deepEqual(turnIds(), ['t1', 't2'], 'a live update adds the new turn');
    assert.equal(posted.filter((m) => m.type === 'resync').length, 0);

    // Message 4 never came: the view asks once for the whole state and goes on with what comes.
    view.receive({ type: 'live', seq: 5, live: idle } satisfies HostMessage);
    view.receive({ type: 'live', seq: 6, live: idle } satisfies HostMessage);
    assert.equal(posted.filter((m) => m.type === 'resync').length, 1);
    view.receive(snapshot(1, [turn('t1', 'one'), turn('t2', 'two')]));
    flush();
    assert.deepEqual(turnIds(), ['t1', 't2']);
    assert.equal(view.viewState.seq.resyncAsked, false, 'the snapshot answered the resync');
  });

  test('reports a malformed host message instead of applying it', async () => {
    const { view, posted } = await chatView();
    view.receive({ type: 'snapshot', seq: 1 });
    assert.equal(view.viewState.mode, 'loading');
    const reports = posted.filter((m) => m.type === 'viewError');
    assert.equal(reports.length, 1);
    assert.match(reports[0]!.type === 'viewError' ? reports[0]!.message : '', /malformed message from the extension host/);
  });

  test("keeps the draft in the tab's state and a rebuilt view puts it back from there", async () => {
    const first = await chatView();
    first.view.receive(snapshot(1, [turn('t1', 'one')]));
    first.type('half a thought');
    assert.deepEqual(first.lastState(), { sessionId: 's1', draft: 'half a thought' });

    const rebuilt = await chatView(first.lastState());
    assert.equal(rebuilt.composer.value, 'half a thought');
    rebuilt.view.receive(snapshot(1, [turn('t1', 'one')]));
    assert.equal(rebuilt.composer.value, 'half a thought', 'the same chat keeps it');
  });

  test('posts messages in order, keeps them until answered, and gives a refused one back', async () => {
    const { view, flush, type, enter, sends, lastState, composer } = await chatView();
    view.receive(snapshot(1, [turn('t1', 'one')]));
    flush();
    type('first');
    enter();
    type('second');
    enter();
    assert.deepEqual(sends(), ['c1:first', 'c2:second']);
    assert.equal(composer.value, '');
    assert.deepEqual(lastState()?.unacknowledged, [{ clientId: 'c1', text: 'first' }, { clientId: 'c2', text: 'second' }], 'each kept before the host answers');

    view.receive({ type: 'succeeded', seq: 2, action: 'send', clientId: 'c1', queued: false } satisfies HostMessage);
    assert.deepEqual(lastState()?.unacknowledged, [{ clientId: 'c2', text: 'second' }]);
    view.receive({ type: 'error', seq: 3, code: 'storage_failed', message: 'The disk is full.', action: 'send', clientId: 'c2' } satisfies HostMessage);
    assert.equal(lastState()?.unacknowledged, undefined, 'nothing kept once every message is answered');
    assert.equal(composer.value, 'second', 'the refused text is back in the composer');
    assert.equal(lastState()?.draft, 'second');
  });

  test('a rebuilt view posts the unanswered messages again with their ids, once its chat has come; a resync does not', async () => {
    const first = await chatView();
    first.view.receive(snapshot(1, [turn('t1', 'one')]));
    first.flush();
    first.type('first');
    first.enter();
    first.type('second');
    first.enter();
    // A resync of the same chat in the same view: what was posted is not posted twice.
    first.view.receive({ type: 'live', seq: 3, live: idle } satisfies HostMessage);
    first.view.receive(snapshot(1, [turn('t1', 'one')]));
    assert.deepEqual(first.sends(), ['c1:first', 'c2:second']);

    const rebuilt = await chatView(first.lastState());
    assert.deepEqual(rebuilt.sends(), [], 'not before the chat came');
    rebuilt.view.receive(snapshot(1, [turn('t1', 'one')]));
    assert.deepEqual(rebuilt.sends(), ['c1:first', 'c2:second'], 'oldest first, the same ids');
    assert.deepEqual(rebuilt.posted.map((m) => m.type), ['ready', 'send', 'send']);
  });

  test('says the host is lost when pings go unanswered, and asks for the chat again when it answers', async () => {
    const { view, posted, every, flush, app } = await chatView();
    view.receive(snapshot(1, [turn('t1', 'one')]));
    const { HEARTBEAT } = await import('../../src/protocol/messages');
    for (let i = 0; i <= HEARTBEAT.lostAfterMs / HEARTBEAT.intervalMs; i++) every(HEARTBEAT.intervalMs);
    assert.equal(posted.filter((m) => m.type === 'ping').length, HEARTBEAT.lostAfterMs / HEARTBEAT.intervalMs + 1);
    assert.equal(view.viewState.hostLost, true);
    flush();
    assert.match(app.querySelector('.error-message')!.textContent ?? '', /Lost connection/);
    view.receive({ type: 'pong' } satisfies HostMessage);
    assert.equal(view.viewState.hostLost, false);
    assert.deepEqual(posted.at(-1), { type: 'ready' }, 'what happened meanwhile comes as a snapshot');
  });
});

describe("the view's handler table", () => {
  test('has one handler for every host message type, and no other', async () => {
    const { VIEW_HANDLERS } = await import('../../webview/messageEffects');
    const { HOST_MESSAGE_TYPES } = await import('../../src/protocol/checkHostMessage');
    assert.deepEqual(Object.keys(VIEW_HANDLERS).sort(), [...HOST_MESSAGE_TYPES].sort());
    for (const handler of Object.values(VIEW_HANDLERS)) assert.equal(typeof handler, 'function');
  });
});
