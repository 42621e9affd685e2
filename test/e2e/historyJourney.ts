/**
 * The chat history as a user lives in it (issue 12): two chats with the local agent, one whose
 * `run ls` lists a file whose name appears nowhere else; the Agent Chats view (activity bar) shows
 * both under Today; its Search button finds that name in the command output and Enter opens the
 * chat scrolled to that turn with the name marked (the CSS Custom Highlight of webview/highlight.ts);
 * Export Chat as Markdown… from the item's context menu, through code-server's own save dialog,
 * writes a file holding the prompt and the output; a second window shows the view, and a chat
 * renamed in window A (the item's inline pencil, the input box) is renamed in window B's view.
 * Screenshots of the view and of the search in Dark Modern, Light Modern and both High Contrast themes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { chatFrame, newChatFromPalette, waitForWorkbench } from '../harness/codeServer';
import { stepper, visible } from './steps';
import { chatRow, openView, viewRows } from './chatsView';
import { TIMEOUTS } from './restartJourney';
import { DEFAULT_THEMES, measureMark, MIN_CONTRAST, MIN_MARK_CONTRAST, pickTheme, THEMES, type MarkContrast, type Theme } from './themeSteps';
import type { TwoWindowsContext } from './twoWindowsJourney';
import { SEARCH_HIGHLIGHT } from '../../webview/highlight';

/** A file name no prompt, reply or fixture holds: only `ls`'s output will. */
export const UNIQUE_WORD = 'quorblefrump';
const UNIQUE_FILE = `${UNIQUE_WORD}.txt`;
/** Files whose `cat` turns push the `ls` turn out of sight (an output block is at most 320 px high). */
const LONG_FILES = ['long-notes.txt', 'more-notes.txt'] as const;
const RENAMED = 'Listing with the odd file';

/** Sends `prompt` in the active chat and waits until its turn is done (Stop gone). */
async function send(page: Page, prompt: string, expect: string): Promise<void> {
  const frame = chatFrame(page);
  const input = frame.locator('#composer textarea');
  await visible(input, '#composer textarea', TIMEOUTS.webview);
  await input.fill(prompt);
  // Sent: the composer empties. Under load (2 cores, load average 18) a first click was once lost
  // with the view already drawn; a user clicks again.
  for (let attempt = 1; ; attempt++) {
    await frame.locator('#send').click({ timeout: TIMEOUTS.ui });
    if (await emptied(page, input, 5000)) break;
    if (attempt === 3) throw new Error(`"${prompt}" was not sent after 3 clicks on Send`);
  }
  await visible(frame.locator('pre.output', { hasText: expect }).first(), `the output of "${prompt}"`, TIMEOUTS.command);
  await frame.locator('#stop:not([disabled])').waitFor({ state: 'detached', timeout: TIMEOUTS.command }).catch(() => undefined);
}

/** A rename is not activity: the renamed chat stays below the newer one. @throws Error naming the order seen. */
async function sameOrder(page: Page, where: string): Promise<void> {
  const labels = await viewRows(page).locator('.label-name').allInnerTexts();
  if (JSON.stringify(labels) !== JSON.stringify(['Today', 'run echo second chat', RENAMED])) throw new Error(`${where}'s view shows ${JSON.stringify(labels)} after the rename`);
}

/** Whether the text box `input` is empty within `ms`. */
async function emptied(page: Page, input: Locator, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await page.waitForTimeout(200)) {
    if ((await input.inputValue()) === '') return true;
  }
  return false;
}

/** Whether the `section.turn` holding `word` is in the transcript's visible area (px rects). */
async function turnInView(frame: FrameLocator, word: string): Promise<{ inView: boolean; top: number; bottom: number; viewTop: number; viewBottom: number }> {
  const turn = frame.locator('section.turn', { has: frame.locator('pre.output', { hasText: word }) }).first();
  return turn.evaluate((el) => {
    const view = (el.closest('#transcript') ?? document.scrollingElement ?? document.body).getBoundingClientRect();
    const r = el.getBoundingClientRect();
    return { inView: r.bottom > view.top + 10 && r.top < view.bottom - 10, top: r.top, bottom: r.bottom, viewTop: view.top, viewBottom: view.bottom };
  });
}

/** The text of each range of the search highlight in the chat webview (empty: none). */
function markedWords(frame: FrameLocator): Promise<string[]> {
  return frame.locator('body').evaluate((_, name) => {
    const registry = (window as unknown as { CSS: { highlights?: Map<string, Iterable<Range>> } }).CSS.highlights;
    const highlight = registry?.get(name);
    return highlight ? [...highlight].map((r) => r.toString()) : [];
  }, SEARCH_HIGHLIGHT);
}

/** Search Chats… from the view's title bar, `word` typed; resolves the quick input. */
async function searchFromView(page: Page, word: string): Promise<Locator> {
  await page.locator('.part.sidebar .action-label[aria-label^="Search Chats"]').first().click({ timeout: TIMEOUTS.ui });
  const input = page.locator('.quick-input-widget input.input');
  await visible(input, 'the Search Chats input', TIMEOUTS.ui);
  await input.pressSequentially(word, { delay: 30 });
  await visible(page.locator('.quick-input-list .monaco-list-row', { hasText: 'command output' }).first(), `a command output result for "${word}"`, TIMEOUTS.ui);
  return input;
}

/** Runs the journey. @throws Error naming the failed step. */
export async function historyJourney(ctx: TwoWindowsContext): Promise<void> {
  const a = ctx.page;
  const step = stepper(ctx.log, ctx.shot);
  fs.writeFileSync(path.join(ctx.workspace, UNIQUE_FILE), 'only its name matters\n');
  for (const [i, file] of LONG_FILES.entries()) fs.writeFileSync(path.join(ctx.workspace, file), Array.from({ length: 120 }, (_, n) => `note ${i} line ${n + 1}`).join('\n') + '\n');

  await step('two-chats', async () => {
    await a.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(a, TIMEOUTS.workbench);
    await newChatFromPalette(a, 'Local agent', TIMEOUTS.ui);
    await send(a, 'run ls', UNIQUE_FILE);
    for (const [i, file] of LONG_FILES.entries()) await send(a, `run cat ${file}`, `note ${i} line 120`);
    await newChatFromPalette(a, 'Local agent', TIMEOUTS.ui);
    await send(a, 'run echo second chat', 'second chat');
  });

  await step('view-today', async () => {
    await openView(a);
    await visible(viewRows(a).filter({ hasText: /^Today/ }).first(), 'the Today group', TIMEOUTS.ui);
    await visible(chatRow(a, 'run ls'), 'the "run ls" chat in the view', TIMEOUTS.ui);
    await visible(chatRow(a, 'run echo second chat'), 'the second chat in the view', TIMEOUTS.ui);
    const labels = await viewRows(a).locator('.label-name').allInnerTexts();
    // Newest first, both under Today.
    if (JSON.stringify(labels) !== JSON.stringify(['Today', 'run echo second chat', 'run ls'])) throw new Error(`the view shows ${JSON.stringify(labels)}`);
  });

  await step('search-opens-turn', () => searchOpensTurn(a, ctx.shot));

  const exported = path.join(ctx.workspace, 'exported-history.md');
  await step('export', () => exportFromView(a, exported, ctx.shot));

  const b = await ctx.newPage();
  const stepB = stepper(ctx.log, (name) => ctx.shotOf(b, name));
  await stepB('window-b-view', async () => {
    await b.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(b, TIMEOUTS.workbench);
    await openView(b);
    await visible(chatRow(b, 'run ls'), 'the "run ls" chat in window B\'s view', TIMEOUTS.webview);
  });

  await step('renamed-in-a', async () => {
    await a.bringToFront();
    const row = chatRow(a, 'run ls');
    await row.hover();
    await row.locator('.action-label[aria-label^="Rename Chat"]').click({ timeout: TIMEOUTS.ui });
    const input = a.locator('.quick-input-widget input.input');
    await visible(input, 'the rename input box', TIMEOUTS.ui);
    const value = await input.inputValue();
    if (value !== 'run ls') throw new Error(`the rename box starts with ${JSON.stringify(value)}`);
    await input.fill(RENAMED);
    await input.press('Enter');
    await visible(chatRow(a, RENAMED), 'the renamed chat in window A\'s view', TIMEOUTS.ui);
    await sameOrder(a, 'window A');
  });

  await stepB('renamed-in-b', async () => {
    await b.bringToFront();
    await visible(chatRow(b, RENAMED), 'the renamed chat in window B\'s view', TIMEOUTS.ui);
    if (await chatRow(b, 'run ls').count()) throw new Error('window B still shows the old title');
    await sameOrder(b, 'window B');
  });
  await b.close();

  await step('themes', async () => {
    await a.bringToFront();
    const failures: string[] = [];
    for (const theme of HISTORY_THEMES) {
      const mark = await themeShots(a, ctx.shot, theme);
      ctx.log(`  ${theme.name}: mark ${mark.mark} on ${mark.background}: contrast ${mark.markRatio}, text on it ${mark.textRatio}`);
      if (mark.markRatio < MIN_MARK_CONTRAST) failures.push(`${theme.name}: the mark ${mark.mark} hardly shows on ${mark.background} (contrast ${mark.markRatio} < ${MIN_MARK_CONTRAST})`);
      if (mark.textRatio < MIN_CONTRAST) failures.push(`${theme.name}: marked text is unreadable on ${mark.mark} (contrast ${mark.textRatio} < ${MIN_CONTRAST})`);
    }
    await pickTheme(a, THEMES[0], TIMEOUTS.ui);
    if (failures.length) throw new Error(`search marks:\n  ${failures.join('\n  ')}`);
  });
}

/** VS Code's default dark and light themes, Light Modern, Dark Modern and both High Contrast themes. */
const HISTORY_THEMES: readonly Theme[] = [DEFAULT_THEMES[0], DEFAULT_THEMES[1], THEMES[0], THEMES[1], THEMES[2], THEMES[3]];

/**
 * In `theme`: a screenshot of the view, one of the search's results, then Enter and the mark's
 * contrast once the chat marked the word again. @throws Error when no mark shows.
 */
async function themeShots(page: Page, shot: (name: string) => Promise<void>, theme: Theme): Promise<MarkContrast> {
  await pickTheme(page, theme, TIMEOUTS.ui);
  await page.waitForTimeout(300);
  await shot(`view-${theme.tag}`);
  const input = await searchFromView(page, UNIQUE_WORD);
  await shot(`search-${theme.tag}`);
  await input.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: TIMEOUTS.ui });
  let mark: MarkContrast | undefined;
  for (const deadline = Date.now() + TIMEOUTS.ui; !(mark = await measureMark(chatFrame(page), SEARCH_HIGHLIGHT));) {
    if (Date.now() > deadline) throw new Error(`no search mark in ${theme.name}`);
    await page.waitForTimeout(250);
  }
  await shot(`mark-${theme.tag}`);
  return mark;
}

/**
 * Chat 1 at its end (the ls turn out of sight), chat 2 active; Search Chats… from the view finds the
 * word in chat 1 only, and Enter shows chat 1 with the ls turn in sight and the word marked.
 * @throws Error naming what was not seen.
 */
async function searchOpensTurn(a: Page, shot: (name: string) => Promise<void>): Promise<void> {
  // Chat 1 at its end: the ls turn is out of sight before the search.
  await chatRow(a, 'run ls').click();
  const frame = chatFrame(a);
  await visible(frame.locator('pre.output', { hasText: 'note 1 line 120' }), 'the end of the first chat', TIMEOUTS.webview);
  const before = await turnInView(frame, UNIQUE_FILE);
  if (before.inView) throw new Error(`the ls turn is already in view before the search: ${JSON.stringify(before)}`);
  await chatRow(a, 'run echo second chat').click();
  await visible(chatFrame(a).locator('pre.output', { hasText: 'second chat' }), 'the second chat', TIMEOUTS.webview);
  const input = await searchFromView(a, UNIQUE_WORD);
  const rows = a.locator('.quick-input-list .monaco-list-row');
  const texts = await rows.allInnerTexts();
  if (texts.length !== 1 || !texts[0]!.includes('run ls')) throw new Error(`the search shows ${JSON.stringify(texts)}; expected one result, in "run ls"`);
  await shot('search-results');
  await input.press('Enter');
  await visible(frame.locator('pre.output', { hasText: UNIQUE_FILE }), 'the ls output in the opened chat', TIMEOUTS.webview);
  let last = '';
  for (const deadline = Date.now() + TIMEOUTS.ui; ;) {
    const where = await turnInView(chatFrame(a), UNIQUE_FILE);
    const marked = await markedWords(chatFrame(a));
    if (where.inView && marked.length > 0 && marked.every((w) => w.toLowerCase() === UNIQUE_WORD)) break;
    last = `turn ${JSON.stringify(where)}, marked ${JSON.stringify(marked)}`;
    if (Date.now() > deadline) throw new Error(`the ls turn is not in view with "${UNIQUE_WORD}" marked: ${last}`);
    await a.waitForTimeout(250);
  }
}

/**
 * Export Chat as Markdown… from the "run ls" item's context menu, `exported` typed into code-server's
 * save dialog; the file holds the title, the prompt and the outputs.
 * @throws Error naming what was not seen or is missing from the file.
 */
async function exportFromView(a: Page, exported: string, shot: (name: string) => Promise<void>): Promise<void> {
  await chatRow(a, 'run ls').click({ button: 'right' });
  const item = a.locator('.monaco-menu .action-label', { hasText: 'Export Chat as Markdown…' }).first();
  await item.click({ timeout: TIMEOUTS.ui });
  // A click right after the menu opened was once ignored (the item stayed focused, the menu open).
  if (await item.isVisible().then(async (shown) => shown && (await a.waitForTimeout(1000), await item.isVisible()))) await a.keyboard.press('Enter');
  // code-server's save dialog: a quick input holding the path.
  const input = a.locator('.quick-input-widget input.input');
  await visible(input, 'the save dialog', TIMEOUTS.ui);
  await a.waitForFunction(() => (document.querySelector<HTMLInputElement>('.quick-input-widget input.input')?.value ?? '').endsWith('.md'), undefined, { timeout: TIMEOUTS.ui });
  await shot('save-dialog');
  await input.fill(exported);
  await input.press('Enter');
  await visible(a.locator('.notifications-toasts .notification-toast', { hasText: 'Exported' }).first(), 'the Exported notification', TIMEOUTS.ui);
  const text = fs.readFileSync(exported, 'utf8');
  for (const want of ['# run ls', '> run ls', UNIQUE_FILE, 'note 1 line 120']) {
    if (!text.includes(want)) throw new Error(`${exported} lacks ${JSON.stringify(want)}:\n${text.slice(0, 600)}`);
  }
}
