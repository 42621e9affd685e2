/**
 * Two windows, one journal, as a user: window A asks the agent for a command that needs approval;
 * window B (another browser tab: its own extension host and journal worker) opens the same chat,
 * sees the same card with its buttons (the run's owner, window A, is alive), and allows it. The
 * prompt disappears from window A, whose agent runs the command, and both windows show its output.
 * Then window A runs a long command and Stop is pressed in window B: window A stops it, and both
 * windows say that Stop came from another window.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { cardsAbout, visible } from './steps';
import { chatFrame, newChatFromPalette, runCommand, waitForWorkbench } from '../harness/codeServer';
import { TIMEOUTS, type JourneyContext } from './restartJourney';
import { STOP_ELSEWHERE_NOTICE } from '../../src/runtime/chatRuntime';

/** Needs approval (`&&`, `touch`). */
export const TWO_WINDOWS_COMMAND = 'touch two-windows.txt && echo both-windows';


/** Context of this journey: a second page in the same browser context opens window B. */
export interface TwoWindowsContext extends JourneyContext {
  /** Opens another browser tab (another VS Code window). */
  newPage(): Promise<Page>;
  /** Saves a screenshot of `page` as `NN-<name>.png`. */
  shotOf(page: Page, name: string): Promise<void>;
}

/** Runs the journey. @throws Error naming the failed step. */
export async function twoWindowsJourney(ctx: TwoWindowsContext): Promise<void> {
  const a = ctx.page;
  const step = async (name: string, page: Page, fn: () => Promise<void>) => {
    const t = Date.now();
    try {
      await fn();
    } catch (e) {
      throw new Error(`step "${name}": ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    ctx.log(`✔ ${name} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
    await ctx.shotOf(page, name);
  };
  const cardFor = (page: Page, command: string) => cardsAbout(chatFrame(page), command).last();
  const card = (page: Page) => cardFor(page, TWO_WINDOWS_COMMAND);

  await step('window-a-prompt', a, async () => {
    await a.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(a, TIMEOUTS.workbench);
    await newChatFromPalette(a, 'Local agent', TIMEOUTS.ui);
    const input = chatFrame(a).locator('#composer textarea');
    await visible(input, '#composer textarea in window A', TIMEOUTS.webview);
    await input.fill(`run ${TWO_WINDOWS_COMMAND}`);
    await chatFrame(a).locator('#send').click({ timeout: TIMEOUTS.ui });
    await visible(card(a).locator('[data-decision="allow_once"]'), 'the pending card with buttons in window A', TIMEOUTS.ui);
  });

  const b = await ctx.newPage();
  await step('window-b-same-card', b, async () => {
    await b.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(b, TIMEOUTS.workbench);
    // Wait for the chat picker itself (not the palette still closing); the command runs once the
    // extension activated in this window, so give it one more try if the picker does not show.
    const input = b.locator('.quick-input-widget input.input[placeholder="Open a chat"]');
    await runCommand(b, 'Agent Chats: Open Chat…', TIMEOUTS.ui);
    if (!(await input.waitFor({ state: 'visible', timeout: 15_000 }).then(() => true, () => false))) {
      await runCommand(b, 'Agent Chats: Open Chat…', TIMEOUTS.ui);
    }
    await visible(input, 'the chat picker', TIMEOUTS.ui);
    await input.fill(TWO_WINDOWS_COMMAND);
    await visible(b.locator('.quick-input-list .monaco-list-row', { hasText: TWO_WINDOWS_COMMAND }).first(), 'the chat in the picker', TIMEOUTS.ui);
    await input.press('Enter');
    await visible(card(b).locator('[data-decision="allow_once"]'), 'the same pending card, with buttons, in window B', TIMEOUTS.webview);
    const idA = await card(a).getAttribute('data-request-id');
    const idB = await card(b).getAttribute('data-request-id');
    if (!idA || idA !== idB) throw new Error(`windows show different requests: ${idA} / ${idB}`);
  });

  await step('decided-in-b', b, async () => {
    await card(b).locator('[data-decision="allow_once"]').click({ timeout: TIMEOUTS.ui });
    await visible(chatFrame(b).locator('pre.output', { hasText: 'both-windows' }).first(), 'the command output in window B', TIMEOUTS.command);
  });

  await step('prompt-gone-in-a', a, async () => {
    await a.bringToFront();
    await visible(chatFrame(a).locator('pre.output', { hasText: 'both-windows' }).first(), 'the command output in window A', TIMEOUTS.command);
    const buttons = await card(a).locator('[data-decision]').count();
    if (buttons !== 0) throw new Error(`window A still shows ${buttons} decision button(s) for a decided request`);
    const proof = path.join(ctx.workspace, 'two-windows.txt');
    if (!fs.existsSync(proof)) throw new Error(`${proof} was not created`);
  });

  // Stop pressed in the window that does not drive the reply reaches the one that does.
  await step('long-run-in-a', a, async () => {
    const input = chatFrame(a).locator('#composer textarea');
    await input.fill(`run ${LONG_COMMAND}`);
    await chatFrame(a).locator('#send').click({ timeout: TIMEOUTS.ui });
    await cardFor(a, LONG_COMMAND).locator('[data-decision="allow_once"]').click({ timeout: TIMEOUTS.command });
    await visible(chatFrame(a).locator('#stop:not([disabled])'), 'an enabled Stop in window A', TIMEOUTS.ui);
  });

  await step('stopped-from-b', b, async () => {
    await b.bringToFront();
    const stop = chatFrame(b).locator('#stop:not([disabled])');
    await visible(stop, 'an enabled Stop in window B (the reply runs in window A)', TIMEOUTS.webview);
    await stop.click({ timeout: TIMEOUTS.ui });
    await visible(chatFrame(b).locator('.notice', { hasText: STOP_ELSEWHERE_NOTICE }), 'the Stop notice in window B', TIMEOUTS.ui);
    await chatFrame(b).locator('#stop:not([disabled])').waitFor({ state: 'detached', timeout: TIMEOUTS.ui }).catch(async () => {
      if (await chatFrame(b).locator('#stop:not([disabled])').isVisible()) throw new Error('window B still offers Stop after the run was stopped');
    });
  });

  await step('stopped-in-a', a, async () => {
    await a.bringToFront();
    await visible(chatFrame(a).locator('.notice', { hasText: STOP_ELSEWHERE_NOTICE }), 'the Stop notice in window A', TIMEOUTS.ui);
    // The notice (an event of the run) and the end of the run (the view's live state) are two
    // messages: the Stop button may still stand for the moment between them.
    await chatFrame(a).locator('#stop:not([disabled])').waitFor({ state: 'detached', timeout: TIMEOUTS.ui }).catch(async () => {
      if (await chatFrame(a).locator('#stop:not([disabled])').isVisible()) throw new Error('window A still runs the reply');
    });
    if (await chatFrame(a).locator('pre.output', { hasText: 'never-printed' }).count()) throw new Error('the stopped command ran to its end');
  });
}

/** Needs approval (`&&`) and runs long enough to be stopped from the other window. */
const LONG_COMMAND = 'sleep 30 && echo never-printed';
