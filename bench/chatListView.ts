/**
 * `npm run bench -- --chat-list-view`: what a user with many chats waits for, in code-server and
 * headless Chromium (test/harness/codeServer.ts). For a journal of 10 chats and one of 10,000 (the
 * search bench's many-chats journal, searchRows.ts `buildManyChats`), each in a fresh code-server:
 * 1. activation → ready: from VS Code's log line that it activates the extension (exthost.log) to the
 *    extension's own line that its runtime is ready (`[recovery] startup`, after the journal opened
 *    and recovery ran), both wall-clock times of the extension host, ms resolution; and the
 *    extension's own durations (performance.now()): `activate()` returning (VS Code's activation:
 *    the registrations; the journal opens in the background) and where ready's time went (the
 *    `[startup]` line: the journal's open by phase, then registering and recovery);
 * 2. **Open Chat…** from the command palette, `OPENS` times: the Enter key press in the palette →
 *    the picker's first chat row in the DOM (a MutationObserver in the page) → the next animation
 *    frame (painted), timed in the page.
 * Then VS Code's floor, in a third fresh code-server with only the bench's floor extension
 * (bench/blankWebview) active besides ours on the 10-chat journal: its **Bench: Show Quick Pick** (100
 * items in memory, shaped like Open Chat…'s) timed the same way, `OPENS` times; the first is that
 * window's first command and first quick pick, as Open Chat…'s first is.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { loadSqlJs } from '../src/journal/sqljs';
import { copyDir, ensureInstalled, installExtension, launchBrowser, repoRoot, runCommand, startCodeServer, tempDir, waitForWorkbench } from '../test/harness/codeServer';
import { journalFolder } from './longChatSeed';
import { buildManyChats } from './searchRows';

/** Times Open Chat… is run per journal (the first is the host's first). */
const OPENS = 6;
const TIMEOUT_MS = 120_000;
/** The newest chat of `buildManyChats` journals: the picker's first row. */
const NEWEST_TITLE = 'Benchmark chat';

/** One journal's figures (ms). */
export interface ChatListViewRun {
  readonly chats: number;
  readonly journalBytes: number;
  /** VS Code activates the extension → its runtime is ready (journal open, recovery done). */
  readonly activationToReadyMs: number;
  /** The extension's `[activation]` and `[startup]` log lines (its own durations). */
  readonly startupLines: readonly string[];
  /** Enter in the palette → the first chat row in the DOM, and → painted, per open. */
  readonly openList: { readonly domMs: number; readonly paintedMs: number }[];
}

/** The whole run. */
export interface ChatListViewResult {
  readonly date: string;
  readonly load: { readonly start: number; readonly end: number };
  readonly runs: readonly ChatListViewRun[];
  /** The floor extension's quick pick, per open (Enter → its first row in the DOM, and painted). */
  readonly floor: readonly { readonly domMs: number; readonly paintedMs: number }[];
}

/** The palette label of Open Chat…, and of the floor extension's quick pick. */
const OPEN_CHAT = 'Agent Chats: Open Chat…';
const FLOOR_PICK = 'Bench: Show Quick Pick';

/** The first `YYYY-MM-DD HH:MM:SS.mmm` time of a line of `file` holding `needle` (ms since the epoch, local time), or undefined. */
function loggedAt(file: string, needle: string): number | undefined {
  const line = fs.readFileSync(file, 'utf8').split('\n').find((l) => l.includes(needle));
  const m = line?.match(/^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3})/);
  return m ? new Date(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, +m[7]!).getTime() : undefined;
}

/** Every file under `dir`. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

/** Waits until both log lines exist under `logs`; returns activation → ready (ms). */
async function activationToReady(logs: string): Promise<number> {
  for (const deadline = Date.now() + TIMEOUT_MS; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
    let activated: number | undefined;
    let ready: number | undefined;
    for (const f of filesUnder(logs)) {
      activated ??= loggedAt(f, '_doActivateExtension native-agent-chats.native-agent-chats');
      ready ??= loggedAt(f, '[recovery] startup');
    }
    if (activated !== undefined && ready !== undefined) return ready - activated;
  }
  throw new Error(`no activation and ready lines in ${logs}`);
}

/** The extension's `[activation]` and `[startup]` lines under `logs`, without their time stamps. */
function startupLines(logs: string): string[] {
  return filesUnder(logs).flatMap((f) => fs.readFileSync(f, 'utf8').split('\n'))
    .map((l) => l.match(/\[(?:activation|startup)\] .*/)?.[0]).filter((l): l is string => l !== undefined);
}

/** Runs `command` (Open Chat…, or the floor's quick pick) from the palette; Enter → the first chat row in the DOM, and painted (timed in the page). */
async function openListTimed(page: Page, command = OPEN_CHAT): Promise<{ domMs: number; paintedMs: number }> {
  await page.evaluate((title) => {
    const now = () => performance.timeOrigin + performance.now();
    const w = window as unknown as { __nacList?: { enterAt?: number; domAt?: number; paintedAt?: number } };
    const state: { enterAt?: number; domAt?: number; paintedAt?: number } = {};
    w.__nacList = state;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Enter' && state.enterAt === undefined) state.enterAt = now();
    };
    window.addEventListener('keydown', onKey, true);
    const found = () => {
      const input = document.querySelector('.quick-input-widget input.input[placeholder="Open a chat"]');
      return !!input && [...document.querySelectorAll('.quick-input-list .monaco-list-row')].some((r) => (r.textContent ?? '').includes(title));
    };
    const observer = new MutationObserver(() => {
      if (state.enterAt === undefined || state.domAt !== undefined || !found()) return;
      state.domAt = now();
      observer.disconnect();
      window.removeEventListener('keydown', onKey, true);
      requestAnimationFrame(() => setTimeout(() => (state.paintedAt = now()), 0));
    });
    observer.observe(document.body, { childList: true, subtree: true, characterData: true, attributes: true });
  }, NEWEST_TITLE);
  await runCommand(page, command, TIMEOUT_MS);
  const handle = await page.waitForFunction(() => {
    const s = (window as unknown as { __nacList?: { enterAt?: number; domAt?: number; paintedAt?: number } }).__nacList;
    return s?.paintedAt !== undefined ? s : undefined;
  }, undefined, { timeout: TIMEOUT_MS });
  const s = (await handle.jsonValue()) as { enterAt: number; domAt: number; paintedAt: number };
  await page.keyboard.press('Escape');
  await page.locator('.quick-input-widget input.input').waitFor({ state: 'hidden', timeout: TIMEOUT_MS }).catch(() => undefined);
  return { domMs: s.domAt - s.enterAt, paintedMs: s.paintedAt - s.enterAt };
}

/** One fresh code-server on a journal of `chats` chats; `floor`: time the floor extension's quick pick instead of Open Chat…. */
async function runOne(chats: number, log: (line: string) => void, floor = false): Promise<ChatListViewRun> {
  const tmp = tempDir('nac-bench-list-');
  try {
    const workspace = path.join(tmp, 'workspace');
    copyDir(path.join(repoRoot(), 'test', 'fixtures', 'workspace'), workspace);
    const userDataDir = path.join(tmp, 'user-data');
    const file = path.join(journalFolder(userDataDir), 'journal.sqlite');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const SQL = await loadSqlJs(path.join(path.dirname(require.resolve('sql.js')), 'sql-wasm.wasm'));
    const built = buildManyChats(SQL, file, chats);
    if (floor) installExtension(path.join(repoRoot(), 'bench', 'blankWebview'), path.join(tmp, 'extensions'));
    const server = await startCodeServer({ workspace, userDataDir, installExtensionFrom: repoRoot(), settings: { 'chat.disableAIFeatures': true, 'window.confirmBeforeClose': 'never' } });
    const browser = await launchBrowser();
    try {
      const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
      await page.goto(server.folderUrl, { timeout: TIMEOUT_MS });
      await waitForWorkbench(page, TIMEOUT_MS);
      const activationToReadyMs = await activationToReady(path.join(userDataDir, 'logs'));
      const openList: { domMs: number; paintedMs: number }[] = [];
      for (let i = 0; i < OPENS; i++) openList.push(await openListTimed(page, floor ? FLOOR_PICK : OPEN_CHAT));
      const lines = startupLines(path.join(userDataDir, 'logs'));
      log(`[${floor ? `floor: ${FLOOR_PICK}, ` : ''}${built.chats} chats] activation -> ready ${activationToReadyMs} ms; Open Chat… list painted ${openList.map((o) => o.paintedMs.toFixed(0)).join(', ')} ms\n  ${lines.join('\n  ')}`);
      return { chats: built.chats, journalBytes: built.bytes, activationToReadyMs, startupLines: lines, openList };
    } finally {
      await browser.close().catch(() => undefined);
      await server.stop();
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Runs the bench (see module docstring) for 10 and 10,000 chats. */
export async function benchChatListView(log: (line: string) => void): Promise<ChatListViewResult> {
  ensureInstalled();
  const start = os.loadavg()[0]!;
  const runs: ChatListViewRun[] = [];
  for (const chats of [10, 10_000]) runs.push(await runOne(chats, log));
  const floor = (await runOne(10, log, true)).openList;
  return { date: new Date().toISOString(), load: { start, end: os.loadavg()[0]! }, runs, floor };
}

/** An open's list as "first; the others" (painted, ms), and the median of the others. */
function opensCell(list: readonly { readonly paintedMs: number }[]): { cell: string; laterMedian: number } {
  const later = list.slice(1).map((o) => o.paintedMs);
  const sorted = [...later].sort((x, y) => x - y);
  const laterMedian = sorted[sorted.length >> 1] ?? Number.NaN;
  return { cell: `${list[0]?.paintedMs.toFixed(0) ?? 'n/a'}; ${later.map((m) => m.toFixed(0)).join(', ')} (median ${laterMedian.toFixed(0)})`, laterMedian };
}

/** Open Chat…'s target: the first row painted within this many ms with 10,000 chats. */
const OPEN_TARGET_MS = 100;

/** The section of docs/BENCHMARKS.md (a `##` heading, its method and its table), from the figures in bench/results.json. */
export function chatListMarkdown(r: ChatListViewResult): string {
  const met = (ok: boolean) => (ok ? 'met' : 'NOT MET');
  const rows = r.runs.map((run) => {
    const opens = opensCell(run.openList);
    const first = run.openList[0]?.paintedMs ?? Number.NaN;
    const target = run.chats >= 10_000 ? `<= ${OPEN_TARGET_MS} ms` : '';
    const verdict = run.chats >= 10_000 ? `first ${met(first <= OPEN_TARGET_MS)}; later ${met(opens.laterMedian <= OPEN_TARGET_MS)} (median)` : '';
    return `| Open Chat…, ${run.chats.toLocaleString('en-US')} chats (${(run.journalBytes / 1048576).toFixed(1)} MB journal): Enter in the palette → first row painted, first; the other ${run.openList.length - 1} (ms) | ${opens.cell} | ${target} | ${verdict} |`;
  });
  const ready = r.runs.map((run) => `${run.activationToReadyMs.toFixed(0)}`).join(' / ');
  const activate = r.runs.map((run) => run.startupLines.find((l) => l.startsWith('[activation]')) ?? 'no [activation] line').join(' / ');
  return `## Chat list in code-server (\`npm run bench -- --chat-list-view\`)

bench/chatListView.ts: one fresh code-server and headless Chromium per journal (the search bench's many-chats journal,
\`buildManyChats\`: 1-3 turns per chat, 7 workspaces), Open Chat… run ${r.runs[0]?.openList.length ?? 0} times from the palette; then
VS Code's floor, a third fresh code-server where the bench's floor extension (bench/blankWebview) shows a quick pick of 100
items it holds in memory, the same way; the floor's figures set beside Open Chat…'s show how much of them is VS Code's own.

| metric | figure | target | verdict |
|---|---|---|---|
${rows.join('\n')}
| VS Code's floor: a quick pick of 100 items in memory, first; the other ${r.floor.length - 1} (ms) | ${opensCell(r.floor).cell} | | |
| activation → ready (VS Code's \`_doActivateExtension\` line → the \`[recovery] startup\` line), ${r.runs.map((run) => run.chats.toLocaleString('en-US')).join(' / ')} chats (ms) | ${ready} | | |
| the extension's own \`[activation]\` line, ${r.runs.map((run) => run.chats.toLocaleString('en-US')).join(' / ')} chats | ${activate.replace(/\|/g, '\\|')} | | |
`;
}
