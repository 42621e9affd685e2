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
 *                                      code-server (chatListView.ts; printed, not written)
 *   npm run bench -- --salvage         only the salvage corpus swept whole: every page, every log
 *                                      record damaged in turn (salvage.ts; its own section)
 *   npm run bench -- --checkpoints     only what checkpoints cost: a 100 KB write on and off, journal
 *                                      growth, undo of 50 files (checkpoints.ts; printed, not written)
 *
 * Prints a table per size, writes bench/results.json and rewrites docs/BENCHMARKS.md.
 * Built journals are cached in .bench-cache/ (or $NAC_BENCH_CACHE).
 */
import { crossWindowLatency, streamingLatency, type LatencySummary } from './liveLatency';
import { fmt } from './stats';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { builtJournalName, cacheDir, type BuiltStats } from './build';
import { benchSize, type SizePlan, type SizeResult } from './engineBench';
import { LONG_TURNS, SHORT_TURNS, benchLongChats, keepSection, longChatMarkdown, longChatText, withSection, type LongChatResult } from './longChat';
import { VIEW_DEFAULTS, benchLongChatView, type LongChatViewResult } from './longChatView';
import { viewText } from './longChatViewReport';
import { cleanUp, runTask } from './procs';
import { benchChatListView } from './chatListView';
import { benchSalvage, keepSalvageSection, salvageMarkdown, withSalvageSection } from './salvage';
import { benchCheckpoints, checkpointText } from './checkpoints';
import { attachmentsMarkdown, benchAttachments } from './attachments';
import { benchSearch, keepSearchSection, searchMarkdown, searchText, withSearchSection, type SearchBenchResult } from './search';
import { TARGETS, describeMachine, markdownTable, textTable, verdictSummary, verdicts, type Machine } from './report';

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
  /** `--chat-list-view`: only activation and Open Chat… with 10 and 10,000 chats in code-server (chatListView.ts; printed, not written). */
  readonly chatListView?: boolean;
  /** `--salvage`: only the salvage corpus's sweep (salvage.ts). */
  readonly salvage?: boolean;
  /** `--checkpoints`: only what checkpoints cost (checkpoints.ts; printed, not written). */
  readonly checkpoints?: boolean;
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
  for (const arg of argv) {
    if (arg === '--salvage') return { quick: false, sizes: [], writes: undefined, longChat: false, salvage: true };
    if (arg === '--checkpoints' && argv.length === 1) return { quick: false, sizes: [], writes: undefined, longChat: false, checkpoints: true };
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
    else throw new Error(`unknown argument ${arg} (use --quick, --sizes=1,10, --writes=N, --long-chat, --long-chat-view, --cards=N, --opens=N, --search, --attachments, --chat-list-view, --salvage, --checkpoints alone)`);
  }
  if (!view && (viewArgs.cards !== undefined || viewArgs.opens !== undefined)) throw new Error('--cards and --opens go with --long-chat-view');
  if (view) {
    if (quick || sizes || writes !== undefined) throw new Error('--long-chat-view runs alone or with --long-chat');
    return { quick, sizes: [], writes, longChat, longChatView: view };
  }
  if (attachments) {
    if (quick || sizes || writes !== undefined || longChat || search || view || chatListView) throw new Error('--attachments runs alone');
    return { quick: false, sizes: [], writes: undefined, longChat: false, attachments: true };
  }
  if (chatListView) {
    if (quick || sizes || writes !== undefined || longChat || search || view) throw new Error('--chat-list-view runs alone');
    return { quick: false, sizes: [], writes: undefined, longChat: false, chatListView: true };
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

function loadRange(results: readonly SizeResult[]): string {
  const loads = results.flatMap((r) => [r.load.start, r.load.end]);
  return `${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`;
}

function markdown(machine: Machine, options: BenchOptions, results: readonly SizeResult[], totalMs: number): string {
  const command = options.quick ? 'npm run bench -- --quick' : `npm run bench${options.sizes.join(',') === '1,10,50,200' ? '' : ` -- --sizes=${options.sizes.join(',')}`}`;
  return `# Benchmarks: the chat journal

This file is rewritten by \`npm run bench\` (bench/run.ts); the figures below are the latest run.
Raw figures: \`bench/results.json\`.

## How to run

\`\`\`sh
npm run bench                 # 1, 10, 50 and 200 MB journals
npm run bench -- --quick      # 1 and 10 MB only, under two minutes
npm run bench -- --sizes=1,50 --writes=500
npm run bench -- --long-chat  # only the long-chat section (10 vs 5,000 turns), a few minutes
npm run bench -- --long-chat-view  # the long chat in code-server and Chromium, a few minutes
npm run bench -- --search     # only the search section (10 and 200 MB, 10,000 chats)
npm run bench -- --salvage    # only the salvage corpus: every page and log record of a moved-aside journal damaged in turn, ~25 minutes
\`\`\`

Built journals are cached in \`.bench-cache/\` (override with \`NAC_BENCH_CACHE\`; the folder ignores itself
for git), so reruns skip building them. Everything else (copies of the journal, logs, the native copy) lives in a
temporary folder that is removed at the end, and every child process is waited for or killed. \`npm run bench\`
builds \`dist/\` for production first (minified, no source maps: what the VSIX ships), so the views in code-server
run the code users get; each view section's heading names the build it measured.

## Latest run

- Command: \`${command}\` — ${(totalMs / 1000).toFixed(0)} s in all (${results.map((r) => `${r.plan.sizeMB} MB: ${(r.wallMs / 1000).toFixed(0)} s`).join(', ')}, plus building uncached journals)
- Date: ${machine.date}
- CPU: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGB} GB RAM
- Node ${machine.node}, ${machine.os}
- Disk: ${machine.disk}
- Engine measured: ${machine.engine}
- Load average (1 min) during the run: ${loadRange(results)} on ${machine.cores} cores${Math.max(...results.map((r) => Math.max(r.load.start, r.load.end))) > machine.cores * 0.75 ? ' — other work was running on this machine, so tails (p99, max, stalls) and the native figures are noisier than on an idle one' : ''}
- Native comparison: better-sqlite3 ${results[0]?.nativeSettings ?? ''}

## Targets

${verdictSummary(results).map((l) => `- ${l}`).join('\n')}

${results.map(markdownTable).join('\n\n')}

## What is measured

- **Journal**: built directly with sql.js (the product's \`MIGRATIONS\` and \`user_version\`), bulk-inserted:
  sessions with 3-14 turns, one run per turn, tool invocations, boundary requests (about 30% of
  invocations) and the events ledger (\`text\` and \`invocation_output\` payloads 0.6-2 KB, average
  shown per table). The file is a snapshot with no checkpoint (generation 1, seq 0). One running
  chat (\`LIVE\` in bench/build.ts) receives every measured write.
- **Durable write, this engine**: \`journal.write('appendEvents', runId, [{kind: 'text', payload: {text}}], at)\`
  with ~1.15 KB of text, timed on the main thread from the call to its resolution (the worker reads
  the run, INSERTs the event, appends the record to the redo log, fdatasyncs). The worker is the one
  the extension ships, \`dist/journal-worker.js\` (\`npm run bench\` bundles it first). ${results[0]?.plan.warmup ?? 200} warm-up
  writes first; then blocks of ${results[0]?.plan.block ?? 50} engine writes, ${results[0]?.plan.block ?? 50} native writes and ${results[0]?.plan.block ?? 50} writes of the least engine
  (below) alternate, so noise hits all three; the ratio is p50(engine) / p50(native), and the median
  of the per-block ratios is shown as a check against load bursts.
- **The least engine the constraints allow** (bench/minimalEngine.ts): sql.js in a worker thread, the
  same transaction, its parameters appended with one \`pwrite\` to a preallocated file, \`fdatasync\`,
  answer — no lock, fence, checksum, recovery or second process. It is the baseline for the p50
  target: when even it is above 1.3x native in the same blocks, the target is out of reach on this
  machine with sql.js off the calling thread, whatever the engine does.
- **Where a write's time goes**: after the blocks, in a child process (so its sql.js heap never
  lives in the process whose stalls are measured): 400 record-sized (~1.2 KB) \`pwrite\` +
  \`fdatasync\` on a preallocated file in the same folder (the disk's floor, which native SQLite pays
  too), then 400 \`LogStore.write\` calls on that process's own thread (the same write without the
  worker: SQL in sql.js, framing, append, fdatasync, COMMIT), timing the transaction's SQL alone
  inside each, then 400 round trips of a record-sized message to a worker thread that only answers.
  The caller-side p50 minus the LogStore write is the hand-over to the worker thread and back; the
  sum fdatasync + SQL + round trip shows why the least engine costs what it does.
- **Native**: better-sqlite3 on a copy of the same file, \`journal_mode=WAL\`, \`synchronous=FULL\`, the
  same transaction (read the run, read its last seq, INSERT), prepared statements, on the same disk.
- **Whole-file export** (the old design): an INSERT transaction in sql.js, then \`db.export()\`, write a
  temporary file, fsync, rename, fsync the folder; run in a child process. Fewer iterations at large
  sizes (30 / 20 / 10 / 5 for 1 / 10 / 50 / 200 MB): the p99 of 5 samples is their maximum.
- **Group commit**: K writes fired together (\`Promise.all\`), total time / K; median over rounds.
- **Main-thread stall**: \`perf_hooks.monitorEventLoopDelay({resolution: 1})\`, max, enabled only while
  engine writes (or \`compactNow()\`) run; the figure is the longest gap between 1 ms ticks, so it
  includes the 1 ms period.
- **compactNow()**: asks the journal worker to compact after the measured writes; one write is
  queued right behind it to show how long writes wait. **Background compaction**: afterwards the
  bench keeps writing until the log rotates (2 MiB, the product default) and times the writes made
  while the compactor thread rebuilds the snapshot.
- **Activation-to-ready**: \`Journal.open()\` call to resolution, on the journal with an empty first log
  generation (as any journal in use has). "Fresh process": the first journal of a new Node process (as
  in an extension host that just started), ${results[0]?.plan.freshOpens ?? 3} processes; "warm process": a new worker
  in the bench process, ${results[0]?.plan.inProcessOpens ?? 5} times. "Log full": after the write phases the bench
  counts the records of one log generation (2 MiB, the product default), writes that many minus 64 into
  a fresh generation, lets background compactions finish, and opens it in fresh processes (the open
  replays them): the worst case between two rotations. The files are in the page cache (just
  written); \`worker openMs\` is the worker's own \`report.openMs\`, and "where a fresh activation
  goes" the p50 of each phase of \`report.phases\`. The fresh processes run without \`--expose-gc\`:
  with that flag set before the worker starts, starting it took ~20 ms longer here (see task.ts).
  After each, a fresh process runs **the least open the constraints allow** (bench/minimalOpen.ts:
  start a worker thread, instantiate sql.js from the WASM compiled meanwhile, read the snapshot,
  build the database, one query), the baseline for the activation target.
- **Two processes**: \`out/test/tools/journalWriter.js <file> counter 1000 B\` appends to the same
  journal while this process times its own writes until the other one finishes.
- **Resident memory**: RSS of a fresh process after opening the journal (and a GC) minus its RSS
  just before opening, over the journal's size; also after 100 writes.
`;
}

/** The live-path table (markdown). */
function liveSection(live: { streaming: LatencySummary; crossWindow: LatencySummary }): string {
  const row = (what: string, s: LatencySummary, target: string, met: boolean) =>
    `| ${what} | ${fmt(s.p50)} / ${fmt(s.p95)} (max ${fmt(s.max)}, n=${s.n}) | ${target} | ${met ? 'met' : 'NOT MET'} |`;
  return [
    '### Live paths (bench/liveLatency.ts)',
    '',
    '| metric | p50 / p95 ms | target | verdict |',
    '|---|---|---|---|',
    row('agent text delta → durable journal write → update for the webview, streaming every 5 ms', live.streaming, 'p95 < 16 ms', live.streaming.p95 < 16),
    row('commit in window A → other window B notified (its worker polls every 50 ms)', live.crossWindow, 'max < 100 ms', live.crossWindow.max < 100),
  ].join('\n');
}

const DOC = path.join(ROOT, 'docs', 'BENCHMARKS.md');
const RESULTS = path.join(ROOT, 'bench', 'results.json');

function writeResults(json: object): void {
  fs.writeFileSync(RESULTS, `${JSON.stringify(json, (_k, val: unknown) => (typeof val === 'number' ? Math.round(val * 1000) / 1000 : val), 2)}\n`);
}

function previousResults(): { longChat?: LongChatResult; longChatView?: LongChatViewResult; search?: SearchBenchResult } {
  try {
    return JSON.parse(fs.readFileSync(RESULTS, 'utf8')) as { longChat?: LongChatResult; longChatView?: LongChatViewResult; search?: SearchBenchResult };
  } catch {
    return {};
  }
}

/** The command line of this run, for the doc. */
function commandLine(): string {
  return process.argv.length > 2 ? `npm run bench -- ${process.argv.slice(2).join(' ')}` : 'npm run bench';
}

/** Runs the long-chat section and prints its table. */
async function runLongChat(cache: string): Promise<LongChatResult> {
  process.stdout.write(`\n[long chats] ${SHORT_TURNS} vs ${LONG_TURNS} turns\n`);
  const result = await benchLongChats(cache, (line) => process.stdout.write(`${line}\n`));
  process.stdout.write(`\n${longChatText(result)}\n`);
  return result;
}

/** Measures the long chat's view in code-server and prints its table. */
async function runLongChatView(view: NonNullable<BenchOptions['longChatView']>): Promise<LongChatViewResult> {
  const extensionPath = path.resolve(process.env.NAC_EXTENSION_PATH ?? ROOT);
  process.stdout.write(`\n[long chat view] ${VIEW_DEFAULTS.longTurns} vs ${VIEW_DEFAULTS.shortTurns} turns in code-server (${extensionPath})\n`);
  const result = await benchLongChatView({ ...VIEW_DEFAULTS, ...view, extensionPath }, (line) => process.stdout.write(`${line}\n`));
  process.stdout.write(`\n${viewText(result)}\n`);
  return result;
}

/**
 * `--long-chat` and/or `--long-chat-view` alone: only those, written into the existing doc and
 * results.json with the latest figures of the part not run.
 */
async function longChatOnly(cache: string, options: BenchOptions): Promise<void> {
  const started = performance.now();
  const previous = previousResults();
  const host = options.longChat ? await runLongChat(cache) : previous.longChat;
  const view = options.longChatView ? await runLongChatView(options.longChatView) : previous.longChatView;
  if (!host) throw new Error('no long-chat figures to write beside the view: run npm run bench -- --long-chat first');
  const section = longChatMarkdown(host, options.longChat ? commandLine() : 'npm run bench -- --long-chat', view);
  fs.writeFileSync(DOC, withSection(fs.existsSync(DOC) ? fs.readFileSync(DOC, 'utf8') : '', section));
  writeResults({ ...previous, longChat: host, ...(view ? { longChatView: view } : {}) });
  process.stdout.write(`\nWrote the long-chat section of docs/BENCHMARKS.md and bench/results.json (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
}

/** `--search`: only that section, written into the existing doc and results.json. */
async function searchOnly(cache: string, sizes: readonly number[]): Promise<void> {
  process.stdout.write(`Search benchmark: ${sizes.join(', ')} MB and 10,000 chats\n`);
  const result = await benchSearch(cache, sizes, (line) => process.stdout.write(`${line}\n`));
  process.stdout.write(`\n${searchText(result)}\n`);
  const section = searchMarkdown(result, `npm run bench -- ${process.argv.slice(2).join(' ')}`);
  fs.writeFileSync(DOC, withSearchSection(fs.existsSync(DOC) ? fs.readFileSync(DOC, 'utf8') : '', section));
  writeResults({ ...previousResults(), search: result });
  process.stdout.write(`\nWrote the search section of docs/BENCHMARKS.md and bench/results.json (${(result.wallMs / 1000).toFixed(1)} s)\n`);
}

/** `--salvage`: the salvage sweep alone; writes its section of docs/BENCHMARKS.md. */
async function salvageOnly(): Promise<void> {
  const load = os.loadavg()[0]!.toFixed(1);
  const result = await benchSalvage((line) => process.stdout.write(`${line}\n`));
  const when = `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const section = salvageMarkdown(result, when, `${load} -> ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`);
  process.stdout.write(`\n${section}\n`);
  fs.writeFileSync(DOC, withSalvageSection(fs.existsSync(DOC) ? fs.readFileSync(DOC, 'utf8') : '', section));
}

/** `--attachments`: runs attachments.ts and replaces its section of docs/BENCHMARKS.md. */
async function attachmentsOnly(): Promise<void> {
  const result = await benchAttachments((line) => process.stdout.write(`${line}\n`));
  const section = attachmentsMarkdown(result);
  const doc = fs.existsSync(DOC) ? fs.readFileSync(DOC, 'utf8') : '';
  const start = doc.indexOf('## Attachments (');
  const end = start < 0 ? -1 : doc.indexOf('\n## ', start + 1);
  const next = start < 0 ? `${doc.trimEnd()}\n\n${section}` : `${doc.slice(0, start)}${section}${end < 0 ? '' : doc.slice(end + 1)}`;
  fs.writeFileSync(DOC, next);
  writeResults({ ...previousResults(), attachments: result });
  process.stdout.write('\nWrote the attachments section of docs/BENCHMARKS.md and bench/results.json\n');
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const cache = cacheDir(ROOT);
  if (options.search) return searchOnly(cache, options.sizes);
  if (options.salvage) return salvageOnly();
  if (options.checkpoints) {
    const r = await benchCheckpoints();
    process.stdout.write(`${checkpointText(r)}\n${JSON.stringify(r)}\n`);
    return;
  }
  if (options.attachments) return attachmentsOnly();
  if (options.chatListView) {
    const r = await benchChatListView((line) => process.stdout.write(`${line}\n`));
    const opens = (list: readonly { paintedMs: number }[]) => {
      const later = list.slice(1).map((o) => o.paintedMs).sort((x, y) => x - y);
      return `first ${list[0]?.paintedMs.toFixed(0)} ms, later median ${later[later.length >> 1]?.toFixed(0)} ms`;
    };
    for (const run of r.runs) process.stdout.write(`Open Chat…, ${run.chats} chats: list painted ${opens(run.openList)}\n`);
    process.stdout.write(`VS Code's floor (a quick pick of 100 items in memory): ${opens(r.floor)}\n`);
    process.stdout.write(`${JSON.stringify(r)}\n`);
    return;
  }
  if (options.sizes.length === 0) return longChatOnly(cache, options);
  const started = performance.now();
  const machine = describeMachine(os.tmpdir(), ROOT);
  process.stdout.write(
    `Chat journal benchmark: sizes ${options.sizes.join(', ')} MB${options.quick ? ' (quick)' : ''}\n` +
      `${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; ${machine.disk}\nEngine: ${machine.engine}\n`,
  );
  const results: SizeResult[] = [];
  for (const sizeMB of options.sizes) {
    const t0 = performance.now();
    const stats = await runTask<BuiltStats>('build', { dir: cache, sizeMB }, 900_000);
    const file = path.join(cache, builtJournalName(sizeMB));
    const buildNote = performance.now() - t0 > 2000 ? `built in ${(stats.buildMs / 1000).toFixed(1)} s` : 'cached';
    process.stdout.write(`\n[${sizeMB} MB] journal ${(stats.bytes / 1048576).toFixed(1)} MB (${buildNote})\n`);
    const result = await benchSize(planFor(sizeMB, options.writes), { file, stats }, (line) => process.stdout.write(`${line}\n`));
    results.push(result);
    process.stdout.write(`\n${textTable(result)}\n`);
  }
  process.stdout.write('\n[live paths] streaming and cross-window latency\n');
  const live = { streaming: await streamingLatency(), crossWindow: await crossWindowLatency() };
  const liveText = liveSection(live);
  process.stdout.write(`${liveText}\n`);
  const longChatResult = options.longChat ? await runLongChat(cache) : undefined;
  const previous = previousResults();
  const longChat = longChatResult ? { result: longChatResult, markdown: longChatMarkdown(longChatResult, commandLine(), previous.longChatView) } : undefined;
  const totalMs = performance.now() - started;
  process.stdout.write(`\nTargets:\n${verdictSummary(results).map((l) => `  ${l}`).join('\n')}\n`);
  const json = {
    machine,
    command: process.argv.slice(2),
    quick: options.quick,
    totalMs: Math.round(totalMs),
    targets: TARGETS,
    sizes: results.map((r) => ({ ...r, verdicts: verdicts(r) })),
    live,
    longChat: longChat?.result ?? previous.longChat,
    ...(previous.longChatView ? { longChatView: previous.longChatView } : {}),
    search: previous.search,
  };
  writeResults(json);
  const doc = markdown(machine, options, results, totalMs).replace('## What is measured', `${liveText}\n\n## What is measured`);
  // A run without the long-chat section keeps the one the file has.
  const oldDoc = fs.existsSync(DOC) ? fs.readFileSync(DOC, 'utf8') : '';
  const section = longChat?.markdown ?? keepSection(oldDoc);
  const searchSection = keepSearchSection(oldDoc);
  const withLongChat = section ? withSection(doc, section) : doc;
  const withSearch = searchSection ? withSearchSection(withLongChat, searchSection) : withLongChat;
  const salvageSection = keepSalvageSection(oldDoc);
  fs.writeFileSync(DOC, salvageSection ? withSalvageSection(withSearch, salvageSection) : withSearch);
  process.stdout.write(`\nWrote bench/results.json and docs/BENCHMARKS.md (${(totalMs / 1000).toFixed(1)} s)\n`);
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
