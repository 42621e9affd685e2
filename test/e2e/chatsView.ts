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
 * Opens the Agent Chats view from the activity bar: clicks its icon while the side bar does not
 * show the view, each time waiting up to 10 s for it, until {@link TIMEOUTS}.ui. Not once on "the
 * icon is not checked": a second window restoring the first one's layout showed the icon checked
 * with the side bar hidden (so no click came). Not every 3 s either: a click on an open container
 * closes it, and with a look every 3 s the loaded second window still ended with the side bar
 * hidden (probably a click that showed it too slowly, then the next one that closed it).
 * @throws Error when the side bar does not show the view within that time.
 */
export async function openView(page: Page): Promise<void> {
  const item = page.locator(AGENT_CHATS_ICON).first();
  await visible(item, 'the Agent Chats icon in the activity bar', TIMEOUTS.ui);
  const title = page.locator('.part.sidebar .title-label', { hasText: /agent chats/i }).first();
  for (const deadline = Date.now() + TIMEOUTS.ui; !(await title.isVisible());) {
    if (Date.now() > deadline) throw new Error(`not visible within ${TIMEOUTS.ui / 1000} s: the Agent Chats side bar`);
    await item.click();
    await title.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => undefined);
  }
}

