/**
 * The extension host dies under open chat tabs, as a user sees it in a real workbench:
 * chat A waits on an approval card, chat B runs a long command (approved). The extension host is
 * first frozen (SIGSTOP): the visible tab says it lost VS Code's extension host and offers no Stop,
 * and says nothing more once the host answers again (SIGCONT). Then it is killed (SIGKILL):
 * code-server starts a new host by itself, and within seconds both tabs, in their old order, show
 * the recovered chats — B "interrupted" with Continue and no Stop, A the restart banner with Retry
 * and no live approval buttons — without a window reload.
 */
import * as fs from 'node:fs';
import type { Page } from 'playwright-core';
import { cardsAbout, stepper, visible } from './steps';
import { chatFrame, waitForWorkbench } from '../harness/codeServer';
import { newLocalChat } from './tabsAfterRestartJourney';
import { TIMEOUTS } from './restartJourney';
import type { TwoWindowsContext } from './twoWindowsJourney';

/** Context of this journey: the code-server process whose extension host it kills. */
export interface HostCrashContext extends TwoWindowsContext {
  /** Pid of the code-server process (extension hosts are its descendants). */
  serverPid: number;
  /** Stops code-server and starts it again on the same port and user data; resolves with its new pid. */
  restartServer(): Promise<number>;
  /** Opens a browser tab in a fresh browser profile (no saved layout). */
  newBrowserPage(): Promise<Page>;
}

/** Settings of this journey: the long command must outlive the steps before the kill. */
export const HOST_CRASH_SETTINGS = { 'nativeAgentChats.local.commandTimeoutMs': 600_000 } as const;

const WAITING_COMMAND = 'touch crash-a.txt && echo chat-a';
const RUNNING_COMMAND = 'sleep 300';
const LOST = "Lost connection to VS Code's extension host";

/**
 * Pids of live processes running `command` in `cwd`: its argv is `command` split at spaces, or a shell
 * running it (`sh -c command`). Only this journey's workspace counts: another run's processes on the
 * machine are not ours. Zombies (empty argv) do not count. Linux /proc only.
 */
function commandPids(command: string, cwd: string): number[] {
  const want = command.split(' ').join(' ');
  const root = fs.realpathSync(cwd);
  return fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e)).map(Number).filter((pid) => {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      const runs = argv.join(' ') === want || (argv.at(-1) === command && /(^|\/)(ba|da)?sh$/.test(argv[0] ?? ''));
      return runs && fs.readlinkSync(`/proc/${pid}/cwd`) === root;
    } catch {
      return false;
    }
  });
}

/**
 * Pids of the extension hosts below `root` (code-server forks them with `--type=extensionHost`).
 * Linux /proc only.
 */
export function extensionHostPids(root: number): number[] {
  const parent = new Map<number, number>();
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      parent.set(Number(e), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone */ }
  }
  const below = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === root) return true;
    return false;
  };
  return [...parent.keys()].filter((pid) => {
    if (!below(pid)) return false;
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('--type=extensionHost');
    } catch {
      return false;
    }
  });
}

/** Labels of the editor tabs, in order, and the active one. */
async function tabLabels(page: Page): Promise<{ labels: string[]; active: string }> {
  const labels = (await page.locator('.part.editor .tabs-container .tab .label-name').allInnerTexts()).map((l) => l.trim());
  const active = (await page.locator('.part.editor .tabs-container .tab.active .label-name').first().innerText({ timeout: TIMEOUTS.ui })).trim();
  return { labels, active };
}

/** Sends `text` in the visible chat. */
async function send(page: Page, text: string): Promise<void> {
  const input = chatFrame(page).locator('#composer textarea');
  await visible(input, '#composer textarea', TIMEOUTS.webview);
  // Send is disabled until the view has the chat (a click before that is ignored).
  await visible(chatFrame(page).locator('.welcome'), 'the new chat\'s welcome', TIMEOUTS.webview);
  await input.fill(text);
  await chatFrame(page).locator('#send').click({ timeout: TIMEOUTS.ui });
}

/** Polls `probe` every 250 ms until it returns a value. @throws Error naming `what` after `timeoutMs`. */
async function until<T>(what: string, timeoutMs: number, probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs / 1000} s: ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Runs the journey. @throws Error naming the failed step. */
export async function hostCrashJourney(ctx: HostCrashContext): Promise<void> {
  const { page } = ctx;
  const step = stepper(ctx.log, ctx.shot);
  let titleA = '';
  let titleB = '';
  let hostPid = 0;
  let commandRan: number[] = [];

  await step('workbench', async () => {
    await page.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(page, TIMEOUTS.workbench);
  });

  await step('chat-a-waiting', async () => {
    await newLocalChat(page);
    await send(page, `run ${WAITING_COMMAND}`);
    await visible(cardsAbout(chatFrame(page), WAITING_COMMAND).last().locator('[data-decision="allow_once"]'), 'chat A\'s pending card', TIMEOUTS.ui);
    titleA = (await tabLabels(page)).active;
  });

  await step('chat-b-running', async () => {
    await newLocalChat(page);
    await send(page, `run ${RUNNING_COMMAND}`);
    const frame = chatFrame(page);
    await (await visible(cardsAbout(frame, RUNNING_COMMAND).last().locator('[data-decision="allow_once"]'), 'chat B\'s card', TIMEOUTS.ui)).click();
    await visible(frame.locator('#stop'), 'Stop while chat B runs', TIMEOUTS.ui);
    titleB = (await tabLabels(page)).active;
    commandRan = await until(`"${RUNNING_COMMAND}" running in the workspace`, TIMEOUTS.ui, () => {
      const pids = commandPids(RUNNING_COMMAND, ctx.workspace);
      return pids.length > 0 ? pids : undefined;
    });
    if (!titleA || titleA === titleB) throw new Error(`expected two chats with distinct titles, got "${titleA}" and "${titleB}"`);
    const hosts = extensionHostPids(ctx.serverPid);
    if (hosts.length !== 1) throw new Error(`expected one extension host below code-server (${ctx.serverPid}), found ${JSON.stringify(hosts)}`);
    hostPid = hosts[0]!;
    ctx.log(`  tabs "${titleA}", "${titleB}"; extension host pid ${hostPid}`);
  });

  await step('host-silent', async () => {
    const frame = chatFrame(page);
    process.kill(hostPid, 'SIGSTOP');
    try {
      await visible(frame.getByText(LOST), `"${LOST}" in chat B while its host is stopped`, 30_000);
      if (await frame.locator('#stop').isVisible()) throw new Error('Stop is still offered while the host does not answer');
    } finally {
      process.kill(hostPid, 'SIGCONT');
    }
    await frame.getByText(LOST).waitFor({ state: 'hidden', timeout: TIMEOUTS.ui })
      .catch(() => { throw new Error(`"${LOST}" still shown ${TIMEOUTS.ui / 1000} s after the host answers again`); });
    await visible(frame.locator('#stop'), 'Stop again once the host answers', TIMEOUTS.ui);
  });

  await step('host-killed', async () => {
    process.kill(hostPid, 'SIGKILL');
    const next = await until('a new extension host started by code-server', 60_000, () => extensionHostPids(ctx.serverPid).find((p) => p !== hostPid));
    ctx.log(`  new extension host pid ${next}`);
  });

  await step('tab-b-recovered', async () => {
    const frame = chatFrame(page);
    await visible(frame.locator('[data-action="continue"]'), 'Continue in chat B (interrupted by the restart)', TIMEOUTS.webview);
    if (await frame.locator('#stop').isVisible()) throw new Error('chat B still offers Stop after the restart');
    // Recovery stopped the command the dead host left running, and the chat says so.
    await visible(frame.locator('.invocation-message', { hasText: 'it was stopped' }), 'the line saying the command was stopped', TIMEOUTS.ui);
    // The processes seen running before the kill are gone (a moment for the kernel to finish them).
    const alive = () => commandPids(RUNNING_COMMAND, ctx.workspace).filter((pid) => commandRan.includes(pid));
    await until(`"${RUNNING_COMMAND}" (pids ${commandRan.join(', ')}) gone after recovery`, 5_000, () => (alive().length === 0 ? true : undefined))
      .catch(() => { throw new Error(`"${RUNNING_COMMAND}" still runs after recovery (pids ${alive().join(', ')} of ${commandRan.join(', ')})`); });
    const { labels, active } = await tabLabels(page);
    if (JSON.stringify(labels) !== JSON.stringify([titleA, titleB])) throw new Error(`tabs are ${JSON.stringify(labels)}, expected ${JSON.stringify([titleA, titleB])}`);
    if (active !== titleB) throw new Error(`the active tab is "${active}", expected "${titleB}"`);
  });

  await step('tab-a-recovered', async () => {
    await page.locator('.part.editor .tabs-container .tab .label-name', { hasText: titleA }).first().click();
    const frame = chatFrame(page);
    await visible(frame.locator('.restart-banner [data-action="retry"]'), 'the restart banner with Retry in chat A', TIMEOUTS.webview);
    const buttons = await cardsAbout(frame, WAITING_COMMAND).locator('[data-decision]:not([disabled])').count();
    if (buttons > 0) throw new Error(`chat A's card still offers ${buttons} decision button(s) the journal already closed`);
  });
}
