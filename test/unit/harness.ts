/**
 * Chat runtimes for runtime and agent tests: one builder (`openRuntime`) that opens a journal on a
 * real file and starts a ChatRuntime on it as one simulated extension host (a VS Code window), and the
 * windows built with it (`openLocal`: the local agent; `openWindow`: an agent that waits until the test
 * completes or stops its run). What differs per agent (its mock server, its options) stays in the test
 * file and comes in as `agentFor`.
 */
import * as path from 'node:path';
import type { Journal, OpenJournalOptions } from '../../src/journal/journal';
import type { Agent } from '../../src/runtime/agent';
import { LocalAgent } from '../../src/runtime/agents/localAgent';
import { ChatRuntime } from '../../src/runtime/chatRuntime';
import { fakeInstance, openJournal, trackedTempDir, waitFor } from './helpers';

/** A started ChatRuntime on its own Journal (its own worker) on `file`. */
export interface RuntimeHarness {
  readonly runtime: ChatRuntime;
  readonly journal: Journal;
  /** The workspace folder (a fresh temporary one unless given). */
  readonly workspace: string;
  /** The journal file. */
  readonly file: string;
  /** Disposes the runtime, then closes the journal. */
  close(): Promise<void>;
}

/** How `openRuntime` builds a runtime; every field but `agentFor` has a default. */
export interface RuntimeHarnessOptions {
  /** The agent of a provider id, asked per turn (undefined: no such provider). */
  readonly agentFor: (provider: string) => Agent | undefined;
  /** Journal file (default: `journal.sqlite` in a fresh temporary folder, removed at exit). */
  readonly file?: string;
  /** Workspace folder (default: a fresh temporary folder, removed at exit). */
  readonly workspace?: string;
  /** What the runtime reads as the open folder (default: `workspace`; undefined: no folder). */
  readonly workspaceRoot?: () => string | undefined;
  /** Instance id of this host (default `host-a`); its process is this one. */
  readonly instance?: string;
  /** Instance ids to treat as dead, read at every check (a test may add to it later). */
  readonly dead?: readonly string[] | ReadonlySet<string>;
  /** Options of the journal (poll interval, fault injection). */
  readonly journal?: Partial<OpenJournalOptions>;
  /** Wraps the journal the runtime sees (to delay or spy on calls). */
  readonly wrap?: (journal: Journal) => Journal;
  /** The runtime's clock, ms since the epoch (default `Date.now`). */
  readonly now?: () => number;
  /** The model a provider's settings name (default: none for every provider). */
  readonly defaultModel?: (provider: string) => string | null;
  /** Receives the runtime's log lines (default: dropped). */
  readonly log?: (line: string) => void;
}

/** Opens the journal and starts the runtime (see `RuntimeHarnessOptions`); closes the journal if start fails. */
export async function openRuntime(o: RuntimeHarnessOptions): Promise<RuntimeHarness> {
  const file = o.file ?? path.join(trackedTempDir(), 'journal.sqlite');
  const workspace = o.workspace ?? trackedTempDir('nac-ws-');
  const dead = o.dead ?? [];
  const isDead = (id: string) => (Array.isArray(dead) ? dead.includes(id) : (dead as ReadonlySet<string>).has(id));
  const journal = await openJournal(file, o.journal);
  const runtime = new ChatRuntime({
    journal: o.wrap ? o.wrap(journal) : journal,
    instance: fakeInstance(o.instance ?? 'host-a', process.pid),
    agentFor: o.agentFor,
    workspaceRoot: o.workspaceRoot ?? (() => workspace),
    isAlive: (i) => !isDead(i.id),
    flushIntervalMs: 5,
    ...(o.now ? { now: o.now } : {}),
    ...(o.defaultModel ? { defaultModel: o.defaultModel } : {}),
    ...(o.log ? { log: o.log } : {}),
  });
  try {
    await runtime.start();
  } catch (e) {
    runtime.dispose();
    await journal.close();
    throw e;
  }
  return {
    runtime,
    journal,
    workspace,
    file,
    close: async () => {
      runtime.dispose();
      await journal.close();
    },
  };
}

/** A runtime whose `local` provider is the built-in local agent (see `openRuntime` for the options). */
export function openLocal(o: Omit<RuntimeHarnessOptions, 'agentFor'> = {}): Promise<RuntimeHarness> {
  const agent = new LocalAgent();
  return openRuntime({ ...o, agentFor: (p) => (p === 'local' ? agent : undefined) });
}

/**
 * Waits until the chat has an actionable boundary request other than those in `except`; returns its
 * id. @throws Error after `timeoutMs` (waitFor's default when unset).
 */
export function pendingRequest(h: { runtime: ChatRuntime }, sessionId: string, except: readonly string[] = [], timeoutMs?: number): Promise<string> {
  return waitFor('a pending boundary request', async () => (await h.runtime.liveState(sessionId)).actionableRequestIds.find((id) => !except.includes(id)), timeoutMs);
}

/**
 * A simulated VS Code window for runtime tests: its own Journal (worker) on a shared file, a
 * ChatRuntime, and an agent that waits until its run is stopped (`aborted` lists those prompts) or
 * completed by the test (`complete.get(prompt)()`).
 */
export interface Win {
  journal: Journal;
  runtime: ChatRuntime;
  /** Prompts whose run saw its abort signal. */
  aborted: string[];
  /** Completes the waiting run of this prompt. */
  complete: Map<string, () => void>;
}

/**
 * Opens a `Win` with instance id `id` (process = this one) on folder `workspace` (undefined: none). `dead`: instance ids to treat as dead;
 * `wrap`: wraps the journal the runtime sees (to delay or spy on calls). Journal: fault injection
 * on, polled every 20 ms.
 */
export async function openWindow(file: string, workspace: string | undefined, id: string, opts: { dead?: Set<string>; wrap?: (j: Journal) => Journal } = {}): Promise<Win> {
  const aborted: string[] = [];
  const complete = new Map<string, () => void>();
  const waiting: Agent = {
    provider: 'local',
    label: 'waiting agent',
    runTurn: (request, ctx) =>
      new Promise((resolve) => {
        complete.set(request.prompt, () => resolve({ status: 'completed' }));
        ctx.signal.addEventListener('abort', () => {
          aborted.push(request.prompt);
          resolve({ status: 'completed' });
        });
      }),
  };
  const { journal, runtime } = await openRuntime({
    file,
    workspaceRoot: () => workspace,
    instance: id,
    dead: opts.dead,
    wrap: opts.wrap,
    journal: { pollIntervalMs: 20, faultInjection: true },
    agentFor: () => waiting,
  });
  return { journal, runtime, aborted, complete };
}

/**
 * Starts a chat in `owner` whose agent waits on `prompt` (see `Win.complete`), and waits until every
 * window in `watchers` sees it running. Returns the session id.
 */
export async function startWaitingRun(owner: Win, prompt: string, ...watchers: Win[]): Promise<string> {
  const s = await owner.runtime.createSession('local');
  if (!s.ok) throw new Error(s.message);
  const sent = await owner.runtime.send(s.value.id, prompt);
  if (!sent.ok) throw new Error(sent.message);
  for (const w of watchers) await waitFor(`window ${w.runtime.instanceId} to see the run`, async () => (await w.runtime.liveState(s.value.id)).running);
  return s.value.id;
}

/** Disposes the windows' runtimes, then closes their journals. */
export async function closeWindows(...ws: Win[]): Promise<void> {
  for (const w of ws) w.runtime.dispose();
  for (const w of ws) await w.journal.close();
}
