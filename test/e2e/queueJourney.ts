/**
 * The queue, as a user in a real workbench (issue 13): ask for `run sleep 5` (a card asks first);
 * while it waits, press Enter on two more messages: both show under the conversation as Queued;
 * Allow once; when the sleep ends they are sent, in order, each marked "Sent from the queue". Then
 * `run sleep 30`, allowed; two more queued while it runs; Reload Window before they go: both come
 * back "Not sent: the window reloaded or restarted" with Send and Discard, nothing sent on its own; Send one: it runs
 * once; Discard the other: the queue is gone. The held queue is shot in a light and a High Contrast theme.
 */
import type { FrameLocator } from 'playwright-core';
import { cardsAbout, stepper, visible } from './steps';
import { TIMEOUTS, type JourneyContext } from './restartJourney';
import { chatFrame, newChatFromPalette, reloadWindow, waitForWorkbench } from '../harness/codeServer';
import { THEMES, pickTheme } from './themeSteps';

/** Types `text` into the composer and presses Enter (the way a user queues while the agent works). */
async function enter(frame: FrameLocator, text: string): Promise<void> {
  const input = frame.locator('#composer textarea');
  await visible(input, '#composer textarea', TIMEOUTS.ui);
  await input.fill(text);
  await input.press('Enter');
  for (const deadline = Date.now() + TIMEOUTS.ui; (await input.inputValue()) !== '';) {
    if (Date.now() > deadline) throw new Error(`"${text}" stayed in the composer after Enter`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The queued messages shown: `state: text` each, in order. */
async function shownQueue(frame: FrameLocator): Promise<string[]> {
  // Read at once: an item read one locator at a time may be gone before its text is (Playwright then
  // waits out its whole timeout for it: a Discard looked 30 s slow).
  return frame.locator('.queue:not([hidden]) .queued-prompt').evaluateAll((items) => items.map((item) =>
    `${item.querySelector('.queued-state')?.textContent?.trim() ?? ''}: ${item.querySelector('.queued-text')?.textContent?.trim() ?? ''}`));
}

/** Waits until the queue shows exactly `expected`. @throws Error with what it showed. */
async function queueShows(frame: FrameLocator, expected: readonly string[], timeout: number): Promise<void> {
  let seen: string[] = [];
  for (const deadline = Date.now() + timeout; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
    seen = await shownQueue(frame).catch(() => []);
    if (JSON.stringify(seen) === JSON.stringify(expected)) return;
  }
  throw new Error(`the queue shows ${JSON.stringify(seen)}, expected ${JSON.stringify(expected)}`);
}

/** The prompts of the chat's turns as shown, in order. */
async function prompts(frame: FrameLocator): Promise<string[]> {
  return (await frame.locator('section.turn .message.user').allInnerTexts()).map((t) => t.trim());
}

/** Allows the card about `command` once. */
async function allow(frame: FrameLocator, command: string): Promise<void> {
  const card = cardsAbout(frame, command).last();
  await (await visible(card.locator('[data-decision="allow_once"]'), `the card's Allow once for "${command}"`, TIMEOUTS.ui)).click();
}

/**
 * Runs the journey; each step logs, waits with a timeout and screenshots.
 * @throws Error naming the failed step and what was not seen.
 */
export async function queueJourney(ctx: JourneyContext): Promise<void> {
  const { page } = ctx;
  const step = stepper(ctx.log, ctx.shot);
  const frame = (): FrameLocator => chatFrame(page);

  await step('workbench', async () => {
    await page.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(page, TIMEOUTS.workbench);
    await newChatFromPalette(page, 'Local agent', TIMEOUTS.ui);
    await visible(frame().locator('#composer'), 'the composer', TIMEOUTS.webview);
  });

  await step('queued-while-asking', async () => {
    await enter(frame(), 'run sleep 5');
    await visible(cardsAbout(frame(), 'sleep 5').last(), 'the card asking to run sleep 5', TIMEOUTS.ui);
    await enter(frame(), 'run echo first-queued');
    await enter(frame(), 'run echo second-queued');
    await queueShows(frame(), ['Queued: run echo first-queued', 'Queued: run echo second-queued'], TIMEOUTS.ui);
    const send = frame().locator('.queued-prompt').first().locator('[data-queue-action="send"]');
    const label = await send.getAttribute('aria-label');
    if (label !== 'Stop the reply and send now: run echo first-queued') throw new Error(`Send now is named ${JSON.stringify(label)}`);
  });

  await step('sent-in-order', async () => {
    await allow(frame(), 'sleep 5');
    await visible(frame().locator('pre.output', { hasText: 'second-queued' }).first(), 'the output of the second queued message', TIMEOUTS.command);
    await queueShows(frame(), [], TIMEOUTS.ui);
    const shown = await prompts(frame());
    if (JSON.stringify(shown) !== JSON.stringify(['run sleep 5', 'run echo first-queued', 'run echo second-queued'])) throw new Error(`the turns are ${JSON.stringify(shown)}`);
    const origins = await frame().locator('section.turn .turn-origin').allInnerTexts();
    if (JSON.stringify(origins) !== JSON.stringify(['Sent from the queue', 'Sent from the queue'])) throw new Error(`the turns' labels are ${JSON.stringify(origins)}`);
  });

  await step('queued-while-running', async () => {
    await frame().locator('#stop:not([disabled])').waitFor({ state: 'detached', timeout: TIMEOUTS.command }).catch(() => undefined);
    await enter(frame(), 'run sleep 30');
    await allow(frame(), 'sleep 30');
    await visible(frame().locator('.invocation .status-badge.status-running').last(), 'sleep 30 running', TIMEOUTS.ui);
    await enter(frame(), 'run echo third-queued');
    // The fourth with the mouse: the Queue button beside Stop.
    const input = frame().locator('#composer textarea');
    await input.fill('run echo fourth-queued');
    await (await visible(frame().locator('#queue-send'), 'the Queue button beside Stop', TIMEOUTS.ui)).click();
    await queueShows(frame(), ['Queued: run echo third-queued', 'Queued: run echo fourth-queued'], TIMEOUTS.ui);
  });

  await step('reloaded', async () => {
    await reloadWindow(page, TIMEOUTS.ui, TIMEOUTS.workbench);
    await queueShows(frame(), ['Not sent: the window reloaded or restarted: run echo third-queued', 'Not sent: the window reloaded or restarted: run echo fourth-queued'], TIMEOUTS.webview);
    const buttons = await frame().locator('.queued-prompt').first().locator('.queued-actions [data-queue-action]').allInnerTexts();
    if (JSON.stringify(buttons.map((b) => b.trim())) !== JSON.stringify(['Edit', 'Discard', 'Send'])) throw new Error(`a held message offers ${JSON.stringify(buttons)}`);
    // Nothing went out on its own.
    await page.waitForTimeout(3000);
    const shown = await prompts(frame());
    if (shown.includes('run echo third-queued') || shown.includes('run echo fourth-queued')) throw new Error(`a queued message was sent after the reload without a click: ${JSON.stringify(shown)}`);
  });

  // What the held queue looks like in a light and a High Contrast theme (screenshots to look at),
  // then back to the dark theme the journey runs in.
  await step('held-in-themes', async () => {
    for (const theme of [THEMES[1], THEMES[2], THEMES[0]]) {
      await pickTheme(page, theme, TIMEOUTS.ui);
      await frame().locator('.queued-prompt').first().scrollIntoViewIfNeeded();
      await ctx.shot(`queue-${theme.tag}`);
    }
  });

  await step('sent-once', async () => {
    const t = Date.now();
    await frame().locator('.queued-prompt').first().locator('[data-queue-action="send"]').click();
    await visible(frame().locator('.message.user', { hasText: 'run echo third-queued' }).first(), 'the message sent, in the conversation', TIMEOUTS.command);
    ctx.log(`  the message was in the conversation ${Date.now() - t} ms after Send`);
    await visible(frame().locator('pre.output', { hasText: 'third-queued' }).first(), 'the output of the message sent', TIMEOUTS.command);
    ctx.log(`  its output ${Date.now() - t} ms after Send`);
    await queueShows(frame(), ['Not sent: the window reloaded or restarted: run echo fourth-queued'], TIMEOUTS.ui);
    ctx.log(`  the queue without it ${Date.now() - t} ms after Send`);
    const shown = await prompts(frame());
    if (shown.filter((p) => p === 'run echo third-queued').length !== 1) throw new Error(`the message sent made ${shown.filter((p) => p === 'run echo third-queued').length} turns`);
    await frame().locator('.queued-prompt').first().locator('[data-queue-action="discard"]').click();
    await queueShows(frame(), [], TIMEOUTS.ui);
    ctx.log(`  the queue empty ${Date.now() - t} ms after Send`);
    if ((await prompts(frame())).includes('run echo fourth-queued')) throw new Error('the discarded message was sent');
  });
}
