/**
 * Checkpoints, as a user in a real workbench (issue 16): the local agent writes two files, a
 * modified one (CRLF, no final newline before) and a created one, one per message; each turn ends
 * with "Files changed" naming its file; a click on the file opens VS Code's diff editor; Restore to
 * before the first turn puts both back (checked on disk, byte for byte); Reload Window; Redo is still
 * offered and puts the agent's files back. Then Edit on the last request, which created a file:
 * the edit bar offers to undo that change first (checked); Send puts it back (the file removed)
 * before the edited request runs, so the new turn creates the file again. Then the user changes that
 * file and edits again: the conflict list comes; Escape cancels, the edit is back in the composer as an
 * edit; unchecked, Send replaces the request without undoing. "Files changed" is shot in the dark,
 * light and High Contrast themes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { stepper, visible } from './steps';
import { TIMEOUTS, type JourneyContext } from './restartJourney';
import { chatFrame, newChatFromPalette, reloadWindow, waitForWorkbench } from '../harness/codeServer';
import { THEMES, pickTheme } from './themeSteps';

const NOTES_BEFORE = Buffer.from('first line\r\nsecond line', 'utf8');

/** Sends `text` from the composer (Enter). */
async function send(frame: FrameLocator, text: string): Promise<void> {
  const input = frame.locator('#composer textarea');
  await visible(input, '#composer textarea', TIMEOUTS.ui);
  await input.fill(text);
  await input.press('Enter');
}

/** Waits until the file at `file` holds `bytes`. @throws Error with what it holds. */
async function fileHolds(file: string, bytes: Buffer | null, timeout: number): Promise<void> {
  let seen: Buffer | null = null;
  for (const deadline = Date.now() + timeout; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    seen = fs.existsSync(file) ? fs.readFileSync(file) : null;
    if (bytes === null ? seen === null : seen !== null && seen.equals(bytes)) return;
  }
  throw new Error(`${file} holds ${seen === null ? 'nothing' : JSON.stringify(seen.toString('latin1'))}, expected ${bytes === null ? 'no file' : JSON.stringify(bytes.toString('latin1'))}`);
}

/** The "Files changed" lists shown, one string per turn: its title and its files' lines. */
async function shownLists(frame: FrameLocator): Promise<string[]> {
  return frame.locator('.files-changed[data-turn-id]').evaluateAll((lists) => lists.map((l) =>
    [l.querySelector('.files-title')?.textContent ?? '', ...[...l.querySelectorAll('.file-change')].map((f) => f.textContent ?? '')].join(' | ')));
}

/** Waits until the lists shown are `expected`. */
async function listsShow(frame: FrameLocator, expected: readonly string[], timeout: number): Promise<void> {
  let seen: string[] = [];
  for (const deadline = Date.now() + timeout; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
    seen = await shownLists(frame).catch(() => []);
    if (JSON.stringify(seen) === JSON.stringify(expected)) return;
  }
  throw new Error(`"Files changed" shows ${JSON.stringify(seen)}, expected ${JSON.stringify(expected)}`);
}

/**
 * Runs the journey; each step logs, waits with a timeout and screenshots.
 * @throws Error naming the failed step and what was not seen.
 */
export async function checkpointsJourney(ctx: JourneyContext): Promise<void> {
  const { page } = ctx;
  const step = stepper(ctx.log, ctx.shot);
  const frame = (): FrameLocator => chatFrame(page);
  const notes = path.join(ctx.workspace, 'notes.txt');
  const created = path.join(ctx.workspace, 'docs', 'plan.md');
  fs.writeFileSync(notes, NOTES_BEFORE);

  await step('workbench', async () => {
    await page.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(page, TIMEOUTS.workbench);
    await newChatFromPalette(page, 'Local agent', TIMEOUTS.ui);
    await visible(frame().locator('#composer'), 'the composer', TIMEOUTS.webview);
  });

  await step('two-files-written', async () => {
    await send(frame(), 'write notes.txt\n```\nthe agent rewrote this\n```');
    await fileHolds(notes, Buffer.from('the agent rewrote this\n'), TIMEOUTS.command);
    await send(frame(), 'write docs/plan.md\n```\n# Plan\n\n- one\n```');
    await fileHolds(created, Buffer.from('# Plan\n\n- one\n'), TIMEOUTS.command);
    await listsShow(frame(), ['Files changed | notes.txt modified +1 −2', 'Files changed | docs/plan.md created +3 −0'], TIMEOUTS.ui);
  });

  await step('diff-opened', async () => {
    await frame().locator('.files-changed .file-link', { hasText: 'notes.txt' }).click();
    await visible(page.locator('.part.editor .tab.active', { hasText: 'notes.txt (before ↔ after by the agent)' }), 'the diff editor\'s tab', TIMEOUTS.ui);
    await visible(page.locator('.part.editor .monaco-diff-editor').first(), 'the diff editor', TIMEOUTS.ui);
    await visible(page.locator('.monaco-diff-editor .view-line', { hasText: 'second line' }).first(), 'the before side\'s text', TIMEOUTS.ui);
    await ctx.shot('diff-editor');
    await page.keyboard.press('Control+W');
  });

  await step('restored', async () => {
    await frame().locator('.files-changed').first().locator('[data-action="restore-files"]').click();
    await fileHolds(notes, NOTES_BEFORE, TIMEOUTS.ui);
    await fileHolds(created, null, TIMEOUTS.ui);
    await listsShow(frame(), ['Files changed (undone) | notes.txt modified +1 −2', 'Files changed (undone) | docs/plan.md created +3 −0'], TIMEOUTS.ui);
    if (fs.existsSync(path.dirname(created))) throw new Error(`the folder made for ${created} is still there after the undo`);
    // Said in the status bar and to a screen reader, not in a toast over the message box's Send button.
    const words = 'Undo: put back 1 file; removed 1 file the agent had created.';
    const announcer = frame().locator('.sr-only[role="status"]');
    // The live region is visually hidden (a 1 px clip): wait for its text, not its box.
    await announcer.filter({ hasText: words }).waitFor({ state: 'attached', timeout: TIMEOUTS.ui }).catch(async () => {
      throw new Error(`the view's announcement is "${await announcer.first().textContent()}", expected "${words}"`);
    });
    await visible(page.locator('.part.statusbar', { hasText: words }), `the status bar saying "${words}"`, TIMEOUTS.ui);
    const toasts = await page.locator('.notifications-toasts .notification-toast').allInnerTexts();
    if (toasts.some((t) => t.includes('Undo:'))) throw new Error(`a notification toast about the undo: ${toasts.join(' | ')}`);
  });

  await step('in-themes', async () => {
    for (const theme of [THEMES[1], THEMES[2], THEMES[0]]) {
      await pickTheme(page, theme, TIMEOUTS.ui);
      await frame().locator('.files-changed').first().scrollIntoViewIfNeeded();
      await ctx.shot(`files-changed-${theme.tag}`);
    }
  });

  await step('reloaded-redo', async () => {
    await reloadWindow(page, TIMEOUTS.ui, TIMEOUTS.workbench);
    const redo = await visible(frame().locator('.files-changed').first().locator('[data-action="redo-files"]'), 'Redo after the reload', TIMEOUTS.webview);
    await redo.click();
    await fileHolds(notes, Buffer.from('the agent rewrote this\n'), TIMEOUTS.ui);
    await fileHolds(created, Buffer.from('# Plan\n\n- one\n'), TIMEOUTS.ui);
    await listsShow(frame(), ['Files changed | notes.txt modified +1 −2', 'Files changed | docs/plan.md created +3 −0'], TIMEOUTS.ui);
  });

  await step('edit-undoes-first', async () => {
    await (await visible(frame().locator('[data-action="edit-prompt"]'), 'Edit on the last request', TIMEOUTS.ui)).click();
    const offer = await visible(frame().locator('.edit-bar .edit-undo-files'), 'the offer to undo its changes first', TIMEOUTS.ui);
    const words = (await offer.textContent())?.trim();
    if (words !== 'Undo the changes it made to 1 file first') throw new Error(`the offer says ${JSON.stringify(words)}`);
    if ((await offer.getAttribute('aria-checked')) !== 'true') throw new Error('the offer is not checked');
    await ctx.shot('edit-offers-undo');
    await send(frame(), 'write docs/plan.md\n```\n# Plan\n\n- two\n```');
    await fileHolds(created, Buffer.from('# Plan\n\n- two\n'), TIMEOUTS.command);
    // "created" again: the first version was removed before the edited request wrote it.
    await listsShow(frame(), [
      'Files changed | notes.txt modified +1 −2', 'Files changed (undone) | docs/plan.md created +3 −0', 'Files changed | docs/plan.md created +3 −0',
    ], TIMEOUTS.ui);
    await fileHolds(notes, Buffer.from('the agent rewrote this\n'), TIMEOUTS.ui);
  });

  await step('edit-conflict-cancelled', async () => {
    // The user changes the file the last request wrote; an edit that undoes it first meets the conflict.
    fs.appendFileSync(created, 'mine\n');
    await (await visible(frame().locator('[data-action="edit-prompt"]'), 'Edit on the last request', TIMEOUTS.ui)).click();
    const edited = 'write docs/plan.md\n```\n# Plan\n\n- three\n```';
    await send(frame(), edited);
    const conflicts = page.locator('.quick-input-widget', { hasText: 'These files changed since the agent wrote them' });
    await visible(conflicts, 'the conflict list', TIMEOUTS.ui);
    await ctx.shot('conflict-list');
    await page.keyboard.press('Escape');
    // Cancelled: nothing undone, and the edit comes back as an edit (Send replaces the request again).
    await visible(frame().locator('.edit-bar:not([hidden])'), 'the edit bar again', TIMEOUTS.ui);
    const text = await frame().locator('#composer textarea').inputValue();
    if (text !== edited) throw new Error(`the composer holds ${JSON.stringify(text)}`);
    await fileHolds(created, Buffer.from('# Plan\n\n- two\nmine\n'), TIMEOUTS.ui);
    await ctx.shot('edit-given-back');
    await frame().locator('.edit-bar .edit-undo-files').click();
    await frame().locator('#composer textarea').press('Enter');
    await fileHolds(created, Buffer.from('# Plan\n\n- three\n'), TIMEOUTS.command);
    await visible(frame().locator('section.turn-replaced details.replaced-turn summary', { hasText: 'Edited — original request: write docs/plan.md' }).nth(1), 'the second edited request collapsed', TIMEOUTS.ui);
  });
}
