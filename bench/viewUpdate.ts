/**
 * What one turn's update costs the chat view alone, with no VS Code around it (viewPage.ts): the
 * webview's part of issue 11's "a one-turn update costs the webview ≤ 4 ms regardless of the
 * transcript's length". In code-server the same work shares its renderer thread with the workbench
 * and the machine's cores with the extension host and the server, which inflate wall-clock times;
 * here the page runs nothing but the view.
 *
 * Three chats, side by side in one run: 10 turns; 5,000 turns as opened (the last page loaded); the
 * same 5,000 turns all loaded (as after scrolling to the top). Their last turn's run is in flight.
 * Each trial is what window B receives when window A's agent asks and A's user decides: a `changes`
 * message with `boundary_requested` (the card appears with its buttons), then one with
 * `boundary_decided` and no actionable request (the card clears). Measured inside the page from the
 * message posted until the card shows the change: the view's User Timing measures (webview/timing.ts:
 * `nac:message`, each host message checked and folded; `nac:render`, each render with the layout it
 * forces; `nac:layout`, a pass the render's resize scheduled for the next frame), summed, and the time until the change was painted (the next animation frame and a task).
 * `node out/bench/viewUpdate.js --profile` also prints each chat's functions with the most self time.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import type { LedgerEvent, NewLedgerEvent } from '../src/core/events';
import type { TranscriptUpdate } from '../src/core/transcript';
import { PAGE_TURNS } from '../src/protocol/messages';
import { LONG_CHAT_SESSION, longChatId, lsListing } from './longChatRows';
import { percentile } from './stats';
import { benchTurn, openViewAlone, printProfile, type CpuProfile } from './viewPage';

/** One update's cost in the view (ms). */
export interface UpdateCost {
  /** `nac:message` + `nac:render` + `nac:layout` measures from the message posted until the change was painted. */
  readonly workMs: number;
  /** The longest render among them. */
  readonly longestRenderMs: number;
  readonly renders: number;
  /** The message posted → the change painted. */
  readonly paintedMs: number;
}

/** The costs in one chat: the card appearing and the card clearing, one of each per trial. */
export interface ChatUpdateCosts {
  /** The chat's turns, and how many of them the view holds (loaded). */
  readonly turns: number;
  readonly loaded: number;
  readonly shown: UpdateCost[];
  readonly cleared: UpdateCost[];
}

/** What one run measured. */
export interface ViewUpdateResult {
  readonly date: string;
  readonly load: { readonly start: number; readonly end: number };
  readonly trials: number;
  readonly chats: ChatUpdateCosts[];
}

/** Trials per chat measured, after WARMUP trials not measured (the script's first runs are compiled then). */
const TRIALS = 30;
const WARMUP = 5;
const SHORT_TURNS = 10;
const LONG_TURNS = 5000;

/** Collects the view's `nac:` measures as they are made (the view clears its own after a few hundred). */
function measureRecorder(): void {
  const w = window as unknown as { __benchMeasures: { name: string; start: number; duration: number }[]; __benchTake(): void };
  w.__benchMeasures = [];
  const keep = (entries: PerformanceEntryList) => {
    for (const e of entries) if (e.name.startsWith('nac:')) w.__benchMeasures.push({ name: e.name, start: e.startTime, duration: e.duration });
  };
  const observer = new PerformanceObserver((list) => keep(list.getEntries()));
  observer.observe({ type: 'measure' });
  // The entries made but not delivered yet (an observer hears of them in a later task).
  w.__benchTake = () => keep(observer.takeRecords());
}

/** In the page: posts `message` as the host, waits until `selector` matches and the change is painted; returns the cost. */
async function postAndWait([message, selector]: readonly [unknown, string]): Promise<UpdateCost> {
  const w = window as unknown as { __benchHost: { push(m: unknown): void }; __benchMeasures: { name: string; start: number; duration: number }[]; __benchTake(): void };
  const since = performance.now();
  w.__benchHost.push(message);
  // Seen by a MutationObserver as the render writes it (an animation-frame poll would see it a frame late), then painted.
  await new Promise<void>((resolve, reject) => {
    const seen = () => {
      if (!document.querySelector(selector)) return false;
      clearTimeout(give);
      observer.disconnect();
      requestAnimationFrame(() => setTimeout(resolve, 0));
      return true;
    };
    const observer = new MutationObserver(() => seen());
    const give = setTimeout(() => {
      observer.disconnect();
      reject(new Error(`${selector} did not show within 10 s`));
    }, 10_000);
    if (!seen()) observer.observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  const paintedMs = performance.now() - since;
  w.__benchTake();
  const mine = w.__benchMeasures.filter((m) => m.start >= since);
  const renders = mine.filter((m) => m.name === 'nac:render').map((m) => m.duration);
  return {
    workMs: mine.filter((m) => m.name === 'nac:message' || m.name === 'nac:render' || m.name === 'nac:layout').reduce((a, m) => a + m.duration, 0),
    longestRenderMs: Math.max(0, ...renders), renders: renders.length, paintedMs,
  };
}

/** The `changes` message of event `kind` on the chat's last turn (its run's `seq`), with the live state that goes with it. */
function changesOf(turns: number, seq: number, event: NewLedgerEvent, actionable: readonly string[]) {
  const last = turns - 1;
  const update: TranscriptUpdate = {
    type: 'event',
    event: { ...event, runId: longChatId('run', last), seq, sessionId: LONG_CHAT_SESSION, turnId: longChatId('turn', last), at: 1_800_000_000_000 + seq } as LedgerEvent,
  };
  return {
    type: 'changes', session: { id: LONG_CHAT_SESSION, title: 'Long chat', provider: 'local', createdAt: 0, updatedAt: 0 },
    updates: [update], turnCount: turns, live: { running: true, actionableRequestIds: actionable, readOnlyReason: null }, hostNow: Date.now(),
  };
}

/** Runs the trials in one chat of `turns` turns of which the newest `loaded` are loaded. */
async function measureChat(page: Page, turns: number, loaded: number): Promise<ChatUpdateCosts> {
  const shown: UpdateCost[] = [];
  const cleared: UpdateCost[] = [];
  // The last turn's run has applied seq 6 (benchTurn): each trial adds two events after it.
  for (let k = 0; k < WARMUP + TRIALS; k++) {
    const requestId = `bench-request-${k}`;
    const card = `.boundary-card[data-request-id="${requestId}"]`;
    const asked = changesOf(turns, 7 + 2 * k, { kind: 'boundary_requested', payload: { requestId, kind: 'command', subject: `touch card-${k}.txt`, why: 'The command writes a file.' } }, [requestId]);
    const a = await page.evaluate(postAndWait, [asked, `${card}[data-state="actionable"]`] as const);
    const decided = changesOf(turns, 8 + 2 * k, { kind: 'boundary_decided', payload: { requestId, status: 'approved', decision: 'allow_once', closureReason: 'user_decision' } }, []);
    const d = await page.evaluate(postAndWait, [decided, `${card}:not([data-state="actionable"])`] as const);
    if (k >= WARMUP) {
      shown.push(a);
      cleared.push(d);
    }
  }
  return { turns, loaded, shown, cleared };
}

/**
 * Runs the bench (see the module docstring) on `repo`'s `dist/webview.js`; `log` prints each chat's
 * figures. @throws Error when a card does not show its change within 10 s.
 */
export async function runViewUpdate(repo: string, log: (line: string) => void, options: { readonly profile?: boolean } = {}): Promise<ViewUpdateResult> {
  const started = new Date().toISOString();
  const load0 = os.loadavg()[0]!;
  const listing = lsListing();
  const browser = await chromium.launch({ executablePath: process.env.NAC_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  const chats: ChatUpdateCosts[] = [];
  try {
    for (const [turns, loaded] of [[SHORT_TURNS, SHORT_TURNS], [LONG_TURNS, PAGE_TURNS], [LONG_TURNS, LONG_TURNS]] as const) {
      const all = Array.from({ length: turns }, (_, i) => benchTurn(i, listing, i === turns - 1));
      const page = await openViewAlone(browser, repo, { turns: all, snapshotTurns: loaded, pageTurns: PAGE_TURNS, running: true }, measureRecorder);
      const cdp = options.profile ? await page.context().newCDPSession(page) : undefined;
      if (cdp) {
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
        await cdp.send('Profiler.start');
      }
      const costs = await measureChat(page, turns, loaded);
      if (cdp) printProfile((await cdp.send('Profiler.stop')).profile as CpuProfile);
      await page.close();
      chats.push(costs);
      log(`[view alone] ${describeChat(costs)}`);
    }
  } finally {
    await browser.close();
  }
  return { date: started, load: { start: load0, end: os.loadavg()[0]! }, trials: TRIALS, chats };
}

/** p50 / p95 of `of` over `costs` (ms). */
export function p50p95(costs: readonly UpdateCost[], of: (c: UpdateCost) => number): string {
  const xs = costs.map(of).sort((a, b) => a - b);
  return `${percentile(xs, 50).toFixed(1)} / ${percentile(xs, 95).toFixed(1)}`;
}

/** The chat's name in the report: its turns and how many are loaded. */
export function chatLabel(c: ChatUpdateCosts): string {
  return c.loaded === c.turns ? `${c.turns} turns${c.turns > PAGE_TURNS ? ', all loaded' : ''}` : `${c.turns} turns, last ${c.loaded} loaded`;
}

function describeChat(c: ChatUpdateCosts): string {
  return `${chatLabel(c)}: card shown ${p50p95(c.shown, (x) => x.workMs)} ms of view work (p50 / p95), painted ${p50p95(c.shown, (x) => x.paintedMs)}; card cleared ${p50p95(c.cleared, (x) => x.workMs)}, painted ${p50p95(c.cleared, (x) => x.paintedMs)}`;
}

if (require.main === module) {
  runViewUpdate(path.resolve(__dirname, '..', '..'), (line) => console.log(line), { profile: process.argv.includes('--profile') }).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
