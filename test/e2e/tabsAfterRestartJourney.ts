/**
 * Chat tabs after a restart of code-server, as a user of `npm start` sees them: two chats are open
 * at a Reload Window, four more are opened afterwards and one of them is closed by hand; then
 * code-server stops and starts again (same port, same user data) and the window is opened in a
 * browser whose saved layout lacks the chat tabs: a new browser profile (a user of `npm start`
 * got back only the tabs of the last Reload Window; a new profile has none, the same gap made
 * deterministic). The journal's tab records hold the five still open: all five come back, the one
 * closed by hand does not.
 */
import type { Page } from 'playwright-core';
import { stepper, visible } from './steps';
import { chatFrame, newChatFromPalette, reloadWindow, waitForWorkbench } from '../harness/codeServer';
import { TIMEOUTS } from './restartJourney';
import type { HostCrashContext } from './hostCrashJourney';

const prompt = (n: number) => `run echo tab-${n}`;

/** Labels of the editor tabs, in order. */
export async function tabLabels(page: Page): Promise<string[]> {
  return (await page.locator('.part.editor .tabs-container .tab .label-name').allInnerTexts()).map((l) => l.trim());
}

/**
 * "Agent Chats: New Chat" with the local agent, asked again when the agent picker closed as it
 * opened (seen on a loaded machine with another chat's view focused: nothing was created then).
 * @throws Error after three tries.
 */
export async function newLocalChat(page: Page): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await newChatFromPalette(page, 'Local agent', 15_000);
      return;
    } catch (e) {
      if (attempt === 3) throw e;
      await page.keyboard.press('Escape');
    }
  }
}

/**
 * New chat from the palette, `text` sent, waits for the command output holding `output` and for the
 * tab's title to become the prompt.
 */
export async function newChatWith(page: Page, text: string, output: string): Promise<void> {
  await newLocalChat(page);
  const frame = chatFrame(page);
  const input = frame.locator('#composer textarea');
  await visible(input, '#composer textarea', TIMEOUTS.webview);
  // Send is disabled until the view has the chat (a click before that is ignored).
  await visible(chatFrame(page).locator('.welcome'), 'the new chat\'s welcome', TIMEOUTS.webview);
  await input.fill(text);
  await frame.locator('#send').click({ timeout: TIMEOUTS.ui });
  await visible(frame.locator('pre.output', { hasText: output }).first(), `the output of "${text}"`, TIMEOUTS.command);
  await visible(page.locator('.part.editor .tabs-container .tab.active .label-name', { hasText: text }), `the tab titled "${text}"`, TIMEOUTS.ui);
}

/** New chat with prompt `n` (see `newChatWith`). */
function chatWith(page: Page, n: number): Promise<void> {
  return newChatWith(page, prompt(n), `tab-${n}`);
}

/** Runs the journey. @throws Error naming the failed step. */
export async function tabsAfterRestartJourney(ctx: HostCrashContext): Promise<void> {
  const first = ctx.page;
  const step = stepper(ctx.log, ctx.shot);
  // The browser tab in use (a new one after the crash), and steps that screenshot it.
  let page = first;
  const stepOn = (name: string, fn: () => Promise<void>) => stepper(ctx.log, (n) => ctx.shotOf(page, n))(name, fn);

  await step('workbench', async () => {
    await first.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(first, TIMEOUTS.workbench);
  });

  await step('two-chats-reloaded', async () => {
    for (const n of [1, 2]) await chatWith(page, n);
    await reloadWindow(page, TIMEOUTS.ui, TIMEOUTS.workbench);
    await visible(chatFrame(page).locator('pre.output', { hasText: 'tab-2' }).first(), 'chat 2 restored by the reload', TIMEOUTS.webview);
  });

  await step('four-more-one-closed', async () => {
    for (const n of [3, 4, 5, 6]) await chatWith(page, n);
    // Closed by hand: the tab's own close button.
    await page.locator('.part.editor .tabs-container .tab.active .tab-actions .action-label').first().click({ timeout: TIMEOUTS.ui });
    await page.locator('.part.editor .tabs-container .tab .label-name', { hasText: prompt(6) }).waitFor({ state: 'detached', timeout: TIMEOUTS.ui });
    const labels = await tabLabels(page);
    if (labels.length !== 5) throw new Error(`expected five chat tabs before the restart, found ${JSON.stringify(labels)}`);
  });

  await stepOn('server-restarted', async () => {
    await first.close();
    const pid = await ctx.restartServer();
    ctx.log(`  code-server restarted (pid ${pid})`);
    page = await ctx.newBrowserPage();
    await page.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(page, TIMEOUTS.workbench);
  });

  await stepOn('five-tabs-back', async () => {
    const wanted = [1, 2, 3, 4, 5].map(prompt);
    const deadline = Date.now() + TIMEOUTS.webview;
    let labels: string[] = [];
    for (;;) {
      labels = await tabLabels(page);
      if (wanted.every((w) => labels.includes(w))) break;
      if (Date.now() > deadline) throw new Error(`after the restart the tabs are ${JSON.stringify(labels)}, expected all of ${JSON.stringify(wanted)}`);
      await page.waitForTimeout(500);
    }
    if (labels.includes(prompt(6))) throw new Error(`the chat closed by hand came back: ${JSON.stringify(labels)}`);
    if (labels.length !== 5) throw new Error(`expected five tabs, found ${JSON.stringify(labels)}`);
    ctx.log(`  tabs ${JSON.stringify(labels)}`);
  });

  await stepOn('reopened-tab-shows-its-chat', async () => {
    for (const n of [3, 1]) {
      await page.locator('.part.editor .tabs-container .tab .label-name', { hasText: prompt(n) }).first().click();
      await visible(chatFrame(page).locator('pre.output', { hasText: `tab-${n}` }).first(), `chat ${n} in its reopened tab`, TIMEOUTS.webview);
    }
  });
}
