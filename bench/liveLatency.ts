/**
 * Latency of the live paths, measured in this process with the real runtime and journal workers:
 * - streaming: from an agent's `ctx.text(delta)` to the runtime's `update` notification for it
 *   (what the host posts to the webview), i.e. batching + the durable journal write + the callback,
 *   while an agent streams a delta every 5 ms (target: p95 under 16 ms, issue #4);
 * - cross-window: from a commit in one journal (window A) to the other journal's `onExternalChange`
 *   (window B, its own worker polling every 50 ms) (target: under 100 ms, issue #3).
 * Times in ms.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Journal } from '../src/journal/journal';
import type { Agent } from '../src/runtime/agent';
import { ChatRuntime } from '../src/runtime/chatRuntime';
import { percentile } from './stats';
import { WASM_PATH as WASM, WORKER_PATH as WORKER } from './task';

/** p50 / p95 / max / n of a sample set (ms). */
export interface LatencySummary {
  readonly n: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
}

function summarize(samples: readonly number[]): LatencySummary {
  return { n: samples.length, p50: percentile(samples, 50), p95: percentile(samples, 95), max: Math.max(...samples) };
}

/** Streams `deltas` text chunks, one every `intervalMs`, and times each until its update arrives. */
export async function streamingLatency(deltas = 400, intervalMs = 5): Promise<LatencySummary> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nac-bench-live-'));
  const journal = await Journal.open({ file: path.join(dir, 'journal.sqlite'), wasmPath: WASM, workerPath: WORKER });
  const sent = new Map<number, number>();
  const samples: number[] = [];
  const agent: Agent = {
    provider: 'local',
    label: 'streaming bench agent',
    runTurn: async (_request, ctx) => {
      for (let i = 0; i < deltas; i++) {
        sent.set(i, performance.now());
        ctx.text(`<${i}>`);
        await new Promise((r) => setTimeout(r, intervalMs));
      }
      return { status: 'completed' };
    },
  };
  const runtime = new ChatRuntime({
    journal,
    instance: { id: 'bench', pid: process.pid, processStart: null, hostname: os.hostname(), startedAt: 0, lastSeenAt: 0 },
    agentFor: () => agent,
    workspaceRoot: () => dir,
  });
  runtime.onNotification((n) => {
    if (n.type !== 'update' || n.update.type !== 'event' || n.update.event.kind !== 'text') return;
    const now = performance.now();
    for (const m of n.update.event.payload.text.matchAll(/<(\d+)>/g)) {
      const t = sent.get(Number(m[1]));
      if (t !== undefined) samples.push(now - t);
    }
  });
  await runtime.start();
  const session = await runtime.createSession('local');
  if (!session.ok) throw new Error(session.message);
  await runtime.send(session.value.id, 'stream');
  await runtime.whenIdle(session.value.id);
  await journal.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return summarize(samples);
}

/** Times `rounds` commits in journal A until journal B (another worker) reports them. */
export async function crossWindowLatency(rounds = 40): Promise<LatencySummary> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nac-bench-windows-'));
  const file = path.join(dir, 'journal.sqlite');
  const a = await Journal.open({ file, wasmPath: WASM, workerPath: WORKER });
  const b = await Journal.open({ file, wasmPath: WASM, workerPath: WORKER });
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const id = `s${i}`;
    const seen = new Promise<number>((resolve) => {
      const off = b.onExternalChange((ids) => {
        if (ids.includes(id)) {
          off();
          resolve(performance.now());
        }
      });
    });
    const t0 = performance.now();
    const r = await a.write('createSession', { id, title: id, provider: 'local', createdAt: i, updatedAt: i });
    if (!r.ok) throw new Error(r.message);
    samples.push((await seen) - t0);
    await new Promise((r2) => setTimeout(r2, 7 + (i % 11) * 3)); // spread commits over the poll phase
  }
  await a.close();
  await b.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return summarize(samples);
}
