/**
 * Loads sql.js (SQLite compiled to WASM) once per process, from a WASM file on disk.
 * The WASM is never fetched from a CDN: the extension passes `dist/sql-wasm.wasm` from its own folder;
 * tests and tools pass the copy inside `node_modules/sql.js/dist/` (`test/unit/helpers.ts`).
 */
import initSqlJs, { type SqlJsStatic } from 'sql.js';

const loaded = new Map<string, Promise<SqlJsStatic>>();

/** Resolves the sql.js module for `wasmPath` (cached per path). Rejects if the file is missing. */
export function loadSqlJs(wasmPath: string): Promise<SqlJsStatic> {
  let p = loaded.get(wasmPath);
  if (!p) {
    p = initSqlJs({ locateFile: () => wasmPath });
    loaded.set(wasmPath, p);
    p.catch(() => loaded.delete(wasmPath));
  }
  return p;
}
