/**
 * Every chat tab shows its own chat, whatever order tabs are drawn, opened and restored in.
 *
 * One window: three chats in three tabs; Reload Window; then, without drawing the background tabs,
 * chat one is opened from the Agent Chats view, then after another reload chat two from Open Chat…,
 * then chat one from Search Chats…; then code-server restarts (same browser profile, so the layout
 * comes back), the window reloads, and chats two and one are opened from the view and Open Chat….
 * After each, the chat's own tab is the active one (no fourth tab), and every tab, clicked in turn,
 * shows its own chat under its own title and none says it lost track of its chat. Last, chats are
 * renamed while their tabs are undrawn (a tab keeps its old title until drawn) and opened, before
 * and after a reload: still one tab each.
 *
 * Two windows on one folder (`twoWindowTabsJourney`): window A has chat A; window B has chats B2 and
 * B3 (and its own tab of chat A when it opened with a copy of A's layout) and reloads; B opens chat
 * B2 from its view: B's own undrawn tab of it is shown, and no tab of B takes another's chat. Then the same with window A reloaded meanwhile, and with window A closed (its
 * tab records left behind).
 */
import type { Page } from 'playwright-core';
import { chatFrame, reloadWindow, runCommand, waitForWorkbench } from '../harness/codeServer';
import { chatRow, openView } from './chatsView';
import { TIMEOUTS } from './restartJourney';
import { stepper, visible } from './steps';
import { newChatWith, tabLabels } from './tabsAfterRestartJourney';
import type { HostCrashContext } from './hostCrashJourney';

/** A chat of the journey: its prompt (the tab's title) and a word only its output holds. */
interface Chat {
  readonly prompt: string;
  readonly word: string;
}

const chat = (word: string): Chat => ({ prompt: `run echo ${word}`, word });

/**
 * Developer: Reload Window, and the workbench back. The palette may close as it opens when a chat
 * view takes the focus back (a tab just clicked): runCommand asks again within the workbench's budget.
 */
const reload = (page: Page): Promise<void> => reloadWindow(page, TIMEOUTS.workbench, TIMEOUTS.workbench);

/** The active tab is `c`'s and its view shows `c`'s output. */
async function showsChat(page: Page, c: Chat, where: string): Promise<void> {
  await visible(page.locator('.part.editor .tabs-container .tab.active .label-name', { hasText: c.prompt }), `${where}: the active tab titled "${c.prompt}"`, TIMEOUTS.webview);
  const frame = chatFrame(page);
  await visible(frame.locator('pre.output', { hasText: c.word }).first(), `${where}: the output "${c.word}" in the active tab`, TIMEOUTS.webview);
  if (await frame.getByText('lost track of its chat').count() > 0) throw new Error(`${where}: the active tab says it lost track of its chat`);
}

/**
 * The window has one tab each of `required` and of no chat outside `known`, no chat twice, and
 * each tab, clicked in turn, shows its own chat under its own title.
 */
async function everyTabShowsItsChat(page: Page, known: readonly Chat[], where: string, required: readonly Chat[] = known): Promise<void> {
  const labels = await tabLabels(page);
  const chats = labels.map((l) => known.find((c) => c.prompt === l));
  const missing = required.filter((c) => !labels.includes(c.prompt));
  if (chats.includes(undefined) || new Set(labels).size !== labels.length || missing.length > 0) {
    throw new Error(`${where}: the tabs are ${JSON.stringify(labels)}; expected one each of ${JSON.stringify(required.map((c) => c.prompt))} and no other chat than ${JSON.stringify(known.map((c) => c.prompt))}`);
  }
  for (const c of chats as Chat[]) {
    await page.locator('.part.editor .tabs-container .tab .label-name', { hasText: c.prompt }).first().click({ timeout: TIMEOUTS.ui });
    await showsChat(page, c, `${where}, tab "${c.prompt}" clicked`);
  }
  const after = await tabLabels(page);
  if (JSON.stringify(after) !== JSON.stringify(labels)) throw new Error(`${where}: the tabs' titles changed as they were drawn: ${JSON.stringify(labels)} → ${JSON.stringify(after)}`);
}

/** Opens `c` from the Agent Chats view (a click on its row). */
async function openFromView(page: Page, c: Chat): Promise<void> {
  await openView(page);
  await visible(chatRow(page, c.prompt).first(), `the view's row of "${c.prompt}"`, TIMEOUTS.ui);
  await chatRow(page, c.prompt).first().click({ timeout: TIMEOUTS.ui });
}

/** Opens `c` from Agent Chats: Open Chat…, typing its title. */
async function openFromPalette(page: Page, c: Chat): Promise<void> {
  const input = page.locator('.quick-input-widget input.input[placeholder="Open a chat"]');
  // The command runs once the extension has activated in this window (late after a restart and a
  // reload on a loaded machine): asked once more if the picker does not show.
  await runCommand(page, 'Agent Chats: Open Chat…', TIMEOUTS.ui);
  if (!(await input.waitFor({ state: 'visible', timeout: 15_000 }).then(() => true, () => false))) {
    await runCommand(page, 'Agent Chats: Open Chat…', TIMEOUTS.ui);
  }
  await visible(input, 'the chat picker', TIMEOUTS.ui);
  await input.fill(c.prompt);
  await visible(page.locator('.quick-input-list .monaco-list-row', { hasText: c.prompt }).first(), `"${c.prompt}" in the picker`, TIMEOUTS.ui);
  await input.press('Enter');
}

/** Opens `c` from Agent Chats: Search Chats…, searching its word. */
async function openFromSearch(page: Page, c: Chat): Promise<void> {
  await runCommand(page, 'Agent Chats: Search Chats…', TIMEOUTS.ui);
  const input = page.locator('.quick-input-widget input.input');
  await visible(input, 'the Search Chats input', TIMEOUTS.ui);
  await input.pressSequentially(c.word, { delay: 30 });
  await visible(page.locator('.quick-input-list .monaco-list-row', { hasText: c.word }).first(), `a result for "${c.word}"`, TIMEOUTS.ui);
  await input.press('Enter');
}

/** Clicks the tab of `c` (so it is not the one left undrawn by the next reload). */
async function clickTab(page: Page, c: Chat): Promise<void> {
  await page.locator('.part.editor .tabs-container .tab .label-name', { hasText: c.prompt }).first().click({ timeout: TIMEOUTS.ui });
  await showsChat(page, c, `tab "${c.prompt}" clicked`);
}

/** Runs the one-window journey. @throws Error naming the failed step. */
export async function tabIdentityJourney(ctx: HostCrashContext): Promise<void> {
  const page = ctx.page;
  const step = stepper(ctx.log, ctx.shot);
  const [one, two, three] = [chat('tab-one'), chat('tab-two'), chat('tab-three')] as const;
  const all = [one, two, three];

  await step('three-chats', async () => {
    await page.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(page, TIMEOUTS.workbench);
    for (const c of all) await newChatWith(page, c.prompt, c.word);
  });

  // Each: chat three active at the reload, so chats one and two come back undrawn.
  const rounds: [string, Chat, (p: Page, c: Chat) => Promise<void>][] = [
    ['reload-open-one-from-view', one, openFromView],
    ['reload-open-two-from-palette', two, openFromPalette],
    ['reload-open-one-from-search', one, openFromSearch],
  ];
  for (const [name, target, open] of rounds) {
    await step(name, async () => {
      await clickTab(page, three);
      await reload(page);
      await showsChat(page, three, 'after the reload');
      await open(page, target);
      await showsChat(page, target, `opened after the reload`);
      await everyTabShowsItsChat(page, all, name);
    });
  }

  await step('server-restart-reload-open-two-then-one', async () => {
    await clickTab(page, three);
    const pid = await ctx.restartServer();
    ctx.log(`  code-server restarted (pid ${pid})`);
    // The same browser profile: VS Code brings back its saved layout.
    await page.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(page, TIMEOUTS.workbench);
    // Which tab is active is the layout code-server saved last (at a reload, not at its stop).
    await visible(chatFrame(page).locator('pre.output').first(), 'a chat drawn after the restart', TIMEOUTS.webview);
    ctx.log(`  tabs after the restart: ${JSON.stringify(await tabLabels(page))}`);
    await clickTab(page, three);
    await reload(page);
    await showsChat(page, three, 'after the restart and a reload');
    await openFromView(page, two);
    await showsChat(page, two, 'chat two opened from the view');
    await openFromPalette(page, one);
    await showsChat(page, one, 'chat one opened from Open Chat…');
    await everyTabShowsItsChat(page, all, 'after the restart');
  });

  // A chat renamed while its tab is undrawn: the tab keeps the old title until drawn.
  const oneRenamed: Chat = { prompt: 'Renamed chat one', word: one.word };
  const twoRenamed: Chat = { prompt: 'Renamed chat two', word: two.word };
  await step('renamed-while-undrawn-opens-its-tab', async () => {
    await clickTab(page, three);
    await reload(page);
    await showsChat(page, three, 'after the reload');
    await renameFromView(page, one, oneRenamed.prompt);
    await openFromView(page, oneRenamed);
    await showsChat(page, oneRenamed, 'the renamed chat opened from the view');
    // Renamed undrawn across a reload: the reopened window gives it no second tab either.
    await clickTab(page, three);
    await renameFromView(page, two, twoRenamed.prompt);
    await reload(page);
    await showsChat(page, three, 'after the reload');
    await openFromPalette(page, twoRenamed);
    await showsChat(page, twoRenamed, 'the renamed chat opened from Open Chat…');
    await everyTabShowsItsChat(page, [oneRenamed, twoRenamed, three], 'after the renames');
  });
}

/** Renames `c` to `title` with the pencil of its row in the Agent Chats view. */
async function renameFromView(page: Page, c: Chat, title: string): Promise<void> {
  await openView(page);
  const row = chatRow(page, c.prompt).first();
  await row.hover();
  await row.locator('.action-label[aria-label^="Rename Chat"]').click({ timeout: TIMEOUTS.ui });
  const input = page.locator('.quick-input-widget input.input');
  await visible(input, 'the rename input box', TIMEOUTS.ui);
  await input.fill(title);
  await input.press('Enter');
  await visible(chatRow(page, title).first(), `the renamed chat "${title}" in the view`, TIMEOUTS.ui);
}

/**
 * The window's tab labels once `settled` holds of them, or as they are after `timeoutMs`. A tab
 * restored from a saved layout is drawn under the title the layout saved (window A's tab was still
 * "New chat" when the browser saved it) until the extension activates and its serializer retitles
 * the tab from the journal; the workbench's frame and the Agent Chats icon come before that.
 */
async function labelsSettled(page: Page, settled: (labels: string[]) => boolean, timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const labels = await tabLabels(page);
    if (settled(labels) || Date.now() >= deadline) return labels;
    await page.waitForTimeout(250);
  }
}

/** Runs the two-window journey. @throws Error naming the failed step. */
export async function twoWindowTabsJourney(ctx: HostCrashContext): Promise<void> {
  const a = ctx.page;
  let shown: Page = a;
  const step = stepper(ctx.log, (n) => ctx.shotOf(shown, n));
  const chatA = chat('window-a-one');
  const [b2, b3] = [chat('window-b-two'), chat('window-b-three')] as const;

  await step('window-a-chat', async () => {
    await a.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(a, TIMEOUTS.workbench);
    await newChatWith(a, chatA.prompt, chatA.word);
  });

  const b = await ctx.newPage();
  shown = b;
  // B's layout may start as a copy of A's (the browser keeps one layout per folder): then B has its
  // own tab of chat A.
  await step('window-b-two-chats', async () => {
    await b.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(b, TIMEOUTS.workbench);
    const restored = await labelsSettled(b, (labels) => labels.every((l) => l === chatA.prompt), TIMEOUTS.webview);
    if (restored.some((l) => l !== chatA.prompt)) throw new Error(`window B opened with tabs ${JSON.stringify(restored)}`);
    ctx.log(`  window B opened with ${restored.length ? 'its copy of window A\'s tab' : 'no tab'}`);
    for (const c of [b2, b3]) await newChatWith(b, c.prompt, c.word);
  });

  // [name, done before B's reload, done between B's reload and the open]
  const variants: [string, (() => Promise<void>)?, (() => Promise<void>)?][] = [
    ['b-reloaded-opens-b2'],
    // Window A's layout after its reload is the one the browser saved last for the folder (B's,
    // which B just saved): whatever tabs it brings, each must show its own chat.
    ['a-reloaded-too', undefined, async () => {
      await reload(a);
      await everyTabShowsItsChat(a, [chatA, b2, b3], 'window A after its reload', []);
    }],
    // Window A gone, its tab records left in the journal.
    ['a-closed', () => a.close()],
  ];
  for (const [name, beforeReload, meanwhile] of variants) {
    await step(name, async () => {
      try {
        await clickTab(b, b3);
        await beforeReload?.();
        await reload(b);
        // B's layout is the one the browser saved last for the folder: B's own, or, when window A
        // closed after B last saved, A's copy of it. Either way some chat tab is drawn.
        await visible(chatFrame(b).locator('pre.output').first(), 'a chat drawn in window B after its reload', TIMEOUTS.webview);
        ctx.log(`  window B's tabs after its reload: ${JSON.stringify(await tabLabels(b))}`);
        await meanwhile?.();
        await openFromView(b, b2);
        await showsChat(b, b2, "window B's chat two opened from its view");
        await everyTabShowsItsChat(b, [chatA, b2, b3], `window B (${name})`, [b2]);
        if (!a.isClosed()) await everyTabShowsItsChat(a, [chatA, b2, b3], `window A (${name})`, []);
      } catch (e) {
        await ctx.shotOf(b, `${name}-failed`);
        throw e;
      }
    });
  }
}
