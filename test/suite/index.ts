/**
 * The extension's integration suite entry, in `@vscode/test-electron`'s layout: the extension host
 * (desktop VS Code via test/runTest.ts, or code-server via test/runInCodeServer.ts) loads this
 * module as `extensionTestsPath` and awaits `run()`.
 *
 * Runs mocha 11 (TDD UI: `suite`/`test`) over every `out/test/suite/**\/*.test.js`, 60 s per test,
 * spec reporter on the console (which code-server forwards to `codeAutomationLog`), then prints one
 * machine-readable line (after a `NAC_SUITE_START` marker at the beginning): `NAC_SUITE_RESULT {"passed":N,"failed":N,"pending":N}`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

/** Prefix of the summary line test/runInCodeServer.ts parses. */
export const RESULT_PREFIX = 'NAC_SUITE_RESULT ';
/** Printed before mocha starts; test/runInCodeServer.ts shows host output only after it. */
export const START_MARKER = 'NAC_SUITE_START';

function findTests(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...findTests(p));
    else if (e.isFile() && e.name.endsWith('.test.js')) out.push(p);
  }
  return out.sort();
}

/**
 * Runs the suite. Env `NAC_SUITE_GREP` (a regexp) limits it to matching tests.
 * @returns resolves when every test passed.
 * @throws Error `"N of M tests failed"` if any failed, or if no test file was found.
 */
export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'tdd', timeout: 60_000, color: false, reporter: 'spec' });
  if (process.env.NAC_SUITE_GREP) mocha.grep(new RegExp(process.env.NAC_SUITE_GREP));
  const files = findTests(__dirname);
  if (files.length === 0) return Promise.reject(new Error(`no *.test.js under ${__dirname}`));
  for (const f of files) mocha.addFile(f);
  console.log(`${START_MARKER} ${files.length} file(s)`);
  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        const s = runner.stats ?? { passes: 0, failures, pending: 0, tests: 0 };
        console.log(RESULT_PREFIX + JSON.stringify({ passed: s.passes, failed: s.failures, pending: s.pending }));
        if (failures > 0) reject(new Error(`${failures} of ${s.tests} tests failed`));
        else resolve();
      });
    } catch (e) {
      console.log(RESULT_PREFIX + JSON.stringify({ passed: 0, failed: 1, pending: 0 }));
      console.error(e);
      reject(e instanceof Error ? e : new Error(String(e)));
    }
  });
}
