/**
 * What a long chat costs today, measured in one fresh process per call (`task.js longChat` and
 * `task.js longChatMemory`, on a copy of a long-chat journal from longChatRows.ts):
 * - the host's snapshot: what `ChatPanel.sendSnapshot` reads (`getSession`, `ChatRuntime.transcript`,
 *   `liveState`) and the JSON the message becomes (`webview.postMessage` serializes it);
 * - the host's cost of one turn changed in another window: from the runtime's `refresh` notification
 *   (what `ChatPanels.route` answers with `sendSnapshot`) to that snapshot serialized;
 * - the webview's reducer in plain Node (no DOM): `hostMessageProblem` + `reduceHostMessage` of the
 *   snapshot, and of one `update` message (one event on the last turn);
 * - memory: RSS and V8 heap before opening, after opening the journal, and while holding one
 *   snapshot message (after a GC; needs `--expose-gc`).
 * Times in ms, sizes in bytes.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { buildTranscript } from '../src/core/transcript';
import { Journal } from '../src/journal/journal';
import type { HostMessage } from '../src/protocol/messages';
import { hostMessageProblem } from '../src/protocol/checkHostMessage';
import { ChatRuntime } from '../src/runtime/chatRuntime';
import { INITIAL_VIEW_STATE, reduceHostMessage, type ViewState } from '../webview/state';
import { LONG_CHAT_SESSION, longChatId } from './longChatRows';
import { WASM_PATH, WORKER_PATH } from './task';

/** Timings of one long chat (ms per repeat) and its snapshot's size. */
export interface LongChatTimes {
  readonly turns: number;
  /** `JSON.stringify` of the snapshot message, bytes (UTF-8). */
  readonly snapshotBytes: number;
  /** getSession + transcript + liveState (the journal reads and the fold). */
  readonly snapshotMs: number[];
  /** JSON.stringify of that message. */
  /** Of the snapshot: the journal reads `listTurns` + `listEvents` (as `transcriptOf` makes them). */
  readonly readsMs: number[];
  /** Of the snapshot: `buildTranscript` over what they returned. */
  readonly foldMs: number[];
  readonly serializeMs: number[];
  /** Another window appends one event to the last turn: `refresh` notification → snapshot serialized. */
  readonly updateHostMs: number[];
  /** That window's commit → this runtime's `refresh` notification (its worker polls). */
  readonly updateNotifyMs: number[];
  /** Webview: check + reduce of the snapshot message. */
  readonly webviewSnapshotMs: number[];
  /** Webview: check + reduce of one `update` message (one text event on the last turn). */
  readonly webviewUpdateMs: number[];
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

/** The message `ChatPanel.sendSnapshot` posts for the long chat. */
async function snapshotMessage(runtime: ChatRuntime): Promise<HostMessage> {
  const session = await runtime.getSession(LONG_CHAT_SESSION);
  if (!session) throw new Error('the long chat is missing from the journal');
  const transcript = await runtime.transcript(session.id);
  return { type: 'snapshot', session, transcript, hasOlder: false, turnCount: transcript.turns.length, live: await runtime.liveState(session.id), hostNow: Date.now() };
}

function webviewApply(state: ViewState, message: unknown): ViewState {
  const problem = hostMessageProblem(message);
  if (problem) throw new Error(`the webview would reject this message: ${problem}`);
  return reduceHostMessage(state, message as HostMessage);
}

/**
 * Times the long chat of `turns` turns in `file` (a copy: opening writes beside it): `repeats` of each
 * host figure, `splitRepeats` of the reads/fold split, `updates` webview updates.
 */
export async function longChatTimes(file: string, turns: number, repeats: number, splitRepeats: number, updates: number): Promise<LongChatTimes> {
  const b = await openRuntime(file, 'bench-window-b');
  const a = await Journal.open({ file, wasmPath: WASM_PATH, workerPath: WORKER_PATH });
  const out = { snapshotMs: [] as number[], serializeMs: [] as number[], readsMs: [] as number[], foldMs: [] as number[], updateHostMs: [] as number[], updateNotifyMs: [] as number[], webviewSnapshotMs: [] as number[], webviewUpdateMs: [] as number[] };
  let json = JSON.stringify(await snapshotMessage(b.runtime)); // warm-up
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    const message = await snapshotMessage(b.runtime);
    const t1 = performance.now();
    json = JSON.stringify(message);
    out.snapshotMs.push(t1 - t0);
    out.serializeMs.push(performance.now() - t1);
  }
  for (let i = 0; i < splitRepeats; i++) {
    const t0 = performance.now();
    const [turnRecords, events] = await Promise.all([b.journal.read('listTurns', LONG_CHAT_SESSION), b.journal.read('listEvents', LONG_CHAT_SESSION)]);
    const t1 = performance.now();
    buildTranscript(turnRecords, events);
    out.readsMs.push(t1 - t0);
    out.foldMs.push(performance.now() - t1);
  }
  const lastRun = longChatId('run', turns - 1);
  for (let i = 0; i < repeats; i++) {
    let notifiedAt = 0;
    const done = new Promise<number>((resolve) => {
      const off = b.runtime.onNotification((n) => {
        if (n.type !== 'refresh' || n.sessionId !== LONG_CHAT_SESSION || notifiedAt) return;
        notifiedAt = performance.now();
        off();
        void snapshotMessage(b.runtime).then((m) => resolve(JSON.stringify(m).length));
      });
    });
    const t0 = performance.now();
    const written = await a.write('appendEvents', lastRun, [{ kind: 'text', payload: { text: ` (edited ${i})` } }], Date.now());
    if (!written.ok) throw new Error(written.message);
    await done;
    out.updateHostMs.push(performance.now() - notifiedAt);
    out.updateNotifyMs.push(notifiedAt - t0);
  }
  const snapshot = JSON.parse(json) as unknown;
  let state: ViewState = INITIAL_VIEW_STATE;
  for (let i = 0; i <= repeats; i++) {
    const t0 = performance.now();
    state = webviewApply(INITIAL_VIEW_STATE, snapshot);
    if (i > 0) out.webviewSnapshotMs.push(performance.now() - t0); // the first one warms up
  }
  const lastTurn = longChatId('turn', turns - 1);
  const seq0 = Math.max(...state.transcript.turns.map((t) => t.applied[lastRun] ?? 0));
  for (let i = 1; i <= updates; i++) {
    const update = JSON.parse(JSON.stringify({ type: 'update', update: { type: 'event', event: { runId: lastRun, seq: seq0 + i, sessionId: LONG_CHAT_SESSION, turnId: lastTurn, kind: 'text', payload: { text: ` more ${i}` }, at: Date.now() } } })) as unknown;
    const t0 = performance.now();
    state = webviewApply(state, update);
    out.webviewUpdateMs.push(performance.now() - t0);
  }
  if (state.transcript.turns.length !== turns) throw new Error(`the webview holds ${state.transcript.turns.length} turns, not ${turns}`);
  await a.close();
  await b.journal.close();
  return { turns, snapshotBytes: Buffer.byteLength(json), ...out };
}

/** Memory (bytes) of this process before opening `file`, after, and holding one snapshot message. */
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
  const after = await settle();
  const count = held.type === 'snapshot' ? held.transcript.turns.length : -1;
  if (count !== turns) throw new Error(`the snapshot holds ${count} turns, not ${turns}`);
  await journal.close();
  return { turns, rssBefore: before.rss, rssOpen: open.rss, rssHeld: after.rss, heapBefore: before.heap, heapOpen: open.heap, heapHeld: after.heap };
}
