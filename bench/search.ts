/**
 * `npm run bench -- --search`: the cost and speed of full-text search and the chat list (schema 4).
 *
 * The journals are made in a bench task (a child process: no sql.js database in this process, whose
 * event loop is watched). Per journal size (realistic rows, bench/build.ts): the journal built at
 * schema 3 is migrated by the product's migration 4 (timed), giving the file size without and with the index; the durable
 * write of a typical text event (~1.15 KB) is timed through the `Journal` door on that journal and on
 * a copy without the index's triggers, in alternating blocks; search is timed through the door
 * (from the call on the host thread to the results there) over as-you-type prefixes, common words,
 * several words and an absent word, with the host thread's longest event-loop delay meanwhile. A
 * journal of 10,000 small chats adds search, `listChats` and `getChatListItem` at that count.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Journal } from '../src/journal/journal';
import { LIVE, type BuiltStats } from './build';
import { removeDir, runTask, trackDir } from './procs';
import { writeText } from './rows';
import type { ManyChats, Migrated } from './searchRows';
import { fmt, percentile } from './stats';

const WASM_PATH = path.join(path.dirname(require.resolve('sql.js')), 'sql-wasm.wasm');
const WORKER_PATH = fs.existsSync(path.resolve(__dirname, '../../dist/journal-worker.js'))
  ? path.resolve(__dirname, '../../dist/journal-worker.js')
  : path.resolve(__dirname, '../src/journal/worker.js');

/** Queries each search round runs, in this order (as-you-type prefixes, common and rare words). */
export const SEARCH_QUERIES = ['jo', 'jou', 'jour', 'journ', 'journal', 'snapshot', 'the', 'commit log', 'worker thread process', 'failed migration', 'zanzibar'] as const;
const SEARCH_ROUNDS = 12;
const WRITES = 600;
const BLOCK = 50;
const MANY_CHATS = 10_000;
/** Workspace folder of the many-chats journal the filtered figures use. */
const WORKSPACE = '/home/user/project-3';

/** p50 / p95 / max of a set of samples (ms). */
export interface Percentiles {
  readonly n: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

function percentiles(samples: readonly number[]): Percentiles {
  return { n: samples.length, p50: percentile(samples, 50), p95: percentile(samples, 95), p99: percentile(samples, 99), max: Math.max(...samples) };
}

/** Search timings: every query, and the host thread's longest event-loop delay meanwhile (ms). */
export interface SearchTimes {
  readonly all: Percentiles;
  readonly byQuery: Readonly<Record<string, number>>;
  readonly hostStallMaxMs: number;
  /**
   * The same event-loop delay measured right after, for as long, with no search running: the
   * machine's own share of the stall (a shared, loaded machine delays an idle thread too).
   */
  readonly idleStallMaxMs?: number;
  /** Results of the common-word query (the limit is 50 turns). */
  readonly resultsOfCommon: number;
}

/** What one journal size measured. */
export interface SearchSizeResult {
  readonly sizeMB: number;
  readonly buildMs: number;
  readonly events: number;
  readonly migrated: Migrated;
  readonly writeWith: Percentiles;
  readonly writeWithout: Percentiles;
  /** Median over block pairs of p50(with) / p50(without). */
  readonly writeRatio: number;
  /** Timed once this process's background work (the two journals' compactions, the integrity check) went quiet. */
  readonly search: SearchTimes;
  /** The same, timed right after the writes, while that background work still ran (for comparison; no target). */
  readonly searchBusy: SearchTimes;
}

/** The many-chats journal's figures. */
export interface ManyChatsResult {
  readonly built: ManyChats;
  readonly search: SearchTimes;
  readonly searchWorkspace: SearchTimes;
  readonly listChats: Percentiles;
  readonly listChatsWorkspace: Percentiles;
  readonly getChatListItem: Percentiles;
  readonly chatsListed: number;
}

/** The whole search section. */
export interface SearchBenchResult {
  readonly date: string;
  readonly load: { readonly start: number; readonly end: number };
  readonly wallMs: number;
  readonly sizes: readonly SearchSizeResult[];
  readonly manyChats: ManyChatsResult;
}

function open(file: string): Promise<Journal> {
  return Journal.open({ file, wasmPath: WASM_PATH, workerPath: WORKER_PATH });
}

/**
 * Waits until this process's threads (the journal workers' compactions and integrity checks in
 * their helper threads) use under a tenth of a core over half a second, at most 120 s; returns the
 * ms waited.
 */
async function backgroundQuiet(): Promise<number> {
  const start = performance.now();
  while (performance.now() - start < 120_000) {
    const before = process.cpuUsage();
    await new Promise((r) => setTimeout(r, 500));
    const used = process.cpuUsage(before);
    if ((used.user + used.system) / 1000 < 50) break;
  }
  return performance.now() - start;
}

/** Times `SEARCH_ROUNDS` rounds of `SEARCH_QUERIES` through the door (see module docstring). */
async function timeSearch(journal: Journal, workspace?: string): Promise<SearchTimes> {
  const options = workspace === undefined ? {} : { workspace };
  for (const q of SEARCH_QUERIES) await journal.read('searchChats', q, options); // warm-up
  const all: number[] = [];
  const byQuery: Record<string, number[]> = {};
  let resultsOfCommon = 0;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const searchStart = performance.now();
  for (let round = 0; round < SEARCH_ROUNDS; round++) {
    for (const q of SEARCH_QUERIES) {
      const t0 = performance.now();
      const r = await journal.read('searchChats', q, options);
      const dt = performance.now() - t0;
      if (!r.ok) throw new Error(`search for ${q} refused: ${r.message}`);
      if (q === 'the') resultsOfCommon = r.value.length;
      all.push(dt);
      (byQuery[q] ??= []).push(dt);
    }
  }
  delay.disable();
  const searchingMs = performance.now() - searchStart;
  const idle = monitorEventLoopDelay({ resolution: 1 });
  idle.enable();
  await new Promise((r) => setTimeout(r, Math.max(1000, searchingMs)));
  idle.disable();
  return {
    idleStallMaxMs: idle.max / 1e6,
    all: percentiles(all),
    byQuery: Object.fromEntries(Object.entries(byQuery).map(([q, s]) => [q, percentile(s, 50)])),
    hostStallMaxMs: delay.max / 1e6,
    resultsOfCommon,
  };
}

/** Durable writes of a typical text event with and without the index, alternating blocks. */
async function timeWrites(withIndex: Journal, withoutIndex: Journal): Promise<Pick<SearchSizeResult, 'writeWith' | 'writeWithout' | 'writeRatio'>> {
  let at = 1_800_000_000_000;
  let k = 0;
  const write = async (j: Journal): Promise<number> => {
    const text = writeText(k++);
    const t0 = performance.now();
    const r = await j.write('appendEvents', LIVE.runId, [{ kind: 'text', payload: { text } }], at++);
    const dt = performance.now() - t0;
    if (!r.ok) throw new Error(`write refused: ${r.message}`);
    return dt;
  };
  for (let i = 0; i < 100; i++) {
    await write(withIndex);
    await write(withoutIndex);
  }
  const w: number[] = [];
  const wo: number[] = [];
  const ratios: number[] = [];
  for (let done = 0; done < WRITES; done += BLOCK) {
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < BLOCK; i++) a.push(await write(withIndex));
    for (let i = 0; i < BLOCK; i++) b.push(await write(withoutIndex));
    w.push(...a);
    wo.push(...b);
    ratios.push(percentile(a, 50) / percentile(b, 50));
  }
  return { writeWith: percentiles(w), writeWithout: percentiles(wo), writeRatio: percentile(ratios, 50) };
}

async function benchOneSize(cache: string, work: string, sizeMB: number, log: (line: string) => void): Promise<SearchSizeResult> {
  const withFile = path.join(work, `with-${sizeMB}`, 'journal.sqlite');
  const withoutFile = path.join(work, `without-${sizeMB}`, 'journal.sqlite');
  fs.mkdirSync(path.dirname(withFile), { recursive: true });
  fs.mkdirSync(path.dirname(withoutFile), { recursive: true });
  const prepared = await runTask<{ built: BuiltStats & { cached: boolean }; migrated: Migrated }>('searchPrepare', { cache, sizeMB, withFile, withoutFile }, 1_800_000);
  const { built, migrated } = prepared;
  log(`[${sizeMB} MB] schema-3 journal ${(built.bytes / 1048576).toFixed(1)} MB, ${built.events} events (${built.cached ? 'cached' : `built in ${(built.buildMs / 1000).toFixed(1)} s`})`);
  log(`  migration 4: ${(migrated.migrateMs / 1000).toFixed(1)} s; ${(migrated.bytesBefore / 1048576).toFixed(1)} -> ${(migrated.bytesAfter / 1048576).toFixed(1)} MB`);
  const a = await open(withFile);
  const b = await open(withoutFile);
  try {
    const writes = await timeWrites(a, b);
    log(`  durable text write p50 with / without index: ${fmt(writes.writeWith.p50)} / ${fmt(writes.writeWithout.p50)} ms`);
    const searchBusy = await timeSearch(a);
    await b.close();
    const quietAfterMs = await backgroundQuiet();
    const search = await timeSearch(a);
    log(`  search p50 / p95: ${fmt(search.all.p50)} / ${fmt(search.all.p95)} ms, host stall ${fmt(search.hostStallMaxMs)} ms (${(quietAfterMs / 1000).toFixed(1)} s for the background work to end; while it ran: stall ${fmt(searchBusy.hostStallMaxMs)} ms)`);
    return { sizeMB, buildMs: built.buildMs, events: built.events, migrated, ...writes, search, searchBusy };
  } finally {
    await a.close();
    await b.close();
  }
}

async function benchManyChats(work: string, log: (line: string) => void): Promise<ManyChatsResult> {
  const file = path.join(work, 'many', 'journal.sqlite');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const { many: built } = await runTask<{ many: ManyChats }>('searchPrepare', { chats: MANY_CHATS, manyFile: file }, 1_800_000);
  log(`[${MANY_CHATS} chats] ${(built.bytes / 1048576).toFixed(1)} MB, ${built.turns} turns, ${built.events} events (built in ${(built.buildMs / 1000).toFixed(1)} s)`);
  const j = await open(file);
  try {
    const time = async (n: number, fn: () => Promise<unknown>): Promise<Percentiles> => {
      await fn();
      const samples: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        await fn();
        samples.push(performance.now() - t0);
      }
      return percentiles(samples);
    };
    const chatsListed = (await j.read('listChats', {})).length;
    const listChats = await time(30, () => j.read('listChats', {}));
    const listChatsWorkspace = await time(30, () => j.read('listChats', { workspace: WORKSPACE }));
    const getChatListItem = await time(200, () => j.read('getChatListItem', LIVE.sessionId));
    log(`  listChats p50 / p95: ${fmt(listChats.p50)} / ${fmt(listChats.p95)} ms (${chatsListed} chats)`);
    const search = await timeSearch(j);
    const searchWorkspace = await timeSearch(j, WORKSPACE);
    log(`  search p50 / p95: ${fmt(search.all.p50)} / ${fmt(search.all.p95)} ms`);
    return { built, search, searchWorkspace, listChats, listChatsWorkspace, getChatListItem, chatsListed };
  } finally {
    await j.close();
  }
}

/** Runs the search section (see module docstring) at `sizes` MB. */
export async function benchSearch(cache: string, sizes: readonly number[], log: (line: string) => void): Promise<SearchBenchResult> {
  const started = performance.now();
  const loadStart = os.loadavg()[0]!;
  const work = trackDir(fs.mkdtempSync(path.join(os.tmpdir(), 'nac-bench-search-')));
  try {
    const results: SearchSizeResult[] = [];
    for (const sizeMB of sizes) results.push(await benchOneSize(cache, work, sizeMB, log));
    const manyChats = await benchManyChats(work, log);
    return { date: new Date().toISOString(), load: { start: loadStart, end: os.loadavg()[0]! }, wallMs: performance.now() - started, sizes: results, manyChats };
  } finally {
    removeDir(work);
  }
}
