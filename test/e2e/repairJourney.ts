/**
 * The repair journey, as a user in a real workbench (code-server + Chromium): the journal holds a
 * chat with one damaged record (part of a reply whose text is not JSON). Its tab says it cannot be
 * changed and names the record; Check Journal lists the record; Repair Journal… shows its dry run,
 * and after the user confirms the tab takes changes again, says a record was set aside, and the
 * chat accepts a new message.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/journal/schema';
import { loadSqlJs } from '../../src/journal/sqljs';
import { chatFrame, runCommand, waitForWorkbench } from '../harness/codeServer';
import { TIMEOUTS, type JourneyContext } from './restartJourney';
import { stepper, visible } from './steps';

/** The damaged chat's title. */
const TITLE = 'Damaged chat';

/**
 * Writes a journal of this build's schema with one chat whose second reply event is not JSON,
 * where the extension looks for it under `userDataDir` (its globalStorage folder).
 */
export async function seedDamagedJournal(userDataDir: string): Promise<void> {
  const dir = path.join(userDataDir, 'User', 'globalStorage', 'native-agent-chats.native-agent-chats');
  fs.mkdirSync(dir, { recursive: true });
  const SQL = await loadSqlJs(path.join(path.dirname(require.resolve('sql.js')), 'sql-wasm.wasm'));
  const db = new SQL.Database();
  for (const m of MIGRATIONS) db.exec(m.sql);
  db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  const at = Date.now() - 60_000;
  db.run("INSERT INTO sessions (id, title, provider, created_at, updated_at) VALUES ('s1', ?, 'local', ?, ?)", [TITLE, at, at]);
  db.run("INSERT INTO turns (id, session_id, prompt, origin, status, created_at) VALUES ('t1', 's1', 'help', 'prompt', 'completed', ?)", [at]);
  db.run("INSERT INTO runs (id, turn_id, session_id, instance_id, provider, status, started_at, finished_at) VALUES ('r1', 't1', 's1', 'gone', 'local', 'completed', ?, ?)", [at, at + 2]);
  db.run("INSERT INTO events (run_id, seq, session_id, turn_id, kind, payload, at) VALUES ('r1', 1, 's1', 't1', 'text', ?, ?)", [JSON.stringify({ text: 'The first part of the reply.' }), at + 1]);
  db.run("INSERT INTO events (run_id, seq, session_id, turn_id, kind, payload, at) VALUES ('r1', 2, 's1', 't1', 'text', '{\"text\": \"cut sh', ?)", [at + 1]);
  fs.writeFileSync(path.join(dir, 'journal.sqlite'), db.export());
  db.close();
}

/**
 * Runs the journey (see module docstring).
 * @throws Error naming the failed step and what was not seen.
 */
export async function repairJourney(ctx: JourneyContext): Promise<void> {
  const { page } = ctx;
  const step = stepper(ctx.log, ctx.shot);
  const tab = page.locator('.part.editor .tabs-container .tab', { hasText: TITLE }).first();

  await step('workbench', async () => {
    await page.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(page, TIMEOUTS.workbench);
  });

  await step('open-fenced-chat', async () => {
    const input = page.locator('.quick-input-widget input.input[placeholder="Open a chat"]');
    await runCommand(page, 'Agent Chats: Open Chat…', TIMEOUTS.ui);
    if (!(await input.waitFor({ state: 'visible', timeout: 15_000 }).then(() => true, () => false))) await runCommand(page, 'Agent Chats: Open Chat…', TIMEOUTS.ui);
    await input.fill(TITLE);
    await visible(page.locator('.quick-input-list .monaco-list-row', { hasText: TITLE }).first(), 'the damaged chat in the picker', TIMEOUTS.ui);
    await input.press('Enter');
    const bar = chatFrame(page).locator('.readonly-bar');
    await visible(bar.locator('.readonly-message', { hasText: 'could not be read (it is damaged)' }), 'the notice that the chat cannot be changed', TIMEOUTS.webview);
    await visible(bar.locator('.readonly-message', { hasText: 'The record: table events, row r1#2.' }), 'the notice naming the record', TIMEOUTS.ui);
    await visible(bar.locator('[data-action="repair-journal"]'), 'the Repair Journal… button', TIMEOUTS.ui);
  });

  await step('check-journal-lists-it', async () => {
    await chatFrame(page).locator('.readonly-bar [data-action="check-journal"]').click({ timeout: TIMEOUTS.ui });
    await visible(page.locator('.part.editor .monaco-editor .view-lines', { hasText: 'r1#2' }).first(), 'the Check Journal report naming row r1#2', TIMEOUTS.command);
  });

  await step('dry-run-then-repair', async () => {
    await tab.click({ timeout: TIMEOUTS.ui });
    await chatFrame(page).locator('.readonly-bar [data-action="repair-journal"]').click({ timeout: TIMEOUTS.webview });
    await visible(page.locator('.part.editor .monaco-editor .view-lines', { hasText: 'Nothing has been changed yet' }).first(), 'the dry run document', TIMEOUTS.command);
    const repair = page.locator('.monaco-dialog-box .dialog-buttons .monaco-button', { hasText: /^Repair$/ });
    await (await visible(repair, 'the modal\'s Repair button', TIMEOUTS.ui)).click();
  });

  await step('fence-lifted', async () => {
    await tab.click({ timeout: TIMEOUTS.ui });
    const frame = chatFrame(page);
    await visible(frame.locator('text=1 record of this chat could not be read and was set aside by Repair Journal').first(), 'the note in the transcript', TIMEOUTS.webview);
    await frame.locator('.readonly-bar').waitFor({ state: 'hidden', timeout: TIMEOUTS.ui });
  });

  await step('accepts-a-message', async () => {
    const frame = chatFrame(page);
    const input = frame.locator('#composer textarea');
    await visible(input, '#composer textarea', TIMEOUTS.ui);
    await input.fill('help');
    await frame.locator('#send').click({ timeout: TIMEOUTS.ui });
    await frame.locator('.message.user', { hasText: 'help' }).nth(1).waitFor({ state: 'visible', timeout: TIMEOUTS.ui });
  });
}
