/**
 * Runs the integration suite (out/test/suite/index.js, mocha) inside code-server's real extension
 * host, the equivalent of @vscode/test-electron's `runTests` on machines that cannot download
 * desktop VS Code.
 *
 * How: code-server with `--vscode-option enable-smoke-test-driver`, a fresh user-data-dir, a copy
 * of the fixture workspace; Chromium (Playwright) opens the workbench with a `payload` naming the
 * repo as `extensionDevelopmentPath` and the suite as `extensionTestsPath`; the extension host
 * console arrives through `codeAutomationLog`, the result through `codeAutomationExit`.
 *
 * Usage: node out/test/runInCodeServer.js     (after `npx tsc -p .` and `node esbuild.mjs`)
 * Env: NAC_SUITE_TIMEOUT_MS (default 180000), NAC_EXTENSION_PATH (extension to load, default the repo), NAC_SUITE_GREP (mocha grep), NAC_KEEP_TMP=1 keeps the
 *      temp folder, NAC_VERBOSE=1 echoes the server log.
 * Output: mocha's report, then `N passed, N failed`. Exit code 0 only if the suite ran and passed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as util from 'node:util';
import {
  ensureInstalled, installExtension, launchBrowser, payloadUrl, repoRoot, startCodeServer, tempDir, copyDir, withTimeout,
  type CodeServer,
} from './harness/codeServer';

const RESULT_PREFIX = 'NAC_SUITE_RESULT ';
const START_MARKER = 'NAC_SUITE_START';
/** Workbench log lines that are not the suite's business. */
const NOISE = [/^\[(AgentHost|ChatModelSelection|AccountPolicyGate)/, /ENOTFOUND open-vsx\.org/, /^\[Service Worker\]/];

interface Result { passed: number; failed: number; pending: number }


async function main(): Promise<number> {
  const t0 = Date.now();
  const root = repoRoot();
  const timeoutMs = Number(process.env.NAC_SUITE_TIMEOUT_MS ?? 180_000);
  const suite = path.join(root, 'out', 'test', 'suite', 'index.js');
  const extensionPath = path.resolve(process.env.NAC_EXTENSION_PATH ?? root);
  for (const f of [suite, path.join(extensionPath, 'dist', 'extension.js')]) {
    if (!fs.existsSync(f)) {
      console.error(`[suite] ${path.relative(root, f)} is missing: run \`npx tsc -p .\` and \`node esbuild.mjs\` first`);
      return 2;
    }
  }
  ensureInstalled();

  const tmp = tempDir('nac-suite-');
  const workspace = path.join(tmp, 'workspace');
  copyDir(path.join(root, 'test', 'fixtures', 'workspace'), workspace);
  let server: CodeServer | undefined;
  let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  let result: Result | undefined;
  let exitCode: number | undefined;
  let keep = process.env.NAC_KEEP_TMP === '1';
  const cleanup = async () => {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    if (!keep && result?.failed === 0) fs.rmSync(tmp, { recursive: true, force: true });
    else console.error(`[suite] kept ${tmp} (server log, automation.log, user data)`);
  };
  const onSignal = () => { void cleanup().finally(() => process.exit(130)); };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    // A scripted language model (test/fixtures/lm-provider) for the vscode.lm provider's tests.
    installExtension(path.join(repoRoot(), 'test', 'fixtures', 'lm-provider'), path.join(tmp, 'extensions'));
    server = await startCodeServer({
      workspace,
      userDataDir: path.join(tmp, 'user-data'),
      extensionsDir: path.join(tmp, 'extensions'),
      home: path.join(tmp, 'home'),
      logFile: path.join(tmp, 'code-server.log'),
      extensionDevelopmentPath: extensionPath,
      smokeTestDriver: true,
      echo: process.env.NAC_VERBOSE === '1',
      settings: { 'chat.disableAIFeatures': true },
    });
    console.log(`[suite] code-server on ${server.url} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    browser = await launchBrowser();
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();

    let resolveExit!: (code: number) => void;
    const exitP = new Promise<number>((r) => { resolveExit = r; });
    // Every workbench log line arrives here too; show only what the suite prints (after its start
    // marker) minus known workbench noise. Everything goes to <tmp>/automation.log.
    const rawLog = path.join(tmp, 'automation.log');
    let started = false;
    let finished = false;
    await page.exposeFunction('codeAutomationLog', (type: unknown, args: unknown) => {
      const line = Array.isArray(args) ? util.format(...(args as unknown[])) : String(args);
      fs.appendFileSync(rawLog, `[${String(type)}] ${line}\n`);
      if (line.includes(START_MARKER)) { started = true; return; }
      const i = line.indexOf(RESULT_PREFIX);
      if (i >= 0) {
        try { result = JSON.parse(line.slice(i + RESULT_PREFIX.length).split('\n')[0]!) as Result; } catch { /* malformed */ }
        return;
      }
      if (finished || (!started && process.env.NAC_VERBOSE !== '1') || NOISE.some((re) => re.test(line))) return;
      (type === 'error' ? process.stderr : process.stdout).write(`${line}\n`);
    });
    await page.exposeFunction('codeAutomationExit', (code: number) => { finished = true; resolveExit(Number(code)); });
    page.on('pageerror', (e) => console.error(`[suite] page error: ${e.message}`));

    await page.goto(payloadUrl(server, extensionPath, suite), { timeout: 60_000 });
    exitCode = await withTimeout(
      Promise.race([exitP, server.exited.then((c) => { throw new Error(`code-server exited (${c}) during the suite`); })]),
      timeoutMs,
      'the suite did not report codeAutomationExit: the payload may have been ignored or a test hangs',
    );
  } catch (e) {
    console.error(`[suite] FAILED: ${e instanceof Error ? e.message : String(e)}`);
    console.error(`[suite] workbench log: ${path.join(tmp, 'automation.log')} (kept)`);
    keep = true;
    if (server) console.error(`[suite] last server output (${server.logFile}):\n${server.tail().split('\n').slice(-40).join('\n')}`);
  } finally {
    await cleanup();
  }

  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  if (!result) {
    console.error(`[suite] no result line from the suite (exit code ${exitCode ?? 'none'})`);
    console.log(`0 passed, 1 failed`);
    console.log(`[suite] wall time ${secs} s`);
    return 1;
  }
  console.log(`${result.passed} passed, ${result.failed} failed${result.pending ? `, ${result.pending} pending` : ''}`);
  console.log(`[suite] wall time ${secs} s`);
  return exitCode === 0 && result.failed === 0 ? 0 : 1;
}

main().then((code) => process.exit(code), (e) => {
  console.error(`[suite] crashed: ${e instanceof Error ? e.stack : String(e)}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
});
