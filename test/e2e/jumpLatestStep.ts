/**
 * Where **Latest ↓** (webview/layout.ts, media/chat.css) stands over the transcript, in the real
 * webview, with a pending boundary card at the bottom of the chat: the transcript is made just as
 * short as puts the card's invocation status badge at the button's height, the rest of the card
 * below the edge. The button must stand clear of every status badge (at the right edge it
 * covered the badge, as a fresh user found), centered on the transcript; scrolled just past where the
 * view stops following the bottom, the last turn must end above it. Screenshots
 * `jump-latest-card-<theme>` in the dark and the light theme.
 */
import type { Page } from 'playwright-core';
import { chatFrame } from '../harness/codeServer';
import { visible } from './steps';
import { THEMES, pickTheme } from './themeSteps';

/** A box in the webview's CSS px. */
interface Box { x: number; y: number; width: number; height: number }

/** True when `a` and `b` share some area. */
function overlap(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/**
 * Runs the step on the active chat tab (a pending card at its bottom). @throws Error saying what the
 * button covers. `shot(name)` saves a screenshot; `timeoutMs` per wait.
 */
export async function jumpLatestClearStep(page: Page, shot: (name: string) => Promise<void>, timeoutMs: number): Promise<void> {
  const frame = chatFrame(page);
  const transcript = frame.locator('#transcript');
  const button = frame.locator('.jump-latest');
  try {
    // The view made as short as puts the pending invocation's badge at the height of the button's
    // middle (12 px above the edge, ~26 px high), scrolled to the top: the card goes on below the edge.
    await transcript.evaluate((t) => {
      const badge = [...t.querySelectorAll('.status-badge.status-awaiting_approval')].pop();
      if (!badge) throw new Error('no pending invocation badge in the chat');
      const r = badge.getBoundingClientRect();
      const middle = r.top + r.height / 2 - t.getBoundingClientRect().top + t.scrollTop;
      t.style.flex = `0 0 ${Math.round(middle + 25)}px`;
      t.scrollTop = 0;
      t.dispatchEvent(new Event('scroll'));
    });
    await visible(button, 'Latest ↓ while the pending card is at the bottom', timeoutMs);
    await page.waitForTimeout(200);
    const b = await button.boundingBox();
    const t = await transcript.boundingBox();
    if (!b || !t) throw new Error('Latest ↓ or the transcript has no box');
    const badges = await frame.locator('.status-badge').evaluateAll((els) => els.map((e) => {
      const r = e.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height, text: e.textContent ?? '' };
    }));
    // boundingBox is in page px, the badges' rects in the frame's: compare in the frame's.
    const inFrame = await button.evaluate((e) => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }; });
    const covered = badges.find((badge) => overlap(inFrame, badge));
    if (covered) throw new Error(`Latest ↓ covers the status badge "${covered.text}" (button ${JSON.stringify(inFrame)}, badge ${JSON.stringify(covered)})`);
    const offCenter = Math.abs(b.x + b.width / 2 - (t.x + t.width / 2));
    // The scrollbar (up to ~14 px) narrows the box the button centers in.
    if (offCenter > 10) throw new Error(`Latest ↓ is ${offCenter.toFixed(0)} px off the transcript's center`);
    for (const theme of THEMES.slice(0, 2)) {
      await pickTheme(page, theme, timeoutMs);
      await page.waitForTimeout(300);
      await shot(`jump-latest-card-${theme.tag}`);
    }
    await pickTheme(page, THEMES[0], timeoutMs);
    // Just past the 24 px within which the view follows the bottom (isNearBottom): the button shows, and the chat's end is above it.
    await transcript.evaluate((el) => { el.scrollTop = el.scrollHeight - el.clientHeight - 30; });
    await visible(button, 'Latest ↓ 30 px above the bottom', timeoutMs);
    const [lastTurnBottom, buttonTop] = await transcript.evaluate((el) => [
      [...el.querySelectorAll('.turn')].pop()?.getBoundingClientRect().bottom ?? 0,
      el.querySelector('.jump-latest')!.getBoundingClientRect().top,
    ]);
    if (lastTurnBottom > buttonTop) throw new Error(`30 px above the bottom, the last turn ends ${(lastTurnBottom - buttonTop).toFixed(0)} px under Latest ↓`);
  } finally {
    await transcript.evaluate((el) => { el.style.flex = ''; el.scrollTop = el.scrollHeight; });
  }
}
