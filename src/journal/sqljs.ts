/**
 * Loads sql.js (SQLite compiled to WASM) once per process, from a WASM file on disk.
 * The WASM is never fetched from a CDN: the extension passes `dist/sql-wasm.wasm` from its own folder;
 * tests and tools pass the copy inside `node_modules/sql.js/dist/` (`test/unit/helpers.ts`).
 *
 * A WASM module compiled elsewhere (`compileSqlJsWasm` in wasmModule.ts, posted to this thread) is
 * only instantiated here (`loadSqlJs(path, module)`).
 */
import initSqlJs, { type SqlJsStatic } from 'sql.js';

const loaded = new Map<string, Promise<SqlJsStatic>>();

/**
 * A new sql.js instance for `wasmPath` (never cached: its WASM memory is freed with it), from the
 * compiled `module` when given. For one-off jobs in a long-lived thread (the journal's helper).
 * Rejects if the file is missing or not sql.js's WASM.
 */
export function instantiateSqlJs(wasmPath: string, module?: WebAssembly.Module): Promise<SqlJsStatic> {
  return module
    ? initSqlJs({
        instantiateWasm: (imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance) => void) => {
          void WebAssembly.instantiate(module, imports).then(done);
          return {};
        },
      } as Parameters<typeof initSqlJs>[0])
    : initSqlJs({ locateFile: () => wasmPath });
}

/**
 * Resolves the sql.js module for `wasmPath` (cached per path). With `module` (the compiled WASM of
 * that file), only instantiates it. Rejects if the file is missing or not sql.js's WASM.
 */
export function loadSqlJs(wasmPath: string, module?: WebAssembly.Module): Promise<SqlJsStatic> {
  let p = loaded.get(wasmPath);
  if (!p) {
    p = instantiateSqlJs(wasmPath, module);
    loaded.set(wasmPath, p);
    p.catch(() => loaded.delete(wasmPath));
  }
  return p;
}
