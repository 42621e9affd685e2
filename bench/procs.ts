/**
 * Child processes of the benchmark: run a `task.js` task and parse its result, or run the test
 * writer process (`out/test/tools/journalWriter.js`). Every child is killed (by its pid) if it
 * outlives its timeout, and `killAll` ends any still running when the bench exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const live = new Set<ChildProcess>();
const dirs = new Set<string>();

/** Remembers a temporary folder so `cleanUp` removes it even when the bench is interrupted. */
export function trackDir(dir: string): string {
  dirs.add(dir);
  return dir;
}

/** Removes a tracked temporary folder now. */
export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  dirs.delete(dir);
}

/** Kills every child still running and removes every tracked temporary folder. */
export function cleanUp(): void {
  killAll();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}

/** Kills every child this module started that is still running (by pid, SIGKILL). */
export function killAll(): void {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
  live.clear();
}

/**
 * Runs `node [nodeArgs] out/bench/task.js <task> <json>` and resolves the object it printed after
 * `RESULT `. Rejects (after killing it) when it fails or runs longer than `timeoutMs`.
 */
export function runTask<T>(task: string, args: object, timeoutMs: number, nodeArgs: string[] = []): Promise<T> {
  const script = path.join(__dirname, 'task.js');
  const child = spawn(process.execPath, [...nodeArgs, script, task, JSON.stringify(args)], { stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`bench task ${task} timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      live.delete(child);
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code === 0 && line) resolve(JSON.parse(line.slice(7)) as T);
      else reject(new Error(`bench task ${task} failed (code ${code}, signal ${signal}): ${err.trim() || out.trim()}`));
    });
  });
}

/** A running second writer process (journalWriter.js in `counter` mode). */
export interface WriterProcess {
  /** Resolves at the writer's first acknowledged write. */
  readonly firstAck: Promise<void>;
  /** Resolves when it exits: exit code, number of acknowledged writes, ms from first to last ack. */
  readonly done: Promise<{ code: number | null; acks: number; spanMs: number }>;
  /** True once it exited. */
  exited(): boolean;
}

/** Starts `node out/test/tools/journalWriter.js <file> counter <count> <tag>`. */
export function startWriter(file: string, count: number, tag: string, timeoutMs: number): WriterProcess {
  const script = path.resolve(__dirname, '../test/tools/journalWriter.js');
  const child = spawn(process.execPath, [script, file, 'counter', String(count), tag], { stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let acks = 0;
  let first = 0;
  let last = 0;
  let err = '';
  let exited = false;
  let buffered = '';
  let onFirst!: () => void;
  const firstAck = new Promise<void>((r) => (onFirst = r));
  child.stdout!.on('data', (d: Buffer) => {
    buffered += d.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      if (line.startsWith('ack ')) {
        acks++;
        last = performance.now();
        if (acks === 1) {
          first = last;
          onFirst();
        }
      }
    }
  });
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<{ code: number | null; acks: number; spanMs: number }>((resolve) => {
    child.on('exit', (code) => {
      clearTimeout(timer);
      exited = true;
      live.delete(child);
      onFirst();
      if (code !== 0) process.stderr.write(`[bench] second writer exited with code ${code}: ${err.trim()}\n`);
      resolve({ code, acks, spanMs: last - first });
    });
  });
  return { firstAck, done, exited: () => exited };
}
