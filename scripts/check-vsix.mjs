#!/usr/bin/env node
// Packages the extension as a VSIX (production bundles, `vsce package --no-dependencies`) and checks
// what a user would install: it holds the bundles, the sql.js WASM, media and the manifest; no agent
// CLI binary (Claude Code, Codex), no node_modules, no sources or tests; and it stays under 10 MB.
// Usage: node scripts/check-vsix.mjs [out.vsix]   Output: the file list, then `N passed, N failed`.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.resolve(process.argv[2] ?? path.join(os.tmpdir(), `native-agent-chats-${process.pid}.vsix`));
const MAX_BYTES = 10 * 1024 * 1024;

execFileSync(process.execPath, ['esbuild.mjs', '--production'], { cwd: ROOT, stdio: 'inherit' });
execFileSync(path.join(ROOT, 'node_modules', '.bin', 'vsce'), ['package', '--no-dependencies', '--out', out], { cwd: ROOT, stdio: 'inherit' });
const listing = execFileSync('unzip', ['-Z1', out], { encoding: 'utf8' }).split('\n').filter(Boolean);
const size = fs.statSync(out).size;
console.log(listing.join('\n'));
console.log(`VSIX ${out}: ${(size / 1048576).toFixed(2)} MB, ${listing.length} entries`);

const checks = [
  [`smaller than 10 MB (${(size / 1048576).toFixed(2)} MB)`, size < MAX_BYTES],
  ['holds the extension bundle, the journal worker, the webview bundle and the sql.js WASM', ['extension/dist/extension.js', 'extension/dist/journal-worker.js', 'extension/dist/webview.js', 'extension/dist/sql-wasm.wasm'].every((f) => listing.includes(f))],
  ['holds no agent CLI binary', !listing.some((f) => /(^|\/)(claude|codex)(\.exe)?$/.test(f) || /claude-agent-sdk-|codex-linux|codex-darwin|codex-win/.test(f))],
  ['holds no node_modules, sources or tests', !listing.some((f) => /extension\/(node_modules|src|test|webview|bench|out)\//.test(f))],
];
let failed = 0;
for (const [what, ok] of checks) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failed++;
}
fs.rmSync(out, { force: true });
// Leave a development build behind for the other tests and for `npm start`.
execFileSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' });
console.log(`${checks.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
