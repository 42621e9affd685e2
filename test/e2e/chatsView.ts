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
 * Opens the Agent Chats view from the activity bar (a click on an already open container would
 * close it). A window restoring a layout where the view was open opens it itself, a moment after
 * its icon shows: a click in between opens it first and the restore, or the click, closes it
 * again. So the icon is clicked only while the side bar does not show the view and the icon is not
 * checked, and looked at again, until {@link TIMEOUTS}.ui.
 * @throws Error when the side bar does not show the view within that time.
 */
export async function openView(page: Page): Promise<void> {
  const item = page.locator(AGENT_CHATS_ICON).first();
  await visible(item, 'the Agent Chats icon in the activity bar', TIMEOUTS.ui);
  const title = page.locator('.part.sidebar .title-label', { hasText: /agent chats/i }).first();
  for (const deadline = Date.now() + TIMEOUTS.ui; !(await title.isVisible());) {
    if (Date.now() > deadline) throw new Error(`not visible within ${TIMEOUTS.ui / 1000} s: the Agent Chats side bar`);
    if (!(await item.evaluate((el) => el.classList.contains('checked')))) await item.click();
    await title.waitFor({ state: 'visible', timeout: 3000 }).catch(() => undefined);
  }
}

