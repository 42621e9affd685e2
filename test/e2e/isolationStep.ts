/**
 * A chat item that cannot be rendered, in the real webview: the page's `Element.prototype.setAttribute`
 * is made to throw for boundary cards, then the agent is asked for a command that needs approval.
 * The card's place says "This item could not be shown", Stop ends the run and Send comes back, and
 * the error is in the extension's log (Agent Chats: Show Logs). Before, nothing appeared, the
 * invocation stayed "Running" and the view kept Stop after the host had ended the turn.
 */
import type { Page } from 'playwright-core';
import { chatFrame, runCommand } from '../harness/codeServer';
import { visible } from './steps';

/** The command asked for: not read-only, so a boundary card is drawn (and fails). */
export const BROKEN_CARD_COMMAND = 'touch broken-card.txt && echo never';

/**
 * Runs the step. @throws Error naming what was not seen.
 * @param timeoutMs per wait.
 */
export async function brokenCardStep(page: Page, timeoutMs: number): Promise<void> {
  const frame = chatFrame(page);
  await frame.locator('body').evaluate(() => {
    const original = Element.prototype.setAttribute;
    Element.prototype.setAttribute = function (this: Element, name: string, value: string) {
      if (name === 'class' && String(value).startsWith('boundary-card')) throw new Error('e2e: this card cannot be drawn');
      return original.call(this, name, value);
    };
  });
  const input = frame.locator('#composer textarea');
  await input.click();
  await input.fill(`run ${BROKEN_CARD_COMMAND}`);
  await frame.locator('#send').click();
  const invocation = frame.locator('.invocation', { has: frame.locator('.summary', { hasText: BROKEN_CARD_COMMAND }) }).last();
  await visible(invocation.locator('.render-failed', { hasText: 'This item could not be shown.' }), 'a stand-in box where the card could not be drawn', timeoutMs);
  await visible(invocation.locator('.render-failed details'), 'its Details toggle', timeoutMs);
  await (await visible(frame.locator('#stop'), 'the Stop button', timeoutMs)).click();
  await visible(frame.locator('#send'), 'Send, back after Stop', timeoutMs);
  await visible(invocation.locator('.status-badge', { hasText: 'Stopped' }), 'the invocation marked Stopped', timeoutMs);
  await runCommand(page, 'Agent Chats: Show Logs', timeoutMs);
  await visible(page.locator('.part.panel .view-lines', { hasText: 'e2e: this card cannot be drawn' }).first(), 'the view\'s error in the Agent Chats log', timeoutMs);
  await runCommand(page, 'View: Hide Panel', timeoutMs);
}
