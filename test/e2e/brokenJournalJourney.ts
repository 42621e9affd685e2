/**
 * The broken-journal journey, as a user in a real workbench (code-server + Chromium): the chat
 * journal left by an older version holds a row the new schema refuses (a NULL `events.payload`), so
 * its migration cannot run. Opening Agent Chats tells the user in one plain sentence, without a
 * stack trace, that the chats can be read but not changed; Open Chat… still lists them; New Chat is
 * refused with the same sentence.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MIGRATIONS } from '../../src/journal/schema';
import { loadSqlJs } from '../../src/journal/sqljs';
import { pickAgentForNewChat, runCommand, waitForWorkbench } from '../harness/codeServer';
import { TIMEOUTS, type JourneyContext } from './restartJourney';
import { stepper, visible } from './steps';

/** What the user is told (the start of `migrationFailedMessage`, what a collapsed notification shows). */
const TOLD = 'Agent Chats can show your chats but not change them';

/**
 * Writes a schema-1 journal with two chats, one of whose events has a NULL payload, where the
 * extension looks for it under `userDataDir` (its globalStorage folder).
 */
export async function seedSchema1Journal(userDataDir: string): Promise<void> {
  const dir = path.join(userDataDir, 'User', 'globalStorage', 'native-agent-chats.native-agent-chats');
  fs.mkdirSync(dir, { recursive: true });
  const SQL = await loadSqlJs(path.join(path.dirname(require.resolve('sql.js')), 'sql-wasm.wasm'));
  const db = new SQL.Database();
  db.exec(MIGRATIONS[0]!.sql.replace('payload TEXT NOT NULL', 'payload TEXT')); // the damage lets a NULL in
  db.exec('PRAGMA user_version = 1');
  for (const [id, title] of [['a', 'Kept chat one'], ['b', 'Kept chat two']] as const) {
    db.run("INSERT INTO sessions (id, title, provider, created_at, updated_at) VALUES (?, ?, 'local', 1, 1)", [id, title]);
    db.run("INSERT INTO turns (id, session_id, prompt, origin, status, created_at) VALUES (?, ?, 'help', 'prompt', 'completed', 1)", [`t${id}`, id]);
    db.run("INSERT INTO runs (id, turn_id, session_id, instance_id, provider, status, started_at) VALUES (?, ?, ?, 'i', 'local', 'completed', 1)", [`r${id}`, `t${id}`, id]);
  }
  db.run("INSERT INTO events (run_id, seq, session_id, turn_id, kind, payload, at) VALUES ('rb', 1, 'b', 'tb', 'text', NULL, 1)");
  fs.writeFileSync(path.join(dir, 'journal.sqlite'), db.export());
  db.close();
}

/** Texts of the notification toasts on screen. */
async function toasts(ctx: JourneyContext): Promise<string[]> {
  return ctx.page.locator('.notifications-toasts .notification-toast').allInnerTexts();
}

/** Fails when a notification shows a stack-trace line. */
async function noStackTrace(ctx: JourneyContext): Promise<void> {
  for (const text of await toasts(ctx)) {
    if (/^\s*at\s|\(.*:\d+:\d+\)/m.test(text)) throw new Error(`a notification shows a stack trace: ${text}`);
  }
}

/**
 * Runs the journey (see module docstring).
 * @throws Error naming the failed step and what was not seen.
 */
export async function brokenJournalJourney(ctx: JourneyContext): Promise<void> {
  const { page } = ctx;
  const step = stepper(ctx.log, ctx.shot);

  await step('workbench', async () => {
    await page.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(page, TIMEOUTS.workbench);
  });

  await step('told-read-only', async () => {
    // Said once, when the journal opened at startup: the toast may have timed out by now (VS Code
    // hides a toast without buttons after a while), so look where a user looks then.
    await page.locator('.statusbar-item[id="status.notifications"] a, .statusbar-item[id="status.notifications"]').first().click();
    await visible(page.locator('.notification-list-item', { hasText: TOLD }).first(), `a notification saying "${TOLD}"`, TIMEOUTS.webview);
    await noStackTrace(ctx);
    await page.keyboard.press('Escape');
  });

  await step('history-listed', async () => {
    await runCommand(page, 'Agent Chats: Open Chat…', TIMEOUTS.ui);
    await visible(page.locator('.quick-input-list .monaco-list-row', { hasText: 'Kept chat one' }).first(), 'the chat picker listing "Kept chat one"', TIMEOUTS.ui);
    await visible(page.locator('.quick-input-list .monaco-list-row', { hasText: 'Kept chat two' }).first(), 'the chat picker listing "Kept chat two"', TIMEOUTS.ui);
    await page.keyboard.press('Escape');
  });

  await step('new-chat-refused', async () => {
    // No tab may open: the journal refuses the chat.
    await pickAgentForNewChat(page, 'Local agent', TIMEOUTS.ui);
    // The refusal repeats the sentence already shown, which VS Code folds into that notification:
    // look in the notification center, and for the chat tab that must not have opened.
    await runCommand(page, 'Notifications: Show Notifications', TIMEOUTS.ui);
    const items = page.locator('.notifications-center .notification-list-item');
    await visible(items.filter({ hasText: TOLD }).first(), `the notification center holding "${TOLD}"`, TIMEOUTS.ui);
    for (const text of await items.allInnerTexts()) {
      if (/^\s*at\s|\(.*:\d+:\d+\)/m.test(text)) throw new Error(`a notification shows a stack trace: ${text}`);
    }
    const chatTabs = await page.locator('iframe.webview').count();
    if (chatTabs !== 0) throw new Error(`New Chat opened ${chatTabs} chat tab(s) on a read-only journal`);
  });
}
