/**
 * `npm run bench -- --attachments`: the cost of attachments (issue 15), in plain Node.
 *
 * - The `@` list: what the host runs per keystroke once VS Code's file search has listed the
 *   workspace (`candidatesOf` once, then `fuzzyRank` per query, best 50: src/core/fuzzyMatch.ts) on
 *   50,000 generated paths, for queries typed a character at a time (1 to 10 characters, 20 names).
 *   Not measured: `workspace.findFiles` itself (the VS Code API, read once per window and kept) and
 *   the webview round trip.
 * - A send with a 256 KiB file attached against one without, in alternating blocks, through the real
 *   runtime and journal worker on a fresh journal: from `submit` to the agent's `runTurn` being
 *   called (reading, hashing and cutting the file, the durable write of the turn with its content,
 *   reading the content back for the agent). Each attached file differs (the content store keeps
 *   identical bytes once, which would hide the write).
 * Times in ms.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { candidatesOf, fuzzyRank } from '../src/core/fuzzyMatch';
import { Journal } from '../src/journal/journal';
import type { Agent } from '../src/runtime/agent';
import { ChatRuntime } from '../src/runtime/chatRuntime';
import { percentile } from './stats';
import { busy } from './longChatViewReport';
import { WASM_PATH, WORKER_PATH } from './task';

/** p50 / p95 / max / n of samples (ms). */
export interface Timing {
  readonly n: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
}

/** What the section measured. */
export interface AttachmentBenchResult {
  readonly files: number;
  /** Building the candidates of 50,000 paths once (ms). */
  readonly indexMs: number;
  readonly completion: Timing;
  readonly sendPlain: Timing;
  readonly sendAttached: Timing;
  readonly loadavg: readonly number[];
}

function timing(samples: readonly number[]): Timing {
  return { n: samples.length, p50: percentile(samples, 50), p95: percentile(samples, 95), max: Math.max(...samples) };
}

const WORDS = ['app', 'core', 'util', 'service', 'model', 'view', 'store', 'api', 'test', 'config', 'render', 'parser', 'client', 'server', 'journal', 'queue', 'panel', 'index', 'types', 'helpers'];

/** `n` workspace paths: folders 1-4 deep, names from WORDS with numbers and extensions (deterministic). */
export function generatedPaths(n = 50_000): string[] {
  const paths: string[] = [];
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  for (let i = 0; i < n; i++) {
    const depth = 1 + (next() % 4);
    const dirs = Array.from({ length: depth }, () => `${WORDS[next() % WORDS.length]}${next() % 30}`);
    const ext = ['ts', 'js', 'json', 'md', 'css'][next() % 5];
    paths.push(`${dirs.join('/')}/${WORDS[next() % WORDS.length]}${WORDS[next() % WORDS.length]!.replace(/^./, (c) => c.toUpperCase())}${i}.${ext}`);
  }
  return paths.sort();
}

/** The `@` list's filter on 50,000 paths, a query per typed character (see module docstring). */
function benchCompletion(): Pick<AttachmentBenchResult, 'files' | 'indexMs' | 'completion'> {
  const files = generatedPaths();
  const t0 = performance.now();
  const candidates = candidatesOf(files);
  const indexMs = performance.now() - t0;
  const samples: number[] = [];
  for (const target of files.filter((_, i) => i % 2500 === 0)) {
    const name = target.slice(target.lastIndexOf('/') + 1);
    for (let len = 1; len <= Math.min(10, name.length); len++) {
      const t = performance.now();
      fuzzyRank(name.slice(0, len), candidates, 50);
      samples.push(performance.now() - t);
    }
  }
  return { files: files.length, indexMs, completion: timing(samples) };
}

/** Sends with and without a 256 KiB attachment, alternating blocks (see module docstring). */
async function benchSends(rounds = 6, block = 5): Promise<Pick<AttachmentBenchResult, 'sendPlain' | 'sendAttached'>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nac-bench-attach-'));
  const workspace = path.join(dir, 'workspace');
  fs.mkdirSync(workspace);
  const journal = await Journal.open({ file: path.join(dir, 'journal.sqlite'), wasmPath: WASM_PATH, workerPath: WORKER_PATH });
  let started: (() => void) | undefined;
  const agent: Agent = { provider: 'local', label: 'bench', runTurn: async () => (started?.(), { status: 'completed' }) };
  const runtime = new ChatRuntime({
    journal, instance: { id: 'bench', pid: process.pid, processStart: 'bench', hostname: os.hostname(), startedAt: 1, lastSeenAt: 1 },
    agentFor: () => agent, workspaceRoot: () => workspace, isAlive: () => true,
  });
  await runtime.start();
  const session = await runtime.createSession('local');
  if (!session.ok) throw new Error(session.message);
  const line = `${'x'.repeat(79)}\n`;
  const plain: number[] = [];
  const attached: number[] = [];
  let n = 0;
  const send = async (attach: boolean): Promise<number> => {
    const id = n++;
    if (attach) fs.writeFileSync(path.join(workspace, 'big.txt'), `${id}\n${line.repeat(Math.floor((256 * 1024 - 16) / line.length))}`);
    const agentStarted = new Promise<void>((resolve) => (started = resolve));
    const t = performance.now();
    const r = await runtime.submit(session.value.id, { clientId: `c${id}`, text: `message ${id}`, ...(attach ? { attachments: [{ kind: 'file', path: 'big.txt' }] } : {}) });
    if (!r.ok) throw new Error(r.message);
    await agentStarted;
    const ms = performance.now() - t;
    await runtime.whenIdle(session.value.id);
    return ms;
  };
  for (let i = 0; i < 3; i++) await send(i % 2 === 0); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < block; i++) plain.push(await send(false));
    for (let i = 0; i < block; i++) attached.push(await send(true));
  }
  runtime.dispose();
  await journal.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return { sendPlain: timing(plain), sendAttached: timing(attached) };
}

/** Runs both parts. */
export async function benchAttachments(log: (line: string) => void): Promise<AttachmentBenchResult> {
  const loadBefore = os.loadavg()[0]!;
  const completion = benchCompletion();
  log(`@ list: ${completion.files} paths indexed in ${completion.indexMs.toFixed(1)} ms; per query p50 ${completion.completion.p50.toFixed(2)} ms, p95 ${completion.completion.p95.toFixed(2)} ms, max ${completion.completion.max.toFixed(2)} ms (n=${completion.completion.n})`);
  const sends = await benchSends();
  log(`send to agent start: without attachment p50 ${sends.sendPlain.p50.toFixed(1)} ms p95 ${sends.sendPlain.p95.toFixed(1)} ms; with a 256 KiB file p50 ${sends.sendAttached.p50.toFixed(1)} ms p95 ${sends.sendAttached.p95.toFixed(1)} ms (n=${sends.sendAttached.n} each)`);
  return { ...completion, ...sends, loadavg: [loadBefore, os.loadavg()[0]!] };
}

/** The section of docs/BENCHMARKS.md. */
export function attachmentsMarkdown(r: AttachmentBenchResult): string {
  const f = (t: Timing) => `${t.p50.toFixed(2)} | ${t.p95.toFixed(2)} | ${t.max.toFixed(2)} | ${t.n}`;
  return `## Attachments (\`npm run bench -- --attachments\`)

1-minute load average ${r.loadavg.map((l) => l.toFixed(1)).join(' → ')} on ${os.cpus().length} cores; see bench/attachments.ts for what is and is not timed.${busy({ start: r.loadavg[0]!, end: r.loadavg[1]! })}

| what | p50 ms | p95 ms | max ms | n |
|---|---|---|---|---|
| \`@\` list filter, ${r.files.toLocaleString('en-US')} paths, per query (target p95 ≤ 100 ms) | ${f(r.completion)} |
| a send to the agent's start, no attachment | ${f(r.sendPlain)} |
| a send to the agent's start, a 256 KiB file attached | ${f(r.sendAttached)} |

Building the ${r.files.toLocaleString('en-US')} candidates once (after VS Code's file search): ${r.indexMs.toFixed(1)} ms. Added by the attachment (p50): ${(r.sendAttached.p50 - r.sendPlain.p50).toFixed(1)} ms (target ≤ 20 ms: ${r.sendAttached.p50 - r.sendPlain.p50 <= 20 ? 'met' : 'not met'}); at p95 ${(r.sendAttached.p95 - r.sendPlain.p95).toFixed(1)} ms.
`;
}
