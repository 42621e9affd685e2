/**
 * Delete Chat… from the palette with the chat tab active: VS Code's modal dialog names the chat, and
 * Enter (the dialog's focused button) keeps it. The workbench's focus moves are logged while the
 * step runs, so a failure says where the focus went instead of the dialog.
 */
import type { Page } from 'playwright-core';
import { chatFrame, runCommand } from '../harness/codeServer';
import { visible } from './steps';

/** What the step needs from its journey: the chat's title, the user's command in it, the active tab's label, a progress log, the wait per UI change (ms). */
export interface DeleteDialogContext {
  title: string;
  command: string;
  activeTabTitle(): Promise<string>;
  /** Prints a progress line. */
  log(message: string): void;
  timeoutMs: number;
}

/** Starts logging the workbench document's focusin/focusout (time in ms, kind, element) into `window.__nacFocusLog`. */
async function logFocusMoves(page: Page): Promise<void> {
  await page.evaluate(() => {
    const describe = (el: EventTarget | null): string => {
      if (!(el instanceof Element)) return String(el);
      const cls = typeof el.className === 'string' ? el.className.split(/\s+/).filter(Boolean).slice(0, 3).join('.') : '';
      return `${el.tagName.toLowerCase()}${cls ? `.${cls}` : ''}${el.textContent && el.tagName === 'A' ? ` "${el.textContent.trim().slice(0, 20)}"` : ''}`;
    };
    const log: string[] = [];
    const start = performance.now();
    (window as unknown as { __nacFocusLog: string[] }).__nacFocusLog = log;
    for (const kind of ['focusin', 'focusout'] as const) {
      document.addEventListener(kind, (e) => {
        log.push(`${Math.round(performance.now() - start)} ms ${kind} ${describe(e.target)} related=${describe(e.relatedTarget)}`);
      }, true);
    }
    window.addEventListener('blur', () => log.push(`${Math.round(performance.now() - start)} ms window blur, active=${describe(document.activeElement)}`));
  });
}

/** The text of the focused element when it is inside the dialog, else null. */
function focusedInDialog(page: Page): Promise<string | null> {
  return page.evaluate(() => document.activeElement?.closest('.monaco-dialog-box') ? (document.activeElement.textContent ?? '').trim() : null);
}

/**
 * Opens the dialog from the palette and waits (up to `ctx.timeoutMs`) for the focus to enter it.
 * Resolves the focused button's text, or null with the focus moves logged meanwhile.
 */
async function openDialog(page: Page, ctx: DeleteDialogContext): Promise<{ focused: string | null; moves: string[] }> {
  await logFocusMoves(page);
  await runCommand(page, 'Agent Chats: Delete Chat…', ctx.timeoutMs);
  await visible(page.locator('.monaco-dialog-box').filter({ hasText: ctx.title }), `a modal dialog naming "${ctx.title}"`, ctx.timeoutMs);
  // The dialog takes the focus a moment after it shows: wait until a button in it has it, then judge which.
  let focused = await focusedInDialog(page);
  for (const deadline = Date.now() + ctx.timeoutMs; focused === null && Date.now() < deadline; focused = await focusedInDialog(page)) await page.waitForTimeout(50);
  const moves = focused === null ? await page.evaluate(() => (window as unknown as { __nacFocusLog?: string[] }).__nacFocusLog ?? []) : [];
  return { focused, moves };
}

/**
 * Runs the step. VS Code focuses the dialog's first button as it shows it, but the webview it covers
 * can take the focus back a moment later (its own focus message, sent after the palette closed,
 * reaching the inner frame after the dialog showed): then no button has the focus, and Enter goes to
 * the chat's empty message box, which deletes nothing. That race is VS Code's; the step closes such a
 * dialog with its Cancel button and asks once more, and fails if it happens twice.
 * @throws Error naming the focused button, or the logged focus moves when none in the dialog has it.
 */
export async function deleteEnterKeepsStep(page: Page, ctx: DeleteDialogContext): Promise<void> {
  const frame = chatFrame(page);
  const dialog = page.locator('.monaco-dialog-box');
  await visible(frame.locator('#send'), 'the Send button (the agent finished)', ctx.timeoutMs);
  let opened = await openDialog(page, ctx);
  if (opened.focused === null) {
    ctx.log(`the dialog showed without the focus (VS Code's webview took it back); its focus moves:\n  ${opened.moves.slice(-30).join('\n  ')}`);
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click({ timeout: ctx.timeoutMs });
    await dialog.waitFor({ state: 'hidden', timeout: ctx.timeoutMs });
    opened = await openDialog(page, ctx);
  }
  if (opened.focused !== 'Keep Chat') {
    throw new Error(`the dialog's focused button (Enter) is ${opened.focused === null ? 'none: the focus is outside the dialog' : `"${opened.focused}"`}, expected "Keep Chat"; the workbench's focus moves since the palette opened:\n  ${opened.moves.slice(-30).join('\n  ')}`);
  }
  await page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'hidden', timeout: ctx.timeoutMs });
  await visible(frame.locator('.message.user', { hasText: ctx.command }).first(), 'the chat, still there after Enter', ctx.timeoutMs);
  const now = await ctx.activeTabTitle();
  if (now !== ctx.title) throw new Error(`after Enter the active tab is "${now}", expected the kept chat "${ctx.title}"`);
}
