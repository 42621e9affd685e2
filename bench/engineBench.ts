/**
 * The measurements for one journal size: activation and memory (fresh processes), the engine's
 * durable write against native better-sqlite3 (interleaved blocks), group commit, main-thread
 * stalls during writes and during a compaction, writes during a background compaction, writes with
 * a second process sharing the journal, and the old whole-file export.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { Journal } from '../src/journal/journal';
import { generationsAmong, listGenerations } from '../src/journal/logStore';
import type { OpenPhases } from '../src/journal/workerProtocol';
import { LIVE, type BuiltStats } from './build';
import { openNative } from './native';
import { removeDir, runTask, startWriter, trackDir } from './procs';
import { writeText } from './rows';
import { round, summarize, type Summary } from './stats';
import { WASM_PATH, WORKER_PATH, type BreakdownSamples, type ExportResult, type ProbeResult } from './task';

/** Iteration counts for one size. */
export interface SizePlan {
  readonly sizeMB: number;
  /** Measured single writes, engine and native each. */
  readonly writes: number;
  /** Writes per interleaved block. */
  readonly block: number;
  readonly warmup: number;
  readonly exportIterations: number;
  readonly inProcessOpens: number;
  readonly freshOpens: number;
  readonly group8Rounds: number;
  readonly group32Rounds: number;
  /** Writes of the second process. */
  readonly writerCount: number;
}

/** Everything measured for one size (times in ms, memory in MB). */
export interface SizeResult {
  readonly plan: SizePlan;
  readonly journal: BuiltStats;
  readonly engineWrite: Summary;
  readonly nativeWrite: Summary;
  readonly ratioP50: number;
  readonly ratioP99: number;
  /** Median over block pairs of p50(engine block) / p50(native block): less sensitive to load bursts. */
  readonly ratioBlockMedian: number;
  readonly nativeSettings: string;
  readonly exportWrite: Summary;
  readonly exportOnly: Summary;
  readonly group: { readonly k8PerTx: number; readonly k32PerTx: number; readonly k8Rounds: Summary; readonly k32Rounds: Summary };
  /** Longest gap between 1 ms event-loop ticks on the bench's main thread (includes the 1 ms period). */
  readonly stall: { readonly writes: number; readonly compaction: number; readonly group: number; readonly twoProcess: number; readonly backgroundCompaction: number };
  readonly compaction: { readonly callerMs: number; readonly writeQueuedBehindMs: number; readonly logRecords: number; readonly peakRssMB: number };
  readonly backgroundCompaction: {
    readonly writes: Summary;
    readonly rotatedAfterWrites: number;
    /** The write whose commit crossed rotateAtBytes (it creates the next generation). */
    readonly rotatingWriteMs: number;
    /** How long the closed generation stayed (rotation to the compactor deleting it), ms. */
    readonly spanMs: number;
    /** Peak RSS of the bench process above its RSS before the phase (the compactor is a thread of it), MB. */
    readonly peakRssMB: number;
    readonly logLine: string | null;
  } | null;
  readonly activation: {
    readonly fresh: Summary;
    readonly freshReportOpenMs: Summary;
    /** p50 of each phase of the fresh-process opens (OpenPhases, ms). */
    readonly freshPhases: Record<Exclude<keyof OpenPhases, 'workerStartedAt'>, number>;
    /**
     * The least open the constraints allow (bench/minimalOpen.ts: a worker, sql.js, the file, one
     * query), in fresh processes alternating with the real ones.
     */
    readonly minimalFresh: Summary;
    readonly inProcess: Summary;
    readonly inProcessReportOpenMs: Summary;
    /** Fresh-process opens with a log generation filled to just below rotation. */
    readonly fullLog: Summary;
    readonly fullLogReportOpenMs: Summary;
    readonly fullLogRecords: number;
  };
  /**
   * The least engine the constraints allow (bench/minimalEngine.ts: sql.js in a worker, the same
   * transaction, one pwrite + fdatasync, answer; no lock, fence, checksum or recovery), timed in the
   * same interleaved blocks as the engine and native SQLite, caller side.
   */
  readonly minimalWrite: Summary;
  /**
   * Where a durable write's time goes, p50 ms, measured right after the interleaved blocks: one
   * record-sized pwrite + fdatasync on a preallocated file in the same folder (the disk's floor);
   * the whole LogStore write (SQL in sql.js, framing, append, fdatasync, COMMIT) run on this thread
   * without the worker, and within it the transaction's SQL alone (sql.js running the same
   * appendEvents, statements recorded); and a round trip of a record-sized message to a worker
   * thread that only answers. The engine's caller-side p50 minus the LogStore write is the thread
   * hand-over. `fdatasync + sql + roundTrip` is the least any design can cost that runs sql.js off
   * the calling thread and makes each write durable before answering (`floor`).
   */
  readonly breakdown: { readonly fdatasync: Summary; readonly inProcess: Summary; readonly sql: Summary; readonly roundTrip: Summary; readonly floor: number };
  readonly memory: { readonly rssOpenMB: number; readonly rssAfterWritesMB: number; readonly ratioOpen: number; readonly ratioAfterWrites: number; readonly samples: number };
  readonly twoProcess: { readonly engine: Summary; readonly writerAcks: number; readonly writerSpanMs: number; readonly writerPerWriteMs: number; readonly writerExitCode: number | null };
  readonly wallMs: number;
  /** 1-minute load average when this size started and ended (other work on the machine skews figures). */
  readonly load: { readonly start: number; readonly end: number };
}

const MB = 1024 * 1024;

function copyJournal(src: string, dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'journal.sqlite');
  fs.copyFileSync(src, file);
  return file;
}

/** Copies a journal folder (snapshot and log generations) to `dir`; returns the snapshot path there. */
function copyJournalDir(srcDir: string, dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  for (const name of fs.readdirSync(srcDir)) {
    if (name.startsWith('journal.sqlite') && !name.endsWith('.lock')) fs.copyFileSync(path.join(srcDir, name), path.join(dir, name));
  }
  return path.join(dir, 'journal.sqlite');
}

/** `listGenerations` without blocking this thread (used while measuring its stalls). */
async function listGenerationsAsync(file: string): Promise<number[]> {
  return generationsAmong(file, await fs.promises.readdir(path.dirname(file)));
}

function maxStallMs(h: IntervalHistogram): number {
  return h.count === 0 ? 0 : h.max / 1e6;
}

/** Runs `fn` with the event-loop-delay histogram reset and enabled; returns its result and the max gap. */
async function watched<T>(h: IntervalHistogram, fn: () => Promise<T>): Promise<{ value: T; stall: number }> {
  h.reset();
  h.enable();
  try {
    const value = await fn();
    return { value, stall: maxStallMs(h) };
  } finally {
    h.disable();
  }
}

/**
 * Runs `fn` while sampling this process's RSS every 20 ms (the journal worker and its compactor are
 * threads of this process); returns its result and the peak RSS above the RSS before, in MB.
 */
async function peakRss<T>(fn: () => Promise<T>): Promise<{ value: T; peakMB: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, peakMB: (peak - before) / MB };
  } finally {
    clearInterval(timer);
  }
}

/** Waits until this process's RSS stops falling (two readings 100 ms apart within 2 MB), at most 5 s. */
async function settleRss(): Promise<void> {
  let last = process.memoryUsage.rss();
  for (let waited = 0; waited < 5000; waited += 100) {
    await new Promise((r) => setTimeout(r, 100));
    const now = process.memoryUsage.rss();
    if (Math.abs(now - last) < 2 * MB) return;
    last = now;
  }
}

/** A running bench/minimalEngine.ts worker. */
interface MinimalEngine {
  /** One durable write; resolves when the worker answered. */
  write(text: string, at: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts bench/minimalEngine.ts on a copy of the journal (`file`), appending to `log`. */
async function startMinimalEngine(file: string, log: string): Promise<MinimalEngine> {
  const worker = new Worker(path.join(__dirname, 'minimalEngine.js'), { workerData: { file, log, wasmPath: WASM_PATH } });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  return {
    write: (text, at) =>
      new Promise<void>((resolve) => {
        worker.once('message', () => resolve());
        worker.postMessage({ text, at });
      }),
    close: async () => {
      worker.postMessage('close');
      await new Promise((r) => worker.once('exit', r));
    },
  };
}

/** The p50 of each opening phase over several opens (ms). */
function phaseMedians(all: readonly OpenPhases[]): SizeResult['activation']['freshPhases'] {
  const med = (pick: (p: OpenPhases) => number) => round(summarize(all.map(pick)).p50, 1);
  return {
    startMs: med((p) => p.startMs),
    wasmMs: med((p) => p.wasmMs),
    sqljsMs: med((p) => p.sqljsMs),
    readMs: med((p) => p.readMs),
    loadMs: med((p) => p.loadMs),
    replayMs: med((p) => p.replayMs),
    migrateMs: med((p) => p.migrateMs),
  };
}

/** See `SizeResult.breakdown`: summaries of a `breakdown` task's samples, and the floor. */
function summarizeBreakdown(samples: BreakdownSamples): SizeResult['breakdown'] {
  const summary = {
    fdatasync: summarize(samples.fdatasync),
    inProcess: summarize(samples.inProcess),
    sql: summarize(samples.sql),
    roundTrip: summarize(samples.roundTrip),
  };
  return { ...summary, floor: summary.fdatasync.p50 + summary.sql.p50 + summary.roundTrip.p50 };
}

/** Resolves `p`, or undefined after `ms` ms (the timer never outlives the race). */
async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Measures one journal size (see module docstring). `log` prints progress lines. */
export async function benchSize(plan: SizePlan, built: { file: string; stats: BuiltStats }, log: (line: string) => void): Promise<SizeResult> {
  const wall = performance.now();
  const loadStart = os.loadavg()[0]!;
  const work = trackDir(fs.mkdtempSync(path.join(os.tmpdir(), `nac-bench-${plan.sizeMB}mb-`)));
  const h = monitorEventLoopDelay({ resolution: 1 });
  let journal: Journal | undefined;
  let native: ReturnType<typeof openNative> | undefined;
  let minimal: MinimalEngine | undefined;
  try {
    // ---- a base copy opened once, so it has its first log generation like any journal in use
    const baseDir = path.join(work, 'base');
    const baseFile = copyJournal(built.file, baseDir);
    await (await Journal.open({ file: baseFile, wasmPath: WASM_PATH, workerPath: WORKER_PATH })).close();

    // ---- activation and memory in fresh processes (each on its own copy)
    log(`  activation in ${plan.freshOpens} fresh processes`);
    // Each fresh open of the journal is followed by a fresh minimal open (bench/minimalOpen.ts) of
    // the same copy, so both see the same machine.
    const minimalOpens: number[] = [];
    const probeAll = async (srcDir: string, writes: number, withMinimal: boolean): Promise<ProbeResult[]> => {
      const out: ProbeResult[] = [];
      for (let i = 0; i < plan.freshOpens; i++) {
        const dir = path.join(work, `probe-${i}`);
        const file = copyJournalDir(srcDir, dir);
        out.push(await runTask<ProbeResult>('probe', { file, writes }, 180_000));
        if (withMinimal) minimalOpens.push((await runTask<{ openMs: number }>('minimalOpen', { file }, 180_000)).openMs);
        fs.rmSync(dir, { recursive: true, force: true });
      }
      return out;
    };
    const probes = await probeAll(baseDir, 100, true);

    // ---- activation in this process (a new worker each time)
    const engineFile = copyJournalDir(baseDir, path.join(work, 'engine'));
    log(`  activation in this process x${plan.inProcessOpens}`);
    const opens: number[] = [];
    const reportOpens: number[] = [];
    for (let i = 0; i < plan.inProcessOpens; i++) {
      const t0 = performance.now();
      const j = await Journal.open({ file: engineFile, wasmPath: WASM_PATH, workerPath: WORKER_PATH });
      opens.push(performance.now() - t0);
      reportOpens.push(j.report.openMs);
      await j.close();
    }

    journal = await Journal.open({ file: engineFile, wasmPath: WASM_PATH, workerPath: WORKER_PATH });
    const logLines: string[] = [];
    journal.onLog((line) => logLines.push(line));
    const nativeFile = copyJournal(built.file, path.join(work, 'native'));
    native = openNative(nativeFile);
    const j = journal;
    const n = native;
    let at = 1_800_000_000_000;
    let k = 0;
    const engineWrite = async (): Promise<number> => {
      const text = writeText(k++);
      const t0 = performance.now();
      const r = await j.write('appendEvents', LIVE.runId, [{ kind: 'text', payload: { text } }], at++);
      const dt = performance.now() - t0;
      if (!r.ok) throw new Error(`engine write refused: ${r.reason}: ${r.message}`);
      return dt;
    };
    const nativeWrite = (): number => {
      const text = writeText(k++);
      const t0 = performance.now();
      n.write(text, at++);
      return performance.now() - t0;
    };
    minimal = await startMinimalEngine(copyJournal(built.file, path.join(work, 'minimal')), path.join(work, 'minimal', 'append.bin'));
    const m = minimal;
    const minimalWrite = async (): Promise<number> => {
      const text = writeText(k++);
      const t0 = performance.now();
      await m.write(text, at++);
      return performance.now() - t0;
    };

    // ---- warm-up, then interleaved blocks
    log(`  warm-up ${plan.warmup} + ${plan.warmup}, then ${plan.writes} engine / ${plan.writes} native writes in blocks of ${plan.block}`);
    for (let i = 0; i < plan.warmup; i++) await engineWrite();
    for (let i = 0; i < plan.warmup; i++) nativeWrite();
    for (let i = 0; i < plan.warmup; i++) await minimalWrite();
    const eng: number[] = [];
    const nat: number[] = [];
    const min: number[] = [];
    const blockRatios: number[] = [];
    let writeStall = 0;
    while (eng.length < plan.writes) {
      const size = Math.min(plan.block, plan.writes - eng.length);
      const e: number[] = [];
      const nb: number[] = [];
      const { stall } = await watched(h, async () => {
        for (let i = 0; i < size; i++) e.push(await engineWrite());
      });
      writeStall = Math.max(writeStall, stall);
      for (let i = 0; i < size; i++) {
        nb.push(nativeWrite());
        if (i % 20 === 19) await new Promise((r) => setImmediate(r));
      }
      for (let i = 0; i < size; i++) min.push(await minimalWrite());
      eng.push(...e);
      nat.push(...nb);
      blockRatios.push(summarize(e).p50 / summarize(nb).p50);
    }
    const engineSummary = summarize(eng);
    const nativeSummary = summarize(nat);
    const minimalSummary = summarize(min);
    await m.close();
    minimal = undefined;
    // Its sql.js heap (a copy of the journal) is unmapped a little after the thread exits; without
    // waiting, that release fell inside the compaction's peak-RSS window and hid its growth (+0 MB).
    await settleRss();

    // ---- where a write's time goes (see SizeResult.breakdown)
    log('  where a write\'s time goes: raw fdatasync, the LogStore write without the worker');
    // In a child process: the in-process LogStore's sql.js heap (a copy of the journal) must not live
    // in this process, whose event loop the stall figures watch (its GCs stalled it ~20 ms at 200 MB).
    const breakdownDir = path.join(work, 'breakdown');
    const samples = await runTask<BreakdownSamples>('breakdown', { file: copyJournalDir(baseDir, breakdownDir) }, 600_000);
    fs.rmSync(breakdownDir, { recursive: true, force: true });
    const breakdown = summarizeBreakdown(samples);

    // ---- compaction on the big journal (compactNow), with a write queued right behind it
    const logRecords = plan.warmup + plan.writes;
    log(`  compactNow() with ${logRecords} logged records`);
    const compRss = await peakRss(() => watched(h, async () => {
      const t0 = performance.now();
      const p = j.compactNow().then(() => performance.now() - t0);
      const queued = engineWrite();
      const [callerMs, writeMs] = await Promise.all([p, queued]);
      return { callerMs, writeMs };
    }));
    const comp = compRss.value;

    // ---- group commit: K writes fired together, total / K
    log(`  group commit K=8 x${plan.group8Rounds}, K=32 x${plan.group32Rounds}`);
    const groupRun = async (K: number, rounds: number): Promise<number[]> => {
      const perTx: number[] = [];
      for (let r = 0; r < rounds; r++) {
        const t0 = performance.now();
        const texts = Array.from({ length: K }, () => writeText(k++));
        const results = await Promise.all(texts.map((text) => j.write('appendEvents', LIVE.runId, [{ kind: 'text', payload: { text } }], at++)));
        perTx.push((performance.now() - t0) / K);
        if (results.some((x) => !x.ok)) throw new Error('group write refused');
      }
      return perTx;
    };
    const group = await watched(h, async () => ({ k8: await groupRun(8, plan.group8Rounds), k32: await groupRun(32, plan.group32Rounds) }));

    // ---- two processes: the test writer appends to the same journal while this process measures
    log(`  two processes: a second writer (${plan.writerCount} writes) + this process`);
    const writer = startWriter(engineFile, plan.writerCount, 'B', 300_000);
    await within(writer.firstAck, 120_000);
    const two: number[] = [];
    const twoStall = await watched(h, async () => {
      while (!writer.exited() && two.length < 20_000) two.push(await engineWrite());
    });
    const writerDone = await writer.done;

    // ---- writes during a background compaction (the product's path: rotation past 2 MiB of log,
    //      compaction in a separate compactor thread)
    log('  writing until the log rotates, then measuring writes during the background compaction');
    let background: SizeResult['backgroundCompaction'] = null;
    const gens0 = Math.max(...listGenerations(engineFile));
    let rotatedAfter = 0;
    let rotatingWriteMs = Number.NaN;
    const bg: number[] = [];
    let bgMs = 0;
    const bgRss = await peakRss(() => watched(h, async () => {
      const before = logLines.length;
      while (rotatedAfter < 10_000 && Math.max(...(await listGenerationsAsync(engineFile))) === gens0) {
        rotatingWriteMs = await engineWrite();
        rotatedAfter++;
      }
      if (rotatedAfter >= 10_000) return;
      // The compactor deletes the closed generation when it is done (later rotations may already
      // have closed more generations: only the first compaction is measured).
      const t0 = performance.now();
      while ((await listGenerationsAsync(engineFile)).includes(gens0) && performance.now() - t0 < 60_000) bg.push(await engineWrite());
      bgMs = performance.now() - t0;
      const t1 = performance.now();
      while (!logLines.slice(before).some((l) => l.includes('compacted')) && performance.now() - t1 < 5000) await new Promise((r) => setTimeout(r, 5));
    }));
    const bgStall = bgRss.value;
    if (rotatedAfter < 10_000) {
      background = { writes: summarize(bg), rotatedAfterWrites: rotatedAfter, rotatingWriteMs, spanMs: bgMs, peakRssMB: bgRss.peakMB, logLine: logLines.find((l) => l.includes('compacted')) ?? null };
    }

    // ---- activation with a nearly full log: count the records of one generation (write until the
    //      next rotation), then write that many minus a margin into the fresh generation and reopen.
    log('  filling a log generation to just below rotation (activation with a full log)');
    const groupOf = async (K: number) => {
      const results = await Promise.all(Array.from({ length: K }, () => j.write('appendEvents', LIVE.runId, [{ kind: 'text', payload: { text: writeText(k++) } }], at++)));
      if (results.some((x) => !x.ok)) throw new Error('fill write refused');
    };
    const current = () => Math.max(...listGenerations(engineFile));
    let g = current();
    for (let w = 0; current() === g && w < 50_000; w += 16) await groupOf(16); // to a generation boundary
    g = current();
    let perGeneration = 0;
    while (current() === g && perGeneration < 50_000) {
      await groupOf(16);
      perGeneration += 16;
    }
    for (let w = 0; w < perGeneration - 64; w += 16) await groupOf(16);
    // let the background compactions finish (they delete the closed generations) before closing
    const t0 = performance.now();
    while (listGenerations(engineFile).length > 1 && performance.now() - t0 < 300_000) await new Promise((r) => setTimeout(r, 20));
    await j.close();
    journal = undefined;
    n.close();
    native = undefined;
    log(`  activation with a full log in ${plan.freshOpens} fresh processes`);
    const fullLog = await probeAll(path.dirname(engineFile), 0, false);

    // ---- the old design: whole-file export per transaction (in a child process)
    log(`  whole-file export x${plan.exportIterations}`);
    const exportDir = path.join(work, 'export');
    fs.mkdirSync(exportDir);
    const exp = await runTask<ExportResult>('export', { file: built.file, dir: exportDir, iterations: plan.exportIterations }, 600_000);

    const fresh = probes.map((p) => p.openMs);
    const rssOpen = probes.map((p) => (p.rssOpen - p.rssBefore) / MB);
    const rssWrites = probes.map((p) => (p.rssAfterWrites - p.rssBefore) / MB);
    const med = (xs: number[]) => summarize(xs).p50;
    const sizeMBActual = built.stats.bytes / MB;
    return {
      plan,
      journal: built.stats,
      engineWrite: engineSummary,
      nativeWrite: nativeSummary,
      ratioP50: engineSummary.p50 / nativeSummary.p50,
      ratioP99: engineSummary.p99 / nativeSummary.p99,
      ratioBlockMedian: summarize(blockRatios).p50,
      minimalWrite: minimalSummary,
      nativeSettings: n.settings + `, SQLite ${n.sqliteVersion}`,
      exportWrite: summarize(exp.totalMs),
      exportOnly: summarize(exp.exportMs),
      group: { k8PerTx: med(group.value.k8), k32PerTx: med(group.value.k32), k8Rounds: summarize(group.value.k8), k32Rounds: summarize(group.value.k32) },
      stall: { writes: writeStall, compaction: comp.stall, group: group.stall, twoProcess: twoStall.stall, backgroundCompaction: bgStall.stall },
      compaction: { callerMs: comp.value.callerMs, writeQueuedBehindMs: comp.value.writeMs, logRecords, peakRssMB: compRss.peakMB },
      backgroundCompaction: background,
      activation: {
        fresh: summarize(fresh),
        freshReportOpenMs: summarize(probes.map((p) => p.reportOpenMs)),
        freshPhases: phaseMedians(probes.map((p) => p.phases)),
        minimalFresh: summarize(minimalOpens),
        inProcess: summarize(opens),
        inProcessReportOpenMs: summarize(reportOpens),
        fullLog: summarize(fullLog.map((p) => p.openMs)),
        fullLogReportOpenMs: summarize(fullLog.map((p) => p.reportOpenMs)),
        fullLogRecords: fullLog[0]?.recordsReplayed ?? 0,
      },
      breakdown,
      memory: {
        rssOpenMB: round(med(rssOpen), 1),
        rssAfterWritesMB: round(med(rssWrites), 1),
        ratioOpen: round(med(rssOpen) / sizeMBActual, 2),
        ratioAfterWrites: round(med(rssWrites) / sizeMBActual, 2),
        samples: probes.length,
      },
      twoProcess: {
        engine: summarize(two),
        writerAcks: writerDone.acks,
        writerSpanMs: writerDone.spanMs,
        writerPerWriteMs: writerDone.acks > 1 ? writerDone.spanMs / (writerDone.acks - 1) : Number.NaN,
        writerExitCode: writerDone.code,
      },
      wallMs: performance.now() - wall,
      load: { start: loadStart, end: os.loadavg()[0]! },
    };
  } finally {
    h.disable();
    if (journal) await journal.close().catch(() => undefined);
    native?.close();
    await minimal?.close().catch(() => undefined);
    removeDir(work);
  }
}
