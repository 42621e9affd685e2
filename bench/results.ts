/**
 * bench/results.json: every figure docs/BENCHMARKS.md quotes, one entry per bench section.
 *
 * The file is `{ about, sections: { <section>: { run, units, figures } } }`:
 * - `run`: when and where the section last ran — the command, the commit (with `dirty` when the work
 *   tree differed from it), its start and end (ISO dates), its wall time (ms), the load average
 *   (1, 5 and 15 min) at its start and at its end, and the machine.
 * - `units`: one line saying how `figures` are measured (ms unless the key says MB, bytes, KB, x...).
 * - `figures`: what the section returned, as its module's result type (bench/<section>.ts).
 *
 * Each run of a section replaces that section's entry and keeps the others as they were, so one run's
 * figures stay together with their own commit and load. Previous runs are not kept in the file: the
 * file is committed, and `git log -p bench/results.json` (or `git diff A B -- bench/results.json`)
 * is the history. For that diff to be line by line, every object's keys are written in sorted order,
 * numbers rounded to 3 decimals, one value a line.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';

/** The 1, 5 and 15 minute load averages (runnable tasks, on `RunInfo.machine.cores` cores). */
export interface LoadAverage {
  readonly '1min': number;
  readonly '5min': number;
  readonly '15min': number;
}

/** When, where and on what commit a section ran. */
export interface RunInfo {
  /** The command line, e.g. `npm run bench -- --search`. */
  readonly command: string;
  /** The repository's HEAD (short hash), or `unknown` outside a git checkout. */
  readonly commit: string;
  /** Present (true) when tracked files differed from `commit` when the run started. */
  readonly dirty?: boolean;
  readonly startedAt: string;
  readonly endedAt: string;
  readonly wallMs: number;
  readonly load: { readonly start: LoadAverage; readonly end: LoadAverage };
  readonly machine: { readonly cpu: string; readonly cores: number; readonly memoryGB: number; readonly node: string; readonly os: string };
}

/** One section's latest run. */
export interface SectionEntry<T = unknown> {
  readonly run: RunInfo;
  readonly units: string;
  readonly figures: T;
}

/** The whole file. */
export interface ResultsFile {
  readonly about: string;
  readonly sections: Readonly<Record<string, SectionEntry>>;
}

/** The file's own description, written at its top. */
export const RESULTS_ABOUT =
  'Written by npm run bench (bench/results.ts): per section its latest run (command, commit, start and end, ' +
  'load average at both) and its figures. docs/BENCHMARKS.md is rendered from this file. Previous runs: git log -p bench/results.json.';

/** The load average now. */
function loadAverage(): LoadAverage {
  const [one, five, fifteen] = os.loadavg();
  return { '1min': one ?? 0, '5min': five ?? 0, '15min': fifteen ?? 0 };
}

/** What is known when a section starts (see `finishRun`). */
export interface RunStart {
  readonly command: string;
  readonly commit: string;
  readonly dirty: boolean;
  readonly startedAt: string;
  readonly startedMs: number;
  readonly load: LoadAverage;
}

/**
 * The commit of `repoDir` and whether tracked files differ from it, apart from the two files the
 * bench itself writes (so the second section of a run is not called dirty by the first's figures);
 * `unknown` when git cannot say.
 */
function commitOf(repoDir: string): { commit: string; dirty: boolean } {
  try {
    const git = (...a: string[]) => execFileSync('git', ['-C', repoDir, ...a], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const changed = git('status', '--porcelain', '--untracked-files=no', '--', '.', ':(exclude)bench/results.json', ':(exclude)docs/BENCHMARKS.md');
    return { commit: git('rev-parse', '--short', 'HEAD'), dirty: changed !== '' };
  } catch {
    return { commit: 'unknown', dirty: false };
  }
}

/** Notes a section's start: its command, the commit of `repoDir`, the date and the load average. */
export function startRun(command: string, repoDir: string, now: () => Date = () => new Date()): RunStart {
  const { commit, dirty } = commitOf(repoDir);
  const started = now();
  return { command, commit, dirty, startedAt: started.toISOString(), startedMs: started.getTime(), load: loadAverage() };
}

/** The run's record once the section ended: `start` with the end date, wall time, load average and machine. */
export function finishRun(start: RunStart, now: () => Date = () => new Date()): RunInfo {
  const ended = now();
  return {
    command: start.command,
    commit: start.commit,
    ...(start.dirty ? { dirty: true } : {}),
    startedAt: start.startedAt,
    endedAt: ended.toISOString(),
    wallMs: ended.getTime() - start.startedMs,
    load: { start: start.load, end: loadAverage() },
    machine: {
      cpu: os.cpus()[0]?.model ?? 'unknown',
      cores: os.cpus().length,
      memoryGB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
      node: process.version,
      os: `${os.type()} ${os.release()} (${os.arch()})`,
    },
  };
}

/** `file` (or a new, empty file) with `name`'s entry replaced by `entry`; the other sections as they were. */
export function mergeSection(file: ResultsFile | undefined, name: string, entry: SectionEntry): ResultsFile {
  return { about: RESULTS_ABOUT, sections: { ...(file?.sections ?? {}), [name]: entry } };
}

/** A copy of `value` whose objects have their keys sorted and whose numbers are rounded to 3 decimals (NaN and infinities: null). */
function canonical(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.round(value * 1000) / 1000 : null;
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = canonical(v);
    }
    return out;
  }
  return value;
}

/** The file's text: `about` first, then the sections, every object's keys sorted, two-space indent, a final newline. */
export function resultsText(file: ResultsFile): string {
  return `${JSON.stringify({ about: file.about, sections: canonical(file.sections) }, null, 2)}\n`;
}

/**
 * Reads the results file at `filePath`: undefined when it is missing. A file of the older layout
 * (figures at the top level, no `sections`) reads as one with no sections: its figures had no run
 * metadata, and the next run of each section writes it afresh. Throws when the file is not JSON.
 */
export function readResults(filePath: string): ResultsFile | undefined {
  if (!fs.existsSync(filePath)) return undefined;
  const parsed = JSON.parse(fs.readFileSync(filePath, 'utf8')) as Partial<ResultsFile>;
  return { about: RESULTS_ABOUT, sections: parsed.sections ?? {} };
}

/**
 * Runs one section and writes its entry into the results file at `filePath` (the other sections
 * kept): `measure` is the section itself; `units` says how its figures are measured. Returns the
 * section's figures. A section that throws writes nothing.
 */
export async function recordSection<T>(filePath: string, repoDir: string, name: string, units: string, command: string, measure: () => Promise<T>): Promise<T> {
  const start = startRun(command, repoDir);
  const figures = await measure();
  const next = mergeSection(readResults(filePath), name, { run: finishRun(start), units, figures });
  fs.writeFileSync(filePath, resultsText(next));
  return figures;
}
