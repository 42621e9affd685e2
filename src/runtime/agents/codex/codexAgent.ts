/**
 * The Codex agent: OpenAI Codex driven through `codex app-server` (JSON-RPC over stdio), the only
 * Codex interface whose approvals a client can answer (`codex exec` and the Codex SDK force approval
 * policy "never").
 *
 * One app-server process per run (chosen over a long-lived process per chat: nothing to keep alive
 * or reconnect, and a run after a VS Code restart is the same code path as any other run). The thread
 * lives on disk in `codexHome`, so each run resumes it (`thread/resume`) in its fresh process:
 *   spawn `codex app-server` (CODEX_HOME = `codexHome`, whose config.toml this agent writes)
 *   → initialize → initialized
 *   → thread/start {cwd, model, approvalPolicy 'on-request', sandbox} — or thread/resume {threadId}
 *   → ctx.setProviderState({threadId}) at once (journaled before the turn starts)
 *   → turn/start {threadId, input:[{type:'text', text, text_elements:[]}]}
 *   → events until turn/completed; then stdin closes and the process exits.
 *
 * Mapping to the runtime:
 * - `item/agentMessage/delta` → `ctx.text`.
 * - `commandExecution` items → invocations `run` (output from `item/commandExecution/outputDelta`);
 *   `fileChange` items → invocations `edit` carrying a unified diff built from the item's changes.
 * - `item/commandExecution/requestApproval` → `ctx.requestBoundary` kind `command` (or `network` when
 *   Codex asks for a host), scope `codex:command:<program>`; `item/fileChange/requestApproval` → kind
 *   `file_change`, scope `codex:file_change`, detail = the diff of the `item/started` fileChange with
 *   the same itemId. The answer is `accept` or `decline` (`cancel` once the run is stopped), sent once.
 *   "Allow for this session" is NOT passed on as Codex's `acceptForSession`: the runtime's session
 *   grant answers the next request of the same scope, so every crossing is still journaled.
 * - Stop → `turn/interrupt {threadId, turnId}`, wait (bounded) for `turn/completed`, end the process.
 * - Retry resumes the thread and sends the prompt again; Continue resumes it and asks Codex to carry on.
 *
 * Sandbox: Codex's own sandbox runs in `read-only` mode by default (configurable: `workspace-write`),
 * so every write — a file change or a command that needs more than reading — becomes a boundary
 * request, like the product's own policy for other agents.
 *
 * Failures end the run with `agent_unavailable` (no CLI, no API key, unreachable or refusing model
 * server, app-server that cannot start) or `agent_error` (the process died mid-turn, the model
 * failed); `runTurn` never throws and never hangs on a dead process.
 *
 * Sources: the app-server protocol as measured with codex 0.171.0, and its typed bindings
 * (`codex app-server generate-ts`).
 */
import * as path from 'node:path';
import type { Agent, AgentTurnContext, AgentTurnOutcome, AgentTurnRequest, InvocationHandle } from '../../agent';
import { splitCommandLine } from '../../../core/sandboxPolicy';
import { programOf } from '../commandLine';
import { findExecutable } from '../executables';
import { promptWithHistory, type HistoryFraming } from '../historyPrompt';
import { providerStateField } from '../providerState';
import { AppServerClient, lastLines, type ServerRequest } from './appServerClient';
import { CODEX_API_KEY_ENV, OPENAI_BASE_URL, writeCodexHome } from './codexConfig';

export { programOf };

/** Setting names the messages point at (the host contributes them). */
export const CODEX_SETTINGS = {
  executablePath: 'nativeAgentChats.codex.executablePath',
  baseUrl: 'nativeAgentChats.codex.baseUrl',
  model: 'nativeAgentChats.codex.model',
} as const;

/** How to install Codex, for messages. */
export const CODEX_INSTALL_HINT = 'npm install -g @openai/codex';

/**
 * Configuration of the Codex agent (plain values; the host maps settings and SecretStorage to it).
 */
export interface CodexAgentConfig {
  /** Setting `nativeAgentChats.codex.executablePath`: the `codex` executable; empty/unset → PATH. */
  readonly executablePath?: string;
  /** PATH to search when `executablePath` is unset (default `process.env.PATH`). */
  readonly envPath?: string;
  /**
   * Folder used as Codex's `CODEX_HOME` (created if missing; e.g. `<globalStorage>/codex-home`).
   * Holds the config.toml this agent writes and Codex's threads, which Retry/Continue resume.
   */
  readonly codexHome: string;
  /** Model server base URL including `/v1` (Responses API); unset → `https://api.openai.com/v1`. */
  readonly baseUrl?: string;
  /** Model name passed to Codex (e.g. `gpt-5.2-codex`); unset → Codex's default. */
  readonly model?: string;
  /** The API key (from SecretStorage); undefined → none. Required when `baseUrl` is unset. */
  readonly apiKey: () => Promise<string | undefined>;
  /** Codex's own sandbox: `read-only` (default) or `workspace-write`. */
  readonly sandbox?: 'read-only' | 'workspace-write';
  /** Extra environment for the app-server process (merged over `process.env`). */
  readonly env?: Readonly<Record<string, string>>;
  /** Diagnostics (stderr lines of Codex, protocol trouble). */
  readonly log?: (line: string) => void;
  /** Also log every JSON-RPC line exchanged with the app-server (verbose diagnostics). */
  readonly traceProtocol?: boolean;
  /** How long initialize + thread start/resume may take, ms (default 30000). */
  readonly startupTimeoutMs?: number;
  /** After Stop: how long to wait for Codex to confirm the interrupt before ending the process, ms (default 3000). */
  readonly interruptTimeoutMs?: number;
}

/** What this agent journals with `setProviderState` (JSON). */
export interface CodexProviderState {
  readonly threadId: string;
}

/** Creates the Codex agent. `config` may be a getter so that changed settings apply to the next run. */
export function createCodexAgent(config: CodexAgentConfig | (() => CodexAgentConfig)): CodexAgent {
  return new CodexAgent(config);
}

/** The Codex agent (see module docstring). */
export class CodexAgent implements Agent {
  readonly provider = 'codex' as const;
  readonly label = 'Codex';

  constructor(private readonly config: CodexAgentConfig | (() => CodexAgentConfig)) {}

  async runTurn(request: AgentTurnRequest, ctx: AgentTurnContext): Promise<AgentTurnOutcome> {
    try {
      const config = typeof this.config === 'function' ? this.config() : this.config;
      return await new CodexRun(config, request, ctx).run();
    } catch (error) {
      return { status: 'failed', errorClass: 'agent_error', message: `Codex failed: ${(error as Error).message}` };
    }
  }
}

// ----------------------------------------------------------------------------------------- protocol

interface FileUpdateChange {
  readonly path: string;
  readonly kind: { readonly type: 'add' | 'delete' | 'update'; readonly move_path?: string | null };
  readonly diff: string;
}

interface ThreadItem {
  readonly type: string;
  readonly id: string;
  readonly text?: string;
  readonly command?: string;
  readonly cwd?: string;
  readonly status?: string;
  readonly exitCode?: number | null;
  readonly aggregatedOutput?: string | null;
  readonly changes?: readonly FileUpdateChange[];
  readonly server?: string;
  readonly tool?: string;
  readonly arguments?: unknown;
  readonly error?: { readonly message?: string } | null;
}

interface TurnError {
  readonly message: string;
  readonly codexErrorInfo?: unknown;
  readonly additionalDetails?: string | null;
}

interface CompletedTurn {
  readonly id: string;
  readonly status: 'completed' | 'interrupted' | 'failed' | 'inProgress';
  readonly error: TurnError | null;
}

type RunEnd =
  | { readonly type: 'turn'; readonly turn: CompletedTurn }
  | { readonly type: 'exit'; readonly message: string }
  | { readonly type: 'stopped' };

class Stopped extends Error {}

// ----------------------------------------------------------------------------------------- one run

/** One run: one app-server process, one Codex turn. */
class CodexRun {
  private client: AppServerClient | undefined;
  private executable = 'codex';
  private threadId: string | undefined;
  private turnId: string | undefined;
  private stopped = false;
  /** Serializes journal work so outputs and finishes follow their invocation's start. */
  private queue: Promise<void> = Promise.resolve();
  private readonly invocations = new Map<string, Promise<InvocationHandle | undefined>>();
  private readonly finished = new Set<string>();
  private readonly changes = new Map<string, readonly FileUpdateChange[]>();
  private readonly streamedItems = new Set<string>();
  /** Command output received per item through deltas (to complete it from `aggregatedOutput`). */
  private readonly outputs = new Map<string, string>();
  private lastTextItem: string | undefined;
  private wroteText = false;
  private lastError: TurnError | undefined;
  private resolveEnd!: (end: RunEnd) => void;
  private readonly end = new Promise<RunEnd>((resolve) => (this.resolveEnd = resolve));
  private readonly log: (line: string) => void;

  constructor(
    private readonly config: CodexAgentConfig,
    private readonly request: AgentTurnRequest,
    private readonly ctx: AgentTurnContext,
  ) {
    this.log = config.log ?? (() => undefined);
  }

  async run(): Promise<AgentTurnOutcome> {
    if (this.ctx.signal.aborted) return { status: 'completed' };
    const found = findExecutable('codex', this.config.executablePath, { tool: 'Codex', setting: CODEX_SETTINGS.executablePath, install: CODEX_INSTALL_HINT }, this.config.envPath);
    if (!found.ok) return unavailable(found.message.includes(CODEX_INSTALL_HINT) ? found.message : `${found.message} To install Codex: ${CODEX_INSTALL_HINT}.`);
    let apiKey: string | undefined;
    try {
      apiKey = (await this.config.apiKey())?.trim() || undefined;
    } catch (error) {
      this.log(`[codex] reading the API key failed: ${(error as Error).message}`);
    }
    const baseUrl = this.config.baseUrl?.trim() || undefined;
    if (!baseUrl && !apiKey) {
      return unavailable(`Codex needs an OpenAI API key for ${OPENAI_BASE_URL}. Set the API key, or set ${CODEX_SETTINGS.baseUrl} to a model server that needs none.`);
    }
    try {
      writeCodexHome(this.config.codexHome, { baseUrl, hasApiKey: apiKey !== undefined });
    } catch (error) {
      return unavailable(`Codex's configuration could not be written to ${this.config.codexHome}: ${(error as Error).message}`);
    }

    this.executable = found.path;
    const client = new AppServerClient({
      executable: found.path,
      args: ['app-server'],
      env: { ...process.env, ...this.config.env, CODEX_HOME: this.config.codexHome, ...(apiKey ? { [CODEX_API_KEY_ENV]: apiKey } : {}) },
      cwd: this.request.cwd,
      log: this.log,
      trace: this.config.traceProtocol === true,
    });
    this.client = client;
    client.onNotification((method, params) => this.onNotification(method, params));
    client.onServerRequest((r) => void this.onServerRequest(r));
    void client.exited.then((exit) => {
      if (exit.spawnError) this.resolveEnd({ type: 'exit', message: `Codex could not be started from ${found.path}: ${exit.spawnError.message}. Install it (${CODEX_INSTALL_HINT}) or fix ${CODEX_SETTINGS.executablePath}.` });
      else this.resolveEnd({ type: 'exit', message: this.exitMessage() });
    });
    const onAbort = (): void => void this.stop();
    this.ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const started = await this.start();
      if (started) return started;
      const end = await this.end;
      return await this.outcome(end, baseUrl);
    } catch (error) {
      if (error instanceof Stopped || this.stopped) return { status: 'completed' };
      return { status: 'failed', errorClass: 'agent_error', message: `Codex failed: ${(error as Error).message}` };
    } finally {
      this.ctx.signal.removeEventListener('abort', onAbort);
      if (!this.stopped) await this.settleOpenInvocations();
      await client.close(this.stopped ? 500 : 1500);
    }
  }

  /** Handshake, thread and turn start. Returns an outcome when the run cannot go on. */
  private async start(): Promise<AgentTurnOutcome | undefined> {
    const client = this.client!;
    const startupMs = this.config.startupTimeoutMs ?? 30_000;
    try {
      await this.untilStopped(client.request('initialize', { clientInfo: { name: 'native_agent_chats', title: 'Native Agent Chats', version: '0.1.0' }, capabilities: null }, startupMs));
      client.notify('initialized');
    } catch (error) {
      if (error instanceof Stopped) throw error;
      const exit = client.exit;
      if (exit?.spawnError) {
        return unavailable(`Codex could not be started (${exit.spawnError.message}). Install it (${CODEX_INSTALL_HINT}) or fix ${CODEX_SETTINGS.executablePath}.`);
      }
      return unavailable(`The Codex app-server did not start: ${(error as Error).message} Check that \`${this.executable} app-server\` runs (Codex 0.171 is known to work; ${CODEX_INSTALL_HINT}).`);
    }

    const settings = {
      cwd: this.request.cwd,
      approvalPolicy: 'on-request',
      sandbox: this.config.sandbox ?? 'read-only',
      ...(this.config.model ? { model: this.config.model } : {}),
    };
    let text = this.promptText();
    const previous = parseProviderState(this.request.providerState);
    if (previous) {
      try {
        const resumed = await this.untilStopped(client.request<{ thread: { id: string } }>('thread/resume', { threadId: previous.threadId, ...settings }, startupMs));
        this.threadId = resumed.thread.id;
      } catch (error) {
        if (error instanceof Stopped) throw error;
        if (client.exit) return this.failure(client.exit.spawnError ? 'agent_unavailable' : 'agent_error', this.exitMessage());
        // The thread is gone (e.g. Codex's storage was cleared): start a new one that carries the
        // chat's earlier exchanges in its first message.
        this.log(`[codex] thread/resume ${previous.threadId} failed (${(error as Error).message}); starting a new thread with the chat history`);
        text = promptWithHistory(this.request.history, text, CODEX_HISTORY_FRAMING);
      }
    } else if (this.request.history.length > 0) {
      // A chat whose earlier turns never reached Codex (e.g. they failed before a thread existed).
      text = promptWithHistory(this.request.history, text, CODEX_HISTORY_FRAMING);
    }
    try {
      if (!this.threadId) {
        const started = await this.untilStopped(client.request<{ thread: { id: string } }>('thread/start', settings, startupMs));
        this.threadId = started.thread.id;
      }
      await this.ctx.setProviderState(JSON.stringify({ threadId: this.threadId } satisfies CodexProviderState));
      if (this.stopped) throw new Stopped();
      const turn = await this.untilStopped(client.request<{ turn: { id: string } }>('turn/start', {
        threadId: this.threadId,
        input: [{ type: 'text', text, text_elements: [] }],
      }, startupMs));
      this.turnId = turn.turn.id;
    } catch (error) {
      if (error instanceof Stopped) throw error;
      if (client.exit) return this.failure('agent_error', this.exitMessage());
      return this.failure('agent_error', `Codex refused to start the turn: ${(error as Error).message}`);
    }
    // Stop may have come while turn/start was in flight: interrupt now that the turn is known.
    if (this.stopped) void this.interrupt();
    return undefined;
  }

  /** The text sent to Codex for this run. */
  private promptText(): string {
    if (this.request.origin === 'continue') {
      return [
        'Your previous reply was interrupted because the editor restarted.',
        'Continue where you left off and finish my last request.',
      ].join(' ');
    }
    return this.request.prompt;
  }

  private async outcome(end: RunEnd, baseUrl: string | undefined): Promise<AgentTurnOutcome> {
    await this.drain();
    if (end.type === 'stopped' || this.stopped) return { status: 'completed' };
    if (end.type === 'exit') return this.failure('agent_error', end.message);
    const turn = end.turn;
    if (turn.status === 'completed') return { status: 'completed' };
    if (turn.status === 'interrupted') return this.failure('agent_error', 'Codex interrupted the turn before it finished.');
    return classifyTurnError(turn.error ?? this.lastError, baseUrl ?? OPENAI_BASE_URL, this.config.model);
  }

  private failure(errorClass: 'agent_error' | 'agent_unavailable', message: string): AgentTurnOutcome {
    return { status: 'failed', errorClass, message };
  }

  private exitMessage(): string {
    const exit = this.client?.exit;
    const how = !exit ? 'stopped answering' : exit.signal ? `was killed (${exit.signal})` : `exited (code ${exit.code})`;
    const tail = lastLines(this.client?.stderr ?? '', 2);
    return `The Codex app-server ${how} before the turn finished${tail ? `: ${tail}` : '.'}`;
  }

  /** Rejects with `Stopped` as soon as the run is stopped. */
  private untilStopped<T>(promise: Promise<T>): Promise<T> {
    promise.catch(() => undefined);
    return Promise.race([promise, this.end.then((end) => {
      if (end.type === 'stopped') throw new Stopped();
      return promise;
    })]);
  }

  // --------------------------------------------------------------------------------------- stop

  private async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (!this.turnId) {
      // Handshake still running: nothing to interrupt; the process is ended by run().
      this.resolveEnd({ type: 'stopped' });
      return;
    }
    await this.interrupt();
  }

  private async interrupt(): Promise<void> {
    const client = this.client;
    if (!client || !this.threadId || !this.turnId) return this.resolveEnd({ type: 'stopped' });
    const timeoutMs = this.config.interruptTimeoutMs ?? 3000;
    const timer = setTimeout(() => this.resolveEnd({ type: 'stopped' }), timeoutMs);
    try {
      await client.request('turn/interrupt', { threadId: this.threadId, turnId: this.turnId }, timeoutMs);
    } catch (error) {
      this.log(`[codex] turn/interrupt: ${(error as Error).message}`);
      this.resolveEnd({ type: 'stopped' });
    }
    await this.end;
    clearTimeout(timer);
  }

  // ------------------------------------------------------------------------------ notifications

  private onNotification(method: string, params: unknown): void {
    const p = (params ?? {}) as { threadId?: string; turnId?: string; itemId?: string; delta?: string; item?: ThreadItem; turn?: CompletedTurn; error?: TurnError; willRetry?: boolean; changes?: readonly FileUpdateChange[] };
    if (p.threadId !== undefined && this.threadId !== undefined && p.threadId !== this.threadId) return;
    if (p.turnId !== undefined && this.turnId !== undefined && p.turnId !== this.turnId) return;
    if (method === 'turn/completed') {
      if (p.turn && (this.turnId === undefined || p.turn.id === this.turnId)) this.resolveEnd(this.stopped ? { type: 'stopped' } : { type: 'turn', turn: p.turn });
      return;
    }
    if (method === 'error') {
      if (p.error) {
        this.lastError = p.error;
        this.log(`[codex] error${p.willRetry ? ' (will retry)' : ''}: ${p.error.message}`);
      }
      return;
    }
    // After Stop (or a host shutdown) nothing more reaches the journal.
    if (this.stopped) return;
    switch (method) {
      case 'item/started':
        if (p.item) this.onItemStarted(p.item);
        break;
      case 'item/completed':
        if (p.item) this.onItemCompleted(p.item);
        break;
      case 'item/agentMessage/delta':
        if (p.itemId && p.delta) this.text(p.itemId, p.delta);
        break;
      case 'item/commandExecution/outputDelta':
        if (p.itemId && p.delta) this.output(p.itemId, p.delta);
        break;
      case 'item/fileChange/patchUpdated':
        if (p.itemId && p.changes) this.changes.set(p.itemId, p.changes);
        break;
      default:
        break;
    }
  }

  private enqueue(work: () => Promise<void> | void): void {
    this.queue = this.queue.then(work).catch((error) => this.log(`[codex] journal work failed: ${(error as Error).message}`));
  }

  /** Waits until everything queued so far reached the runtime. */
  private drain(): Promise<void> {
    return this.queue;
  }

  private text(itemId: string, delta: string): void {
    this.streamedItems.add(itemId);
    this.enqueue(() => {
      if (this.stopped) return;
      if (this.lastTextItem !== itemId) {
        if (this.wroteText) this.ctx.text('\n\n');
        this.lastTextItem = itemId;
      }
      this.wroteText = true;
      this.ctx.text(delta);
    });
  }

  private onItemStarted(item: ThreadItem): void {
    switch (item.type) {
      case 'commandExecution':
        this.startInvocation(item.id, 'run', { command: item.command ?? '', cwd: item.cwd ?? this.request.cwd }, displayCommand(item.command ?? ''));
        break;
      case 'fileChange': {
        const changes = item.changes ?? [];
        this.changes.set(item.id, changes);
        this.startInvocation(item.id, 'edit', { files: changes.map((c) => c.path) }, this.filesSubject(changes), unifiedDiff(changes, this.request.cwd));
        break;
      }
      case 'mcpToolCall':
        this.startInvocation(item.id, `${item.server ?? 'mcp'}.${item.tool ?? 'tool'}`, item.arguments ?? null, item.tool ?? 'MCP tool');
        break;
      default:
        break;
    }
  }

  private onItemCompleted(item: ThreadItem): void {
    switch (item.type) {
      case 'agentMessage':
        // A provider that does not stream deltas still gets its text shown.
        if (!this.streamedItems.has(item.id) && item.text) this.text(item.id, item.text);
        break;
      case 'commandExecution':
      case 'fileChange':
      case 'mcpToolCall': {
        if (!this.invocations.has(item.id)) this.onItemStarted(item);
        // Output may come only (or partly) in the completed item rather than as deltas.
        const received = this.outputs.get(item.id) ?? '';
        if (item.aggregatedOutput && item.aggregatedOutput.length > received.length && item.aggregatedOutput.startsWith(received)) {
          this.output(item.id, item.aggregatedOutput.slice(received.length));
        }
        const status = item.status === 'completed' ? 'completed' : item.status === 'declined' ? 'denied' : 'failed';
        const message = status === 'denied'
          ? 'Declined'
          : status === 'failed'
            ? item.error?.message ?? (item.type === 'fileChange' ? 'The change could not be applied' : 'The command failed')
            : undefined;
        this.finishInvocation(item.id, { status, ...(item.exitCode !== undefined ? { exitCode: item.exitCode } : {}), ...(message ? { message } : {}) });
        break;
      }
      default:
        break;
    }
  }

  private startInvocation(itemId: string, tool: string, input: unknown, summary: string, diff?: string): Promise<InvocationHandle | undefined> {
    const existing = this.invocations.get(itemId);
    if (existing) return existing;
    const started = new Promise<InvocationHandle | undefined>((resolve) => {
      this.enqueue(async () => {
        if (this.stopped) return resolve(undefined);
        try {
          resolve(await this.ctx.startInvocation(tool, input, summary, diff || undefined));
        } catch (error) {
          this.log(`[codex] startInvocation failed: ${(error as Error).message}`);
          resolve(undefined);
        }
      });
    });
    this.invocations.set(itemId, started);
    return started;
  }

  private output(itemId: string, chunk: string): void {
    const handle = this.invocations.get(itemId);
    if (!handle) return;
    this.outputs.set(itemId, (this.outputs.get(itemId) ?? '') + chunk);
    this.enqueue(async () => {
      if (!this.stopped) (await handle)?.output(chunk);
    });
  }

  private finishInvocation(itemId: string, result: { status: 'completed' | 'failed' | 'denied'; exitCode?: number | null; message?: string }): void {
    const handle = this.invocations.get(itemId);
    if (!handle || this.finished.has(itemId)) return;
    this.finished.add(itemId);
    this.enqueue(async () => {
      if (!this.stopped) await (await handle)?.finish(result);
    });
  }

  /** Ends invocations Codex never completed (the process died): failed, with the reason. */
  private async settleOpenInvocations(): Promise<void> {
    for (const itemId of this.invocations.keys()) {
      this.finishInvocation(itemId, { status: 'failed', message: 'Codex ended before this finished' });
    }
    await this.drain();
  }

  // ---------------------------------------------------------------------------- server requests

  private async onServerRequest(request: ServerRequest): Promise<void> {
    const client = this.client!;
    let answered = false;
    const answer = (decision: 'accept' | 'decline' | 'cancel'): void => {
      if (answered) return;
      answered = true;
      client.respond(request.id, { decision });
    };
    try {
      switch (request.method) {
        case 'item/commandExecution/requestApproval':
          answer(await this.approveCommand(request.params as CommandApprovalParams));
          return;
        case 'item/fileChange/requestApproval':
          answer(await this.approveFileChange(request.params as FileChangeApprovalParams));
          return;
        default:
          this.log(`[codex] unsupported server request ${request.method}; answered with an error`);
          client.respondError(request.id, -32601, `Native Agent Chats does not support ${request.method}.`);
          return;
      }
    } catch (error) {
      this.log(`[codex] approval failed: ${(error as Error).message}`);
      answer(this.stopped ? 'cancel' : 'decline');
    }
  }

  private async approveCommand(params: CommandApprovalParams): Promise<'accept' | 'decline' | 'cancel'> {
    if (this.stopped) return 'cancel';
    const command = displayCommand(params.command ?? '');
    const handle = await (this.invocations.get(params.itemId)
      ?? this.startInvocation(params.itemId, 'run', { command: params.command ?? '', cwd: params.cwd ?? this.request.cwd }, command));
    await this.drain();
    const network = params.networkApprovalContext;
    const outcome = await this.ctx.requestBoundary({
      ...(handle ? { invocationId: handle.id } : {}),
      ...(network
        ? {
            kind: 'network' as const,
            subject: `${network.protocol}://${network.host}`,
            why: params.reason ?? `Codex asks to reach ${network.host}.`,
            scopeKey: `codex:network:${network.host}`,
          }
        : {
            kind: 'command' as const,
            subject: command,
            why: params.reason ?? 'Codex asks to run this command outside its sandbox.',
            scopeKey: `codex:command:${programOf(command, 'command')}`,
          }),
    });
    if (this.stopped || this.ctx.signal.aborted) return 'cancel';
    return outcome.approved ? 'accept' : 'decline';
  }

  private async approveFileChange(params: FileChangeApprovalParams): Promise<'accept' | 'decline' | 'cancel'> {
    if (this.stopped) return 'cancel';
    const changes = this.changes.get(params.itemId) ?? [];
    const diff = unifiedDiff(changes, this.request.cwd);
    const handle = await (this.invocations.get(params.itemId)
      ?? this.startInvocation(params.itemId, 'edit', { files: changes.map((c) => c.path) }, this.filesSubject(changes), diff));
    await this.drain();
    const outcome = await this.ctx.requestBoundary({
      ...(handle ? { invocationId: handle.id } : {}),
      kind: 'file_change',
      subject: this.filesSubject(changes) || (params.grantRoot ? `files under ${params.grantRoot}` : 'files'),
      why: params.reason ?? 'Codex asks to change these files.',
      scopeKey: 'codex:file_change',
      ...(diff ? { detail: diff } : {}),
    });
    if (this.stopped || this.ctx.signal.aborted) return 'cancel';
    return outcome.approved ? 'accept' : 'decline';
  }

  private filesSubject(changes: readonly FileUpdateChange[]): string {
    return changes.map((c) => relativeTo(this.request.cwd, c.path)).join(', ');
  }
}

interface CommandApprovalParams {
  readonly itemId: string;
  readonly reason?: string | null;
  readonly command?: string | null;
  readonly cwd?: string | null;
  readonly networkApprovalContext?: { readonly host: string; readonly protocol: string } | null;
}

interface FileChangeApprovalParams {
  readonly itemId: string;
  readonly reason?: string | null;
  readonly grantRoot?: string | null;
}

// ----------------------------------------------------------------------------------------- helpers

function unavailable(message: string): AgentTurnOutcome {
  return { status: 'failed', errorClass: 'agent_unavailable', message };
}

/** Reads `{threadId}` from the journaled provider state, or undefined. */
export function parseProviderState(state: string | null): CodexProviderState | undefined {
  const threadId = providerStateField(state, 'threadId');
  return threadId ? { threadId } : undefined;
}

/** How the chat's earlier exchanges are introduced to a thread that has none of them. */
const CODEX_HISTORY_FRAMING: HistoryFraming = { before: 'Earlier in this conversation:', after: 'Now:' };

/**
 * The command as the user typed it, without Codex's shell wrapper: `/bin/bash -lc 'touch a'` →
 * `touch a`. Anything else is returned unchanged.
 */
export function displayCommand(command: string): string {
  const words = splitCommandLine(command);
  if (words && words.length === 3 && /^(ba|z|da)?sh$/.test(path.basename(words[0]!)) && /^-l?c$/.test(words[1]!)) return words[2]!;
  return command;
}

/** `file` relative to `cwd` when inside it, else as given. */
function relativeTo(cwd: string, file: string): string {
  const rel = path.relative(cwd, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

/**
 * A unified diff of Codex's file changes. Codex gives an `update` as hunks, an `add` as the new
 * content and a `delete` as the old content; each becomes a `---/+++` file section.
 */
export function unifiedDiff(changes: readonly FileUpdateChange[], cwd: string): string {
  const out: string[] = [];
  for (const change of changes) {
    const file = relativeTo(cwd, change.path);
    const body = change.diff.endsWith('\n') ? change.diff.slice(0, -1) : change.diff;
    const lines = body === '' ? [] : body.split('\n');
    if (change.kind.type === 'add') {
      out.push('--- /dev/null', `+++ b/${file}`, `@@ -0,0 +1,${lines.length} @@`, ...lines.map((l) => `+${l}`));
    } else if (change.kind.type === 'delete') {
      out.push(`--- a/${file}`, '+++ /dev/null', `@@ -1,${lines.length} +0,0 @@`, ...lines.map((l) => `-${l}`));
    } else {
      const target = change.kind.move_path ? relativeTo(cwd, change.kind.move_path) : file;
      out.push(`--- a/${file}`, `+++ b/${target}`, ...lines);
    }
  }
  return out.length ? `${out.join('\n')}\n` : '';
}

/** The outcome of a failed Codex turn: configuration problems are `agent_unavailable`. */
function classifyTurnError(error: TurnError | undefined, baseUrl: string, model: string | undefined): AgentTurnOutcome {
  const message = error?.message ?? 'Codex reported a failed turn without a reason.';
  const info = error?.codexErrorInfo;
  const key = typeof info === 'string' ? info : info && typeof info === 'object' ? Object.keys(info)[0] : undefined;
  const details = error?.additionalDetails ? ` (${error.additionalDetails})` : '';
  switch (key) {
    case 'httpConnectionFailed':
    case 'responseStreamConnectionFailed':
      return unavailable(`Codex could not reach the model server at ${baseUrl}: ${message}${details}. Check that it is running, or change ${CODEX_SETTINGS.baseUrl}.`);
    case 'unauthorized':
      return unavailable(`The model server at ${baseUrl} refused the API key: ${message}. Set a valid API key.`);
    case 'modelNotFound':
      return unavailable(`The model server at ${baseUrl} does not know the model${model ? ` "${model}"` : ''}: ${message}. Change ${CODEX_SETTINGS.model}.`);
    default:
      return { status: 'failed', errorClass: 'agent_error', message: `Codex failed: ${message}${details}` };
  }
}

