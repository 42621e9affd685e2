/**
 * The chat view alone in headless Chromium, with no VS Code around it: a page serves `dist/webview.js`
 * and `media/chat.css` with a stand-in `acquireVsCodeApi` that plays the host. It answers `ready` with
 * a snapshot of the chat's last `snapshotTurns` turns and `loadOlder` with the `pageTurns` turns before
 * (20 ms later, as a host would), and `window.__benchHost.push(message)` posts any host message
 * (numbered with the same `seq`) at once. The turns are the long-chat bench's (`bench/longChatRows.ts`):
 * each a prompt `run ls`, a line of text, a `run` invocation with its ~2.5 KB `ls` listing, a closing
 * line. Used by the view's scroll bench (viewScroll.ts) and its one-turn update bench (viewUpdate.ts).
 *
 * Also reads traces: the CPU (thread) time of a renderer's tasks, which other work on the machine
 * does not inflate as it does their wall-clock duration.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import type { Browser, Page } from 'playwright-core';
import type { TranscriptTurn } from '../src/core/transcript';
import { LONG_CHAT_SESSION, longChatId } from './longChatRows';
import { percentile } from './stats';

const ORIGIN = 'https://nac.bench';

/** The page's viewport (px), the code-server bench's. */
export const VIEW_VIEWPORT = { width: 1400, height: 900 } as const;

/** Turn `index` of the chat, as the host's transcript fold gives it for the long chat's rows; `running`: its run has not finished. */
export function benchTurn(index: number, listing: string, running = false): TranscriptTurn {
  const at = 1_700_000_000_000 + 60_000 * (index + 1);
  return {
    id: longChatId('turn', index), sessionId: LONG_CHAT_SESSION, prompt: 'run ls', origin: 'prompt', parentTurnId: null,
    status: running ? 'running' : 'completed', errorClass: null, seq: index + 1, createdAt: at, applied: { [longChatId('run', index)]: 6 },
    items: [
      { type: 'text', text: "I'll run `ls`.\n\n" },
      { type: 'invocation', id: longChatId('inv', index), tool: 'run', summary: 'ls', status: 'completed', output: listing, exitCode: 0, runningSince: at + 10, finishedAt: at + 30 },
      { type: 'text', text: 'The command finished (exit code 0).' },
    ],
  };
}

/** What the stand-in host holds. */
export interface StandInHost {
  /** Every turn of the chat, oldest first. */
  readonly turns: TranscriptTurn[];
  /** Turns in the snapshot answering `ready` (the newest ones). */
  readonly snapshotTurns: number;
  /** Turns per `page` answering `loadOlder`. */
  readonly pageTurns: number;
  /** Whether a run of the chat is in flight (the snapshot's live state). */
  readonly running: boolean;
}

/** The stand-in host, run in the page before the view's script (self-contained: serialized). */
function standInHost({ turns, snapshotTurns, pageTurns, running }: StandInHost): void {
  const w = window as unknown as Record<string, unknown>;
  let seq = 0;
  const post = (message: Record<string, unknown>) => window.postMessage({ ...message, seq: ++seq }, '*');
  const send = (message: Record<string, unknown>) => setTimeout(() => post(message), 20);
  const session = { id: turns[0]!.sessionId, title: 'Long chat', provider: 'local', createdAt: 0, updatedAt: 0 };
  const live = { running, actionableRequestIds: [], readOnlyReason: null };
  w.__benchHost = { push: post };
  w.acquireVsCodeApi = () => ({
    getState: () => undefined,
    setState: () => undefined,
    postMessage: (m: { type: string; before?: { id: string } }) => {
      if (m.type === 'ready' || m.type === 'resync') {
        send({ type: 'snapshot', queue: [], session, transcript: { turns: turns.slice(-snapshotTurns) }, hasOlder: turns.length > snapshotTurns, turnCount: turns.length, live });
      } else if (m.type === 'loadOlder' && m.before) {
        const at = turns.findIndex((t) => t.id === m.before!.id);
        const from = Math.max(0, at - pageTurns);
        send({ type: 'page', before: m.before, turns: turns.slice(from, at), hasOlder: from > 0 });
      }
    },
  });
}

/**
 * Opens a page of `browser` showing the chat view of `repo`'s build (`dist/webview.js`) with the
 * stand-in `host`, and waits until the chat's last turn is in the DOM and half a second more.
 * @throws Error from Playwright when the last turn does not show within its default timeout.
 */
export async function openViewAlone(browser: Browser, repo: string, host: StandInHost, init?: () => void): Promise<Page> {
  const page = await browser.newPage({ viewport: VIEW_VIEWPORT });
  const files: Record<string, [string, string]> = {
    '/webview.js': [path.join(repo, 'dist', 'webview.js'), 'text/javascript'],
    '/chat.css': [path.join(repo, 'media', 'chat.css'), 'text/css'],
  };
  await page.route(`${ORIGIN}/**`, (route) => {
    const url = new URL(route.request().url());
    const file = files[url.pathname];
    if (file) return route.fulfill({ body: fs.readFileSync(file[0]), contentType: file[1] });
    return route.fulfill({ contentType: 'text/html', body: '<!DOCTYPE html><html><head><link href="/chat.css" rel="stylesheet"></head><body><div id="app"></div><script src="/webview.js"></script></body></html>' });
  });
  await page.addInitScript(standInHost, host);
  if (init) await page.addInitScript(init);
  await page.goto(`${ORIGIN}/`);
  await page.waitForSelector(`section.turn[data-turn-id="${host.turns.at(-1)!.id}"]`);
  await page.waitForTimeout(500);
  return page;
}

/** The parts of a trace event read here (times in µs). */
export interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  /** Thread time (CPU, µs): what the event took on its thread, not counting the time other work had the core. */
  tdur?: number;
  pid: number;
  tid: number;
  args?: { name?: string; data?: { functionName?: string; url?: string; type?: string } };
}

/** A renderer main thread's tasks in a trace, by CPU (thread) time and by wall-clock time (ms). */
export interface ThreadTasks {
  /** Tasks' CPU times, ascending. */
  readonly cpu: readonly number[];
  /** Tasks' wall-clock durations, ascending. */
  readonly wall: readonly number[];
}

/**
 * The tasks of the busiest renderer main thread of `trace` (the one with the most CPU time: the one
 * that ran the view, with whatever shares it). Needs the `disabled-by-default-devtools.timeline`
 * category (its `RunTask` events carry `tdur`).
 */
export function busiestRendererTasks(trace: { traceEvents: readonly TraceEvent[] }): ThreadTasks {
  const mains = new Set(trace.traceEvents.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const tasks = trace.traceEvents.filter((e) => e.ph === 'X' && e.name === 'RunTask' && mains.has(`${e.pid}:${e.tid}`));
  const byThread = new Map<string, number>();
  for (const e of tasks) byThread.set(`${e.pid}:${e.tid}`, (byThread.get(`${e.pid}:${e.tid}`) ?? 0) + (e.tdur ?? 0));
  const busiest = [...byThread].sort((a, b) => b[1] - a[1])[0]?.[0];
  const mine = tasks.filter((e) => `${e.pid}:${e.tid}` === busiest);
  const ms = (xs: number[]) => xs.map((x) => x / 1000).sort((a, b) => a - b);
  return { cpu: ms(mine.map((e) => e.tdur ?? 0)), wall: ms(mine.map((e) => e.dur ?? 0)) };
}

/**
 * The events `busiestRendererTasks` reads (thread names, `RunTask`s) of the trace file `file` that
 * Playwright's `startTracing({ path })` wrote, read a line (an event) at a time: a trace of minutes
 * of code-server is larger than the longest string Node makes, so it cannot be parsed whole.
 * @throws Error when a line that names one of those events is not JSON.
 */
export async function readTaskEvents(file: string): Promise<{ traceEvents: TraceEvent[] }> {
  const traceEvents: TraceEvent[] = [];
  const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.includes('"name":"RunTask"') && !line.includes('"name":"thread_name"')) continue;
    traceEvents.push(JSON.parse(line.replace(/,\s*$/, '').replace(/\]\s*}\s*$/, '')) as TraceEvent);
  }
  return { traceEvents };
}

/** One line on `tasks`: count, total and tail of their CPU times, and how many exceed 50 ms by CPU and by wall clock. */
export function describeTasks(tasks: ThreadTasks): string {
  const { cpu, wall } = tasks;
  return `n=${cpu.length}, CPU total ${Math.round(cpu.reduce((a, b) => a + b, 0))} ms, p95 ${percentile(cpu, 95).toFixed(1)}, max ${(cpu.at(-1) ?? 0).toFixed(1)}; over 50 ms: ${cpu.filter((x) => x > 50).length} by CPU time, ${wall.filter((x) => x > 50).length} by wall clock (longest ${(wall.at(-1) ?? 0).toFixed(0)})`;
}

/** The parts of a CDP CPU profile read here. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }[];
  samples?: number[];
  timeDeltas?: number[];
}

/** Prints the 25 functions with the most self time (ms) in `profile`. */
export function printProfile(profile: CpuProfile): void {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  (profile.samples ?? []).forEach((id, i) => {
    const f = byNode.get(id)!.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${path.basename(f.url)}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas?.[i] ?? 0) / 1000);
  });
  console.log('  self time (ms), top 25:');
  for (const [key, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`    ${Math.round(ms)}  ${key}`);
}
