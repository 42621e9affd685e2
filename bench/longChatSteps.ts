/**
 * A user's actions on a long chat in a real workbench (code-server + Chromium), timed by the in-page
 * probe (longChatProbe.ts): open a chat from Open Chat…, scroll its transcript to the top with the
 * mouse wheel, send a prompt that needs approval and decide its card. Shared by the long-chat view
 * bench (longChatView.ts) and the long-chat end-to-end journey. Times are ms.
 */
import * as fs from 'node:fs';
import type { Page } from 'playwright-core';
import { chatFrame, runCommand } from '../test/harness/codeServer';
import { chatContentFrame, probeState, seenAt, watchFor, type CardTimes, type FrameSpan } from './longChatProbe';
import { percentile } from './stats';

/** `.turn[data-turn-id="…"]`: the selector of a turn's element in the chat view. */
export function turnSelector(turnId: string): string {
  return `.turn[data-turn-id="${turnId}"]`;
}

/** Times of one Open Chat… (ms from the Enter key press in the picker, both taken in the browser). */
export interface OpenTimes {
  /** → the chat view's skeleton showed (VS Code made the webview and the view's script ran). */
  readonly skeletonMs: number;
  /** → the watched turn painted. */
  readonly paintedMs: number;
}

/**
 * Opens the chat titled `title` from Agent Chats: Open Chat… as a user (palette, type, Enter) and
 * waits until `paintedSelector` is painted in its view. @throws Error when the picker or the paint
 * does not come.
 */
export async function openChatTimed(page: Page, title: string, paintedSelector: string, timeoutMs: number): Promise<OpenTimes> {
  const input = page.locator('.quick-input-widget input.input[placeholder="Open a chat"]');
  await runCommand(page, 'Agent Chats: Open Chat…', timeoutMs);
  // The command registers once the extension activated: try once more if the picker did not come.
  if (!(await input.waitFor({ state: 'visible', timeout: 15_000 }).then(() => true, () => false))) await runCommand(page, 'Agent Chats: Open Chat…', timeoutMs);
  await input.waitFor({ state: 'visible', timeout: timeoutMs });
  await input.fill(title);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ state: 'visible', timeout: timeoutMs });
  await watchFor(page, [paintedSelector]);
  const before = await probeState(page);
  await input.press('Enter');
  const painted = await seenAt(page, paintedSelector, timeoutMs);
  const after = await probeState(page);
  const enter = after.enters[before.enters.length];
  if (enter === undefined) throw new Error('the Enter key press was not seen by the page');
  const skeleton = after.chatDocs.slice(before.chatDocs.length).find((at) => at >= enter) ?? Number.NaN;
  return { skeletonMs: skeleton - enter, paintedMs: painted - enter };
}

/**
 * Opens the bench's blank webview (bench/blankWebview: static HTML, no script) from the command
 * palette and times Enter → its `#nac-blank` painted: VS Code's own part of any webview's open here.
 */
export async function openBlankTimed(page: Page, timeoutMs: number): Promise<number> {
  const input = page.locator('.quick-input-widget input.input');
  // The keyboard focus may be in a webview (F1 goes to it then): click the status bar's empty middle first.
  const box = await page.locator('.monaco-workbench .part.statusbar').boundingBox({ timeout: timeoutMs });
  if (box) await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await page.keyboard.press('F1');
  await input.waitFor({ state: 'visible', timeout: timeoutMs });
  await input.fill('>Bench: Open Blank Webview');
  await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: 'Bench: Open Blank Webview' }).waitFor({ state: 'visible', timeout: timeoutMs });
  await watchFor(page, ['#nac-blank']);
  const before = await probeState(page);
  await input.press('Enter');
  const painted = await seenAt(page, '#nac-blank', timeoutMs);
  const enter = (await probeState(page)).enters[before.enters.length];
  if (enter === undefined) throw new Error('the Enter key press was not seen by the page');
  return painted - enter;
}

/** Times of one Reload Window (ms; the reloaded page's navigation start is the reload's start). */
export interface ReloadTimes {
  /** Navigation start → the workbench ready (its status bar painted). */
  readonly readyMs: number;
  /** Workbench ready → the chat view's skeleton shown (the restored webview's script ran). */
  readonly skeletonMs: number;
  /** Workbench ready → `paintedSelector` painted. */
  readonly shownMs: number;
}

/**
 * Reloads the window (Developer: Reload Window) with a chat tab active and waits until
 * `paintedSelector` (watched by the probe from the new page's start) is painted.
 */
export async function reloadTimed(page: Page, paintedSelector: string, timeoutMs: number): Promise<ReloadTimes> {
  await runCommand(page, 'Developer: Reload Window', timeoutMs);
  await page.waitForFunction(() => (window as unknown as { __nacProbe?: { statusBarAt?: number } }).__nacProbe?.statusBarAt !== undefined, undefined, { timeout: timeoutMs });
  const shownAt = await seenAt(page, paintedSelector, timeoutMs);
  const navStart = await page.evaluate(() => performance.timeOrigin);
  const state = await probeState(page);
  await watchFor(page, []);
  const readyAt = state.statusBarAt!;
  return { readyMs: readyAt - navStart, skeletonMs: (state.chatDocs[0] ?? Number.NaN) - readyAt, shownMs: shownAt - readyAt };
}

/** Makes the editor tab labelled `title` the active one (a click on it) and waits for `paintedSelector` in its view. */
export async function showTab(page: Page, title: string, paintedSelector: string, timeoutMs: number): Promise<void> {
  await page.locator('.part.editor .tabs-container .tab', { hasText: title }).first().click({ timeout: timeoutMs });
  await chatFrame(page).locator(paintedSelector).first().waitFor({ state: 'attached', timeout: timeoutMs });
}

/** Closes the active editor with its tab's close button. */
export async function closeActiveEditor(page: Page, timeoutMs: number): Promise<void> {
  const tab = page.locator('.part.editor .tabs-container .tab.active');
  const label = (await tab.locator('.label-name').first().innerText({ timeout: timeoutMs })).trim();
  await tab.locator('.tab-actions .action-label').first().click({ timeout: timeoutMs });
  await page.locator('.part.editor .tabs-container .tab .label-name', { hasText: label }).waitFor({ state: 'detached', timeout: timeoutMs });
}

/** A `FrameSpan` in figures (ms; counts). */
export interface FrameSummary {
  /** Animation-frame deltas: how many, p50, p95, max. */
  readonly n: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
  /** Long tasks, and those attributed to the chat frame itself ('self'). */
  readonly longTasks: number;
  readonly longestMs: number;
  readonly ownLongTasks: number;
  readonly ownLongestMs: number;
  /** The host's `page` messages received, and the long tasks that began within 100 ms after one. */
  readonly pages: number;
  readonly longTasksNearPage: number;
}

/** Sums up a span's frames, long tasks and page arrivals. */
export function summarizeFrames(span: FrameSpan): FrameSummary {
  const own = span.longTasks.filter((t) => t.name === 'self');
  const pages = (span.messages ?? []).filter((m) => m.type === 'page');
  const longest = (tasks: FrameSpan['longTasks']) => tasks.reduce((m, t) => Math.max(m, t.duration), 0);
  return {
    n: span.deltas.length,
    p50: percentile(span.deltas, 50),
    p95: percentile(span.deltas, 95),
    max: span.deltas.length ? span.deltas.reduce((m, d) => Math.max(m, d), -Infinity) : Number.NaN,
    longTasks: span.longTasks.length,
    longestMs: longest(span.longTasks),
    ownLongTasks: own.length,
    ownLongestMs: longest(own),
    pages: pages.length,
    longTasksNearPage: span.longTasks.filter((t) => pages.some((m) => t.start >= m.at - 1 && t.start - m.at <= 100)).length,
  };
}

/** How scrolling to the top went. */
export interface ScrollResult {
  /** Whether the first turn was painted and the transcript stood at its top. */
  readonly reachedTop: boolean;
  readonly wheelSteps: number;
  readonly wallMs: number;
  /** Animation frames and long tasks of the chat's content frame while scrolling. */
  readonly frames: FrameSummary;
}

/**
 * Scrolls the visible chat's transcript to its top with the mouse wheel (`stepPx` per wheel event,
 * one event per animation frame of the view) until the turn `firstSelector` is painted and the
 * transcript's scrollTop is 0, or `capMs` passed. Records the view's frames meanwhile.
 */
export async function scrollToTopTimed(page: Page, firstSelector: string, stepPx: number, capMs: number, timeoutMs: number): Promise<ScrollResult> {
  const frame = await chatContentFrame(page, timeoutMs);
  const box = await chatFrame(page).locator('#transcript').boundingBox({ timeout: timeoutMs });
  if (!box) throw new Error('the transcript has no box on screen');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  // Without the probe (a journey that did not install it) no frames are recorded.
  await frame.evaluate(() => (window as unknown as { __nacFrames?: { start(): void } }).__nacFrames?.start());
  const started = Date.now();
  let steps = 0;
  let reachedTop = false;
  while (Date.now() - started < capMs) {
    await page.mouse.wheel(0, -stepPx);
    steps++;
    // Wait for the view's next frame, then look.
    const at = await frame.evaluate((sel) => new Promise<{ top: number; first: boolean }>((resolve) => requestAnimationFrame(() => {
      resolve({ top: document.getElementById('transcript')?.scrollTop ?? -1, first: !!document.querySelector(sel) });
    })), firstSelector);
    if (at.first && at.top === 0) {
      reachedTop = true;
      break;
    }
  }
  const wallMs = Date.now() - started;
  const frames = await frame.evaluate(() => (window as unknown as { __nacFrames?: { stop(): FrameSpan } }).__nacFrames?.stop() ?? { deltas: [], longTasks: [], messages: [] });
  return { reachedTop, wheelSteps: steps, wallMs, frames: summarizeFrames(frames) };
}

/** Sends `text` from the visible chat's composer. */
export async function sendPrompt(page: Page, text: string, timeoutMs: number): Promise<void> {
  const input = chatFrame(page).locator('#composer textarea');
  await input.waitFor({ state: 'visible', timeout: timeoutMs });
  await input.fill(text);
  await chatFrame(page).locator('#send:not([disabled])').click({ timeout: timeoutMs });
}

/** The request id of the card with decision buttons about `command` in the visible chat of `page`. */
export async function pendingCardId(page: Page, command: string, timeoutMs: number): Promise<string> {
  const card = chatFrame(page).locator(`.boundary-card[data-state="actionable"]:has-text(${JSON.stringify(command)}), .invocation:has(> .invocation-head:has-text(${JSON.stringify(command)})) .boundary-card[data-state="actionable"]`).last();
  await card.locator('[data-decision="allow_once"]').waitFor({ state: 'visible', timeout: timeoutMs });
  const id = await card.getAttribute('data-request-id');
  if (!id) throw new Error(`the card about ${command} has no request id`);
  return id;
}

/** Times of one card decided in window A and watched in window B (ms from the click). */
export interface DecisionTimes {
  /** Click → A's buttons painted disabled (the view's own acknowledgement, before the host answers). */
  readonly disabledMs: number;
  /** Click → A's card painted with its outcome (the host's answer). */
  readonly decidedAMs: number;
  /** Click → B's card painted without its buttons. */
  readonly clearedBMs: number;
  /**
   * B's view's own work meanwhile (its User Timing measures, webview/timing.ts: host messages
   * handled, renders and scheduled layout passes begun from the click until the card was painted): their sum, and the longest
   * render (ms).
   */
  readonly viewWorkBMs?: number;
  readonly longestRenderBMs?: number;
  /** Of `viewWorkBMs`, the host messages handled (checked and folded), and how many renders. */
  readonly messagesBMs?: number;
  readonly rendersB?: number;
}

/**
 * `nac:message`, `nac:render` and `nac:layout` measures of a chat frame that began from `since` (its
 * performance.now(), ms) up to `untilWall` (the browser's wall clock, ms: when the card was painted):
 * the work that led to the card's change, not the command's output that follows it.
 */
function viewMeasuresBetween([since, untilWall]: readonly [number, number]): { message: number[]; render: number[]; layout: number[] } {
  const until = untilWall - performance.timeOrigin;
  const of = (name: string) => performance.getEntriesByName(name, 'measure').filter((e) => e.startTime >= since && e.startTime <= until).map((e) => e.duration);
  return { message: of('nac:message'), render: of('nac:render'), layout: of('nac:layout') };
}

/**
 * In window A clicks Allow once on the pending card `requestId` (shown in both A and B) with the
 * mouse, and times A's acknowledgement and B's card clearing from inside both views.
 * @throws Error when either card has not left the actionable state within `timeoutMs`.
 */
export async function decideTimed(a: Page, b: Page, requestId: string, timeoutMs: number): Promise<DecisionTimes> {
  const [fa, fb] = [await chatContentFrame(a, timeoutMs), await chatContentFrame(b, timeoutMs)];
  const watch = (id: string) => (window as unknown as { __nacWatchCard(id: string): void }).__nacWatchCard(id);
  await fa.evaluate(watch, requestId);
  await fb.evaluate(watch, requestId);
  const sinceB = await fb.evaluate(() => performance.now());
  await chatFrame(a).locator(`.boundary-card[data-request-id="${requestId}"] [data-decision="allow_once"]`).click({ timeout: timeoutMs });
  const read = () => (window as unknown as { __nacCardTimes: CardTimes }).__nacCardTimes;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [ta, tb] = [await fa.evaluate(read), await fb.evaluate(read)];
    if (ta.clickAt !== undefined && (ta.disabledAt ?? 0) > 0 && (ta.decidedAt ?? 0) > 0 && (tb.decidedAt ?? 0) > 0) {
      const work = await fb.evaluate(viewMeasuresBetween, [sinceB, tb.decidedAt!] as const);
      const sum = (xs: number[]) => xs.reduce((a, x) => a + x, 0);
      return {
        disabledMs: ta.disabledAt! - ta.clickAt, decidedAMs: ta.decidedAt! - ta.clickAt, clearedBMs: tb.decidedAt! - ta.clickAt,
        ...(work.render.length > 0 ? {
          viewWorkBMs: sum(work.message) + sum(work.render) + sum(work.layout), longestRenderBMs: Math.max(...work.render), messagesBMs: sum(work.message), rendersB: work.render.length,
        } : {}),
      };
    }
    if (Date.now() > deadline) throw new Error(`card ${requestId}: A ${JSON.stringify(ta)}, B ${JSON.stringify(tb)} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resident set size of process `pid` (bytes), from /proc (Linux). */
export function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb[1]) * 1024;
}
