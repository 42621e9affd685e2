/**
 * What a long chat costs, measured in one fresh process per call (`task.js longChat` and
 * `task.js longChatMemory`, on a copy of a long-chat journal from longChatRows.ts):
 * - opening it: what `ChatPanel` reads for its snapshot (`getSession`, `ChatRuntime.transcriptPage`
 *   of the last page, `liveState`) and the JSON that message becomes (`webview.postMessage`
 *   serializes it); an older page as `loadOlder` reads it, from the middle of the chat;
 * - one turn changed in another window (a second journal on the same file appends one event to the
 *   last turn): from this runtime's `refresh` notification to what `ChatPanel.sendChanges` sends,
 *   `changesSince` the panel's mark + `getSession`, serialized;
 * - the webview's reducer in plain Node (no DOM): `hostMessageProblem` + `reduceHostMessage` of the
 *   snapshot, of each older page as the view climbs to the first turn, of those `changes` messages
 *   with the last page loaded and with every turn loaded, and of one `update` message; and the same
 *   `changes` messages reduced and rendered on happy-dom (longChatRender.ts);
 * - memory: RSS and V8 heap before opening, after opening the journal, and while holding the
 *   snapshot message of the last page and its JSON (after a GC; needs `--expose-gc`).
 * Times in ms, sizes in bytes.
 */
import { performance as nodePerformance } from 'node:perf_hooks';
import * as os from 'node:os';
import * as path from 'node:path';
import { cursorOf, type TurnCursor } from '../src/core/transcript';
import { Journal } from '../src/journal/journal';
import type { HostMessage } from '../src/protocol/messages';
import { hostMessageProblem } from '../src/protocol/checkHostMessage';
import { ChatRuntime } from '../src/runtime/chatRuntime';
import type { ChangeMark } from '../src/runtime/pages';
import { INITIAL_VIEW_STATE, reduceHostMessage, type ViewState } from '../webview/state';
import { renderTimes } from './longChatRender';
import { LONG_CHAT_SESSION, longChatId } from './longChatRows';
import { WASM_PATH, WORKER_PATH } from './task';

/** Timings of one long chat (ms per repeat) and its messages' sizes (bytes, UTF-8 JSON). */
export interface LongChatTimes {
  readonly turns: number;
  readonly snapshotBytes: number;
  /** Median size of the `changes` messages. */
  readonly changesBytes: number;
  /** Open: getSession + transcriptPage (last page) + liveState. */
  readonly openMs: number[];
  /** JSON.stringify of that snapshot message. */
  readonly serializeMs: number[];
  /** `loadOlder` from the middle of the chat: transcriptPage(before) + JSON.stringify of the page. */
  readonly olderPageMs: number[];
  /** Another window appends one event to the last turn: `refresh` → `changesWithSession`, serialized. */
  readonly updateHostMs: number[];
  /** That window's commit → this runtime's `refresh` notification (its worker polls). */
  readonly updateNotifyMs: number[];
  /**
   * The host thread's busy time over `updateHostMs` (event-loop active time, `performance.eventLoopUtilization`):
   * what the update costs the extension host's thread; the journal's read runs on the worker's.
   */
  readonly updateHostBusyMs?: number[];
  /** Webview: check + reduce of the snapshot message. */
  readonly webviewSnapshotMs: number[];
  /** Webview: check + reduce of each older page while climbing to the first turn. */
  readonly webviewPageMs: number[];
  /** Webview: check + reduce of one `changes` message, the last page loaded / every turn loaded. */
  readonly webviewChangesPageMs: number[];
  readonly webviewChangesAllMs: number[];
  /** Webview: check + reduce of one `update` message (one text event on the last turn), every turn loaded. */
  readonly webviewUpdateMs: number[];
  /** Turns the view held for the "every turn loaded" figures. */
  readonly loadedAll: number;
  /** Webview on happy-dom: reduce + render of one `changes` message, the last page / every turn loaded. */
  readonly renderChangesPageMs: number[];
  readonly renderChangesAllMs: number[];
  /** Most turns the rendered DOM held. */
  readonly mountedMax: number;
}

/** Memory of one process holding one long chat's snapshot (bytes). */
export interface LongChatMemory {
  readonly turns: number;
  readonly rssBefore: number;
  readonly rssOpen: number;
  readonly rssHeld: number;
  readonly heapBefore: number;
  readonly heapOpen: number;
  readonly heapHeld: number;
}

async function openRuntime(file: string, id: string): Promise<{ journal: Journal; runtime: ChatRuntime }> {
  const journal = await Journal.open({ file, wasmPath: WASM_PATH, workerPath: WORKER_PATH });
  const runtime = new ChatRuntime({
    journal,
    instance: { id, pid: process.pid, processStart: null, hostname: os.hostname(), startedAt: Date.now(), lastSeenAt: Date.now() },
    agentFor: () => {
      throw new Error('the long-chat bench runs no agent');
    },
    workspaceRoot: () => path.dirname(file),
  });
  await runtime.start();
  return { journal, runtime };
}

/** The snapshot `ChatPanel` posts when the long chat opens, and the change mark it keeps. */
async function snapshotMessage(runtime: ChatRuntime): Promise<{ message: HostMessage; mark: ChangeMark }> {
  const session = await runtime.getSession(LONG_CHAT_SESSION);
  if (!session) throw new Error('the long chat is missing from the journal');
  const page = await runtime.transcriptPage(session.id);
  const message: HostMessage = {
    type: 'snapshot', queue: [], session, transcript: page.transcript, hasOlder: page.hasOlder, turnCount: page.turnCount,
    live: await runtime.liveState(session.id), hostNow: Date.now(), seq: 1,
  };
  return { message, mark: page.mark };
}

/** The `changes` message `ChatPanel.sendChanges` posts after `mark`, and the next mark. */
async function changesMessage(runtime: ChatRuntime, mark: ChangeMark, seq: number): Promise<{ json: string; mark: ChangeMark }> {
  const { changes, session } = await runtime.changesWithSession(LONG_CHAT_SESSION, mark);
  if (!changes) throw new Error('too much changed for a changes message');
  if (!session) throw new Error('the long chat is missing from the journal');
  return { json: JSON.stringify({ type: 'changes', session, updates: changes.updates, turnCount: changes.turnCount, seq } satisfies HostMessage), mark: changes.mark };
}

/** The `page` message answering `loadOlder` before `before`. */
async function pageMessage(runtime: ChatRuntime, before: TurnCursor, seq: number): Promise<string> {
  const page = await runtime.transcriptPage(LONG_CHAT_SESSION, before);
  return JSON.stringify({ type: 'page', before, turns: page.transcript.turns, hasOlder: page.hasOlder, seq } satisfies HostMessage);
}

function webviewApply(state: ViewState, message: unknown): ViewState {
  const problem = hostMessageProblem(message);
  if (problem) throw new Error(`the webview would reject this message: ${problem}`);
  return reduceHostMessage(state, message as HostMessage);
}

/** Applies `message` to `state`, pushing the time it took to `into`. */
function timedApply(state: ViewState, message: unknown, into: number[]): ViewState {
  const t0 = performance.now();
  const next = webviewApply(state, message);
  into.push(performance.now() - t0);
  return next;
}

/** The host thread's event-loop utilization (Node's; the DOM typings' `performance` lacks it). */
const eventLoopUtilization = nodePerformance.eventLoopUtilization.bind(nodePerformance);

// The seeded long chat is the journal's first, its turns written in order: turn `index` is the (index + 1)th.
const cursorOfIndex = (index: number): TurnCursor => ({ seq: index + 1, id: longChatId('turn', index) });

/**
 * Times the long chat of `turns` turns in `file` (a copy: opening writes beside it): `repeats` of each
 * host figure, `updates` webview updates.
 */
export async function longChatTimes(file: string, turns: number, repeats: number, updates: number): Promise<LongChatTimes> {
  const b = await openRuntime(file, 'bench-window-b');
  const a = await Journal.open({ file, wasmPath: WASM_PATH, workerPath: WORKER_PATH });
  const out = {
    openMs: [] as number[], serializeMs: [] as number[], olderPageMs: [] as number[], updateHostMs: [] as number[], updateNotifyMs: [] as number[], updateHostBusyMs: [] as number[],
    webviewSnapshotMs: [] as number[], webviewPageMs: [] as number[], webviewChangesPageMs: [] as number[], webviewChangesAllMs: [] as number[], webviewUpdateMs: [] as number[],
  };
  let opened = await snapshotMessage(b.runtime); // warm-up
  let json = JSON.stringify(opened.message);
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    opened = await snapshotMessage(b.runtime);
    const t1 = performance.now();
    json = JSON.stringify(opened.message);
    out.openMs.push(t1 - t0);
    out.serializeMs.push(performance.now() - t1);
  }
  const middle = cursorOfIndex(Math.floor(turns / 2));
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    await pageMessage(b.runtime, middle, 2);
    out.olderPageMs.push(performance.now() - t0);
  }
  // Another window changes the last turn; this one answers each `refresh` as ChatPanel does.
  const lastRun = longChatId('run', turns - 1);
  let mark = opened.mark;
  const changes: string[] = [];
  for (let i = 0; i < repeats; i++) {
    let notifiedAt = 0;
    const done = new Promise<void>((resolve, reject) => {
      const off = b.runtime.onNotification((n) => {
        if (n.type !== 'refresh' || n.sessionId !== LONG_CHAT_SESSION || notifiedAt) return;
        notifiedAt = performance.now();
        const busy = eventLoopUtilization();
        off();
        changesMessage(b.runtime, mark, 2 + i).then((c) => {
          out.updateHostBusyMs.push(eventLoopUtilization(busy).active);
          mark = c.mark;
          changes.push(c.json);
          resolve();
        }, reject);
      });
    });
    const t0 = performance.now();
    const written = await a.write('appendEvents', lastRun, [{ kind: 'text', payload: { text: ` (edited ${i})` } }], Date.now());
    if (!written.ok) throw new Error(written.message);
    await done;
    out.updateHostMs.push(performance.now() - notifiedAt);
    out.updateNotifyMs.push(notifiedAt - t0);
  }
  const view = await webviewTimes(b.runtime, json, changes, turns, updates, out);
  await a.close();
  await b.journal.close();
  const rendered = await renderTimes(json, view.pages, changes);
  const sizes = changes.map((c) => Buffer.byteLength(c)).sort((x, y) => x - y);
  return { turns, snapshotBytes: Buffer.byteLength(json), changesBytes: sizes[Math.floor(sizes.length / 2)] ?? 0, ...out, loadedAll: view.loadedAll, ...rendered };
}

/**
 * The webview's side: the snapshot (`snapshotJson`), then `changesJson` with the last page loaded,
 * then every older page up to the first turn, then `changesJson` again and `updates` updates with
 * every turn loaded. Pushes its times into `out`.
 * @throws Error when the view would reject a message or does not end up holding every turn.
 */
async function webviewTimes(
  runtime: ChatRuntime, snapshotJson: string, changesJson: readonly string[], turns: number, updates: number,
  out: { webviewSnapshotMs: number[]; webviewPageMs: number[]; webviewChangesPageMs: number[]; webviewChangesAllMs: number[]; webviewUpdateMs: number[] },
): Promise<{ loadedAll: number; pages: string[] }> {
  let state: ViewState = INITIAL_VIEW_STATE;
  for (let i = 0; i <= changesJson.length; i++) {
    const t0 = performance.now();
    state = webviewApply(INITIAL_VIEW_STATE, JSON.parse(snapshotJson));
    if (i > 0) out.webviewSnapshotMs.push(performance.now() - t0); // the first one warms up
  }
  // The `changes` messages carry seq 2, 3, …: applied in order to the page the snapshot (seq 1) gave.
  const afterSnapshot = state;
  for (const c of changesJson) state = timedApply(state, JSON.parse(c), out.webviewChangesPageMs);
  // Climb to the first turn as the view does (one page per loadOlder), then the same changes again.
  state = afterSnapshot;
  let seq = 1;
  const pages: string[] = [];
  while (state.hasOlder) {
    const oldest = state.transcript.turns[0];
    if (!oldest) throw new Error('the view holds no turn to page from');
    pages.push(await pageMessage(runtime, cursorOf(oldest), ++seq));
    state = timedApply(state, JSON.parse(pages[pages.length - 1]!), out.webviewPageMs);
  }
  if (state.transcript.turns.length !== turns) throw new Error(`the view holds ${state.transcript.turns.length} turns after paging, not ${turns}`);
  for (const c of changesJson) {
    const message = JSON.parse(c) as { seq: number };
    state = timedApply(state, { ...message, seq: ++seq }, out.webviewChangesAllMs);
  }
  const lastRun = longChatId('run', turns - 1);
  const lastTurn = state.transcript.turns[state.transcript.turns.length - 1]!;
  const seq0 = lastTurn.applied[lastRun] ?? 0;
  for (let i = 1; i <= updates; i++) {
    const update = JSON.parse(JSON.stringify({ type: 'update', update: { type: 'event', event: { runId: lastRun, seq: seq0 + i, sessionId: LONG_CHAT_SESSION, turnId: lastTurn.id, kind: 'text', payload: { text: ` more ${i}` }, at: Date.now() } }, seq: ++seq })) as unknown;
    state = timedApply(state, update, out.webviewUpdateMs);
  }
  if (state.seq.resyncAsked) throw new Error('the view saw a gap in the messages and asked for a resync');
  return { loadedAll: state.transcript.turns.length, pages };
}

/** Memory (bytes) of this process before opening `file`, after, and holding the last page's snapshot and its JSON. */
export async function longChatMemory(file: string, turns: number): Promise<LongChatMemory> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('longChatMemory needs node --expose-gc');
  const settle = async () => {
    await new Promise((r) => setTimeout(r, 50));
    gc();
    return { rss: process.memoryUsage.rss(), heap: process.memoryUsage().heapUsed };
  };
  const before = await settle();
  const { journal, runtime } = await openRuntime(file, 'bench-memory');
  const open = await settle();
  const held = await snapshotMessage(runtime);
  const heldJson = JSON.stringify(held.message);
  const after = await settle();
  const count = held.message.type === 'snapshot' ? held.message.turnCount : -1;
  if (count !== turns || heldJson.length === 0) throw new Error(`the snapshot counts ${count} turns, not ${turns}`);
  await journal.close();
  return { turns, rssBefore: before.rss, rssOpen: open.rss, rssHeld: after.rss, heapBefore: before.heap, heapOpen: open.heap, heapHeld: after.heap };
}
