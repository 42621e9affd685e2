/**
 * The long-chat journey, as a user in a real workbench (code-server + Chromium), with a chat of
 * LONG_TURNS turns seeded into the journal before the server starts (bench/longChatSeed.ts): Open
 * Chat… shows its last turn at the bottom of the view, with a bounded number of turns in the page;
 * the mouse wheel scrolls it up to its first prompt, where **Latest ↓** is offered (screenshots in
 * four themes) and takes the view back to the last turn; a second window (another browser profile)
 * shows the chat too, and a card decided in the first window clears in the second.
 */
import type { Page } from 'playwright-core';
import { FIRST_PROMPT, firstTurnId, lastTurnId, seedLongChats, seededChats } from '../../bench/longChatSeed';
import { pendingCardId, scrollToTopTimed, sendPrompt, turnSelector } from '../../bench/longChatSteps';
import { chatFrame, runCommand, waitForWorkbench } from '../harness/codeServer';
import type { HostCrashContext } from './hostCrashJourney';
import { TIMEOUTS } from './restartJourney';
import { stepper, visible } from './steps';
import { THEMES, pickTheme } from './themeSteps';

/** Turns of the seeded long chat, and of the short chat beside it. */
export const LONG_TURNS = 5000;
const SHORT_TURNS = 10;

/** Most turns the view may hold in its page at once however long the chat (virtualized). */
const MAX_TURNS_IN_DOM = 200;

/** Seeds the journal with the long and the short chat under `userDataDir` (before the server starts). */
export async function seedLongChatJournal(userDataDir: string): Promise<void> {
  await seedLongChats(userDataDir, LONG_TURNS, SHORT_TURNS);
}

/** Needs approval (`touch`, `&&`). */
const CARD_COMMAND = 'touch long-chat-card.txt && echo long-chat-card-done';

/** Fails unless the turn `turnId` stands inside the transcript's visible box. */
async function inView(page: Page, turnId: string, what: string): Promise<void> {
  const frame = chatFrame(page);
  const [turn, box] = [await frame.locator(turnSelector(turnId)).boundingBox(), await frame.locator('#transcript').boundingBox()];
  if (!turn || !box || turn.y + turn.height < box.y || turn.y > box.y + box.height) throw new Error(`${what} is not in the visible part of the transcript`);
}

/** Runs the journey. @throws Error naming the failed step. */
export async function longChatJourney(ctx: HostCrashContext): Promise<void> {
  const a = ctx.page;
  const step = stepper(ctx.log, ctx.shot);
  const { long } = seededChats(LONG_TURNS, SHORT_TURNS);
  const [last, first] = [lastTurnId(long), firstTurnId(long)];

  await step('workbench', async () => {
    await a.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(a, TIMEOUTS.workbench);
  });

  await step('opened-at-its-end', async () => {
    await openChatLastTurn(a, long.title);
    await inView(a, last, 'the last turn');
    const turns = await chatFrame(a).locator('.turn').count();
    if (turns > MAX_TURNS_IN_DOM) throw new Error(`the view holds ${turns} turns of ${LONG_TURNS} in its page (virtualized: at most ${MAX_TURNS_IN_DOM})`);
  });

  await step('scrolled-to-the-first-prompt', async () => {
    const scroll = await scrollToTopTimed(a, turnSelector(first), 8000, 100_000, TIMEOUTS.ui);
    if (!scroll.reachedTop) throw new Error(`the wheel did not reach the first turn in ${(scroll.wallMs / 1000).toFixed(0)} s (${scroll.wheelSteps} steps)`);
    await visible(chatFrame(a).locator(`${turnSelector(first)} .message.user`, { hasText: FIRST_PROMPT }), 'the first prompt', TIMEOUTS.ui);
    await inView(a, first, 'the first turn');
    ctx.log(`  the wheel reached the first turn in ${scroll.wheelSteps} steps, ${(scroll.wallMs / 1000).toFixed(1)} s`);
  });

  await step('jump-to-latest-offered', async () => {
    await visible(chatFrame(a).locator('.jump-latest'), 'the jump-to-latest button while the user reads the first prompt', TIMEOUTS.ui);
    // What the button looks like in each kind of theme (screenshots jump-latest-<tag>).
    for (const theme of THEMES) {
      await pickTheme(a, theme, TIMEOUTS.ui);
      await a.waitForTimeout(300);
      await ctx.shot(`jump-latest-${theme.tag}`);
    }
    await pickTheme(a, THEMES[0], TIMEOUTS.ui);
  });

  await step('jumped-to-latest', async () => {
    await chatFrame(a).locator('.jump-latest').click();
    await chatFrame(a).locator('.jump-latest').waitFor({ state: 'hidden', timeout: TIMEOUTS.ui });
    await inView(a, last, 'the last turn after Latest ↓');
  });

  const b = await ctx.newBrowserPage();
  // Steps whose screenshot is window B's.
  const stepB = stepper(ctx.log, (name) => ctx.shotOf(b, name));
  await stepB('window-b-shows-it', async () => {
    await b.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(b, TIMEOUTS.workbench);
    await openChatLastTurn(b, long.title);
  });

  let requestId = '';
  await step('card-in-both-windows', async () => {
    await a.bringToFront();
    await sendPrompt(a, `run ${CARD_COMMAND}`, TIMEOUTS.ui);
    requestId = await pendingCardId(a, CARD_COMMAND, TIMEOUTS.command);
    await visible(chatFrame(a).locator(`.boundary-card[data-request-id="${requestId}"]`), 'the new card at the bottom of window A', TIMEOUTS.ui);
    const inB = await pendingCardId(b, CARD_COMMAND, TIMEOUTS.webview);
    if (inB !== requestId) throw new Error(`the windows show different requests: ${requestId} / ${inB}`);
    await ctx.shotOf(b, 'card-in-window-b');
  });

  await stepB('decided-in-a-cleared-in-b', async () => {
    await chatFrame(a).locator(`.boundary-card[data-request-id="${requestId}"] [data-decision="allow_once"]`).click({ timeout: TIMEOUTS.ui });
    const cardB = chatFrame(b).locator(`.boundary-card[data-request-id="${requestId}"]`);
    await visible(chatFrame(b).locator(`.boundary-card[data-request-id="${requestId}"]:not([data-state="actionable"])`), 'the card without its buttons in window B', TIMEOUTS.ui);
    if (await cardB.locator('[data-decision]').count()) throw new Error('window B still offers decision buttons');
    await visible(chatFrame(b).locator('pre.output', { hasText: 'long-chat-card-done' }).first(), 'the command\'s output in window B', TIMEOUTS.command);
  });
}

/** Opens the long chat (titled `title`) from Open Chat… as a user and waits for its last turn. */
async function openChatLastTurn(page: Page, title: string): Promise<void> {
  const input = page.locator('.quick-input-widget input.input[placeholder="Open a chat"]');
  await runCommand(page, 'Agent Chats: Open Chat…', TIMEOUTS.ui);
  if (!(await input.waitFor({ state: 'visible', timeout: 15_000 }).then(() => true, () => false))) await runCommand(page, 'Agent Chats: Open Chat…', TIMEOUTS.ui);
  await visible(input, 'the chat picker', TIMEOUTS.ui);
  await input.fill(title);
  await visible(page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first(), `${title} in the picker`, TIMEOUTS.ui);
  await input.press('Enter');
  await visible(chatFrame(page).locator(turnSelector(lastTurnId(seededChats(LONG_TURNS, SHORT_TURNS).long))), 'the chat\'s last turn', TIMEOUTS.webview);
}
