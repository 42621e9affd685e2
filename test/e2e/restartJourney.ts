/**
 * The restart journey, as a user in a real workbench (code-server + Chromium):
 * new chat → ask for a command that needs approval → boundary card → Reload Window → the same chat
 * tab comes back with its transcript and a restart banner naming the command → Retry → a new
 * pending boundary card → Allow once → the command's output appears (and its file exists) → read a
 * file → Delete Chat… from the palette: the modal names the chat, and Enter keeps it → a card that
 * cannot be drawn (isolationStep.ts) → the chat in the four built-in theme kinds, its code and
 * headers readable in each.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { cardsAbout, stepper, visible } from './steps';
import { jumpLatestClearStep } from './jumpLatestStep';
import { brokenCardStep } from './isolationStep';
import { deleteEnterKeepsStep } from './deleteDialogStep';
import { checkThemes } from './themeSteps';
import { chatFrame, newChatFromPalette, reloadWindow, waitForWorkbench } from '../harness/codeServer';

/** What a journey needs from its runner. */
export interface JourneyContext {
  page: Page;
  /** The opened workspace folder (absolute). */
  workspace: string;
  /** The workbench URL to open (`http://127.0.0.1:PORT/?folder=...`). */
  url: string;
  /** Saves a screenshot `NN-<name>.png` in the artifacts folder. */
  shot(name: string): Promise<void>;
  /** Prints a progress line. */
  log(message: string): void;
}

/** The command the agent is asked to run: not read-only (`&&`, `touch`), so it needs approval. */
export const JOURNEY_COMMAND = 'touch e2e-proof.txt && echo made-it';
const PROOF_FILE = 'e2e-proof.txt';

/** Per-step timeouts (ms): generous for 2 cores (webview cold start 8-11 s, reload 5-8 s). */
export const TIMEOUTS = { workbench: 90_000, webview: 60_000, ui: 30_000, command: 60_000 } as const;


/** The label of the active editor tab, e.g. the chat's title. */
async function activeTabTitle(page: Page): Promise<string> {
  const label = page.locator('.part.editor .tabs-container .tab.active .label-name').first();
  await visible(label, 'the active editor tab', TIMEOUTS.ui);
  return (await label.innerText()).trim();
}

/**
 * Runs the journey; each step logs, waits with a timeout and screenshots.
 * @throws Error naming the failed step and what was not seen.
 */
export async function restartJourney(ctx: JourneyContext): Promise<void> {
  const { page } = ctx;
  const step = stepper(ctx.log, ctx.shot);

  await step('workbench', async () => {
    await page.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(page, TIMEOUTS.workbench);
  });

  let title = '';
  await step('new-chat', async () => {
    await newChatFromPalette(page, 'Local agent', TIMEOUTS.ui);
    await visible(chatFrame(page).locator('#composer'), 'the composer #composer in the chat webview', TIMEOUTS.webview);
    // What a screen reader announces for the composer (the toolkit named it "Text area").
    const name = await chatFrame(page).locator('#composer textarea').getAttribute('aria-label', { timeout: TIMEOUTS.ui });
    if (name !== 'Message to the agent') throw new Error(`the composer's accessible name is ${JSON.stringify(name)}, expected "Message to the agent"`);
  });

  await step('message-sent', async () => {
    const frame = chatFrame(page);
    const input = frame.locator('#composer textarea');
    await visible(input, '#composer textarea', TIMEOUTS.ui);
    // Replace a draft the way a quick typist does: Ctrl+A, Backspace, type at once. VS Code's own
    // Select All came back from the workbench after the first keys and ate them (6 of 8 tries lost
    // the first character at 30 ms a key), until the composer kept Ctrl+A to itself.
    await input.click();
    await page.keyboard.type('a draft to replace', { delay: 10 });
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Backspace');
    await page.keyboard.type(`run ${JOURNEY_COMMAND}`, { delay: 20 });
    await page.waitForTimeout(300);
    const typed = await input.inputValue();
    if (typed !== `run ${JOURNEY_COMMAND}`) throw new Error(`the composer holds ${JSON.stringify(typed)} after Ctrl+A, Backspace and typing: keys were lost`);
    await (await visible(frame.locator('#send'), 'the send button #send', TIMEOUTS.ui)).click();
    await visible(frame.locator('.message.user', { hasText: JOURNEY_COMMAND }).first(), 'the user message in the transcript', TIMEOUTS.ui);
  });

  let firstRequest = '';
  await step('boundary-card', async () => {
    const card = cardsAbout(chatFrame(page), JOURNEY_COMMAND).last();
    await visible(card, `a .boundary-card naming "${JOURNEY_COMMAND}"`, TIMEOUTS.ui);
    await visible(card.locator('[data-decision="allow_once"]'), 'the card\'s allow_once button', TIMEOUTS.ui);
    firstRequest = (await card.getAttribute('data-request-id')) ?? '';
    if (fs.existsSync(path.join(ctx.workspace, PROOF_FILE))) throw new Error(`${PROOF_FILE} exists before approval: the boundary did not hold`);
    // The chat may rename its tab after the first prompt: take the title the user sees now.
    title = await activeTabTitle(page);
    if (!title) throw new Error('the chat tab has an empty title');
    ctx.log(`  chat tab "${title}"`);
  });

  // The message box's placeholder says Shift+Tab reaches the waiting card: it does, to its Deny first.
  await step('shift-tab-to-card', async () => {
    const frame = chatFrame(page);
    await frame.locator('#composer textarea').focus();
    await page.keyboard.press('Shift+Tab');
    const focused = await frame.locator('body').evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return el ? `${el.dataset.decision ?? el.tagName} ${el.dataset.requestId ?? ''}` : 'none';
    });
    if (focused !== `deny ${firstRequest}`) throw new Error(`Shift+Tab from the message box focused "${focused}", expected the waiting card's Deny (deny ${firstRequest})`);
    await ctx.shot('deny-focused');
    await frame.locator('#composer textarea').focus();
  });

  // Latest ↓ stands clear of the pending card's badge (screenshots in the dark and light theme).
  await step('jump-latest-clear', () => jumpLatestClearStep(page, ctx.shot, TIMEOUTS.ui));

  await step('reloaded', async () => {
    await reloadWindow(page, TIMEOUTS.ui, TIMEOUTS.workbench);
  });

  await step('restored', async () => {
    await visible(page.locator('.part.editor .tabs-container .tab .label-name', { hasText: title }).first(), `the chat tab "${title}" after the reload`, TIMEOUTS.webview);
    const frame = chatFrame(page);
    await visible(frame.locator('.message.user', { hasText: JOURNEY_COMMAND }).first(), 'the user message, restored', TIMEOUTS.webview);
    await visible(frame.locator('.restart-banner', { hasText: JOURNEY_COMMAND }).first(), `a .restart-banner naming "${JOURNEY_COMMAND}"`, TIMEOUTS.webview);
    const now = await activeTabTitle(page);
    if (now !== title) throw new Error(`the active tab is "${now}", expected the restored chat "${title}"`);
  });

  await step('retried', async () => {
    const frame = chatFrame(page);
    const retry = frame.locator('.restart-banner [data-action="retry"]').first();
    await (await visible(retry, 'the banner\'s Retry button', TIMEOUTS.ui)).click();
    const fresh = cardsAbout(frame, JOURNEY_COMMAND, `:not([data-request-id="${firstRequest}"])`)
      .filter({ has: frame.locator('[data-decision="allow_once"]') })
      .last();
    await visible(fresh.locator('[data-decision="allow_once"]'), 'a new pending .boundary-card (other request id) with an allow_once button', TIMEOUTS.ui);
  });

  await step('approved-output', async () => {
    const frame = chatFrame(page);
    const fresh = cardsAbout(frame, JOURNEY_COMMAND, `:not([data-request-id="${firstRequest}"])`)
      .filter({ has: frame.locator('[data-decision="allow_once"]') })
      .last();
    await fresh.locator('[data-decision="allow_once"]').click({ timeout: TIMEOUTS.ui });
    await visible(frame.locator('pre.output', { hasText: 'made-it' }).first(), 'pre.output containing "made-it"', TIMEOUTS.command);
    const proof = path.join(ctx.workspace, PROOF_FILE);
    const deadline = Date.now() + 10_000;
    while (!fs.existsSync(proof)) {
      if (Date.now() > deadline) throw new Error(`${proof} was not created by the approved command`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  await step('read-file', async () => {
    const frame = chatFrame(page);
    const input = frame.locator('#composer textarea');
    await input.click();
    await input.fill('read src/greet.js');
    await frame.locator('#send').click();
    await visible(frame.locator('.invocation .summary', { hasText: 'src/greet.js' }).first(), 'the read header naming src/greet.js', TIMEOUTS.ui);
  });

  // Delete Chat… from the palette with the chat tab active: Enter keeps the chat.
  await step('delete-enter-keeps', () => deleteEnterKeepsStep(page, { title, command: JOURNEY_COMMAND, activeTabTitle: () => activeTabTitle(page), log: ctx.log, timeoutMs: TIMEOUTS.ui }));

  // A card that cannot be drawn leaves the rest of the chat working, and the log says why.
  await step('broken-card', () => brokenCardStep(page, TIMEOUTS.ui));

  // Inline code, run and read headers, a restart banner and boundary cards in each theme kind.
  await step('themes', () => checkThemes(page, ctx.shot, ctx.log, TIMEOUTS.ui));
}
