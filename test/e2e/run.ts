/**
 * End-to-end runner: the journeys (test/e2e/restartJourney.ts, twoWindowsJourney.ts, historyJourney.ts, brokenJournalJourney.ts,
 * hostCrashJourney.ts, queueJourney.ts, repairJourney.ts, …) in Chromium against
 * code-server with the extension installed normally (copied into a fresh extensions dir) and a
 * temp copy of test/fixtures/workspace.
 *
 * Usage: node out/test/e2e/run.js      (after `npx tsc -p .` and `node esbuild.mjs`)
 * Env: NAC_E2E_TIMEOUT_MS (whole journey, default 300000 or JOURNEY_TIMEOUT_MS), NAC_HEADED=1 (visible browser, needs a
 *      display), NAC_EXTENSION_PATH (extension folder to install, default the repo), NAC_KEEP_TMP=1.
 * Env NAC_E2E_ONLY=<name>[,<name>…] runs those journeys (names in JOURNEYS below: restart, two-windows, host-crash, tabs-after-restart, …);
 *      a name that is no journey counts as a failure.
 * Env NAC_E2E_JOBS=<n> (1-8, default DEFAULT_JOBS) journeys at once, each still with its own code-server
 *      (own port), browser, user data, temp folder and artifacts folder. Every line a journey prints
 *      starts with its name (`[e2e 12.3 s] history: …`, `[e2e] history: server| …`), so interleaved
 *      output stays readable.
 * Env NAC_E2E_REPEAT=<n> (1-100) runs each chosen journey n times (`history-1` … `history-n`, own
 *      artifacts folders): how a journey's flakiness is counted.
 * Artifacts: test-artifacts/e2e/<journey>/NN-<step>.png, console.log (browser console), on failure
 *      NN-failure.png (and NN-failure-b.png, -c.png of a second window or profile still open),
 *      failure-webview.html and code-server.log.
 * Output: one `[e2e] passed|FAILED <journey> (N s)` line per journey in JOURNEYS order, then
 *      `N passed, N failed` (one per journey), then the wall time. Exit code 0 when all pass.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  copyDir, ensureInstalled, freePort, installExtension, launchBrowser, repoRoot, startCodeServer, tempDir, withTimeout, type CodeServer,
} from '../harness/codeServer';
import { brokenJournalJourney, seedSchema1Journal } from './brokenJournalJourney';
import { restartJourney } from './restartJourney';
import { twoWindowsJourney } from './twoWindowsJourney';
import { historyJourney } from './historyJourney';
import { tabsAfterRestartJourney } from './tabsAfterRestartJourney';
import { tabIdentityJourney, twoWindowTabsJourney } from './tabIdentityJourney';
import { HOST_CRASH_SETTINGS, hostCrashJourney, type HostCrashContext } from './hostCrashJourney';
import { agentRestartJourney, claudeRestartJourney, lmContinueJourney, prepareClaudeJourney } from './claudeRestartJourney';
import { longChatJourney, seedLongChatJournal } from './longChatJourney';
import { queueJourney } from './queueJourney';
import { repairJourney, seedDamagedJournal } from './repairJourney';
import { modelEditJourney, prepareModelEditJourney } from './modelEditJourney';
import { checkpointsJourney } from './checkpointsJourney';
import { attachmentJourney } from './attachmentJourney';

type Journey = (ctx: HostCrashContext) => Promise<void>;

/** Per-journey setup before code-server starts (a mock model server, settings and env for it). */
type Prepare = () => Promise<{
  settings: Record<string, unknown>;
  env: Record<string, string>;
  install?: string[];
  /** Writes files into the user data folder before code-server starts (e.g. an old journal). */
  seed?(userDataDir: string): Promise<void>;
  dispose(): Promise<void>;
}>;

/**
 * Journeys that need more than the default 300 s (ms): tab-identity reloads the window four times
 * and restarts code-server once, drawing every tab after each.
 */
const JOURNEY_TIMEOUT_MS: Readonly<Record<string, number>> = { 'tab-identity': 600_000, 'two-window-tabs': 480_000 };

/** The journeys, in order; each gets its own code-server, user data and workspace copy. */
const JOURNEYS: readonly [string, Journey, Prepare?][] = [
  ['restart', restartJourney],
  ['two-windows', twoWindowsJourney],
  ['history', historyJourney],
  ['broken-journal', brokenJournalJourney, async () => ({ settings: {}, env: {}, seed: seedSchema1Journal, dispose: async () => undefined })],
  ['host-crash', hostCrashJourney, async () => ({ settings: { ...HOST_CRASH_SETTINGS }, env: {}, dispose: async () => undefined })],
  ['tabs-after-restart', tabsAfterRestartJourney],
  ['tab-identity', tabIdentityJourney],
  ['two-window-tabs', twoWindowTabsJourney],
  ['queue', queueJourney],
  ['repair', repairJourney, async () => ({ settings: {}, env: {}, seed: seedDamagedJournal, dispose: async () => undefined })],
  ['model-edit', modelEditJourney, prepareModelEditJourney],
  ['checkpoints', checkpointsJourney],
  ['attachments', attachmentJourney],
  ['long-chat', longChatJourney, async () => ({ settings: {}, env: {}, seed: seedLongChatJournal, dispose: async () => undefined })],
  ['claude-restart', claudeRestartJourney, async () => {
    const setup = await prepareClaudeJourney();
    return { settings: setup.settings, env: setup.env, dispose: () => setup.mock.close() };
  }],
  // VS Code's Language Model API, with a scripted model registered by a test extension.
  ['vscode-lm-restart', (ctx) => agentRestartJourney(ctx, {
    agent: 'VS Code language model',
    prompt: 'please run touch lm-proof.txt && echo lm-made-it',
    command: 'touch lm-proof.txt && echo lm-made-it',
    proofFile: 'lm-proof.txt',
    output: 'lm-made-it',
    finalReply: 'The tool said: lm-made-it',
  }), async () => ({
    settings: { 'nativeAgentChats.vscodeLm.vendor': 'nac-test' },
    env: {},
    install: [path.join(repoRoot(), 'test', 'fixtures', 'lm-provider')],
    dispose: async () => undefined,
  })],
  ['vscode-lm-continue', lmContinueJourney, async () => ({
    settings: { 'nativeAgentChats.vscodeLm.vendor': 'nac-test' },
    env: {},
    install: [path.join(repoRoot(), 'test', 'fixtures', 'lm-provider')],
    dispose: async () => undefined,
  })],
];

/**
 * How many journeys run at once (env `NAC_E2E_JOBS`, default {@link DEFAULT_JOBS}). Each has its own
 * code-server, port, browser, user data, temp folder and artifacts folder, so they share nothing but
 * the machine.
 * @throws Error when the variable is not a whole number from 1 to 8.
 */
function jobs(): number {
  return wholeNumberEnv('NAC_E2E_JOBS', DEFAULT_JOBS, 8);
}

/**
 * The whole number in env `name`, `fallback` when unset or empty.
 * @throws Error when it is not a whole number from 1 to `max`.
 */
function wholeNumberEnv(name: string, fallback: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`${name} must be a whole number from 1 to ${max}, not ${JSON.stringify(raw)}`);
  return n;
}

/**
 * Journeys at once by default. One: on these 2 cores two at once finished no sooner (the first five
 * journeys in 238 s against 234 s one at a time; docs/BENCHMARKS-HISTORY.md, "The test run"), since a
 * journey's browser, server and extension host already keep both cores busy. More cores: try 2.
 */
const DEFAULT_JOBS = 1;

/** Cleanups of the journeys now running, all run on SIGINT/SIGTERM before the process exits. */
const running = new Set<() => Promise<void>>();
let stopping = false;
function onSignal(): void {
  if (stopping) return;
  stopping = true;
  void Promise.allSettled([...running].map((c) => c())).finally(() => process.exit(130));
}

async function main(): Promise<number> {
  const t0 = Date.now();
  const root = repoRoot();
  const extensionPath = path.resolve(process.env.NAC_EXTENSION_PATH ?? root);
  if (!fs.existsSync(path.join(extensionPath, 'dist', 'extension.js'))) {
    console.error(`[e2e] ${extensionPath}/dist/extension.js is missing: run \`node esbuild.mjs\` first`);
    return 2;
  }
  const pool = jobs();
  ensureInstalled();
  const artifactsRoot = path.join(root, 'test-artifacts', 'e2e');
  fs.rmSync(artifactsRoot, { recursive: true, force: true });
  const only = process.env.NAC_E2E_ONLY?.split(',');
  // NAC_E2E_REPEAT=n runs each chosen journey n times (`history-1` … `history-n`, each with its own
  // artifacts folder): how a journey's flakiness is measured.
  const repeat = wholeNumberEnv('NAC_E2E_REPEAT', 1, 100);
  const chosen = JOURNEYS.filter(([name]) => !only || only.includes(name)).flatMap(([name, journey, prepare]) =>
    Array.from({ length: repeat }, (_, k) => ({ name, label: repeat === 1 ? name : `${name}-${k + 1}`, journey, prepare })));
  const unknown = (only ?? []).filter((n) => !JOURNEYS.some(([name]) => name === n));
  if (unknown.length > 0) console.error(`[e2e] NAC_E2E_ONLY names no journey called ${unknown.join(', ')}`);
  console.log(`[e2e] ${chosen.length} journey(s), ${Math.min(pool, chosen.length)} at a time (NAC_E2E_JOBS=${pool})`);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The journeys in JOURNEYS order, `pool` at a time: the longest ones (tab-identity, two-window-tabs)
  // sit in the middle, so a pool of 2 or 3 ends with short ones and finishes together.
  const results = new Map<string, { ok: boolean; seconds: number }>();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < chosen.length; i = next++) {
      const { name, label, journey, prepare } = chosen[i]!;
      const t = Date.now();
      const timeoutMs = Number(process.env.NAC_E2E_TIMEOUT_MS ?? JOURNEY_TIMEOUT_MS[name] ?? 300_000);
      const ok = await runJourney(label, journey, extensionPath, path.join(artifactsRoot, label), t0, timeoutMs, prepare);
      results.set(label, { ok, seconds: (Date.now() - t) / 1000 });
    }
  };
  await Promise.all(Array.from({ length: Math.min(pool, chosen.length) }, worker));
  for (const { label } of chosen) {
    const r = results.get(label)!;
    console.log(`[e2e] ${r.ok ? 'passed' : 'FAILED'} ${label} (${r.seconds.toFixed(1)} s)`);
  }
  const passedCount = [...results.values()].filter((r) => r.ok).length;
  const failedCount = results.size - passedCount + unknown.length;
  console.log(`${passedCount} passed, ${failedCount} failed`);
  console.log(`[e2e] wall time ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return failedCount === 0 ? 0 : 1;
}

/** Runs one journey against a fresh code-server; returns whether it passed. Never throws. */
async function runJourney(name: string, journey: Journey, extensionPath: string, artifacts: string, t0: number, timeoutMs: number, prepare?: Prepare): Promise<boolean> {
  const root = repoRoot();
  fs.mkdirSync(artifacts, { recursive: true });
  const consoleLog = fs.openSync(path.join(artifacts, 'console.log'), 'w');

  const tmp = tempDir('nac-e2e-');
  const workspace = path.join(tmp, 'workspace');
  copyDir(path.join(root, 'test', 'fixtures', 'workspace'), workspace);

  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let prepared: Awaited<ReturnType<Prepare>> | undefined;
  let passed = false;
  let shots = 0;
  /** Console lines where the chat view's Content Security Policy refused something (a journey with any fails). */
  const ownCsp: string[] = [];
  const log = (m: string) => console.log(`[e2e ${((Date.now() - t0) / 1000).toFixed(1).padStart(5)} s] ${name}: ${m}`);
  // Once, whether the journey ends or a signal comes first.
  let cleaning: Promise<void> | undefined;
  const cleanup = () => (cleaning ??= (async () => {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    await prepared?.dispose().catch(() => undefined);
    try { fs.closeSync(consoleLog); } catch { /* closed */ }
    if (passed && process.env.NAC_KEEP_TMP !== '1') fs.rmSync(tmp, { recursive: true, force: true });
    else console.error(`[e2e] ${name}: kept ${tmp}`);
  })());
  running.add(cleanup);

  let page: Page | undefined;
  /** Every page the journey opened, by its console tag (a, b, c): each one still open is shot on failure. */
  const pages: [string, Page][] = [];
  try {
    prepared = await prepare?.();
    for (const extra of prepared?.install ?? []) installExtension(extra, path.join(tmp, 'extensions'));
    await prepared?.seed?.(path.join(tmp, 'user-data'));
    const serverOptions = {
      workspace,
      userDataDir: path.join(tmp, 'user-data'),
      extensionsDir: path.join(tmp, 'extensions'),
      home: path.join(tmp, 'home'),
      logFile: path.join(tmp, 'code-server.log'),
      settings: { 'chat.disableAIFeatures': true, 'window.confirmBeforeClose': 'never', ...(prepared?.settings ?? {}) },
      ...(prepared ? { env: prepared.env } : {}),
    };
    server = await startCodeServer({ ...serverOptions, installExtensionFrom: extensionPath });
    // Like Ctrl+C and `npm start` again: same user data, same port (the browser keeps its layout per origin).
    const restartServer = async () => {
      const port = server!.port;
      await server!.stop();
      // Its processes may hold the port a moment after the server exited.
      for (const deadline = Date.now() + 20_000; (await freePort(port)) !== port && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 250));
      server = await startCodeServer({ ...serverOptions, port });
      if (server.port !== port) throw new Error(`code-server came back on port ${server.port}, not ${port}: the browser would not restore its layout`);
      return server.pid;
    };
    log(`code-server on ${server.url}`);
    browser = await launchBrowser();
    // One context for the whole journey: webview/editor restore state lives in its IndexedDB.
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const watch = (p: Page, tag: string) => {
      pages.push([tag, p]);
      p.on('dialog', (d) => { void d.accept().catch(() => undefined); });
      p.on('console', (m) => {
        // The chat view's own policy is the one with a style nonce: anything it refuses is ours to fix.
        if (/Content Security Policy/.test(m.text()) && /style-src [^;]*'nonce-/.test(m.text())) ownCsp.push(m.text());
        try { fs.writeSync(consoleLog, `[${tag} ${m.type()}] ${m.text()}\n`); } catch { /* closed */ }
      });
      p.on('pageerror', (e) => { try { fs.writeSync(consoleLog, `[${tag} pageerror] ${e.message}\n`); } catch { /* closed */ } });
      return p;
    };
    page = watch(await context.newPage(), 'a');
    const p = page;
    const shotOf = async (target: Page, step: string) => {
      shots++;
      await target.screenshot({ path: path.join(artifacts, `${String(shots).padStart(2, '0')}-${step}.png`), timeout: 15_000 }).catch((e) => log(`screenshot failed: ${e}`));
    };
    await withTimeout(
      journey({
        page: p,
        workspace,
        url: server.folderUrl,
        log,
        shot: (step) => shotOf(p, step),
        shotOf,
        newPage: async () => watch(await context.newPage(), 'b'),
        // Another browser profile: none of the first one's saved layout or webview state.
        newBrowserPage: async () => watch(await (await browser!.newContext({ viewport: { width: 1400, height: 900 } })).newPage(), 'c'),
        serverPid: server.pid,
        restartServer,
      }),
      timeoutMs,
      `the ${name} journey did not finish`,
    );
    if (ownCsp.length > 0) throw new Error(`the chat view's Content Security Policy refused ${ownCsp.length} thing(s), first: ${ownCsp[0]!.slice(0, 200)}`);
    passed = true;
  } catch (e) {
    console.error(`[e2e] ${name} FAILED: ${e instanceof Error ? e.message : String(e)}`);
    for (const [tag, open] of pages) {
      if (open.isClosed()) continue;
      const file = `${String(shots + 1).padStart(2, '0')}-failure${tag === 'a' ? '' : `-${tag}`}.png`;
      await open.screenshot({ path: path.join(artifacts, file), timeout: 15_000 }).catch(() => undefined);
    }
    if (page) {
      const html = await page.locator('iframe.webview.ready').first().contentFrame().locator('#active-frame').contentFrame()
        .locator('html').evaluate((el) => el.outerHTML, undefined, { timeout: 5000 }).catch(() => '(no webview)');
      fs.writeFileSync(path.join(artifacts, 'failure-webview.html'), html);
    }
    if (server) {
      try { fs.copyFileSync(server.logFile, path.join(artifacts, 'code-server.log')); } catch { /* none */ }
      // One write, each line tagged: other journeys print between two console calls.
      console.error(server.tail().split('\n').slice(-30).map((l) => `[e2e] ${name}: server| ${l}`).join('\n'));
    }
    console.error(`[e2e] ${name}: artifacts in ${path.relative(process.cwd(), artifacts) || artifacts}`);
  } finally {
    // Still in `running` while it runs (it runs once: a signal meanwhile waits for the same
    // promise), so an interrupt during it does not exit before the journey's folders are gone.
    await cleanup();
    running.delete(cleanup);
  }
  return passed;
}

main().then((code) => process.exit(code), (e) => {
  console.error(`[e2e] crashed: ${e instanceof Error ? e.stack : String(e)}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
});
