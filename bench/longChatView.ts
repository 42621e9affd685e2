/**
 * `npm run bench -- --long-chat-view`: the long chat as a user sees it, in code-server and headless
 * Chromium (test/harness/codeServer.ts), on a journal seeded with a long chat of LONG_TURNS turns and a
 * short one of SHORT_TURNS (longChatSeed.ts). In one window (A):
 * 1. Open Chat… the short chat (the extension started on startup; this is the first chat view of the
 *    window), then the long chat `opens` times (closing it in between), then the short chat again:
 *    Enter in the picker → the chat view's skeleton → the chat's last turn painted, warm host;
 * 2. extension host RSS (its process, the journal worker thread included) 5 s after the short chat
 *    opened, and 5 s after the long chat opened (same host, same journal);
 * 3. Reload Window with the short chat's tab active (VS Code's own part), then with the long chat's:
 *    the new page's navigation start → the workbench ready (the status bar painted) → the chat view's
 *    skeleton shown → the chat's last turn painted; then with a blank webview's tab active (the bench's
 *    floor extension restores static HTML): VS Code's part of any restored webview;
 * 4. the mouse wheel scrolls the transcript to its first turn: the view's animation-frame deltas and
 *    long tasks (in the chat's content frame), and from a trace the tasks of the renderer thread
 *    running it by CPU time and by wall clock;
 * Then a second window (B, another browser tab on the same server) opens the long chat, and `cards`
 * times A sends a command that needs approval and decides its card (Allow once) with the mouse: the
 * click → A's buttons disabled, → A's card painted with its outcome, → B's card painted without
 * buttons. Then both windows show the short chat and A decides half as many cards there, side by
 * side. Times are taken inside the pages (longChatProbe.ts), ms. Last, with code-server stopped, the
 * view alone decides cards in a 10- and a 5,000-turn chat (viewUpdate.ts): the webview's own cost.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chatFrame, copyDir, ensureInstalled, installExtension, launchBrowser, repoRoot, startCodeServer, tempDir, waitForWorkbench, type CodeServer } from '../test/harness/codeServer';
import { extensionHostPids } from '../test/e2e/hostCrashJourney';
import { chatContentFrame, installProbe } from './longChatProbe';
import { firstTurnId, lastTurnId, seedLongChats, seededChats } from './longChatSeed';
import { busiestRendererTasks, readTaskEvents, type TraceEvent } from './viewPage';
import { BEFORE_VIEW } from './longChatBefore';
import { runViewUpdate, type ViewUpdateResult } from './viewUpdate';
import { closeActiveEditor, decideTimed, openBlankTimed, openChatTimed, pendingCardId, reloadTimed, rssOf, scrollToTopTimed, sendPrompt, showTab, turnSelector, type DecisionTimes, type OpenTimes, type ReloadTimes, type ScrollResult } from './longChatSteps';

/** Options of one run. */
export interface ViewOptions {
  /** The extension folder to install (default the repository: its dist/ must be built). */
  readonly extensionPath: string;
  readonly longTurns: number;
  readonly shortTurns: number;
  /** Times the long chat is opened (the first one and the reopenings after closing it). */
  readonly opens: number;
  /** Cards decided in window A with window B watching. */
  readonly cards: number;
  /** Wheel step (px) and the longest time spent scrolling up (ms). */
  readonly wheelPx: number;
  readonly scrollCapMs: number;
  /** Longest wait for any one thing to show (ms). */
  readonly timeoutMs: number;
}

/** Defaults: 5,000 vs 10 turns, 3 opens, 10 cards, 3,000 px per wheel step for at most 150 s. */
export const VIEW_DEFAULTS: Omit<ViewOptions, 'extensionPath'> = {
  longTurns: 5000, shortTurns: 10, opens: 3, cards: 10, wheelPx: 3000, scrollCapMs: 150_000, timeoutMs: 90_000,
};

/** Everything one run measured (ms, bytes). */
export interface LongChatViewResult {
  readonly date: string;
  /** The extension measured, relative to the repository ("." for this one). */
  readonly extension: string;
  /** The build of the extension's `dist/` measured: `production` (minified, what the VSIX ships) or `development`, and its webview script's size (bytes). */
  readonly build?: { readonly kind: 'production' | 'development'; readonly webviewBytes: number };
  readonly load: { readonly start: number; readonly end: number };
  readonly wallMs: number;
  readonly longTurns: number;
  readonly shortTurns: number;
  readonly journalBytes: number;
  /** Enter → last turn painted: the short chat (first open in the host), then each long-chat open. */
  readonly openShort: OpenTimes;
  readonly openLong: OpenTimes[];
  /** The short chat opened again after the long one (warm, for comparison; absent in older results). */
  readonly openShortWarm?: OpenTimes;
  /** Enter in the command palette → a blank webview painted (bench/blankWebview), each of 3 opens: VS Code's floor (absent in older results). */
  readonly openBlank?: number[];
  readonly rssShort: number;
  readonly rssLong: number;
  /** Reload Window with the short chat's tab active (VS Code's part, for comparison), then the long one's. */
  readonly reloadShort: ReloadTimes;
  readonly reloadLong: ReloadTimes;
  /** The same reload with the blank webview's tab active: VS Code's floor (absent in older results). */
  readonly reloadBlank?: ReloadTimes;
  /** Scrolling up: `heightPx`, the transcript's scrollHeight before; `wheelPx`, each wheel step. */
  readonly scroll: ScrollResult & { readonly heightPx: number; readonly wheelPx: number };
  /**
   * The same scroll's tasks on the renderer main thread that ran the chat's frame (and the
   * workbench's, which shares it), from a trace: by CPU (thread) time, which waiting for a core does
   * not inflate, and by wall clock (ms; absent in older results).
   */
  readonly scrollTasks?: ScrollTasks;
  /** One card's update in the view alone, no VS Code (viewUpdate.ts; absent in older results). */
  readonly viewAlone?: ViewUpdateResult;
  /** Window B: Enter → last turn painted (B's host opens the chat for the first time). */
  readonly openInB: OpenTimes;
  readonly decisions: DecisionTimes[];
  /** The same decisions with both windows showing the short chat (absent in older results). */
  readonly decisionsShort?: DecisionTimes[];
  /** What the same bench measured on the old design (longChatBefore.ts), written with these figures into bench/results.json (absent in older results). */
  readonly before?: typeof BEFORE_VIEW;
}

/** Tasks of a renderer thread over a span (ms): how many, and those over 50 ms by CPU time and by wall clock. */
export interface ScrollTasks {
  readonly n: number;
  readonly overCpu50: number;
  readonly longestCpu: number;
  readonly overWall50: number;
  readonly longestWall: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The one extension host below `server` (waits for it). @throws Error when there is not exactly one. */
async function hostPid(server: CodeServer, exclude: readonly number[] = []): Promise<number> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(250)) {
    const pids = extensionHostPids(server.pid).filter((p) => !exclude.includes(p));
    if (pids.length === 1) return pids[0]!;
    if (pids.length > 1) throw new Error(`several extension hosts: ${pids.join(', ')}`);
  }
  throw new Error('no extension host');
}

/** The selectors of the seeded chats' turns the bench waits for, and their titles. */
interface Targets {
  readonly long: { readonly title: string; readonly last: string; readonly first: string };
  readonly short: { readonly title: string; readonly last: string };
}

/** Runs the view bench (see the module docstring). `log` prints progress. */
export async function benchLongChatView(options: ViewOptions, log: (line: string) => void): Promise<LongChatViewResult> {
  const started = Date.now();
  const loadStart = os.loadavg()[0]!;
  const o = options;
  ensureInstalled();
  const tmp = tempDir('nac-bench-view-');
  const workspace = path.join(tmp, 'workspace');
  copyDir(path.join(repoRoot(), 'test', 'fixtures', 'workspace'), workspace);
  const userDataDir = path.join(tmp, 'user-data');
  const journalBytes = await seedLongChats(userDataDir, o.longTurns, o.shortTurns);
  const { long, short } = seededChats(o.longTurns, o.shortTurns);
  const t: Targets = {
    long: { title: long.title, last: turnSelector(lastTurnId(long)), first: turnSelector(firstTurnId(long)) },
    short: { title: short.title, last: turnSelector(lastTurnId(short)) },
  };
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  try {
    installExtension(path.join(repoRoot(), 'bench', 'blankWebview'), path.join(tmp, 'extensions'));
    server = await startCodeServer({
      workspace, userDataDir, installExtensionFrom: o.extensionPath,
      settings: { 'chat.disableAIFeatures': true, 'window.confirmBeforeClose': 'never' },
    });
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    // What a reloaded page looks for from its start: the chats' last turns and the blank webview.
    await installProbe(context, [t.long.last, t.short.last, '#nac-blank']);
    const a = await context.newPage();
    await a.goto(server.folderUrl, { timeout: o.timeoutMs });
    await waitForWorkbench(a, o.timeoutMs);
    const hostA = await hostPid(server);
    log(`[long chat view] workbench ready; extension host pid ${hostA}`);
    const opens = await measureOpens(a, hostA, t, o, log);
    const reloads = await measureReloads(a, t, o, log);
    const heightPx = await chatContentFrame(a, o.timeoutMs).then((f) => f.evaluate(() => document.getElementById('transcript')?.scrollHeight ?? -1));
    const traceFile = path.join(tmp, 'scroll-trace.json');
    await browser.startTracing(a, { path: traceFile, categories: ['disabled-by-default-devtools.timeline'] });
    const scroll = { ...(await scrollToTopTimed(a, t.long.first, o.wheelPx, o.scrollCapMs, o.timeoutMs)), heightPx, wheelPx: o.wheelPx };
    await browser.stopTracing();
    const scrollTasks = tasksOf(await readTaskEvents(traceFile));
    fs.rmSync(traceFile);
    log(`[long chat view] scrolled ${scroll.reachedTop ? 'to the top' : 'NOT to the top'} in ${scroll.wheelSteps} wheel steps, ${(scroll.wallMs / 1000).toFixed(1)} s; ${scroll.frames.n} frames, ${scroll.frames.longTasks} long tasks; renderer tasks over 50 ms: ${scrollTasks.overCpu50} by CPU time (longest ${scrollTasks.longestCpu.toFixed(0)}), ${scrollTasks.overWall50} by wall clock`);
    const cards = await measureCards(browser, server, a, t, o, log);
    await browser.close();
    browser = undefined;
    await server.stop();
    server = undefined;
    const viewAlone = await runViewUpdate(o.extensionPath, log);
    return {
      date: new Date(started).toISOString(), extension: path.relative(repoRoot(), o.extensionPath) || '.', build: buildOf(o.extensionPath), load: { start: loadStart, end: os.loadavg()[0]! }, wallMs: Date.now() - started,
      longTurns: o.longTurns, shortTurns: o.shortTurns, journalBytes, ...opens, ...reloads, scroll, scrollTasks, ...cards, viewAlone, before: BEFORE_VIEW,
    };
  } finally {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Opens the short chat, then the long one `o.opens` times; the host's RSS 5 s after the first of each. */
async function measureOpens(a: Page, hostA: number, t: Targets, o: ViewOptions, log: (line: string) => void) {
  const openShort = await openChatTimed(a, t.short.title, t.short.last, o.timeoutMs);
  await sleep(5000);
  const rssShort = rssOf(hostA);
  log(`[long chat view] short chat painted in ${openShort.paintedMs.toFixed(0)} ms (skeleton ${openShort.skeletonMs.toFixed(0)}); host RSS ${(rssShort / 1048576).toFixed(0)} MB`);
  const openLong: OpenTimes[] = [];
  let rssLong = 0;
  for (let i = 0; i < o.opens; i++) {
    if (i > 0) await closeActiveEditor(a, o.timeoutMs);
    const opened = await openChatTimed(a, t.long.title, t.long.last, o.timeoutMs);
    openLong.push(opened);
    if (i === 0) {
      await sleep(5000);
      rssLong = rssOf(hostA);
    }
    log(`[long chat view] long chat #${i + 1} painted in ${opened.paintedMs.toFixed(0)} ms (skeleton ${opened.skeletonMs.toFixed(0)})${i === 0 ? `; host RSS ${(rssLong / 1048576).toFixed(0)} MB` : ''}`);
  }
  // The short chat again, warm too (its first open above also started the webview machinery): what
  // any chat's open costs here, for comparison.
  await showTab(a, t.short.title, t.short.last, o.timeoutMs);
  await closeActiveEditor(a, o.timeoutMs);
  const openShortWarm = await openChatTimed(a, t.short.title, t.short.last, o.timeoutMs);
  log(`[long chat view] short chat again, painted in ${openShortWarm.paintedMs.toFixed(0)} ms (skeleton ${openShortWarm.skeletonMs.toFixed(0)})`);
  // VS Code's floor: a webview with static HTML and no script, opened by a command the same way.
  const openBlank: number[] = [];
  for (let i = 0; i < 3; i++) {
    openBlank.push(await openBlankTimed(a, o.timeoutMs));
    await closeActiveEditor(a, o.timeoutMs);
  }
  log(`[long chat view] blank webview painted in ${openBlank.map((ms) => ms.toFixed(0)).join(', ')} ms`);
  return { openShort, openShortWarm, openBlank, openLong, rssShort, rssLong };
}

/** Reload Window with the short chat's tab active, then with the long chat's. */
async function measureReloads(a: Page, t: Targets, o: ViewOptions, log: (line: string) => void) {
  const said = (what: string, r: ReloadTimes) =>
    log(`[long chat view] reload with the ${what} chat: workbench ready ${r.readyMs.toFixed(0)} ms after navigation start, the chat's skeleton ${r.skeletonMs.toFixed(0)} ms and its last turn ${r.shownMs.toFixed(0)} ms after that`);
  await showTab(a, t.short.title, t.short.last, o.timeoutMs);
  const reloadShort = await reloadTimed(a, t.short.last, o.timeoutMs);
  said('short', reloadShort);
  await showTab(a, t.long.title, t.long.last, o.timeoutMs);
  const reloadLong = await reloadTimed(a, t.long.last, o.timeoutMs);
  said('long', reloadLong);
  // VS Code's floor: the same reload with the blank webview's tab active (its serializer sets static HTML).
  await openBlankTimed(a, o.timeoutMs);
  const reloadBlank = await reloadTimed(a, '#nac-blank', o.timeoutMs);
  said('blank webview\'s (no chat)', reloadBlank);
  await closeActiveEditor(a, o.timeoutMs);
  await showTab(a, t.long.title, t.long.last, o.timeoutMs);
  return { reloadShort, reloadLong, reloadBlank };
}

/**
 * Window B (another browser profile) opens the long chat; A decides `o.cards` cards while B watches.
 * Then both show the short chat and A decides half as many there: the same update, side by side.
 */
async function measureCards(browser: Browser, server: CodeServer, a: Page, t: Targets, o: ViewOptions, log: (line: string) => void) {
  // Another browser profile: in the same one, B's workbench would restore A's layout, tabs included.
  const contextB = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  await installProbe(contextB, []);
  const b = await contextB.newPage();
  await b.goto(server.folderUrl, { timeout: o.timeoutMs });
  await waitForWorkbench(b, o.timeoutMs);
  const openInB = await openChatTimed(b, t.long.title, t.long.last, o.timeoutMs);
  log(`[long chat view] window B: long chat painted in ${openInB.paintedMs.toFixed(0)} ms (skeleton ${openInB.skeletonMs.toFixed(0)})`);
  const decisions = await decideCards(a, b, o.cards, 'long', o, log);
  await a.bringToFront();
  await showTab(a, t.short.title, t.short.last, o.timeoutMs);
  await b.bringToFront();
  await openChatTimed(b, t.short.title, t.short.last, o.timeoutMs);
  const decisionsShort = await decideCards(a, b, Math.max(1, Math.ceil(o.cards / 2)), 'short', o, log);
  return { openInB, decisions, decisionsShort };
}

/** In the chat both windows show, A sends `count` commands that ask first and decides each card while B watches. */
async function decideCards(a: Page, b: Page, count: number, chat: 'long' | 'short', o: ViewOptions, log: (line: string) => void): Promise<DecisionTimes[]> {
  const decisions: DecisionTimes[] = [];
  for (let i = 1; i <= count; i++) {
    const command = `touch card-${chat}-${i}.txt && echo card-${chat}-${i}-done`;
    await a.bringToFront();
    await sendPrompt(a, `run ${command}`, o.timeoutMs);
    const id = await pendingCardId(a, command, o.timeoutMs);
    if ((await pendingCardId(b, command, o.timeoutMs)) !== id) throw new Error(`windows show different requests for ${command}`);
    const d = await decideTimed(a, b, id, o.timeoutMs);
    decisions.push(d);
    const work = d.viewWorkBMs === undefined ? '' : `; B's view ${d.viewWorkBMs.toFixed(1)} ms (messages ${d.messagesBMs?.toFixed(1)}, ${d.rendersB} renders, longest ${d.longestRenderBMs?.toFixed(1)})`;
    log(`[long chat view] ${chat} chat, card ${i}: disabled ${d.disabledMs.toFixed(1)} ms, A decided ${d.decidedAMs.toFixed(0)} ms, B cleared ${d.clearedBMs.toFixed(0)} ms${work}`);
    await chatFrame(a).locator('pre.output', { hasText: `card-${chat}-${i}-done` }).first().waitFor({ state: 'visible', timeout: o.timeoutMs });
    await chatFrame(a).locator('#send').waitFor({ state: 'visible', timeout: o.timeoutMs });
  }
  return decisions;
}

/** The counts of `ScrollTasks` from a trace of the scroll. */
function tasksOf(trace: { traceEvents: TraceEvent[] }): ScrollTasks {
  const { cpu, wall } = busiestRendererTasks(trace);
  return { n: cpu.length, overCpu50: cpu.filter((x) => x > 50).length, longestCpu: cpu.at(-1) ?? 0, overWall50: wall.filter((x) => x > 50).length, longestWall: wall.at(-1) ?? 0 };
}

/** Which build `dist/` holds in `extensionPath`: esbuild.mjs links a source map only in development. */
function buildOf(extensionPath: string): NonNullable<LongChatViewResult['build']> {
  const script = fs.readFileSync(path.join(extensionPath, 'dist', 'webview.js'), 'utf8');
  return { kind: script.includes('//# sourceMappingURL=') ? 'development' : 'production', webviewBytes: Buffer.byteLength(script) };
}
