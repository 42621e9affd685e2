/**
 * The chat view alone, scrolled through a 5,000-turn chat in headless Chromium (`npm run
 * bench:view-scroll`, about a minute; `-- --profile`, `-- --trace`, `-- --steps=N`). No VS Code: the
 * view alone with a stand-in host (viewPage.ts) that answers `ready` with the chat's last page and
 * `loadOlder` with the page before (`PAGE_TURNS` turns).
 *
 * Measured inside the page: one wheel event of `-STEP_PX` px over the transcript per animation frame
 * until the first turn is painted at the top; the deltas between animation frames and the long tasks
 * (PerformanceObserver 'longtask', over 50 ms by definition) meanwhile, and the CPU time of the
 * browser's processes. `--profile` also records a CPU profile (CDP `Profiler`) and prints the
 * functions with the most self time; `--trace` records a trace and prints the main thread's tasks by
 * CPU (thread) time, which other work on the machine does not inflate as it does wall-clock times,
 * and what the tasks over 50 ms held; `--steps=N` stops after N wheel steps.
 *
 * Prints p50/p95/max frame (ms), the long tasks (count, longest ms) and the load average; returns them.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { PAGE_TURNS } from '../src/protocol/messages';
import { longChatId, lsListing } from './longChatRows';
import { percentile } from './stats';
import { benchTurn, busiestRendererTasks, describeTasks, openViewAlone, printProfile, type CpuProfile, type TraceEvent } from './viewPage';

/** Turns in the chat scrolled through. */
const TURNS = 5000;
/** Pixels per wheel event (one per animation frame), as the code-server bench scrolls. */
const STEP_PX = 3000;
/** Gives up scrolling after this long (ms). */
const SCROLL_LIMIT_MS = 240_000;

/** What one run measured (ms). */
export interface ViewScrollResult {
  readonly steps: number;
  readonly frames: { readonly p50: number; readonly p95: number; readonly max: number; readonly n: number };
  readonly longTasks: { readonly count: number; readonly longest: number };
  readonly scrollMs: number;
  /** CPU time of all the browser's processes while scrolling (ms): unlike wall-clock figures, not inflated by other work. */
  readonly cpuMs: number;
  readonly load: readonly [number, number];
}

/** Records frame deltas and long tasks from `__bench.start()` on (an init script: self-contained). */
function frameRecorder(): void {
  const w = window as unknown as Record<string, unknown>;
  // Frame deltas and long tasks, from `start()` on.
  const deltas: number[] = [];
  const longTasks: number[] = [];
  w.__bench = {
    start() {
      new PerformanceObserver((list) => list.getEntries().forEach((e) => longTasks.push(e.duration))).observe({ type: 'longtask', buffered: false });
      let last = performance.now();
      const tick = (t: number) => {
        deltas.push(t - last);
        last = t;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    },
    stop: () => ({ deltas: deltas.slice(), longTasks: longTasks.slice() }),
  };
}

/** Waits for the next animation frame of the page. */
const nextFrame = (page: Page) => page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => r())));

/** Runs the bench once; prints and returns what it measured. */
export async function runViewScroll(repo: string, options: { readonly profile?: boolean; readonly trace?: boolean; readonly steps?: number } = {}): Promise<ViewScrollResult> {
  const load0 = os.loadavg()[0]!;
  const listing = lsListing();
  const turns = Array.from({ length: TURNS }, (_, i) => benchTurn(i, listing));
  const browser = await chromium.launch({ executablePath: process.env.NAC_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const page = await openViewAlone(browser, repo, { turns, snapshotTurns: PAGE_TURNS, pageTurns: PAGE_TURNS, running: false }, frameRecorder);
    const box = (await page.locator('.transcript, main').first().boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const cdp = options.profile ? await page.context().newCDPSession(page) : undefined;
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
    }
    if (options.trace) await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
    await page.evaluate(() => (window as unknown as { __bench: { start(): void } }).__bench.start());
    const first = `section.turn[data-turn-id="${longChatId('turn', 0)}"]`;
    const began = Date.now();
    const cpu0 = descendantsCpuMs();
    let steps = 0;
    for (;;) {
      const done = await page.evaluate((sel) => {
        const el = document.querySelector(sel);
        const scroller = el?.closest('main') ?? document.querySelector('main');
        return !!el && (scroller?.scrollTop ?? 1) <= 0;
      }, first);
      if (done || Date.now() - began > SCROLL_LIMIT_MS || steps === options.steps) break;
      await page.mouse.wheel(0, -STEP_PX);
      await nextFrame(page);
      steps++;
    }
    const scrollMs = Date.now() - began;
    const cpuMs = descendantsCpuMs() - cpu0;
    const span = await page.evaluate(() => (window as unknown as { __bench: { stop(): { deltas: number[]; longTasks: number[] } } }).__bench.stop());
    if (options.trace) printLongTasks(JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] });
    if (cdp) printProfile((await cdp.send('Profiler.stop')).profile as CpuProfile);
    const deltas = span.deltas.slice(1).sort((a, b) => a - b);
    const result: ViewScrollResult = {
      steps,
      frames: { p50: percentile(deltas, 50), p95: percentile(deltas, 95), max: deltas.at(-1) ?? 0, n: deltas.length },
      longTasks: { count: span.longTasks.length, longest: Math.max(0, ...span.longTasks) },
      scrollMs,
      cpuMs,
      load: [load0, os.loadavg()[0]!],
    };
    const r = (x: number) => Math.round(x * 10) / 10;
    console.log(`view scroll, ${TURNS} turns, ${STEP_PX} px per wheel step: ${steps} steps in ${r(scrollMs / 1000)} s${scrollMs > SCROLL_LIMIT_MS ? ' (gave up: not at the first turn)' : ''}`);
    console.log(`  frames p50 / p95 / max: ${r(result.frames.p50)} / ${r(result.frames.p95)} / ${r(result.frames.max)} ms (n=${result.frames.n})`);
    console.log(`  long tasks: ${result.longTasks.count}, longest ${r(result.longTasks.longest)} ms`);
    console.log(`  browser CPU: ${Math.round(cpuMs)} ms, ${r(cpuMs / Math.max(1, steps))} ms per wheel step`);
    console.log(`  load average (1 min): ${r(load0)} -> ${r(result.load[1])} on ${os.cpus().length} cores`);
    return result;
  } finally {
    await browser.close();
  }
}

/** CPU time (user + system, ms) of every process descending from this one, read from /proc (Linux). */
function descendantsCpuMs(): number {
  const stats = new Map<number, { ppid: number; ms: number }>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Fields after the command's closing parenthesis: state ppid … utime (14th) stime (15th), in clock ticks (100/s).
      const f = fs.readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]!.split(' ');
      stats.set(Number(name), { ppid: Number(f[1]), ms: (Number(f[11]) + Number(f[12])) * 10 });
    } catch {
      /* the process ended meanwhile */
    }
  }
  const mine = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 20; p = stats.get(p)?.ppid ?? 0, hops++) if (p === process.pid) return pid !== process.pid;
    return false;
  };
  let total = 0;
  for (const [pid, s] of stats) if (mine(pid)) total += s.ms;
  return total;
}

/** Prints, for the tasks over 50 ms of a trace, the time (ms) of the events directly in them by name. */
function printLongTasks(trace: { traceEvents: TraceEvent[] }): void {
  const complete = trace.traceEvents.filter((e) => e.ph === 'X' && e.dur !== undefined);
  console.log(`  main thread tasks (ms): ${describeTasks(busiestRendererTasks(trace))}`);
  const tasks = complete.filter((e) => e.name === 'RunTask' && e.dur! > 50_000);
  const inside = new Map<string, number>();
  for (const task of tasks) {
    for (const e of complete) {
      if (e.tid !== task.tid || e === task || e.ts < task.ts || e.ts + e.dur! > task.ts + task.dur!) continue;
      const key = e.name === 'FunctionCall' || e.name === 'EventDispatch' || e.name === 'TimerFire' ? `${e.name} ${e.args?.data?.type ?? e.args?.data?.functionName ?? ''}` : e.name;
      inside.set(key, (inside.get(key) ?? 0) + e.dur! / 1000);
    }
  }
  console.log(`  tasks over 50 ms in the trace: ${tasks.length} (${Math.round(tasks.reduce((a, t) => a + t.dur!, 0) / 1000)} ms); events in them (ms, nested counted again):`);
  for (const [key, ms] of [...inside].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`    ${Math.round(ms)}  ${key}`);
}

if (require.main === module) {
  const steps = process.argv.find((a) => a.startsWith('--steps='));
  runViewScroll(path.resolve(__dirname, '..', '..'), { profile: process.argv.includes('--profile'), trace: process.argv.includes('--trace'), steps: steps ? Number(steps.slice(8)) : undefined }).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
