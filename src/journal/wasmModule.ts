/**
 * Compiles sql.js's WASM module without instantiating it, on the extension host's thread, while the
 * journal's worker boots: V8 compiles off the calling thread, and a compiled `WebAssembly.Module`
 * can be posted to a worker, which then only instantiates it (sqljs.ts). Kept apart from sqljs.ts
 * so the extension host never loads sql.js's JavaScript. Measured here: activation of a 10 MB
 * journal ~71-84 ms → ~67-76 ms in a fresh process (docs/BENCHMARKS.md has the current figures).
 */
import * as fs from 'node:fs';

const compiled = new Map<string, Promise<WebAssembly.Module>>();

/** Compiles (does not run) the WASM at `wasmPath`, once per path per thread. Rejects if unreadable. */
export function compileSqlJsWasm(wasmPath: string): Promise<WebAssembly.Module> {
  let p = compiled.get(wasmPath);
  if (!p) {
    p = fs.promises.readFile(wasmPath).then((bytes) => WebAssembly.compile(bytes));
    compiled.set(wasmPath, p);
    p.catch(() => compiled.delete(wasmPath));
  }
  return p;
}
