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
 * - Delivery (`ctx.promptDelivered`): the app-server's answer to `turn/start` (the turn's id), its
 *   own acknowledgement that it took the input into the thread and started the turn; it answers
 *   before it calls the model. An error answer (e.g. `input_too_large`) acknowledges nothing and
 *   fails the turn.
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
 * Files: codexSettings.ts (configuration), codexItems.ts (protocol shapes, diffs), codexInvocations.ts
 * (items → text and invocations), codexApprovals.ts (approval requests), codexConfig.ts (config.toml),
 * appServerClient.ts (the process and JSON-RPC).
 *
 * Sources: the app-server protocol as measured with codex 0.171.0, and its typed bindings
 * (`codex app-server generate-ts`).
 */
import type { Agent, AgentTurnContext, AgentTurnOutcome, AgentTurnRequest } from '../../agent';
import { withFileNote } from '../../agent';
import { agentFailure, failedWith } from '../agentFailure';
import { findExecutable } from '../executables';
import { promptWithHistory, type HistoryFraming } from '../historyPrompt';
import { replacedPromptNote } from '../replacedPrompt';
import { attachmentBlock, type AgentAttachment } from '../../../core/attachments';
import { AppServerClient, lastLines } from './appServerClient';
import { CodexApprovals } from './codexApprovals';
import { CODEX_API_KEY_ENV, OPENAI_BASE_URL, writeCodexHome } from './codexConfig';
import type { CompletedTurn, FileUpdateChange, ThreadItem, TurnError } from './codexItems';
import { CodexInvocations } from './codexInvocations';
import { CODEX_INSTALL_HINT, CODEX_SETTINGS, parseProviderState, type CodexAgentConfig, type CodexProviderState } from './codexSettings';

export { programOf } from '../commandLine';
export { displayCommand, unifiedDiff } from './codexItems';
export { CODEX_INSTALL_HINT, CODEX_SETTINGS, parseProviderState } from './codexSettings';
export type { CodexAgentConfig, CodexProviderState } from './codexSettings';

/** How the chat's earlier exchanges are introduced to a thread that has none of them. */
const CODEX_HISTORY_FRAMING: HistoryFraming = { before: 'Earlier in this conversation:', after: 'Now:' };

/** Creates the Codex agent. `config` may be a getter so that changed settings apply to the next run. */
export function createCodexAgent(config: CodexAgentConfig | (() => CodexAgentConfig)): CodexAgent {
  return new CodexAgent(config);
}

/** The Codex agent (see module docstring). */
export class CodexAgent implements Agent {
  readonly provider = 'codex' as const;
  readonly label = 'Codex';

  constructor(private readonly config: CodexAgentConfig | (() => CodexAgentConfig)) {}

  runTurn(request: AgentTurnRequest, ctx: AgentTurnContext): Promise<AgentTurnOutcome> {
    return failedWith('Codex', () => new CodexRun(typeof this.config === 'function' ? this.config() : this.config, request, ctx).run());
  }
}

type RunEnd =
  | { readonly type: 'turn'; readonly turn: CompletedTurn }
  | { readonly type: 'exit'; readonly message: string }
  | { readonly type: 'stopped' };

class Stopped extends Error {}

/** One run: one app-server process, one Codex turn. */
class CodexRun {
  private client: AppServerClient | undefined;
  private executable = 'codex';
  private threadId: string | undefined;
  private turnId: string | undefined;
  private stopped = false;
  private readonly items: CodexInvocations;
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
    this.items = new CodexInvocations(ctx, request.cwd, () => this.stopped, this.log);
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
    const approvals = new CodexApprovals(client, this.ctx, this.items, this.request.cwd, () => this.stopped, this.log);
    client.onServerRequest((r) => void approvals.answer(r));
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
      return agentFailure('Codex', error);
    } finally {
      this.ctx.signal.removeEventListener('abort', onAbort);
      if (!this.stopped) await this.items.settleOpen();
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
      ...(this.model ? { model: this.model } : {}),
    };
    let text = this.promptText();
    const previous = parseProviderState(this.request.providerState);
    if (previous) {
      try {
        const resumed = await this.untilStopped(client.request<{ thread: { id: string } }>('thread/resume', { threadId: previous.threadId, ...settings }, startupMs));
        this.threadId = resumed.thread.id;
        // An edit and resend: the thread still holds the request the user replaced.
        if (this.request.replaces) text = replacedPromptNote(this.request.replaces.prompt, text);
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
        // Attachments as text items after the prompt, one per attachment (codexInput).
        input: codexInput(text, this.request.attachments ?? []),
      }, startupMs));
      this.turnId = turn.turn.id;
      void this.ctx.promptDelivered();
    } catch (error) {
      if (error instanceof Stopped) throw error;
      if (client.exit) return this.failure('agent_error', this.exitMessage());
      return this.failure('agent_error', `Codex refused to start the turn: ${(error as Error).message}`);
    }
    // Stop may have come while turn/start was in flight: interrupt now that the turn is known.
    if (this.stopped) void this.interrupt();
    return undefined;
  }

  /** The model of this run: the one the turn recorded (the chat's choice), else the `model` setting. */
  private get model(): string | undefined {
    return this.request.model || this.config.model;
  }

  /** The text sent to Codex for this run. */
  private promptText(): string {
    if (this.request.origin === 'continue') {
      return withFileNote(this.request, [
        'Your previous reply was interrupted because the editor restarted.',
        'Continue where you left off and finish my last request.',
      ].join(' '));
    }
    return withFileNote(this.request, this.request.prompt);
  }

  private async outcome(end: RunEnd, baseUrl: string | undefined): Promise<AgentTurnOutcome> {
    await this.items.drain();
    if (end.type === 'stopped' || this.stopped) return { status: 'completed' };
    if (end.type === 'exit') return this.failure('agent_error', end.message);
    const turn = end.turn;
    if (turn.status === 'completed') return { status: 'completed' };
    if (turn.status === 'interrupted') return this.failure('agent_error', 'Codex interrupted the turn before it finished.');
    return classifyTurnError(turn.error ?? this.lastError, baseUrl ?? OPENAI_BASE_URL, this.model);
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
        if (p.item) this.items.onItemStarted(p.item);
        break;
      case 'item/completed':
        if (p.item) this.items.onItemCompleted(p.item);
        break;
      case 'item/agentMessage/delta':
        if (p.itemId && p.delta) this.items.text(p.itemId, p.delta);
        break;
      case 'item/commandExecution/outputDelta':
        if (p.itemId && p.delta) this.items.output(p.itemId, p.delta);
        break;
      case 'item/fileChange/patchUpdated':
        if (p.itemId && p.changes) this.items.setChanges(p.itemId, p.changes);
        break;
      default:
        break;
    }
  }
}

function unavailable(message: string): AgentTurnOutcome {
  return { status: 'failed', errorClass: 'agent_unavailable', message };
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

/**
 * The `turn/start` input of a prompt: its text, then each attachment as a text item of its own (a
 * fenced block with its path and lines: `attachmentBlock`). The app-server's `UserInput` has no
 * item for a text file's content (its `mention` and `skill` items name apps and skills, `localImage`
 * images), and it joins the text items into the one user message the model reads.
 */
export function codexInput(text: string, attachments: readonly AgentAttachment[]): { type: 'text'; text: string; text_elements: [] }[] {
  return [text, ...attachments.map(attachmentBlock)].map((t) => ({ type: 'text', text: t, text_elements: [] }));
}
