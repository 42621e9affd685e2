/**
 * Presentation of the benchmark: target verdicts, a table per journal size (plain text for stdout,
 * markdown for docs/BENCHMARKS.md), the machine description and `bench/results.json`.
 */
import { execFileSync } from 'node:child_process';
import * as os from 'node:os';
import type { SizeResult } from './engineBench';
import { fmt, round } from './stats';

/** The issue's targets. */
export const TARGETS = {
  p50RatioMax: 1.3,
  p99MaxMs: 3,
  groupPerTxMaxMs: 0.25,
  stallMaxMs: 16,
  activationMs: { 10: 50, 200: 300 } as Record<number, number>,
} as const;

/** The machine the bench ran on. */
export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGB: number;
  readonly node: string;
  readonly os: string;
  readonly disk: string;
  readonly date: string;
  /** Commit of the repo, and whether src/journal differs from it (the engine measured). */
  readonly engine: string;
}

/** Describes this machine; `workDir` is where the journals under test were written. */
export function describeMachine(workDir: string, repoDir: string): Machine {
  let disk = 'unknown';
  try {
    const df = (dir: string) => execFileSync('df', ['-T', dir], { encoding: 'utf8' }).trim().split('\n').pop()!.split(/\s+/);
    const work = df(workDir);
    const repo = df(repoDir);
    disk = `journals under test in ${workDir} (${work[1]} on ${work[0]}, mounted at ${work[6]})` + (work[0] === repo[0] ? '; the same disk as the repo' : `; repo on ${repo[0]}`);
  } catch {
    /* df missing */
  }
  let engine = 'unknown';
  try {
    const git = (...a: string[]) => execFileSync('git', ['-C', repoDir, ...a], { encoding: 'utf8' }).trim();
    const dirty = git('status', '--porcelain', '--', 'src/journal') !== '';
    engine = `commit ${git('rev-parse', '--short', 'HEAD')}${dirty ? ' with uncommitted changes in src/journal' : ''}`;
  } catch {
    /* not a git checkout */
  }
  return {
    engine,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryGB: round(os.totalmem() / 1024 ** 3, 1),
    node: process.version,
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    disk,
    date: new Date().toISOString(),
  };
}

/** One verdict: met, not met, or no target at this size. */
export type Verdict = 'met' | 'NOT MET' | 'no target';

/** Verdicts of one size against TARGETS. */
export interface Verdicts {
  readonly p50Ratio: Verdict;
  readonly p99: Verdict;
  readonly groupCommit: Verdict;
  /** Both stalls (writes and compaction). */
  readonly stall: Verdict;
  readonly stallWrites: Verdict;
  readonly stallCompaction: Verdict;
  readonly activation: Verdict;
  /** The same target, with a log generation filled to just below rotation (replayed at open). */
  readonly activationFullLog: Verdict;
}

const v = (ok: boolean): Verdict => (ok ? 'met' : 'NOT MET');

/** Judges one size's figures against the targets. */
export function verdicts(r: SizeResult): Verdicts {
  const act = TARGETS.activationMs[r.plan.sizeMB];
  return {
    p50Ratio: v(r.ratioP50 <= TARGETS.p50RatioMax),
    p99: v(r.engineWrite.p99 <= TARGETS.p99MaxMs),
    groupCommit: v(r.group.k8PerTx <= TARGETS.groupPerTxMaxMs),
    stall: v(Math.max(r.stall.writes, r.stall.compaction, r.stall.backgroundCompaction) <= TARGETS.stallMaxMs),
    stallWrites: v(r.stall.writes <= TARGETS.stallMaxMs),
    stallCompaction: v(Math.max(r.stall.compaction, r.stall.backgroundCompaction) <= TARGETS.stallMaxMs),
    activation: act === undefined ? 'no target' : v(r.activation.fresh.p50 <= act && r.activation.inProcess.p50 <= act),
    activationFullLog: act === undefined ? 'no target' : v(r.activation.fullLog.p50 <= act),
  };
}

type Row = readonly [metric: string, value: string, target: string, verdict: string];

function rows(r: SizeResult): Row[] {
  const vd = verdicts(r);
  const ms = (p50: number, p99: number) => `${fmt(p50)} / ${fmt(p99)}`;
  const act = TARGETS.activationMs[r.plan.sizeMB];
  const bg = r.backgroundCompaction;
  return [
    ['durable write, this engine, caller side (p50 / p99 ms)', `${ms(r.engineWrite.p50, r.engineWrite.p99)}  (n=${r.engineWrite.n}, max ${fmt(r.engineWrite.max)})`, `p99 <= ${TARGETS.p99MaxMs} ms`, vd.p99],
    ['durable write, native better-sqlite3 WAL+FULL (p50 / p99 ms)', `${ms(r.nativeWrite.p50, r.nativeWrite.p99)}  (n=${r.nativeWrite.n}, max ${fmt(r.nativeWrite.max)})`, '', ''],
    ['ratio engine / native (p50; p99; median of per-block p50 ratios)', `${r.ratioP50.toFixed(2)}x; ${r.ratioP99.toFixed(2)}x; ${r.ratioBlockMedian.toFixed(2)}x`, `p50 <= ${TARGETS.p50RatioMax}x`, vd.p50Ratio],
    ['whole-file export + write + fsync + rename (p50 / p99 ms)', `${ms(r.exportWrite.p50, r.exportWrite.p99)}  (n=${r.exportWrite.n}; export() alone ${fmt(r.exportOnly.p50)})`, '', ''],
    ['group commit, cost per transaction, K=8 (K=32) (ms)', `${fmt(r.group.k8PerTx)} (${fmt(r.group.k32PerTx)})  (median of ${r.group.k8Rounds.n} / ${r.group.k32Rounds.n} rounds)`, `<= ${TARGETS.groupPerTxMaxMs} ms`, vd.groupCommit],
    [
      'where a write\'s time goes (p50 ms): pwrite + fdatasync of one record; the whole LogStore write on one thread; via the worker',
      `${fmt(r.breakdown.fdatasync.p50)}; ${fmt(r.breakdown.inProcess.p50)}; ${fmt(r.engineWrite.p50)}`,
      '',
      '',
    ],
    [
      'the least engine the constraints allow: sql.js in a worker, same transaction, pwrite + fdatasync, answer; no lock, fence, checksum or recovery (p50 / p99 ms; ratio to native p50)',
      `${ms(r.minimalWrite.p50, r.minimalWrite.p99)}; ${(r.minimalWrite.p50 / r.nativeWrite.p50).toFixed(2)}x  (n=${r.minimalWrite.n}, same blocks)`,
      `<= ${TARGETS.p50RatioMax}x`,
      r.minimalWrite.p50 / r.nativeWrite.p50 <= TARGETS.p50RatioMax ? 'reachable' : 'out of reach here',
    ],
    [
      'floor of any design with sql.js off the calling thread (p50 ms): fdatasync + the transaction\'s SQL in sql.js + a round trip to a worker',
      `${fmt(r.breakdown.fdatasync.p50)} + ${fmt(r.breakdown.sql.p50)} + ${fmt(r.breakdown.roundTrip.p50)} = ${fmt(r.breakdown.floor)} = ${(r.breakdown.floor / r.nativeWrite.p50).toFixed(2)}x native  (parts timed apart after the blocks, in a child process; the round trip swings with how busy the machine is)`,
      '',
      '',
    ],
    ['longest main-thread stall during writes (ms)', fmt(r.stall.writes), `<= ${TARGETS.stallMaxMs} ms`, vd.stallWrites],
    ['longest main-thread stall during compactNow() (during the background compaction) (ms)', `${fmt(r.stall.compaction)} (${fmt(r.stall.backgroundCompaction)})`, `<= ${TARGETS.stallMaxMs} ms`, vd.stallCompaction],
    ['compactNow() of the snapshot + log (caller side, ms)', `${fmt(r.compaction.callerMs)}  (${r.compaction.logRecords} records; a write queued behind it took ${fmt(r.compaction.writeQueuedBehindMs)}; peak RSS +${fmt(r.compaction.peakRssMB)} MB)`, '', ''],
    [
      'writes during a background compaction (p50 / p99 ms)',
      !bg
        ? 'no rotation happened'
        : bg.writes.n === 0
          ? `none: the compactor finished within ${fmt(bg.spanMs)} ms (the rotating write took ${fmt(bg.rotatingWriteMs)}; peak RSS +${fmt(bg.peakRssMB)} MB)`
          : `${ms(bg.writes.p50, bg.writes.p99)}  (n=${bg.writes.n} over ${fmt(bg.spanMs)} ms, max ${fmt(bg.writes.max)}; the rotating write took ${fmt(bg.rotatingWriteMs)}; stall ${fmt(r.stall.backgroundCompaction)}; peak RSS +${fmt(bg.peakRssMB)} MB)`,
      '', '',
    ],
    [
      'activation-to-ready, fresh process (p50 / max ms)',
      `${fmt(r.activation.fresh.p50)} / ${fmt(r.activation.fresh.max)}  (n=${r.activation.fresh.n}; worker openMs ${fmt(r.activation.freshReportOpenMs.p50)})`,
      act === undefined ? 'none at this size' : `<= ${act} ms`, vd.activation,
    ],
    [
      'the least open the constraints allow, fresh process: start a worker, instantiate sql.js, read the file, one query (p50 / max ms)',
      `${fmt(r.activation.minimalFresh.p50)} / ${fmt(r.activation.minimalFresh.max)}  (n=${r.activation.minimalFresh.n}, alternating with the opens above)`,
      act === undefined ? '' : `<= ${act} ms`,
      act === undefined ? '' : r.activation.minimalFresh.p50 <= act ? 'reachable' : 'out of reach here',
    ],
    [
      'where a fresh activation goes (p50 ms): thread start + bundle; WASM hand-over; sql.js instantiated; snapshot read; database built + first queries; replay; migrations',
      (['startMs', 'wasmMs', 'sqljsMs', 'readMs', 'loadMs', 'replayMs', 'migrateMs'] as const).map((k) => fmt(r.activation.freshPhases[k])).join('; '),
      '',
      '',
    ],
    [
      'activation-to-ready, new worker in a warm process (p50 / max ms)',
      `${fmt(r.activation.inProcess.p50)} / ${fmt(r.activation.inProcess.max)}  (n=${r.activation.inProcess.n}; worker openMs ${fmt(r.activation.inProcessReportOpenMs.p50)})`,
      act === undefined ? 'none at this size' : `<= ${act} ms`, vd.activation,
    ],
    [
      'activation-to-ready, fresh process, log full to just below rotation (p50 / max ms)',
      `${fmt(r.activation.fullLog.p50)} / ${fmt(r.activation.fullLog.max)}  (n=${r.activation.fullLog.n}; ${r.activation.fullLogRecords} records replayed; worker openMs ${fmt(r.activation.fullLogReportOpenMs.p50)})`,
      act === undefined ? 'none at this size' : `<= ${act} ms`, vd.activationFullLog,
    ],
    [
      'write with two processes sharing the journal (p50 / p99 ms)',
      `${ms(r.twoProcess.engine.p50, r.twoProcess.engine.p99)}  (n=${r.twoProcess.engine.n}, max ${fmt(r.twoProcess.engine.max)}; other writer: ${r.twoProcess.writerAcks} writes, ${fmt(r.twoProcess.writerPerWriteMs)} ms each)`,
      '', '',
    ],
    [
      'resident memory after open, over journal size',
      `+${r.memory.rssOpenMB} MB = ${r.memory.ratioOpen}x  (after 100 writes +${r.memory.rssAfterWritesMB} MB = ${r.memory.ratioAfterWrites}x; median of ${r.memory.samples})`,
      '', '',
    ],
  ];
}

function title(r: SizeResult): string {
  const j = r.journal;
  return (
    `${r.plan.sizeMB} MB journal: ${(j.bytes / 1048576).toFixed(1)} MB file, ${j.sessions} sessions, ${j.turns} turns, ${j.events} events, ` +
    `${j.boundaryRequests} boundary requests; text/output payloads avg ${j.avgTextPayload} chars (all events ${j.avgPayload}); ` +
    `load average ${r.load.start.toFixed(1)} -> ${r.load.end.toFixed(1)} on ${os.cpus().length} cores; ${(r.wallMs / 1000).toFixed(0)} s`
  );
}

/** The plain-text table of one size (stdout). */
export function textTable(r: SizeResult): string {
  const all = rows(r);
  const header: Row = ['metric', 'value', 'target', 'verdict'];
  const widths = [0, 1, 2, 3].map((i) => Math.max(...[header, ...all].map((row) => row[i]!.length)));
  const line = (row: Row) => row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [`== ${title(r)}`, line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...all.map(line)].join('\n');
}

/** The markdown table of one size. */
export function markdownTable(r: SizeResult): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return [
    `### ${title(r)}`,
    '',
    '| metric | value | target | verdict |',
    '|---|---|---|---|',
    ...rows(r).map((row) => `| ${row.map(esc).join(' | ')} |`),
  ].join('\n');
}

/** One line per target: the verdict at every size. */
export function verdictSummary(results: readonly SizeResult[]): string[] {
  const names: [keyof Verdicts, string][] = [
    ['p50Ratio', `p50 at most ${TARGETS.p50RatioMax}x native`],
    ['p99', `p99 at most ${TARGETS.p99MaxMs} ms`],
    ['groupCommit', `group commit at most ${TARGETS.groupPerTxMaxMs} ms per transaction (K=8)`],
    ['stall', `no main-thread stall over ${TARGETS.stallMaxMs} ms (writes and compaction)`],
    ['activation', 'activation-to-ready at most 50 ms at 10 MB, 300 ms at 200 MB (fresh and warm process, p50)'],
    ['activationFullLog', 'the same with a log generation full to just below rotation (fresh process, p50)'],
  ];
  return names.map(([key, label]) => `${label}: ${results.map((r) => `${r.plan.sizeMB} MB ${verdicts(r)[key]}`).join(', ')}`);
}
