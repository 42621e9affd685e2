/**
 * Runs the integration suite (test/suite) in a desktop VS Code downloaded by @vscode/test-electron.
 * For machines that can download VS Code; here use `npm run test:vscode` (code-server) instead.
 * Usage: npm run test:electron   (env VSCODE_VERSION picks the version, default 'stable')
 * Exit code: 0 when every test passed, 1 otherwise.
 */
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';

async function main(): Promise<void> {
  const root = path.resolve(__dirname, '..', '..'); // out/test → repo
  try {
    await runTests({
      version: process.env.VSCODE_VERSION ?? 'stable',
      extensionDevelopmentPath: root,
      extensionTestsPath: path.join(root, 'out', 'test', 'suite', 'index.js'),
      launchArgs: [path.join(root, 'test', 'fixtures', 'workspace'), '--disable-extensions', '--disable-workspace-trust'],
    });
  } catch (e) {
    console.error('Integration tests failed:', e instanceof Error ? e.message : e);
    process.exit(1);
  }
}

void main();
