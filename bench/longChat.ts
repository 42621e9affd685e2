/**
 * The long-chat section of `npm run bench` (issue 11): builds (or takes from the cache) a chat of
 * SHORT_TURNS and one of LONG_TURNS turns (longChatRows.ts), measures both side by side in fresh
 * processes (longChatTask.ts), and renders the figures with the targets and the old design's figures
 * (longChatBefore.ts) beside them; the view measured in code-server (longChatView.ts) follows as a
 * table of its own (longChatViewReport.ts). Both sections' figures go to bench/results.json, from
 * which docs/BENCHMARKS.md is rendered (doc.ts).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LongChatFile } from './longChatRows';
import { BEFORE_HOST } from './longChatBefore';
import type { LongChatMemory, LongChatTimes } from './longChatTask';
import { busy } from './longChatViewReport';
import { removeDir, runTask, trackDir } from './procs';
import { fmt, percentile } from './stats';

/** Turns of the short and the long chat. */
export const SHORT_TURNS = 10;
export const LONG_TURNS = 5000;

/** The issue's targets for long chats. */
export const LONG_CHAT_TARGETS = { updateHostMs: 2, updateWebviewMs: 4, memoryAboveShortMB: 50 } as const;

/** Heading of the section in docs/BENCHMARKS.md. */
const LONG_CHAT_HEADING = '## Long chats';

/** p50 / p95 / max of samples (ms). */
export interface P95 {
  readonly n: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
}

/** p50 / p95 / max of `samples`. */
export function p95(samples: readonly number[]): P95 {
  return { n: samples.length, p50: percentile(samples, 50), p95: percentile(samples, 95), max: samples.length ? Math.max(...samples) : Number.NaN };
}

/** The figures of one chat length. */
export interface LongChatFigures {
  readonly turns: number;
  readonly journalBytes: number;
  readonly snapshotBytes: number;
  readonly changesBytes: number;
  readonly open: P95;
  readonly serialize: P95;
  readonly olderPage: P95;
  readonly updateHost: P95;
  readonly updateNotify: P95;
  /** The host thread busy over `updateHost` (absent in older results: n = 0). */
  readonly updateHostBusy: P95;
  readonly webviewSnapshot: P95;
  readonly webviewPage: P95;
  readonly webviewChangesPage: P95;
  readonly webviewChangesAll: P95;
  readonly webviewUpdate: P95;
  readonly loadedAll: number;
  readonly renderChangesPage: P95;
  readonly renderChangesAll: P95;
  readonly mountedMax: number;
  /** Medians over the memory processes, MB above the process before opening the journal. */
  readonly rssOpenMB: number;
  readonly rssHeldMB: number;
  readonly heapHeldMB: number;
  readonly memorySamples: number;
}

/** The whole section's result. */
export interface LongChatResult {
  readonly date: string;
  readonly load: { readonly start: number; readonly end: number };
  readonly wallMs: number;
  readonly chats: readonly LongChatFigures[];
  /** The old design's figures shown beside these (longChatBefore.ts), written with them into bench/results.json. */
  readonly before: typeof BEFORE_HOST;
}

/** Repeats per chat length (the same for both: no figure costs seconds any more). */
export function longChatPlan(_turns: number): { repeats: number; updates: number; memoryProcesses: number } {
  return { repeats: 30, updates: 200, memoryProcesses: 3 };
}

const MB = 1048576;
const median = (values: readonly number[]) => percentile(values, 50);

/** Measures the short and the long chat (cache: the bench's journal cache folder). */
export async function benchLongChats(cache: string, log: (line: string) => void): Promise<LongChatResult> {
  const started = performance.now();
  const loadStart = os.loadavg()[0]!;
  const files: LongChatFile[] = [];
  for (const turns of [SHORT_TURNS, LONG_TURNS]) {
    const built = await runTask<LongChatFile>('buildLongChat', { dir: cache, turns }, 900_000);
    log(`[long chat] ${turns} turns: journal ${(built.bytes / MB).toFixed(1)} MB (${built.buildMs ? `built in ${(built.buildMs / 1000).toFixed(1)} s` : 'cached'})`);
    files.push(built);
  }
  const work = trackDir(fs.mkdtempSync(path.join(os.tmpdir(), 'nac-bench-long-')));
  const copy = (f: LongChatFile, name: string) => {
    const dir = fs.mkdtempSync(path.join(work, `${name}-`));
    const file = path.join(dir, 'journal.sqlite');
    fs.copyFileSync(f.file, file);
    return file;
  };
  try {
    const times = new Map<number, LongChatTimes>();
    for (const f of files) {
      const plan = longChatPlan(f.turns);
      times.set(f.turns, await runTask<LongChatTimes>('longChat', { file: copy(f, `t${f.turns}`), turns: f.turns, repeats: plan.repeats, updates: plan.updates }, 900_000));
      log(`[long chat] ${f.turns} turns: timed`);
    }
    const memory = new Map<number, LongChatMemory[]>(files.map((f) => [f.turns, []]));
    // Alternating short and long, so a load burst hits both.
    for (let i = 0; i < longChatPlan(LONG_TURNS).memoryProcesses; i++) {
      for (const f of files) memory.get(f.turns)!.push(await runTask<LongChatMemory>('longChatMemory', { file: copy(f, `m${f.turns}`), turns: f.turns }, 300_000, ['--expose-gc']));
    }
    log('[long chat] memory measured');
    const chats = files.map((f) => figures(f, times.get(f.turns)!, memory.get(f.turns)!));
    return { date: new Date().toISOString(), load: { start: loadStart, end: os.loadavg()[0]! }, wallMs: performance.now() - started, chats, before: BEFORE_HOST };
  } finally {
    removeDir(work);
  }
}

/** Summarizes one chat length's raw samples. */
export function figures(f: Pick<LongChatFile, 'turns' | 'bytes'>, t: LongChatTimes, m: readonly LongChatMemory[]): LongChatFigures {
  return {
    turns: f.turns,
    journalBytes: f.bytes,
    snapshotBytes: t.snapshotBytes,
    changesBytes: t.changesBytes,
    open: p95(t.openMs),
    serialize: p95(t.serializeMs),
    olderPage: p95(t.olderPageMs),
    updateHost: p95(t.updateHostMs),
    updateNotify: p95(t.updateNotifyMs),
    // Absent from results of older runs.
    updateHostBusy: p95(t.updateHostBusyMs ?? []),
    webviewSnapshot: p95(t.webviewSnapshotMs),
    webviewPage: p95(t.webviewPageMs),
    webviewChangesPage: p95(t.webviewChangesPageMs),
    webviewChangesAll: p95(t.webviewChangesAllMs),
    webviewUpdate: p95(t.webviewUpdateMs),
    loadedAll: t.loadedAll,
    renderChangesPage: p95(t.renderChangesPageMs),
    renderChangesAll: p95(t.renderChangesAllMs),
    mountedMax: t.mountedMax,
    rssOpenMB: median(m.map((x) => (x.rssOpen - x.rssBefore) / MB)),
    rssHeldMB: median(m.map((x) => (x.rssHeld - x.rssBefore) / MB)),
    heapHeldMB: median(m.map((x) => (x.heapHeld - x.heapBefore) / MB)),
    memorySamples: m.length,
  };
}

type Row = readonly [metric: string, short: string, long: string, before: string, target: string, verdict: string];

const met = (ok: boolean) => (ok ? 'met' : 'NOT MET');
const pair = (x: readonly [number, number]) => `${fmt(x[0])} / ${fmt(x[1])}`;

function rows(r: LongChatResult): Row[] {
  const [s, l] = [r.chats[0]!, r.chats[1]!];
  const ms = (x: P95) => `${fmt(x.p50)} / ${fmt(x.p95)}`;
  const T = LONG_CHAT_TARGETS;
  const B = r.before;
  const both = (a: P95, b: P95, limit: number) => `${met(a.p95 <= limit)} / ${met(b.p95 <= limit)}`;
  const memAbove = l.rssHeldMB - s.rssHeldMB;
  return [
    ['journal file (MB)', (s.journalBytes / MB).toFixed(2), (l.journalBytes / MB).toFixed(1), '26.6', '', ''],
    ['snapshot message, JSON (KB)', (s.snapshotBytes / 1024).toFixed(0), (l.snapshotBytes / 1024).toFixed(0), `${(B.snapshotMB * 1024).toFixed(0)} (the whole chat)`, '', ''],
    ['host: open = getSession + the last page (transcriptPage) + liveState (p50 / p95 ms)', ms(s.open), ms(l.open), `${pair(B.open)} (whole transcript)`, '', ''],
    ['host: JSON.stringify of that snapshot (p50 / p95 ms)', ms(s.serialize), ms(l.serialize), pair(B.serialize), '', ''],
    ['host: `loadOlder` from the middle of the chat, transcriptPage(before) + JSON (p50 / p95 ms)', ms(s.olderPage), ms(l.olderPage), '', '', ''],
    [
      'host: one turn changed in another window, `refresh` → changesSince and getSession (asked at once) + JSON of `changes`, wall clock, the worker\'s read included (p50 / p95 ms)', ms(s.updateHost), ms(l.updateHost),
      `${pair(B.updateHost)} (snapshot re-read)`, '', '',
    ],
    [
      '  of it, the extension host thread busy (event-loop active time; the read runs on the journal worker\'s thread) (p50 / p95 ms)', ms(s.updateHostBusy), ms(l.updateHostBusy),
      '', `<= ${T.updateHostMs} ms`, both(s.updateHostBusy, l.updateHostBusy, T.updateHostMs),
    ],
    ['  (that window\'s commit → `refresh` here, worker polling; p50 / p95 ms)', ms(s.updateNotify), ms(l.updateNotify), pair(B.updateNotify), '', ''],
    ['  that `changes` message (bytes, median)', String(s.changesBytes), String(l.changesBytes), '', '', ''],
    ['webview: apply the snapshot, check + reduce, no DOM (p50 / p95 ms)', ms(s.webviewSnapshot), ms(l.webviewSnapshot), pair(B.webviewSnapshot), '', ''],
    ['webview: apply one older page while climbing to the first turn (p50 / p95 ms)', ms(s.webviewPage), `${ms(l.webviewPage)} (n=${l.webviewPage.n})`, '', '', ''],
    ['webview: apply one `changes`, the last page loaded (p50 / p95 ms)', ms(s.webviewChangesPage), ms(l.webviewChangesPage), `${pair(B.webviewSnapshot)} (the snapshot)`, `<= ${T.updateWebviewMs} ms`, both(s.webviewChangesPage, l.webviewChangesPage, T.updateWebviewMs)],
    [`webview: apply one \`changes\`, every turn loaded (${s.loadedAll} / ${l.loadedAll}; p50 / p95 ms)`, ms(s.webviewChangesAll), ms(l.webviewChangesAll), '', `<= ${T.updateWebviewMs} ms`, both(s.webviewChangesAll, l.webviewChangesAll, T.updateWebviewMs)],
    ['webview: apply one `changes` and render it on happy-dom (DOM work, no layout), the last page loaded (p50 / p95 ms)', ms(s.renderChangesPage), ms(l.renderChangesPage), '', `<= ${T.updateWebviewMs} ms`, both(s.renderChangesPage, l.renderChangesPage, T.updateWebviewMs)],
    [`  the same, every turn loaded (turns in the DOM at most: ${s.mountedMax} / ${l.mountedMax}) (p50 / p95 ms)`, ms(s.renderChangesAll), ms(l.renderChangesAll), '', `<= ${T.updateWebviewMs} ms`, both(s.renderChangesAll, l.renderChangesAll, T.updateWebviewMs)],
    ['webview: apply one `update` (this window), every turn loaded (p50 / p95 ms)', ms(s.webviewUpdate), ms(l.webviewUpdate), pair(B.webviewUpdate), `<= ${T.updateWebviewMs} ms`, both(s.webviewUpdate, l.webviewUpdate, T.updateWebviewMs)],
    ['host memory: RSS after opening the journal, over the process before (MB)', fmt(s.rssOpenMB), fmt(l.rssOpenMB), fmt(B.rssOpenMB), '', ''],
    [`host memory: RSS holding the open chat's snapshot, over the process before (MB; heap); median of ${l.memorySamples}`, `${fmt(s.rssHeldMB)} (${fmt(s.heapHeldMB)})`, `${fmt(l.rssHeldMB)} (${fmt(l.heapHeldMB)})`, `${fmt(B.rssHeldMB)} (${fmt(B.heapHeldMB)}): +${B.memoryAboveShortMB}`, `<= +${T.memoryAboveShortMB} MB over ${s.turns} turns`, `+${fmt(memAbove)} MB: ${met(memAbove <= T.memoryAboveShortMB)}`],
  ];
}

function header(r: LongChatResult): Row {
  return ['metric', `${r.chats[0]!.turns} turns`, `${r.chats[1]!.turns} turns`, `before: ${r.chats[1]!.turns} turns, old design`, 'target', 'verdict'];
}

/** One line for stdout and the doc: the load average around the section. */
export function loadLine(r: LongChatResult): string {
  return `load average (1 min) ${r.load.start.toFixed(1)} -> ${r.load.end.toFixed(1)} on ${os.cpus().length} cores; ${(r.wallMs / 1000).toFixed(0)} s`;
}

/** The plain-text table (stdout). */
export function longChatText(r: LongChatResult): string {
  const all = [header(r), ...rows(r)];
  const widths = [0, 1, 2, 3, 4, 5].map((i) => Math.max(...all.map((row) => row[i]!.length)));
  const line = (row: Row) => row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [`== Long chats: ${loadLine(r)}`, line(all[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...all.slice(1).map(line)].join('\n');
}

/**
 * The markdown section for docs/BENCHMARKS.md (starts with LONG_CHAT_HEADING, ends with a newline):
 * the host and reducer table of `r`.
 */
export function longChatMarkdown(r: LongChatResult, command: string): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return `${LONG_CHAT_HEADING}

- Command: \`${command}\`; ${r.date}; ${loadLine(r)}${busy(r.load)}
- A chat of N turns, each the local agent's \`run ls\` (a line of text, the \`run\` invocation, its output
  of ${'~'}2.5 KB, its end, a closing line, \`run_finished\`), written with the journal's own operations
  (bench/longChatRows.ts), opened by the real journal worker and ChatRuntime in a fresh process per
  length (bench/longChatTask.ts), read as \`ChatPanel\` reads it: the last page (${'≤'} 30 turns) when it
  opens, an older page per \`loadOlder\`, and \`changesSince\` the panel's change mark when another
  window (a second journal on the same file) appends an event to the last turn. The webview figures
  are the reducer only (\`hostMessageProblem\` + \`reduceHostMessage\`), not rendering (the view in
  Chromium is the next table), except the happy-dom rows: the same messages reduced and rendered by
  the view's \`ChatRenderer\` with its virtualized transcript on happy-dom (bench/longChatRender.ts;
  every turn 400 px, an 800 px viewport following the bottom; DOM work only, no layout or paint);
  "every turn loaded" is after the view paged up to the first turn.
  Repeats: ${r.chats.map((c) => `${c.open.n} at ${c.turns} turns`).join(', ')}.
  Memory: RSS of the process (the journal worker included, which holds the whole journal in sql.js)
  after a GC, over the same process before it opened the journal.
- "before": the same bench on the old design (${r.before.when}), where opening read and folded the
  whole transcript and every change in another window re-sent it.

| ${header(r).join(' | ')} |
|---|---|---|---|---|---|
${rows(r).map((row) => `| ${row.map(esc).join(' | ')} |`).join('\n')}
`;
}
