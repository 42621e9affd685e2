/**
 * Attachments, as a user in a real workbench (issue 15): type `@gree` in the chat, pick
 * `greeting.js` from the list with the keyboard, send `help`: the local agent's reply lists the file
 * it received and the turn shows it under the prompt; select two lines of `src/greet.js` in an
 * editor and run Agent Chats: Add Selection to Chat: the chat shows the chip `src/greet.js:1-2`;
 * drag `package.json` from the Explorer onto the chat with Shift held: the chip `package.json`.
 * Chips and the sent turn are shot in a light, a High Contrast and a dark theme.
 */
import type { FrameLocator, Page } from 'playwright-core';
import { stepper, visible } from './steps';
import { TIMEOUTS, type JourneyContext } from './restartJourney';
import { chatFrame, newChatFromPalette, runCommand, waitForWorkbench } from '../harness/codeServer';
import { THEMES, pickTheme } from './themeSteps';

/** The chips above the composer, as their labels. */
async function chips(frame: FrameLocator): Promise<string[]> {
  return frame.locator('.chips .chip .chip-label').allInnerTexts();
}

/** Waits until the chips are `expected`. @throws Error with what they were. */
async function chipsShow(frame: FrameLocator, expected: readonly string[], timeout: number): Promise<void> {
  let seen: string[] = [];
  for (const deadline = Date.now() + timeout; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
    seen = await chips(frame).catch(() => []);
    if (JSON.stringify(seen) === JSON.stringify(expected)) return;
  }
  throw new Error(`the chips are ${JSON.stringify(seen)}, expected ${JSON.stringify(expected)}`);
}

/** Opens `file` of the workspace with Quick Open. */
async function openFile(page: Page, file: string): Promise<void> {
  await runCommand(page, 'Go to File...', TIMEOUTS.ui);
  const input = page.locator('.quick-input-widget input.input');
  await input.fill(file);
  await visible(page.locator('.quick-input-list .monaco-list-row', { hasText: file.split('/').pop()! }).first(), `${file} in Quick Open`, TIMEOUTS.ui);
  await input.press('Enter');
  await visible(page.locator('.part.editor .tab.active', { hasText: file.split('/').pop()! }), `the editor of ${file}`, TIMEOUTS.ui);
}

/**
 * Runs the journey; each step logs, waits with a timeout and screenshots.
 * @throws Error naming the failed step and what was not seen.
 */
export async function attachmentJourney(ctx: JourneyContext): Promise<void> {
  const { page } = ctx;
  const step = stepper(ctx.log, ctx.shot);
  const frame = (): FrameLocator => chatFrame(page);
  const input = () => frame().locator('#composer textarea');

  await step('workbench', async () => {
    await page.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(page, TIMEOUTS.workbench);
    await newChatFromPalette(page, 'Local agent', TIMEOUTS.ui);
    await visible(frame().locator('#composer'), 'the composer', TIMEOUTS.webview);
  });

  await step('at-list', async () => {
    await visible(input(), '#composer textarea', TIMEOUTS.ui);
    await input().click();
    await input().pressSequentially('help @gree', { delay: 40 });
    const option = frame().locator('#mention-list [role=option]', { hasText: 'greeting.js' }).first();
    await visible(option, 'greeting.js in the @ list', TIMEOUTS.ui);
    // Down to it with the keyboard, then Enter attaches it.
    for (let i = 0; i < 10 && (await option.getAttribute('aria-selected')) !== 'true'; i++) await input().press('ArrowDown');
    await input().press('Enter');
    await chipsShow(frame(), ['src/greeting.js'], TIMEOUTS.ui);
    const text = await input().inputValue();
    if (text !== 'help ') throw new Error(`the composer holds ${JSON.stringify(text)} after the pick`);
  });

  await step('sent-and-listed', async () => {
    await input().press('Enter');
    await visible(frame().locator('section.turn .turn-attachment', { hasText: 'src/greeting.js' }).first(), 'the attachment under the prompt', TIMEOUTS.command);
    await visible(frame().locator('section.turn', { hasText: 'I received 1 attachment' }).first(), "the local agent's list of what it received", TIMEOUTS.command);
    // (The reply streams: the list's line comes after its heading.)
    await visible(frame().locator('section.turn li', { hasText: /^file src\/greeting\.js ?: \d+ lines?, \d+ bytes$/ }).first(), 'the file in the reply\'s list', TIMEOUTS.command);
    await chipsShow(frame(), [], TIMEOUTS.ui);
  });

  await step('add-selection', async () => {
    await openFile(page, 'src/greet.js');
    await page.locator('.part.editor .monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+ArrowDown');
    // The status bar says what is selected: two lines, ending at the start of the third.
    await visible(page.locator('.statusbar-item', { hasText: /\(\d+ selected\)|2 lines selected/ }).first(), 'the selection in the status bar', TIMEOUTS.ui);
    await runCommand(page, 'Agent Chats: Add Selection to Chat', TIMEOUTS.ui);
    await chipsShow(frame(), ['src/greet.js:1-2'], TIMEOUTS.webview);
  });

  await step('drag-from-explorer', async () => {
    await runCommand(page, 'View: Show Explorer', TIMEOUTS.ui);
    const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'package.json' }).first();
    await visible(row, 'package.json in the Explorer', TIMEOUTS.ui);
    const from = (await row.boundingBox())!;
    const to = (await page.locator('iframe.webview.ready:visible').first().boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    // VS Code drops into a webview only with Shift held; without it, it opens the file in that editor group.
    await page.keyboard.down('Shift');
    for (let i = 1; i <= 20; i++) await page.mouse.move(from.x + (to.x + to.width / 2 - from.x) * i / 20, from.y + (to.y + to.height / 2 - from.y) * i / 20);
    await ctx.shot('dragging');
    await page.mouse.up();
    await page.keyboard.up('Shift');
    await chipsShow(frame(), ['src/greet.js:1-2', 'package.json'], 10_000);
  });

  await step('in-themes', async () => {
    for (const theme of [THEMES[1], THEMES[2], THEMES[0]]) {
      await pickTheme(page, theme, TIMEOUTS.ui);
      await ctx.shot(`attachments-${theme.tag}`);
    }
  });
}
