/**
 * Child-process tasks of the benchmark, so that the bench process's own memory and event loop stay
 * clean (sql.js heaps never shrink):
 *
 *   node out/bench/task.js build  '{"dir":…,"sizeMB":…}'              → BuiltStats (builds/caches a journal)
 *   node out/bench/task.js export '{"file":…,"dir":…,"iterations":…}'  → whole-file export timings
 *   node out/bench/task.js probe  '{"file":…,"writes":100}'             → fresh-process open time and RSS
 *   node out/bench/task.js minimalOpen '{"file":…}'                     → fresh-process time of the least open (minimalOpen.ts)
 *   node out/bench/task.js breakdown '{"file":…}'                       → samples of where a write's time goes
 *   node out/bench/task.js buildLongChat '{"dir":…,"turns":…}'          → LongChatFile (builds/caches a long chat)
 *   node out/bench/task.js longChat '{"file":…,"turns":…,"repeats":…,"updates":…}' → LongChatTimes
 *   node --expose-gc out/bench/task.js longChatMemory '{"file":…,"turns":…}' → LongChatMemory
 *
 * Each prints one JSON line `RESULT <json>` on stdout and exits.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { Worker } from 'node:worker_threads';
import { JournalCore } from '../src/journal/core';
import { Journal } from '../src/journal/journal';
import { LogStore } from '../src/journal/logStore';
import { compileSqlJsWasm } from '../src/journal/wasmModule';
import { loadSqlJs } from '../src/journal/sqljs';
import type { OpenPhases } from '../src/journal/workerProtocol';
import { LIVE, ensureJournal } from './build';
import { ensureLongChat } from './longChatRows';
import { longChatMemory, longChatTimes } from './longChatTask';
import { writeText } from './rows';
import { prepareSearchJournals, type SearchPrepareArgs } from './searchRows';

/** sql-wasm.wasm inside node_modules (same as test/unit/helpers.ts). */
export const WASM_PATH = path.join(path.dirname(require.resolve('sql.js')), 'sql-wasm.wasm');
/**
 * The journal worker the extension ships (`dist/journal-worker.js`, bundled by esbuild.mjs; `npm run
 * bench` builds it first), or tsc's output when no bundle is there.
 */
export const WORKER_PATH = fs.existsSync(path.resolve(__dirname, '../../dist/journal-worker.js'))
  ? path.resolve(__dirname, '../../dist/journal-worker.js')
  : path.resolve(__dirname, '../src/journal/worker.js');

/** Whole-file export timings (ms per iteration). */
export interface ExportResult {
  readonly iterations: number;
  /** export() + write temp + fsync + rename, per transaction. */
  readonly totalMs: number[];
  /** export() alone. */
  readonly exportMs: number[];
  /** Opening: read the file + new Database. */
  readonly openMs: number;
}

/** Fresh-process open (activation) and memory figures. */
export interface ProbeResult {
  /** Journal.open() call to resolution, ms (first journal of this process). */
  readonly openMs: number;
  /** The worker's own `report.openMs`. */
  readonly reportOpenMs: number;
  /** Where the open went (`report.phases`). */
  readonly phases: OpenPhases;
  /** Log records the open replayed. */
  readonly recordsReplayed: number;
  /** RSS before opening, after opening, after 100 writes (bytes). */
  readonly rssBefore: number;
  readonly rssOpen: number;
  readonly rssAfterWrites: number;
}

function fsyncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The old design's durable write: one INSERT transaction, then `db.export()`, write a temp file,
 * fsync, rename over the journal, fsync the folder. Runs on a copy inside `dir`.
 */
export async function exportBench(file: string, dir: string, iterations: number): Promise<ExportResult> {
  const SQL = await loadSqlJs(WASM_PATH);
  const target = path.join(dir, 'export.sqlite');
  const t0 = performance.now();
  const db = new SQL.Database(fs.readFileSync(file));
  const openMs = performance.now() - t0;
  const totalMs: number[] = [];
  const exportMs: number[] = [];
  try {
    const next = Number(db.exec('SELECT COALESCE(MAX(seq), 0) FROM events WHERE run_id = ?', [LIVE.runId])[0]!.values[0]![0]);
    for (let i = 0; i < iterations + 1; i++) {
      db.exec('BEGIN');
      db.run('INSERT INTO events (run_id, seq, session_id, turn_id, kind, payload, at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
        LIVE.runId, next + 1 + i, LIVE.sessionId, LIVE.turnId, 'text', JSON.stringify({ text: writeText(i) }), Date.now(),
      ]);
      db.exec('COMMIT');
      const a = performance.now();
      const image = db.export();
      const b = performance.now();
      const tmp = `${target}.tmp`;
      const fd = fs.openSync(tmp, 'w');
      try {
        fs.writeSync(fd, image, 0, image.length, 0);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, target);
      fsyncDir(dir);
      const c = performance.now();
      if (i > 0) {
        // the first iteration is a warm-up
        totalMs.push(c - a);
        exportMs.push(b - a);
      }
    }
  } finally {
    db.close();
    fs.rmSync(target, { force: true });
  }
  return { iterations, totalMs, exportMs, openMs };
}

/**
 * Opens the journal `file` as the first journal of this fresh process, measuring time and RSS,
 * then makes `writes` writes and measures RSS again.
 */
export async function probe(file: string, writes: number): Promise<ProbeResult> {
  // No --expose-gc on the command line: with it (a V8 flag set before the worker starts), starting
  // the worker thread took ~20 ms longer here (47-69 against 27-38 ms), which no extension host
  // pays. The collector is exposed only once the journal is open, for the memory figures.
  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  const journal = await Journal.open({ file, wasmPath: WASM_PATH, workerPath: WORKER_PATH });
  const openMs = performance.now() - t0;
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  await new Promise((r) => setTimeout(r, 200));
  gc();
  const rssOpen = process.memoryUsage().rss;
  try {
    for (let i = 0; i < writes; i++) {
      const r = await journal.write('appendEvents', LIVE.runId, [{ kind: 'text', payload: { text: writeText(i) } }], 1_800_000_000_000 + i);
      if (!r.ok) throw new Error(`probe write refused: ${r.reason} ${r.message}`);
    }
    gc();
    const rssAfterWrites = process.memoryUsage().rss;
    return { openMs, reportOpenMs: journal.report.openMs, phases: journal.report.phases, recordsReplayed: journal.report.recordsReplayed, rssBefore, rssOpen, rssAfterWrites };
  } finally {
    await journal.close();
  }
}

/** Samples (ms) of the bench's "where a write's time goes" rows (see SizeResult.breakdown). */
export interface BreakdownSamples {
  readonly fdatasync: number[];
  readonly inProcess: number[];
  readonly sql: number[];
  readonly roundTrip: number[];
}

/**
 * On a copy of a journal (`file`, in a folder of its own): 400 record-sized pwrite + fdatasync on a
 * preallocated file beside it, then 500 `LogStore.write`s on this thread (the first 100 not kept),
 * timing the transaction's SQL inside each, then 400 round trips to an echoing worker thread.
 */
export async function breakdown(file: string): Promise<BreakdownSamples> {
  const raw = path.join(path.dirname(file), 'raw.bin');
  const fd = fs.openSync(raw, 'w+');
  const fdatasync: number[] = [];
  try {
    fs.writeSync(fd, Buffer.alloc(8 * 1024 * 1024), 0, 8 * 1024 * 1024, 0);
    fs.fsyncSync(fd);
    const record = Buffer.from(JSON.stringify({ text: writeText(0) }));
    for (let i = 0; i < 400; i++) {
      const t0 = performance.now();
      fs.writeSync(fd, record, 0, record.length, 4096 + i * record.length);
      fs.fdatasyncSync(fd);
      fdatasync.push(performance.now() - t0);
    }
  } finally {
    fs.closeSync(fd);
  }
  const sql = await loadSqlJs(WASM_PATH);
  const { store } = LogStore.open({ file, sql, now: Date.now, leaseMs: 200 });
  const core = new JournalCore(store.db, (text, params) => store.record(text, params));
  const inProcess: number[] = [];
  const sqlOnly: number[] = [];
  try {
    for (let i = 0; i < 500; i++) {
      let sqlMs = 0;
      const t0 = performance.now();
      store.write(() => {
        const t = performance.now();
        const value = core.appendEvents(LIVE.runId, [{ kind: 'text', payload: { text: writeText(i) } }], 1_900_000_000_000 + i);
        sqlMs = performance.now() - t;
        return value;
      }, () => core.takeTouched());
      if (i >= 100) {
        inProcess.push(performance.now() - t0);
        sqlOnly.push(sqlMs);
      }
    }
  } finally {
    store.close();
    store.db.close();
  }
  return { fdatasync, inProcess, sql: sqlOnly, roundTrip: await measureRoundTrip(400) };
}

/**
 * Round trips (ms) of a record-sized write message (the engine's own shape) to a worker thread that
 * only answers `{kind: 'result'}`: the least a hand-over to another thread costs on this machine.
 */
async function measureRoundTrip(count: number): Promise<number[]> {
  const echo = new Worker(
    "const { parentPort } = require('node:worker_threads');" +
      "parentPort.on('message', (m) => parentPort.postMessage({ kind: 'result', id: m.id, value: [{ seq: m.id }] }));",
    { eval: true },
  );
  const times: number[] = [];
  try {
    for (let i = 0; i < count + 100; i++) {
      const message = { kind: 'write', id: i, op: 'appendEvents', args: [LIVE.runId, [{ kind: 'text', payload: { text: writeText(i) } }], 1_900_000_000_000 + i] };
      const t0 = performance.now();
      const answered = new Promise((resolve) => echo.once('message', resolve));
      echo.postMessage(message);
      await answered;
      if (i >= 100) times.push(performance.now() - t0);
    }
  } finally {
    await echo.terminate();
  }
  return times;
}

/**
 * Fresh-process time (ms) of bench/minimalOpen.ts on `file`: from starting its worker (with the
 * WASM compiled here meanwhile, as `Journal.open` does) to its answer.
 */
export async function minimalOpen(file: string): Promise<{ openMs: number; sessions: number }> {
  const t0 = performance.now();
  const worker = new Worker(path.join(__dirname, 'minimalOpen.js'), { workerData: { file, wasmPath: WASM_PATH } });
  void compileSqlJsWasm(WASM_PATH).then((module) => worker.postMessage(module));
  const answer = await new Promise<{ count: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const openMs = performance.now() - t0;
  await worker.terminate();
  return { openMs, sessions: answer.count };
}

async function main(): Promise<void> {
  const [task, json] = process.argv.slice(2);
  const args = JSON.parse(json ?? '{}') as Record<string, unknown>;
  let result: unknown;
  if (task === 'build') result = (await ensureJournal(() => loadSqlJs(WASM_PATH), String(args.dir), Number(args.sizeMB))).stats;
  else if (task === 'export') result = await exportBench(String(args.file), String(args.dir), Number(args.iterations));
  else if (task === 'probe') result = await probe(String(args.file), Number(args.writes ?? 100));
  else if (task === 'minimalOpen') result = await minimalOpen(String(args.file));
  else if (task === 'breakdown') result = await breakdown(String(args.file));
  else if (task === 'buildLongChat') result = await ensureLongChat(() => loadSqlJs(WASM_PATH), String(args.dir), Number(args.turns));
  else if (task === 'longChat') result = await longChatTimes(String(args.file), Number(args.turns), Number(args.repeats), Number(args.updates));
  else if (task === 'longChatMemory') result = await longChatMemory(String(args.file), Number(args.turns));
  else if (task === 'searchPrepare') result = await prepareSearchJournals(await loadSqlJs(WASM_PATH), args as unknown as SearchPrepareArgs);
  else throw new Error(`unknown task ${String(task)}`);
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
