/**
 * The part of the `WebAssembly` global that src/journal uses (compiling sql.js's WASM on one thread
 * and instantiating it on another: wasmModule.ts, sqljs.ts). V8 gives Node this global, but
 * @types/node 20 does not declare it and TypeScript declares it only in its DOM lib, which the Node
 * layers do not get (tsconfig.node.json). `WebAssembly.Module` itself (an opaque interface) comes
 * with sql.js's emscripten types. Only tsconfig.node.json reads this file; the build's tsconfig.json
 * excludes it and has the DOM lib's full declarations instead.
 */
declare namespace WebAssembly {
  /** A running instance of a module: its exports, opaque here (sql.js reads them). */
  interface Instance {
    readonly exports: Record<string, unknown>;
  }
  /** What an instance imports, by module and name (sql.js builds it). */
  type Imports = Record<string, Record<string, unknown>>;
  /** Compiles `bytes` (a .wasm file's content) without instantiating it; rejects if they are not WASM. */
  function compile(bytes: ArrayBufferView | ArrayBuffer): Promise<Module>;
  /** Instantiates a compiled `module` with `imports`; rejects if an import is missing or wrong. */
  function instantiate(module: Module, imports?: Imports): Promise<Instance>;
}
