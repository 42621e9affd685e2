/**
 * The Agent Chats view in the side bar, as the journeys use it: opening it from the activity bar
 * and finding a chat's row.
 */
import type { Locator, Page } from 'playwright-core';
import { AGENT_CHATS_ICON } from '../harness/codeServer';
import { visible } from './steps';
import { TIMEOUTS } from './restartJourney';

/** The Agent Chats view's rows in the side bar. */
export function viewRows(page: Page): Locator {
  return page.locator('.part.sidebar .monaco-list-row');
}

/** The view's row of the chat titled `title` (its label, not its description). */
export function chatRow(page: Page, title: string): Locator {
  return viewRows(page).filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(title)}$`) }) });
}

/** `text` as a regular expression matching itself. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Opens the Agent Chats view from the activity bar, as a user would: clicks the icon when its side
 * bar is not showing, and again when the click did not show it. A click on an already open container
 * would close it, so the icon's `checked` state decides; but a window still restoring its layout can
 * show the icon checked without the side bar (seen in a second window under load), and then only a
 * click that closes it and one that opens it bring the side bar back.
 * @throws Error when the side bar is not showing within TIMEOUTS.ui.
 */
export async function openView(page: Page): Promise<void> {
  const item = page.locator(AGENT_CHATS_ICON).first();
  await visible(item, 'the Agent Chats icon in the activity bar', TIMEOUTS.ui);
  const sideBar = page.locator('.part.sidebar .title-label', { hasText: /agent chats/i }).first();
  const deadline = Date.now() + TIMEOUTS.ui;
  for (;;) {
    if (!(await item.evaluate((el) => el.classList.contains('checked')))) await item.click();
    try {
      await sideBar.waitFor({ state: 'visible', timeout: Math.min(5_000, Math.max(1, deadline - Date.now())) });
      return;
    } catch {
      if (Date.now() >= deadline) break;
      if (await item.evaluate((el) => el.classList.contains('checked'))) await item.click(); // closes it; the next turn opens it
    }
  }
  await visible(sideBar, 'the Agent Chats side bar', 1);
}
