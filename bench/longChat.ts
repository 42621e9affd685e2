/**
 * The long-chat section of `npm run bench` (issue 11's baseline): builds (or takes from the cache) a
 * chat of SHORT_TURNS and one of LONG_TURNS turns (longChatRows.ts), measures both side by side in
 * fresh processes (longChatTask.ts), and renders the figures with the targets beside them.
 *
 * docs/BENCHMARKS.md keeps the section between runs that do not measure it: `keepSection` takes it
 * from the old file and `withSection` puts it back before "## What is measured".
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LongChatFile } from './longChatRows';
import type { LongChatMemory, LongChatTimes } from './longChatTask';
import { removeDir, runTask, trackDir } from './procs';
import { fmt, percentile } from './stats';

/** Turns of the short and the long chat. */
export const SHORT_TURNS = 10;
export const LONG_TURNS = 5000;

/** The issue's targets for long chats. */
export const LONG_CHAT_TARGETS = { updateHostMs: 2, updateWebviewMs: 4, memoryAboveShortMB: 50 } as const;

/** Heading of the section in docs/BENCHMARKS.md. */
export const LONG_CHAT_HEADING = '## Long chats (issue 11 baseline)';

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
  readonly snapshot: P95;
  readonly serialize: P95;
  readonly reads: P95;
  readonly fold: P95;
  readonly updateHost: P95;
  readonly updateNotify: P95;
  readonly webviewSnapshot: P95;
  readonly webviewUpdate: P95;
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
}

/** Repeats per chat length: fewer where each costs seconds (the p95 of 10 is their maximum). */
export function longChatPlan(turns: number): { repeats: number; splitRepeats: number; updates: number; memoryProcesses: number } {
  return { repeats: turns <= 100 ? 30 : 6, splitRepeats: turns <= 100 ? 30 : 3, updates: 200, memoryProcesses: 3 };
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
      times.set(f.turns, await runTask<LongChatTimes>('longChat', { file: copy(f, `t${f.turns}`), turns: f.turns, repeats: plan.repeats, splitRepeats: plan.splitRepeats, updates: plan.updates }, 900_000));
      log(`[long chat] ${f.turns} turns: timed`);
    }
    const memory = new Map<number, LongChatMemory[]>(files.map((f) => [f.turns, []]));
    // Alternating short and long, so a load burst hits both.
    for (let i = 0; i < longChatPlan(LONG_TURNS).memoryProcesses; i++) {
      for (const f of files) memory.get(f.turns)!.push(await runTask<LongChatMemory>('longChatMemory', { file: copy(f, `m${f.turns}`), turns: f.turns }, 300_000, ['--expose-gc']));
    }
    log('[long chat] memory measured');
    const chats = files.map((f) => figures(f, times.get(f.turns)!, memory.get(f.turns)!));
    return { date: new Date().toISOString(), load: { start: loadStart, end: os.loadavg()[0]! }, wallMs: performance.now() - started, chats };
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
    snapshot: p95(t.snapshotMs),
    serialize: p95(t.serializeMs),
    reads: p95(t.readsMs),
    fold: p95(t.foldMs),
    updateHost: p95(t.updateHostMs),
    updateNotify: p95(t.updateNotifyMs),
    webviewSnapshot: p95(t.webviewSnapshotMs),
    webviewUpdate: p95(t.webviewUpdateMs),
    rssOpenMB: median(m.map((x) => (x.rssOpen - x.rssBefore) / MB)),
    rssHeldMB: median(m.map((x) => (x.rssHeld - x.rssBefore) / MB)),
    heapHeldMB: median(m.map((x) => (x.heapHeld - x.heapBefore) / MB)),
    memorySamples: m.length,
  };
}

type Row = readonly [metric: string, short: string, long: string, target: string, verdict: string];

function rows(r: LongChatResult): Row[] {
  const [s, l] = [r.chats[0]!, r.chats[1]!];
  const ms = (x: P95) => `${fmt(x.p50)} / ${fmt(x.p95)}`;
  const T = LONG_CHAT_TARGETS;
  const met = (ok: boolean) => (ok ? 'met' : 'NOT MET');
  const memAbove = l.rssHeldMB - s.rssHeldMB;
  return [
    ['journal file (MB)', (s.journalBytes / MB).toFixed(2), (l.journalBytes / MB).toFixed(1), '', ''],
    ['snapshot message, JSON (MB)', (s.snapshotBytes / MB).toFixed(3), (l.snapshotBytes / MB).toFixed(1), '', ''],
    ['host: full snapshot, getSession + transcript + liveState (p50 / p95 ms)', ms(s.snapshot), ms(l.snapshot), '', ''],
    ['  of which: the journal reads listTurns + listEvents; the fold buildTranscript (p50 ms)', `${fmt(s.reads.p50)}; ${fmt(s.fold.p50)}`, `${fmt(l.reads.p50)}; ${fmt(l.fold.p50)}  (n=${l.fold.n})`, '', ''],
    ['host: JSON.stringify of that message (p50 / p95 ms)', ms(s.serialize), ms(l.serialize), '', ''],
    ['host: one turn changed in another window, `refresh` → snapshot re-read and serialized (p50 / p95 ms)', ms(s.updateHost), ms(l.updateHost), `<= ${T.updateHostMs} ms`, `${met(s.updateHost.p95 <= T.updateHostMs)} / ${met(l.updateHost.p95 <= T.updateHostMs)}`],
    ['  (that window\'s commit → `refresh` here, worker polling; p50 / p95 ms)', ms(s.updateNotify), ms(l.updateNotify), '', ''],
    ['webview: apply the snapshot, check + reduce, no DOM (p50 / p95 ms)', ms(s.webviewSnapshot), ms(l.webviewSnapshot), `<= ${T.updateWebviewMs} ms (other window)`, `${met(s.webviewSnapshot.p95 <= T.updateWebviewMs)} / ${met(l.webviewSnapshot.p95 <= T.updateWebviewMs)}`],
    ['webview: apply one `update` (one event on the last turn), check + reduce, no DOM (p50 / p95 ms)', ms(s.webviewUpdate), ms(l.webviewUpdate), `<= ${T.updateWebviewMs} ms`, `${met(s.webviewUpdate.p95 <= T.updateWebviewMs)} / ${met(l.webviewUpdate.p95 <= T.updateWebviewMs)}`],
    ['host memory: RSS after opening the journal, over the process before (MB)', fmt(s.rssOpenMB), fmt(l.rssOpenMB), '', ''],
    [`host memory: RSS holding one snapshot, over the process before (MB; heap); median of ${l.memorySamples}`, `${fmt(s.rssHeldMB)} (${fmt(s.heapHeldMB)})`, `${fmt(l.rssHeldMB)} (${fmt(l.heapHeldMB)})`, `<= +${T.memoryAboveShortMB} MB over ${s.turns} turns`, `+${fmt(memAbove)} MB: ${met(memAbove <= T.memoryAboveShortMB)}`],
  ];
}

function header(r: LongChatResult): Row {
  return ['metric', `${r.chats[0]!.turns} turns`, `${r.chats[1]!.turns} turns`, 'target', 'verdict'];
}

/** One line for stdout and the doc: the load average around the section. */
export function loadLine(r: LongChatResult): string {
  return `load average (1 min) ${r.load.start.toFixed(1)} -> ${r.load.end.toFixed(1)} on ${os.cpus().length} cores; ${(r.wallMs / 1000).toFixed(0)} s`;
}

/** The plain-text table (stdout). */
export function longChatText(r: LongChatResult): string {
  const all = [header(r), ...rows(r)];
  const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...all.map((row) => row[i]!.length)));
  const line = (row: Row) => row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [`== Long chats: ${loadLine(r)}`, line(all[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...all.slice(1).map(line)].join('\n');
}

/** The markdown section for docs/BENCHMARKS.md (starts with LONG_CHAT_HEADING, ends with a newline). */
export function longChatMarkdown(r: LongChatResult, command: string): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return `${LONG_CHAT_HEADING}

- Command: \`${command}\`; ${r.date}; ${loadLine(r)}
- A chat of N turns, each the local agent's \`run ls\` (a line of text, the \`run\` invocation, its output
  of ${'~'}2.5 KB, its end, a closing line, \`run_finished\`), written with the journal's own operations
  (bench/longChatRows.ts), opened by the real journal worker and ChatRuntime in a fresh process per
  length (bench/longChatTask.ts). Today a change made in another window re-sends the whole snapshot,
  so the host's one-turn update is a full re-read, and the webview's cost of it is applying that
  snapshot; an \`update\` message is what a change made in this window costs the webview. The webview
  figures are the reducer only (\`hostMessageProblem\` + \`reduceHostMessage\`), not rendering.
  Repeats: ${r.chats.map((c) => `${c.snapshot.n} at ${c.turns} turns`).join(', ')} (the p95 of so few is their maximum).
  Memory: RSS of the process (the journal worker included) after a GC, over the same process before it
  opened the journal.

| ${header(r).join(' | ')} |
|---|---|---|---|---|
${rows(r).map((row) => `| ${row.map(esc).join(' | ')} |`).join('\n')}
`;
}

/** The long-chat section of an existing docs/BENCHMARKS.md text, or undefined when it has none. */
export function keepSection(doc: string): string | undefined {
  const start = doc.indexOf(`${LONG_CHAT_HEADING}\n`);
  if (start < 0) return undefined;
  const next = doc.indexOf('\n## ', start + LONG_CHAT_HEADING.length);
  return `${doc.slice(start, next < 0 ? doc.length : next + 1).trimEnd()}\n`;
}

/**
 * `doc` with `section` in place of its long-chat section, or, when it has none, inserted before
 * "## What is measured" (at the end when that heading is missing). The rest is left as it was.
 */
export function withSection(doc: string, section: string): string {
  const old = keepSection(doc);
  const body = `${section.trimEnd()}\n`;
  if (old !== undefined) {
    const start = doc.indexOf(old);
    const rest = doc.slice(start + old.length).replace(/^\n*/, '');
    return `${doc.slice(0, start)}${body}${rest ? `\n${rest}` : ''}`;
  }
  const anchor = doc.indexOf('## What is measured');
  if (anchor < 0) return `${doc.trimEnd()}\n\n${body}`;
  return `${doc.slice(0, anchor)}${body}\n${doc.slice(anchor)}`;
}
