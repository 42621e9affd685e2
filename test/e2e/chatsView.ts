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

/** Opens the Agent Chats view from the activity bar (a click on an already open container would close it). */
export async function openView(page: Page): Promise<void> {
  const item = page.locator(AGENT_CHATS_ICON).first();
  await visible(item, 'the Agent Chats icon in the activity bar', TIMEOUTS.ui);
  if (!(await item.evaluate((el) => el.classList.contains('checked')))) await item.click();
  await visible(page.locator('.part.sidebar .title-label', { hasText: /agent chats/i }).first(), 'the Agent Chats side bar', TIMEOUTS.ui);
}
