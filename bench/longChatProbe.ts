/**
 * What the long-chat view bench (longChatView.ts) and journey run inside the browser to time the chat
 * view from the page itself, not from Playwright's polling: an init script for every frame of a
 * browser context (workbench, webview host frame, the chat's content frame), and the Node helpers
 * that drive and read it.
 *
 * Times are the browser's wall clock in ms with sub-ms resolution (`performance.timeOrigin +
 * performance.now()`), comparable across the frames and pages of one browser: the webview frames
 * are same-origin children of the workbench page in code-server, each with its own time origin.
 *
 * In the workbench page (the top frame) the script keeps `__nacProbe`: the times of Enter key
 * presses, when the status bar first showed, and `seen`: for each watched selector, when it first
 * stood in a chat's content frame and a frame had been painted since (element found → the next
 * animation frame → a task after it). The top frame looks for them once per animation frame (a
 * querySelector per chat document and selector) until all were seen; `watch(selectors)` forgets
 * what was seen and looks for those (the init script's list at first). While it looks, it also notes
 * when each new chat document shows (`chatDocs`: the view's script has built its skeleton).
 * In every frame it defines `__nacFrames.start()` / `.stop()`: animation-frame deltas and long tasks
 * (PerformanceObserver 'longtask', over 50 ms by definition) between the two calls, and
 * `__nacWatchCard(id)`: when a boundary card's decision buttons were clicked, when they were painted
 * disabled (the view's acknowledgement, after the click's handler and render), and when the card was
 * painted out of the actionable state (its outcome, the host's answer).
 */
import type { BrowserContext, Frame, Page } from 'playwright-core';

/** What the top frame keeps (see the module docstring). */
export interface ProbeState {
  readonly enters: number[];
  /** When each chat document (one holding `#transcript`: the view's script built its skeleton) was first seen. */
  readonly chatDocs: number[];
  readonly statusBarAt?: number;
  seen: Record<string, number>;
}

/** Frame statistics of one `__nacFrames.start()`…`stop()` span (ms). */
export interface FrameSpan {
  /** Deltas between consecutive animation frames. */
  readonly deltas: number[];
  /**
   * Long tasks seen by the frame: start (wall clock), duration, and whose they were (the entry's
   * name: 'self' for the chat frame's own, 'same-origin-ancestor' for the workbench's, …).
   */
  readonly longTasks: { start: number; duration: number; name?: string }[];
  /** Messages the frame received meanwhile: when (wall clock) and their `type` (the host's `page`, `changes`, …). */
  readonly messages?: { at: number; type: string }[];
}

/** Times around one decided card (wall clock ms; absent: not seen). */
export interface CardTimes {
  readonly clickAt?: number;
  readonly disabledAt?: number;
  readonly decidedAt?: number;
  readonly state?: string;
}

/**
 * Init script of the top frame (the workbench page): Enter presses, the status bar's first paint,
 * and the watched selectors (see the module docstring). `watch`: the selectors to look for at first.
 * Self-contained: Playwright sends its source to the browser.
 */
function topProbeScript(watch: readonly string[]): void {
  type W = Window & typeof globalThis & Record<string, unknown>;
  const w = window as W;
  if (w.top !== w) return;
  const now = () => performance.timeOrigin + performance.now();
  const painted = (record: (at: number) => void) => requestAnimationFrame(() => setTimeout(() => record(now()), 0));
  const probe = {
    enters: [] as number[], chatDocs: [] as number[], statusBarAt: undefined as number | undefined, seen: {} as Record<string, number>,
    watch: (_list: readonly string[]) => undefined as void,
  };
  w.__nacProbe = probe;
  document.addEventListener('keydown', (e) => { if (e.key === 'Enter') probe.enters.push(now()); }, true);
  const poll = () => {
    const bar = document.querySelector<HTMLElement>('.monaco-workbench .part.statusbar');
    if (bar && bar.offsetParent !== null) painted((at) => (probe.statusBarAt = at));
    else requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
  // The chat's content frame is a same-origin grandchild whose document VS Code rewrites after an
  // init script ran there, so an observer set up in it would be lost: look from here.
  const known = new WeakSet<Document>();
  const docs = (doc: Document): Document[] => {
    const out = [doc];
    doc.querySelectorAll('iframe').forEach((f) => {
      try {
        if (f.contentDocument) out.push(...docs(f.contentDocument));
      } catch { /* another origin */ }
    });
    return out;
  };
  let list: readonly string[] = [];
  let looking = false;
  const pending = new Set<string>();
  const look = () => {
    const todo = list.filter((s) => probe.seen[s] === undefined && !pending.has(s));
    if (todo.length === 0 && pending.size === 0) {
      looking = false;
      return;
    }
    const chats = docs(document).filter((d) => d.getElementById('transcript'));
    for (const d of chats) {
      if (known.has(d)) continue;
      known.add(d);
      probe.chatDocs.push(now());
    }
    for (const s of todo) {
      if (!chats.some((d) => d.querySelector(s))) continue;
      pending.add(s);
      painted((at) => {
        pending.delete(s);
        if (probe.seen[s] === undefined) probe.seen[s] = at;
      });
    }
    requestAnimationFrame(look);
  };
  probe.watch = (selectors) => {
    list = [...selectors];
    probe.seen = {};
    pending.clear();
    if (!looking) {
      looking = true;
      requestAnimationFrame(look);
    }
  };
  probe.watch(watch);
}

/** Init script of every frame: `__nacFrames.start()` / `.stop()` (see the module docstring). Self-contained. */
function frameStatsScript(): void {
  const w = window as Window & typeof globalThis & Record<string, unknown>;
  type Span = {
    deltas: number[]; longTasks: { start: number; duration: number; name: string }[]; messages: { at: number; type: string }[];
    last?: number; on: boolean; observer?: PerformanceObserver; onMessage?: (e: MessageEvent) => void;
  };
  let span: Span | undefined;
  const now = () => performance.timeOrigin + performance.now();
  w.__nacFrames = {
    start() {
      const s: Span = { deltas: [], longTasks: [], messages: [], on: true };
      span = s;
      try {
        s.observer = new PerformanceObserver((list) => {
          for (const e of list.getEntries()) s.longTasks.push({ start: performance.timeOrigin + e.startTime, duration: e.duration, name: e.name });
        });
        s.observer.observe({ type: 'longtask', buffered: false });
      } catch { /* no longtask support: none reported */ }
      // The host's messages as they arrive (their type only), to tell what the long tasks followed.
      s.onMessage = (e) => {
        const type = (e.data as { type?: unknown } | null)?.type;
        if (typeof type === 'string') s.messages.push({ at: now(), type });
      };
      w.addEventListener('message', s.onMessage);
      const tick = (t: number) => {
        if (!s.on) return;
        if (s.last !== undefined) s.deltas.push(t - s.last);
        s.last = t;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    },
    stop() {
      const s = span;
      if (!s) return { deltas: [], longTasks: [], messages: [] };
      s.on = false;
      s.observer?.takeRecords().forEach((e) => s.longTasks.push({ start: performance.timeOrigin + e.startTime, duration: e.duration, name: e.name }));
      s.observer?.disconnect();
      if (s.onMessage) w.removeEventListener('message', s.onMessage);
      return { deltas: s.deltas, longTasks: s.longTasks, messages: s.messages };
    },
  };
}

/** Init script of every frame: `__nacWatchCard(id)` (see the module docstring). Self-contained. */
function cardWatchScript(): void {
  const w = window as Window & typeof globalThis & Record<string, unknown>;
  const now = () => performance.timeOrigin + performance.now();
  const painted = (record: (at: number) => void) => requestAnimationFrame(() => setTimeout(() => record(now()), 0));
  w.__nacWatchCard = (id: string) => {
    const times: { clickAt?: number; disabledAt?: number; decidedAt?: number; state?: string } = {};
    const sel = `.boundary-card[data-request-id="${CSS.escape(id)}"]`;
    document.addEventListener('click', (e) => {
      if (times.clickAt === undefined && e.target instanceof Element && e.target.closest(`${sel} [data-decision]`)) times.clickAt = now();
    }, true);
    const check = () => {
      const card = document.querySelector<HTMLElement>(sel);
      // Buttons replaced by the outcome before a frame showed them disabled count as acknowledged then.
      const decided = !!card && card.dataset.state !== 'actionable';
      if (times.disabledAt === undefined && times.clickAt !== undefined && (decided || card?.querySelector('[data-decision][disabled]'))) {
        times.disabledAt = -1;
        painted((at) => (times.disabledAt = at));
      }
      if (times.decidedAt === undefined && decided) {
        times.state = card!.dataset.state;
        times.decidedAt = -1;
        painted((at) => (times.decidedAt = at));
      }
    };
    new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['disabled', 'data-state'] });
    w.__nacCardTimes = times;
  };
}

/** Installs the probe in every frame of every page `context` opens from now on. */
export async function installProbe(context: BrowserContext, watch: readonly string[]): Promise<void> {
  await context.addInitScript(topProbeScript, watch);
  await context.addInitScript(frameStatsScript);
  await context.addInitScript(cardWatchScript);
}

/** The top frame's probe state. */
export function probeState(page: Page): Promise<ProbeState> {
  return page.evaluate(() => (window as unknown as { __nacProbe: ProbeState }).__nacProbe);
}

/** Forgets the selectors seen so far and looks for `selectors` (none: stops looking). */
export async function watchFor(page: Page, selectors: readonly string[]): Promise<void> {
  await page.evaluate((list) => { (window as unknown as { __nacProbe: { watch(l: readonly string[]): void } }).__nacProbe.watch(list); }, selectors);
}

/**
 * Waits until `selector` was seen painted in a chat frame of `page` (polling the top frame every
 * 50 ms; the time itself comes from the frame). @returns its wall-clock time (ms).
 * @throws Error after `timeoutMs`.
 */
export async function seenAt(page: Page, selector: string, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const at = await page.evaluate((s) => (window as unknown as { __nacProbe?: ProbeState }).__nacProbe?.seen[s], selector).catch(() => undefined);
    if (at !== undefined && at > 0) return at;
    if (Date.now() > deadline) throw new Error(`not painted within ${timeoutMs / 1000} s: ${selector}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The browser's wall clock in `page` (ms). */
export function browserNow(page: Page): Promise<number> {
  return page.evaluate(() => performance.timeOrigin + performance.now());
}

/**
 * The Playwright Frame of the visible chat's content frame (`iframe.webview.ready` → `#active-frame`).
 * @throws Error when there is none within `timeoutMs`.
 */
export async function chatContentFrame(page: Page, timeoutMs: number): Promise<Frame> {
  const outer = await page.locator('iframe.webview.ready:visible').first().elementHandle({ timeout: timeoutMs });
  const outerFrame = await outer?.contentFrame();
  const inner = await outerFrame?.locator('#active-frame').elementHandle({ timeout: timeoutMs });
  const frame = await inner?.contentFrame();
  if (!frame) throw new Error('the chat view has no content frame');
  return frame;
}
