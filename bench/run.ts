/**
 * `npm run bench` — the chat journal's benchmark (see docs/BENCHMARKS.md).
 *
 *   npm run bench                      sizes 1, 10, 50, 200 MB
 *   npm run bench -- --quick           sizes 1 and 10 MB only (under two minutes)
 *   npm run bench -- --sizes=1,10      chosen sizes
 *   npm run bench -- --writes=N        measured single writes per size (engine and native each)
 *   npm run bench -- --long-chat       only the long-chat section (10 vs 5,000 turns; longChat.ts)
 *   npm run bench -- --long-chat-view  only the long chat's view in code-server (longChatView.ts;
 *                                      --cards=N, --opens=N; NAC_EXTENSION_PATH: the extension to install)
 *   npm run bench -- --search          only the search section (index size, write cost, search and
 *                                      chat-list speed at 10 and 200 MB and 10,000 chats; search.ts);
 *                                      with --sizes=… at those sizes instead
 *   npm run bench -- --attachments     only the attachments section (the @ list's filter on 50,000
 *                                      paths; a send with a 256 KiB file against one without; attachments.ts)
 *   npm run bench -- --chat-list-view  only activation and Open Chat… with 10 and 10,000 chats in
 *                                      code-server (chatListView.ts)
 *   npm run bench -- --salvage         only the salvage corpus swept whole: every page, every log
 *                                      record damaged in turn (salvage.ts; its own section)
 *   npm run bench -- --checkpoints     only what checkpoints cost: a 100 KB write on and off, journal
 *                                      growth, undo of 50 files (checkpoints.ts)
 *
 *   npm run bench -- --doc             only renders docs/BENCHMARKS.md from bench/results.json
 *
 * Each section writes its figures into bench/results.json (results.ts: its own entry, with the
 * commit, dates and load average of its run; the other sections kept), then docs/BENCHMARKS.md is
 * rendered from that file alone (doc.ts).
 * Built journals are cached in .bench-cache/ (or $NAC_BENCH_CACHE).
 */
import { crossWindowLatency, streamingLatency } from './liveLatency';
import * as os from 'node:os';
import * as path from 'node:path';
import * as fs from 'node:fs';
import { builtJournalName, cacheDir, type BuiltStats } from './build';
import { benchSize, type SizePlan, type SizeResult } from './engineBench';
import { LONG_TURNS, SHORT_TURNS, benchLongChats, longChatText } from './longChat';
import { VIEW_DEFAULTS, benchLongChatView } from './longChatView';
import { viewText } from './longChatViewReport';
import { cleanUp, runTask } from './procs';
import { benchChatListView } from './chatListView';
import { benchSalvage } from './salvage';
import { benchCheckpoints, checkpointText } from './checkpoints';
import { benchAttachments } from './attachments';
import { benchSearch } from './search';
import { searchText } from './searchReport';
import { TARGETS, describeMachine, textTable, verdictSummary, verdicts } from './report';
import { liveMarkdown, type EngineFigures } from './docEngine';
import { renderDoc, type SectionName } from './doc';
import { RESULTS_ABOUT, readResults, recordSection } from './results';

/** Command-line options. */
export interface BenchOptions {
  readonly quick: boolean;
  /** Journal sizes to measure, MB (empty: none, with `--long-chat` alone). */
  readonly sizes: readonly number[];
  readonly writes: number | undefined;
  /** Whether the long-chat section runs: in the full run and with `--long-chat`, not in `--quick`. */
  readonly longChat: boolean;
  /** Whether the long chat's view is measured in code-server: only with `--long-chat-view` (minutes). */
  readonly longChatView?: { readonly cards?: number; readonly opens?: number };
  /** `--search`: only the search section, at `sizes` (default 10 and 200 MB). */
  readonly search?: boolean;
  /** `--chat-list-view`: only activation and Open Chat… with 10 and 10,000 chats in code-server (chatListView.ts). */
  readonly chatListView?: boolean;
  /** `--salvage`: only the salvage corpus's sweep (salvage.ts). */
  readonly salvage?: boolean;
  /** `--checkpoints`: only what checkpoints cost (checkpoints.ts). */
  readonly checkpoints?: boolean;
  /** `--doc`: measures nothing; renders docs/BENCHMARKS.md from bench/results.json. */
  readonly doc?: boolean;
  /** `--attachments`: only the attachments section (attachments.ts). */
  readonly attachments?: boolean;
}

/**
 * Parses `--quick`, `--sizes=1,10`, `--writes=N`, `--long-chat`, `--long-chat-view` (with `--cards=N`,
 * `--opens=N`). `--long-chat` alone runs only the long-chat section; with `--quick` or `--sizes` it
 * runs after those sizes. `--long-chat-view` runs only the view in code-server, or after the
 * long-chat section with `--long-chat`. Throws on anything else.
 */
export function parseArgs(argv: readonly string[]): BenchOptions {
  let quick = false;
  let sizes: number[] | undefined;
  let writes: number | undefined;
  let longChat = false;
  let search = false;
  let chatListView = false;
  let attachments = false;
  let view: { cards?: number; opens?: number } | undefined;
  const count = (arg: string) => {
    const n = Number(arg.slice(arg.indexOf('=') + 1));
    if (!Number.isInteger(n) || n < 1) throw new Error(`${arg}: a positive integer`);
    return n;
  };
  const viewArgs: { cards?: number; opens?: number } = {};
  /** The options of a section that runs alone. */
  const alone = (section: 'doc' | 'salvage' | 'checkpoints' | 'attachments' | 'chatListView'): BenchOptions => ({ quick: false, sizes: [], writes: undefined, longChat: false, [section]: true });
  for (const arg of argv) {
    if (arg === '--doc' && argv.length === 1) return alone('doc');
    if (arg === '--salvage') return alone('salvage');
    if (arg === '--checkpoints' && argv.length === 1) return alone('checkpoints');
    if (arg === '--search') search = true;
    else if (arg === '--attachments') attachments = true;
    else if (arg === '--chat-list-view') chatListView = true;
    else if (arg === '--quick') quick = true;
    else if (arg === '--long-chat') longChat = true;
    else if (arg === '--long-chat-view') view = viewArgs;
    else if (arg.startsWith('--cards=')) viewArgs.cards = count(arg);
    else if (arg.startsWith('--opens=')) viewArgs.opens = count(arg);
    else if (arg.startsWith('--sizes=')) sizes = arg.slice(8).split(',').map(Number);
    else if (arg.startsWith('--writes=')) writes = Number(arg.slice(9));
    else throw new Error(`unknown argument ${arg} (use --quick, --sizes=1,10, --writes=N, --long-chat, --long-chat-view, --cards=N, --opens=N, --search, --attachments, --chat-list-view, --salvage, --checkpoints, --doc alone)`);
  }
  if (!view && (viewArgs.cards !== undefined || viewArgs.opens !== undefined)) throw new Error('--cards and --opens go with --long-chat-view');
  if (view) {
    if (quick || sizes || writes !== undefined) throw new Error('--long-chat-view runs alone or with --long-chat');
    return { quick, sizes: [], writes, longChat, longChatView: view };
  }
  if (attachments) {
    if (quick || sizes || writes !== undefined || longChat || search || view || chatListView) throw new Error('--attachments runs alone');
    return alone('attachments');
  }
  if (chatListView) {
    if (quick || sizes || writes !== undefined || longChat || search || view) throw new Error('--chat-list-view runs alone');
    return alone('chatListView');
  }
  if (search) return { quick: false, sizes: sizes ?? [10, 200], writes: undefined, longChat: false, search: true };
  if (sizes && sizes.some((s) => !Number.isFinite(s) || s <= 0)) throw new Error('--sizes takes positive numbers of MB');
  if (writes !== undefined && (!Number.isInteger(writes) || writes < 10)) throw new Error('--writes takes an integer >= 10');
  if (longChat && !quick && !sizes) {
    if (writes !== undefined) throw new Error('--writes needs journal sizes: add --quick or --sizes=… to --long-chat');
    return { quick, sizes: [], writes, longChat };
  }
  return { quick, sizes: sizes ?? (quick ? [1, 10] : [1, 10, 50, 200]), writes, longChat: longChat || (!quick && !sizes) };
}

/** Iteration counts for a size (fewer whole-file exports at large sizes: each one costs seconds). */
export function planFor(sizeMB: number, writes: number | undefined): SizePlan {
  const w = writes ?? 2000;
  return {
    sizeMB,
    writes: w,
    block: Math.min(50, w),
    warmup: 200,
    exportIterations: sizeMB <= 1 ? 30 : sizeMB <= 10 ? 20 : sizeMB <= 50 ? 10 : 5,
    inProcessOpens: 5,
    // Fresh processes are the noisiest figure here (2 vCPUs: thread start and WASM compilation
    // compete): more of them where each is cheap.
    freshOpens: sizeMB <= 10 ? 7 : sizeMB <= 50 ? 5 : 3,
    group8Rounds: 40,
    group32Rounds: 10,
    writerCount: 1000,
  };
}

const ROOT = path.resolve(__dirname, '../..');

const DOC = path.join(ROOT, 'docs', 'BENCHMARKS.md');
const RESULTS = path.join(ROOT, 'bench', 'results.json');

/** How each section's figures are measured, written beside them in bench/results.json. */
const UNITS: Record<SectionName, string> = {
  engine: 'times in ms (p50, p99, max, mean, *Ms); sizes in bytes or MB as the key says (rssOpenMB, peakRssMB); ratio* and memory.ratio* are ratios; n, *Count and counts are counts; load is the 1-minute load average',
  live: 'ms (p50, p95, max); n is a count',
  longChat: 'ms unless the key says MB, KB or bytes; n is a count',
  longChatView: 'ms unless the key says Px, Bytes or MB (rss* are bytes); counts where the key says n or count',
  search: 'ms unless the key says MB, bytes or ratio; n is a count',
  attachments: 'ms (indexMs, p50, p95, max); n and files are counts; loadavg is the 1-minute load average at start and end',
  checkpoints: 'ms (write, undo50); growth in bytes of content stored; load is the 1-minute load average at start and end',
  chatListView: 'ms (*Ms); journalBytes in bytes; startupLines are the extension log lines, as written',
  salvage: 'counts of chats, pages and log records; readMs, damagedReadMedianMs and wallMs in ms; pageSize in bytes',
};

/** The command line of this run. */
function commandLine(): string {
  return process.argv.length > 2 ? `npm run bench -- ${process.argv.slice(2).join(' ')}` : 'npm run bench';
}

const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** Runs section `name` (`measure`) and writes its figures into bench/results.json. */
function record<T>(name: SectionName, measure: () => Promise<T>): Promise<T> {
  return recordSection(RESULTS, ROOT, name, UNITS[name], commandLine(), measure);
}

/** Renders docs/BENCHMARKS.md from bench/results.json. */
function writeDoc(): void {
  fs.writeFileSync(DOC, renderDoc(readResults(RESULTS) ?? { about: RESULTS_ABOUT, sections: {} }));
  say('Wrote bench/results.json and rendered docs/BENCHMARKS.md from it');
}

/** The journal sizes of `options`, each measured; the figures of the `engine` section. */
async function engineSizes(cache: string, options: BenchOptions): Promise<EngineFigures> {
  const machine = describeMachine(os.tmpdir(), ROOT);
  say(`Chat journal benchmark: sizes ${options.sizes.join(', ')} MB${options.quick ? ' (quick)' : ''}\n${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; ${machine.disk}\nEngine: ${machine.engine}`);
  const results: SizeResult[] = [];
  for (const sizeMB of options.sizes) {
    const t0 = performance.now();
    const stats = await runTask<BuiltStats>('build', { dir: cache, sizeMB }, 900_000);
    const file = path.join(cache, builtJournalName(sizeMB));
    const buildNote = performance.now() - t0 > 2000 ? `built in ${(stats.buildMs / 1000).toFixed(1)} s` : 'cached';
    say(`\n[${sizeMB} MB] journal ${(stats.bytes / 1048576).toFixed(1)} MB (${buildNote})`);
    const result = await benchSize(planFor(sizeMB, options.writes), { file, stats }, say);
    results.push(result);
    say(`\n${textTable(result)}`);
  }
  say(`\nTargets:\n${verdictSummary(results).map((l) => `  ${l}`).join('\n')}`);
  return { machine, quick: options.quick, targets: TARGETS, sizes: results.map((r) => ({ ...r, verdicts: verdicts(r) })) };
}

/** The sections one command line runs, in order (each written into bench/results.json as it ends). */
async function runSections(cache: string, options: BenchOptions): Promise<void> {
  if (options.search) {
    say(`Search benchmark: ${options.sizes.join(', ')} MB and 10,000 chats`);
    say(`\n${searchText(await record('search', () => benchSearch(cache, options.sizes, say)))}`);
    return;
  }
  if (options.salvage) return void (await record('salvage', () => benchSalvage(say)));
  if (options.checkpoints) return say(checkpointText(await record('checkpoints', () => benchCheckpoints())));
  if (options.attachments) return void (await record('attachments', () => benchAttachments(say)));
  if (options.chatListView) return void (await record('chatListView', () => benchChatListView(say)));
  if (options.sizes.length > 0) {
    await record('engine', () => engineSizes(cache, options));
    say('\n[live paths] streaming and cross-window latency');
    say(liveMarkdown(await record('live', async () => ({ streaming: await streamingLatency(), crossWindow: await crossWindowLatency() }))));
  }
  if (options.longChat) {
    say(`\n[long chats] ${SHORT_TURNS} vs ${LONG_TURNS} turns`);
    say(`\n${longChatText(await record('longChat', () => benchLongChats(cache, say)))}`);
  }
  if (options.longChatView) {
    const extensionPath = path.resolve(process.env.NAC_EXTENSION_PATH ?? ROOT);
    say(`\n[long chat view] ${VIEW_DEFAULTS.longTurns} vs ${VIEW_DEFAULTS.shortTurns} turns in code-server (${extensionPath})`);
    say(`\n${viewText(await record('longChatView', () => benchLongChatView({ ...VIEW_DEFAULTS, ...options.longChatView, extensionPath }, say)))}`);
  }
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (!options.doc) await runSections(cacheDir(ROOT), options);
  writeDoc();
}

// Only when run as the bench, not when a unit test imports parseArgs.
if (require.main === module) {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      cleanUp();
      process.exit(130);
    });
  }
  main().then(
    () => {
      cleanUp();
    },
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      cleanUp();
      process.exit(1);
    },
  );
}
