// Builds the extension (Node, CommonJS, `vscode` external) and the webview (browser IIFE) in one run,
// and copies sql.js's WASM next to the extension bundle (loaded with `locateFile`, never from a CDN).
// Usage: node esbuild.mjs [--watch] [--production]
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
const outdir = 'dist';

/** @type {import('esbuild').BuildOptions} */
const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'warning', legalComments: 'linked' };

const builds = [
  {
    ...common,
    entryPoints: { extension: 'src/host/extension.ts', 'journal-worker': 'src/journal/worker.ts' },
    outdir,
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    external: ['vscode'],
    // The Claude Agent SDK is an ES module that calls createRequire(import.meta.url) when it loads;
    // in a CommonJS bundle import.meta.url is undefined, so give it this file's URL.
    define: { 'import.meta.url': '__nacImportMetaUrl' },
    banner: { js: 'const __nacImportMetaUrl = require("url").pathToFileURL(__filename).href;' },
  },
  {
    ...common,
    entryPoints: { webview: 'webview/main.ts' },
    outdir,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  },
];

mkdirSync(outdir, { recursive: true });
copyFileSync(path.join(path.dirname(require.resolve('sql.js')), 'sql-wasm.wasm'), path.join(outdir, 'sql-wasm.wasm'));

for (const options of builds) {
  if (watch) await (await esbuild.context(options)).watch();
  else await esbuild.build(options);
}
if (!watch) console.log(`[esbuild] built ${outdir}/ (${production ? 'production' : 'development'})`);
