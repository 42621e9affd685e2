#!/usr/bin/env node
// Starts Native Agent Chats in a real VS Code (code-server) on this machine, for a newcomer:
//   1. installs what is missing (npm ci if node_modules is absent; chromium, Node 24 and code-server
//      into .vscode-test/ through scripts/ensure-vscode.sh),
//   2. builds the extension (node esbuild.mjs) if dist/ is missing or older than the sources,
//   3. copies a sample workspace (test/fixtures/workspace) to .vscode-test/sample-workspace once
//      (a git repository of its own, so git in a chat never reaches this clone),
//   4. installs the extension into .vscode-test/extensions (a plain copy, replaced on every start),
//   5. serves VS Code on http://127.0.0.1:PORT (env PORT, default 8080, else a free port) and prints
//      the URL to open; runs until Ctrl+C (SIGINT/SIGTERM stop the server and all its processes).
// User data (settings, chats in globalStorage) persists in .vscode-test/user-data across starts.
// Usage: npm start   |   node scripts/start.mjs [folder]   (folder: open this instead of the sample)
// Env: PORT, NAC_CACHE (cache folder, default <repo>/.vscode-test), NAC_VERBOSE=1 (echo server log),
//      NAC_EXTENSION_PATH (install a prebuilt extension folder instead of building this repo).
// Exit code: 0 after Ctrl+C; 1 if a step fails or the server dies (see .vscode-test/code-server.log).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = process.env.NAC_CACHE ? path.resolve(process.env.NAC_CACHE) : path.join(ROOT, '.vscode-test');
process.env.NAC_ROOT = ROOT;
const say = (m) => console.log(`[start] ${m}`);

function run(cmd, args, what) {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${what} failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`})`);
}

/** Newest mtime (ms) of the files under `p` (a file or a folder), 0 if absent. */
function newest(p) {
  let st;
  try { st = fs.statSync(p); } catch { return 0; }
  if (!st.isDirectory()) return st.mtimeMs;
  let m = 0;
  for (const e of fs.readdirSync(p)) m = Math.max(m, newest(path.join(p, e)));
  return m;
}

async function main() {
  if (!fs.existsSync(path.join(ROOT, 'node_modules', 'esbuild'))) {
    say('installing npm dependencies (npm ci)');
    run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], 'npm ci');
  }

  // The harness (test/harness/codeServer.ts) is the one implementation of "start code-server";
  // bundle it on the fly (milliseconds) so start needs no TypeScript compile.
  const esbuild = await import('esbuild');
  const harnessFile = path.join(CACHE, '.harness', 'codeServer.cjs');
  await esbuild.build({
    entryPoints: [path.join(ROOT, 'test', 'harness', 'codeServer.ts')],
    bundle: true, platform: 'node', format: 'cjs', target: 'node20',
    outfile: harnessFile, external: ['playwright-core'], logLevel: 'warning',
  });
  const h = createRequire(import.meta.url)(harnessFile);

  h.ensureInstalled();

  const extensionPath = process.env.NAC_EXTENSION_PATH ? path.resolve(process.env.NAC_EXTENSION_PATH) : ROOT;
  const built = newest(path.join(ROOT, 'dist', 'extension.js'));
  const sources = Math.max(...['src', 'webview', 'esbuild.mjs', 'package.json'].map((p) => newest(path.join(ROOT, p))));
  if (extensionPath === ROOT && (!built || built < sources)) {
    say('building the extension (node esbuild.mjs)');
    run(process.execPath, ['esbuild.mjs'], 'node esbuild.mjs');
  }

  let workspace = process.argv[2] ? path.resolve(process.argv[2]) : path.join(CACHE, 'sample-workspace');
  if (!process.argv[2] && !fs.existsSync(workspace)) {
    h.copyDir(path.join(ROOT, 'test', 'fixtures', 'workspace'), workspace);
    say(`created the sample workspace ${workspace}`);
  }
  if (!fs.existsSync(workspace)) throw new Error(`folder ${workspace} does not exist`);
  workspace = fs.realpathSync(workspace);
  if (!process.argv[2]) ownGitRepository(workspace);

  const extensionsDir = path.join(CACHE, 'extensions');
  const installed = h.installExtension(extensionPath, extensionsDir);
  say(`installed the extension into ${path.relative(ROOT, installed)}`);

  const wanted = Number(process.env.PORT ?? 8080);
  const port = await h.freePort(wanted);
  if (port !== wanted) say(`port ${wanted} is taken; using ${port}`);

  const server = await h.startCodeServer({
    workspace,
    userDataDir: path.join(CACHE, 'user-data'),
    extensionsDir,
    home: path.join(CACHE, 'home'),
    logFile: path.join(CACHE, 'code-server.log'),
    port,
    // A closed or reloading browser tab gets a minute before its extension host is ended.
    reconnectionGraceTime: 60,
    echo: process.env.NAC_VERBOSE === '1',
  });

  let stopping = false;
  const stop = async (signal) => {
    if (stopping) return;
    stopping = true;
    say(`${signal}: stopping code-server`);
    await server.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGHUP', () => void stop('SIGHUP'));

  console.log('');
  console.log(`Open ${server.folderUrl} in your browser`);
  console.log('');
  say('then F1 → "Agent Chats: New Chat" (try `help`, `run ls`, `run touch x && echo ok`).');
  say(`server log: ${server.logFile}. Stop with Ctrl+C.`);

  const code = await server.exited;
  if (!stopping) {
    console.error(`[start] code-server exited unexpectedly (${code}); last output:\n${server.tail().split('\n').slice(-30).join('\n')}`);
    process.exit(1);
  }
}

main().catch((e) => {
  console.error(`[start] ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});

/**
 * Gives the sample workspace a git repository of its own, with one commit. It lives inside this
 * clone, so without one an allowed `git status` or `git commit` in a chat acted on the extension's
 * own repository (a fresh user found that). Does nothing when it has one, or when git is missing.
 */
function ownGitRepository(folder) {
  if (fs.existsSync(path.join(folder, '.git'))) return;
  const git = (...args) => spawnSync('git', ['-c', 'user.name=Native Agent Chats', '-c', 'user.email=sample@localhost', ...args], { cwd: folder, stdio: 'ignore' });
  if (git('init', '-q').status !== 0) return;
  git('add', '-A');
  git('commit', '-q', '-m', 'The sample workspace');
  say(`made the sample workspace a git repository of its own (${folder})`);
}
