/**
 * Claude Code as an agent of this product, through `@anthropic-ai/claude-agent-sdk` (`query()`), which
 * drives the user's own Claude Code CLI. Claude Code runs its tools itself; this product journals them
 * and answers its permission prompts with sandbox boundary requests.
 *
 * One run = one `query()` in streaming-input mode (so Stop can `interrupt()` it):
 * - the CLI is the configured executable (`nativeAgentChats.claude.executablePath`, else `claude` on
 *   PATH; the SDK is never left to find its own binary, which a bundled extension does not ship);
 * - `env` REPLACES the child environment: a copy of `process.env` plus the API key, base URL, config
 *   dir, and the switches that keep Claude Code from contacting anything but the model endpoint
 *   (non-essential traffic, telemetry, auto-updater, error reporting);
 * - `permissionMode: 'default'`, `settingSources: []` (the user's and project's settings do not
 *   apply), `includePartialMessages: true` (text deltas stream to `ctx.text`);
 * - the provider session id is chosen here and journaled (`setProviderState('{"sessionId":…}')`)
 *   before the CLI starts; later turns, Retry (same prompt again) and Continue (asks it to carry on)
 *   `resume` it, so Claude sees its own earlier history. A session the CLI cannot find (it never got
 *   to save it, or the workspace moved) is started afresh under the same id with this chat's
 *   history quoted in the prompt;
 * - `canUseTool` → `ctx.startInvocation` (one per tool_use id) + `ctx.requestBoundary` (see
 *   `claudeTools.ts` for kinds, subjects and scope keys) → `allow` with the input unchanged, or
 *   `deny` ("The user denied this."; on Stop, deny + interrupt);
 * - tool_result blocks finish the invocations (output, `completed` / `failed` / `denied`);
 * - the final `result` message decides the outcome; an error result, or the iterator throwing (it does
 *   after an HTTP error), is `agent_error` with the error text; a CLI that cannot start, a model server
 *   that cannot be reached, or failed authentication is `agent_unavailable` with what to fix.
 * Stop (`ctx.signal`): `interrupt()` (the CLI ends the turn in ~0.1-0.3 s and its session stays
 * usable), then `close()` after `stopGraceMs` if it has not ended by then.
 *
 * Sources: the SDK's `sdk.d.ts` (0.3.332) and the measured behaviour in
 * shared/notes/real-agents-here.md (message shapes, interrupt vs abortController, HTTP errors).
 * No `vscode` here: the host wires settings and SecretStorage into `ClaudeAgentConfig`.
 */
import { randomUUID } from 'node:crypto';
import type { CanUseTool, Options, PermissionResult, Query, SDKMessage, SDKResultMessage, SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import type { Agent, AgentTurnContext, AgentTurnOutcome, AgentTurnRequest, HistoryEntry, InvocationHandle } from '../../agent';
import { findExecutable } from '../executables';
import { describeToolRequest, diffOfTool, summarizeTool } from './claudeTools';

/** The part of the SDK module this agent uses (injectable for a bundle that loads it differently). */
export type ClaudeSdk = Pick<typeof import('@anthropic-ai/claude-agent-sdk'), 'query'>;

/** The setting that names the Claude Code executable (shown in messages). */
export const CLAUDE_EXECUTABLE_SETTING = 'nativeAgentChats.claude.executablePath';
/** The setting that names the model server's base URL (shown in messages). */
export const CLAUDE_BASE_URL_SETTING = 'nativeAgentChats.claude.baseUrl';
/** How to install Claude Code (shown in messages). */
export const CLAUDE_INSTALL_HINT = 'npm install -g @anthropic-ai/claude-code';

/**
 * Built-in tools removed from Claude's context: ones that need a UI this product does not have
 * (AskUserQuestion, plan mode) or that schedule work outside a turn (cron, wake-ups).
 */
export const CLAUDE_DISALLOWED_TOOLS: readonly string[] = [
  'AskUserQuestion', 'EnterPlanMode', 'ExitPlanMode', 'CronCreate', 'CronDelete', 'CronList', 'ScheduleWakeup',
];

/** What Continue asks Claude (the resumed session holds the interrupted reply). */
export const CLAUDE_CONTINUE_PROMPT =
  'VS Code restarted while you were working on my last request, so your reply was cut off. Please continue where you left off.';

/** The deny message Claude receives when the user denies a permission. */
export const CLAUDE_DENY_MESSAGE = 'The user denied this.';

/**
 * Configuration of the Claude agent. Read at the start of every run (pass a function to
 * `createClaudeAgent` to follow settings changes).
 */
export interface ClaudeAgentConfig {
  /** Configured path of the `claude` executable (setting `nativeAgentChats.claude.executablePath`); empty = search PATH. */
  readonly executablePath?: string;
  /** PATH to search when no path is configured (default `process.env.PATH`). */
  readonly searchPath?: string;
  /** Model server base URL → `ANTHROPIC_BASE_URL` (default: Claude Code's own, api.anthropic.com). */
  readonly baseUrl?: string;
  /** Model name → `model` (default: Claude Code's default model). */
  readonly model?: string;
  /** Anthropic API key (e.g. from SecretStorage) → `ANTHROPIC_API_KEY`; undefined keeps the user's own login or environment. */
  readonly apiKey?: () => Promise<string | undefined>;
  /**
   * Claude Code's config dir → `CLAUDE_CONFIG_DIR` (sessions, settings, credentials), e.g. a folder
   * under the extension's global storage. Undefined: the user's own `~/.claude` (their login works,
   * and sessions are kept there). Resuming needs the same dir and the same workspace folder.
   */
  readonly configDir?: string;
  /** Extra environment variables for the CLI (applied over `process.env`, under the privacy switches). */
  readonly env?: Readonly<Record<string, string>>;
  /** API retries of the CLI → `CLAUDE_CODE_MAX_RETRIES` (Claude Code's default is 10, with backoff). */
  readonly maxRetries?: number;
  /** Tools removed from Claude's context (default `CLAUDE_DISALLOWED_TOOLS`). */
  readonly disallowedTools?: readonly string[];
  /** After Stop, how long (ms) the interrupted CLI may take to end before it is closed (default 3000). */
  readonly stopGraceMs?: number;
  /** Diagnostics (stderr lines, retries, stops). */
  readonly log?: (line: string) => void;
  /** Loads the SDK (default: `import('@anthropic-ai/claude-agent-sdk')`). */
  readonly loadSdk?: () => Promise<ClaudeSdk>;
}

/** What this agent stores with `setProviderState` (JSON). */
export interface ClaudeProviderState {
  /** Claude Code session id (a UUID chosen by this agent). */
  readonly sessionId: string;
}

/** Parses provider state written by this agent; undefined for anything else. */
export function parseClaudeProviderState(state: string | null): ClaudeProviderState | undefined {
  if (!state) return undefined;
  try {
    const parsed = JSON.parse(state) as Partial<ClaudeProviderState>;
    return typeof parsed.sessionId === 'string' && parsed.sessionId ? { sessionId: parsed.sessionId } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The environment of the Claude Code process (the SDK's `env` replaces it whole): `process.env`,
 * then `config.env`, then the API key, base URL, config dir and retries when configured, then the
 * switches that keep Claude Code off every host but the model endpoint. `CLAUDECODE` (set when this
 * editor was started from a Claude Code shell) is removed so the CLI does not think it is nested.
 */
export function claudeEnvironment(config: ClaudeAgentConfig, apiKey: string | undefined, base: NodeJS.ProcessEnv = process.env): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...base, ...config.env };
  delete env.CLAUDECODE;
  if (apiKey) env.ANTHROPIC_API_KEY = apiKey;
  if (config.baseUrl?.trim()) env.ANTHROPIC_BASE_URL = config.baseUrl.trim();
  if (config.configDir) env.CLAUDE_CONFIG_DIR = config.configDir;
  if (config.maxRetries !== undefined) env.CLAUDE_CODE_MAX_RETRIES = String(config.maxRetries);
  env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = '1';
  env.DISABLE_TELEMETRY = '1';
  env.DISABLE_AUTOUPDATER = '1';
  env.DISABLE_ERROR_REPORTING = '1';
  env.CLAUDE_AGENT_SDK_CLIENT_APP = 'native-agent-chats';
  return env;
}

/** The prompt that re-creates a lost session: this chat's history, then the request. */
export function promptWithHistory(history: readonly HistoryEntry[], prompt: string, maxChars = 20_000): string {
  if (history.length === 0) return prompt;
  let text = history.map((h) => `${h.role === 'user' ? 'User' : 'Assistant'}: ${h.text}`).join('\n\n');
  if (text.length > maxChars) text = `…${text.slice(text.length - maxChars)}`;
  return `(Your earlier session could not be resumed. The conversation so far in this chat was:)\n\n${text}\n\n(The new message follows.)\n\n${prompt}`;
}

/** Creates the Claude agent; `config` may be a function, read at the start of every run. */
export function createClaudeAgent(config: ClaudeAgentConfig | (() => ClaudeAgentConfig)): ClaudeAgent {
  return new ClaudeAgent(config);
}

interface AttemptResult {
  readonly outcome: AgentTurnOutcome;
  /** The CLI found no session to resume. */
  readonly sessionMissing: boolean;
}

/** The Claude agent (see module docstring). */
export class ClaudeAgent implements Agent {
  readonly provider = 'claude' as const;
  readonly label = 'Claude Code';

  constructor(private readonly config: ClaudeAgentConfig | (() => ClaudeAgentConfig)) {}

  /** Runs one turn; never throws. */
  async runTurn(request: AgentTurnRequest, ctx: AgentTurnContext): Promise<AgentTurnOutcome> {
    try {
      return await this.runTurnUnguarded(request, ctx);
    } catch (error) {
      return { status: 'failed', errorClass: 'agent_error', message: `The Claude agent failed: ${(error as Error).message}` };
    }
  }

  private async runTurnUnguarded(request: AgentTurnRequest, ctx: AgentTurnContext): Promise<AgentTurnOutcome> {
    const config = typeof this.config === 'function' ? this.config() : this.config;
    const lookup = findExecutable('claude', config.executablePath, { tool: 'Claude Code', setting: CLAUDE_EXECUTABLE_SETTING, install: CLAUDE_INSTALL_HINT }, config.searchPath);
    if (!lookup.ok) {
      const message = lookup.message.includes(CLAUDE_INSTALL_HINT) ? lookup.message : `${lookup.message} To install Claude Code: ${CLAUDE_INSTALL_HINT}.`;
      return { status: 'failed', errorClass: 'agent_unavailable', message };
    }
    let sdk: ClaudeSdk;
    try {
      sdk = await (config.loadSdk ?? (() => import('@anthropic-ai/claude-agent-sdk')))();
    } catch (error) {
      return { status: 'failed', errorClass: 'agent_unavailable', message: `The Claude Agent SDK could not be loaded: ${(error as Error).message}` };
    }
    if (ctx.signal.aborted) return { status: 'completed' };
    let apiKey: string | undefined;
    try {
      apiKey = await config.apiKey?.();
    } catch (error) {
      config.log?.(`[claude] could not read the API key: ${(error as Error).message}`);
    }
    const env = claudeEnvironment(config, apiKey);

    const known = parseClaudeProviderState(request.providerState);
    const sessionId = known?.sessionId ?? randomUUID();
    if (!known) await ctx.setProviderState(JSON.stringify({ sessionId } satisfies ClaudeProviderState));
    const prompt = request.origin === 'continue' ? CLAUDE_CONTINUE_PROMPT : request.prompt;
    const base = { sdk, config, executable: lookup.path, env, request, ctx, sessionId };
    // A chat with earlier turns but no Claude session yet (they failed before Claude Code started)
    // hands its history over in the prompt.
    const first = await this.attempt({ ...base, resume: known !== undefined, prompt: known ? prompt : promptWithHistory(request.history, prompt) });
    if (!first.sessionMissing || ctx.signal.aborted) return first.outcome;
    config.log?.(`[claude] session ${sessionId} was not found; starting it again with the chat history in the prompt`);
    const again = await this.attempt({ ...base, resume: false, prompt: promptWithHistory(request.history, prompt) });
    return again.outcome;
  }

  /** One `query()` from start to end. */
  private async attempt(a: {
    sdk: ClaudeSdk; config: ClaudeAgentConfig; executable: string; env: Record<string, string | undefined>;
    request: AgentTurnRequest; ctx: AgentTurnContext; sessionId: string; resume: boolean; prompt: string;
  }): Promise<AttemptResult> {
    const { ctx, config, request } = a;
    const log = config.log ?? (() => undefined);
    const invocations = new Map<string, Promise<InvocationHandle | undefined>>();
    const finishedTools = new Set<string>();
    const deniedTools = new Set<string>();
    const journalWrites: Promise<unknown>[] = [];
    const streamedMessages = new Set<string>();
    const stderrTail: string[] = [];
    let currentMessageId = '';
    let wroteText = false;
    let lastText = '';
    let sawInit = false;
    let result: SDKResultMessage | undefined;
    let apiErrorText: string | undefined;
    let apiErrorCode: string | undefined;
    let thrown: unknown;

    let closeInput!: () => void;
    const inputClosed = new Promise<void>((resolve) => (closeInput = resolve));
    const message: SDKUserMessage = { type: 'user', message: { role: 'user', content: a.prompt }, parent_tool_use_id: null };
    async function* input(): AsyncGenerator<SDKUserMessage> {
      yield message;
      await inputClosed; // streaming-input mode stays open until the turn ends, so interrupt() works
    }

    const emitText = (text: string, newBlock: boolean) => {
      if (!text) return;
      if (newBlock && wroteText && !lastText.endsWith('\n\n')) ctx.text(lastText.endsWith('\n') ? '\n' : '\n\n');
      ctx.text(text);
      wroteText = true;
      lastText = text;
    };
    let pendingBlockStart = false;

    // After Stop (or a host shutting down) nothing more is journaled for tools: the runtime ends open
    // invocations as stopped, or the next host's recovery settles them.
    const ensureInvocation = (toolUseId: string, toolName: string, toolInput: Record<string, unknown>): Promise<InvocationHandle | undefined> => {
      let handle = invocations.get(toolUseId);
      if (!handle && ctx.signal.aborted) return Promise.resolve(undefined);
      if (!handle) {
        const diff = diffOfTool(toolName, toolInput, request.cwd);
        handle = ctx.startInvocation(toolName, toolInput, summarizeTool(toolName, toolInput, request.cwd), diff).catch((error: Error) => {
          log(`[claude] could not journal the invocation of ${toolName}: ${error.message}`);
          return undefined;
        });
        invocations.set(toolUseId, handle);
        journalWrites.push(handle);
      }
      return handle;
    };

    const finishTool = (toolUseId: string, output: string, isError: boolean) => {
      if (finishedTools.has(toolUseId) || ctx.signal.aborted) return;
      finishedTools.add(toolUseId);
      const handle = invocations.get(toolUseId) ?? ensureInvocation(toolUseId, 'tool', {});
      journalWrites.push((async () => {
        const h = await handle;
        if (!h) return;
        if (output && !deniedTools.has(toolUseId)) h.output(output.length > 16_000 ? `${output.slice(0, 16_000)}\n… (output truncated)\n` : output);
        if (deniedTools.has(toolUseId)) await h.finish({ status: 'denied', message: 'The request was denied, so it did not run.' });
        else if (isError) await h.finish({ status: 'failed', message: firstLine(output) || 'The tool failed.' });
        else await h.finish({ status: 'completed' });
      })().catch((error: Error) => log(`[claude] could not finish an invocation: ${error.message}`)));
    };

    const canUseTool: CanUseTool = async (toolName, toolInput, options): Promise<PermissionResult> => {
      const stopped: PermissionResult = { behavior: 'deny', message: 'The user stopped the run.', interrupt: true };
      if (ctx.signal.aborted) return stopped;
      try {
        const view = describeToolRequest(toolName, toolInput, request.cwd, options);
        const handle = await ensureInvocation(options.toolUseID, toolName, toolInput);
        const decision = ctx.requestBoundary({
          ...(handle ? { invocationId: handle.id } : {}),
          kind: view.kind, subject: view.subject, why: view.why, scopeKey: view.scopeKey,
          ...(view.detail ? { detail: view.detail } : {}),
        });
        const outcome = await raceSignal(decision, options.signal);
        if (outcome === undefined) {
          deniedTools.add(options.toolUseID);
          return { behavior: 'deny', message: 'The permission request was withdrawn.' };
        }
        if (outcome.approved) return { behavior: 'allow', updatedInput: toolInput };
        deniedTools.add(options.toolUseID);
        return ctx.signal.aborted ? stopped : { behavior: 'deny', message: CLAUDE_DENY_MESSAGE };
      } catch (error) {
        log(`[claude] permission request for ${toolName} failed: ${(error as Error).message}`);
        deniedTools.add(options.toolUseID);
        return { behavior: 'deny', message: 'The permission request could not be shown to the user, so it was denied.' };
      }
    };

    const options: Options = {
      pathToClaudeCodeExecutable: a.executable,
      cwd: request.cwd,
      env: a.env,
      permissionMode: 'default',
      settingSources: [],
      includePartialMessages: true,
      ...(a.resume ? { resume: a.sessionId } : { sessionId: a.sessionId }),
      ...(config.model?.trim() ? { model: config.model.trim() } : {}),
      disallowedTools: [...(config.disallowedTools ?? CLAUDE_DISALLOWED_TOOLS)],
      canUseTool,
      stderr: (data: string) => {
        for (const line of data.split('\n').filter((l) => l.trim())) {
          stderrTail.push(line);
          if (stderrTail.length > 20) stderrTail.shift();
          log(`[claude stderr] ${line}`);
        }
      },
    };

    let query: Query;
    try {
      query = a.sdk.query({ prompt: input(), options });
    } catch (error) {
      return { outcome: unavailable(`Claude Code (${a.executable}) could not be started: ${(error as Error).message}`), sessionMissing: false };
    }

    let closeTimer: NodeJS.Timeout | undefined;
    const closeLater = (ms: number, why: string) => {
      if (closeTimer) return;
      closeTimer = setTimeout(() => {
        log(`[claude] closing the CLI (${why})`);
        closeInput();
        try {
          query.close();
        } catch {
          // already closed
        }
      }, ms);
    };
    const onAbort = () => {
      log('[claude] stop: interrupting the turn');
      query.interrupt().catch((error: Error) => log(`[claude] interrupt failed: ${error.message}`));
      closeLater(config.stopGraceMs ?? 3000, 'it did not end after the interrupt');
    };
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener('abort', onAbort, { once: true });

    try {
      for await (const m of query as AsyncIterable<SDKMessage>) {
        switch (m.type) {
          case 'system':
            if (m.subtype === 'init') sawInit = true;
            else if (m.subtype === 'api_retry') log(`[claude] API retry ${m.attempt}/${m.max_retries} after ${m.error_status ?? 'no status'} (${m.error})`);
            break;
          case 'stream_event': {
            if (m.parent_tool_use_id) break;
            const event = m.event;
            if (event.type === 'message_start') currentMessageId = event.message.id;
            else if (event.type === 'content_block_start' && event.content_block.type === 'text') pendingBlockStart = true;
            else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
              streamedMessages.add(currentMessageId);
              emitText(event.delta.text, pendingBlockStart);
              pendingBlockStart = false;
            }
            break;
          }
          case 'assistant': {
            const blocks = Array.isArray(m.message.content) ? m.message.content : [];
            if (m.error) {
              apiErrorText = blocks.map((b) => (b.type === 'text' ? b.text : '')).join('').trim() || m.error;
              apiErrorCode = m.error;
              break;
            }
            for (const block of blocks) {
              if (block.type === 'text' && !m.parent_tool_use_id && !streamedMessages.has(m.message.id)) emitText(block.text, true);
              else if (block.type === 'tool_use') void ensureInvocation(block.id, block.name, (block.input ?? {}) as Record<string, unknown>);
            }
            break;
          }
          case 'user': {
            const content = m.message.content;
            if (typeof content === 'string') break;
            for (const block of content) {
              if (block.type !== 'tool_result') continue;
              const text = typeof block.content === 'string'
                ? block.content
                : (block.content ?? []).map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
              finishTool(block.tool_use_id, text, block.is_error === true);
            }
            break;
          }
          case 'result':
            result = m;
            closeInput(); // the CLI exits once its input ends
            closeLater(5000, 'it did not exit after its result');
            break;
          default:
            break;
        }
      }
    } catch (error) {
      thrown = error;
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      if (closeTimer) clearTimeout(closeTimer);
      closeInput();
      try {
        query.close();
      } catch {
        // already closed
      }
    }
    await Promise.allSettled(journalWrites);
    // Invocations whose result never came are ended by the runtime when the run ends.

    if (ctx.signal.aborted) return { outcome: { status: 'completed' }, sessionMissing: false };
    const errorText = resultErrorText(result) ?? (thrown !== undefined ? (thrown as Error).message ?? String(thrown) : undefined);
    if (errorText !== undefined && /No conversation found with session ID/i.test(errorText)) {
      return { outcome: { status: 'failed', errorClass: 'agent_error', message: errorText }, sessionMissing: true };
    }
    if (result && result.subtype === 'success' && !result.is_error) return { outcome: { status: 'completed' }, sessionMissing: false };
    if (!sawInit && !result && thrown !== undefined) {
      const stderr = stderrTail.length ? ` (${stderrTail.slice(-3).join(' ')})` : '';
      return {
        outcome: unavailable(
          `Claude Code (${a.executable}) could not be started: ${(thrown as Error).message ?? String(thrown)}${stderr}. ` +
            `Check ${CLAUDE_EXECUTABLE_SETTING}, or install Claude Code (${CLAUDE_INSTALL_HINT}).`,
        ),
        sessionMissing: false,
      };
    }
    const text = apiErrorText ?? errorText ?? 'Claude Code ended without a result.';
    return { outcome: classifyFailure(text, result, config, apiErrorCode), sessionMissing: false };
  }
}

function unavailable(message: string): AgentTurnOutcome {
  return { status: 'failed', errorClass: 'agent_unavailable', message };
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** The error text of an unsuccessful result message, or undefined for a success. */
function resultErrorText(result: SDKResultMessage | undefined): string | undefined {
  if (!result) return undefined;
  if (result.subtype === 'success') return result.is_error ? result.result || 'Claude Code reported an error.' : undefined;
  return result.errors?.length ? result.errors.join('; ') : `Claude Code ended with ${result.subtype}.`;
}

/**
 * A failed run as the user should read it: an unreachable model server or failed authentication is
 * `agent_unavailable` (something to configure), anything else `agent_error` with Claude Code's text.
 */
export function classifyFailure(
  text: string,
  result: SDKResultMessage | undefined,
  config: Pick<ClaudeAgentConfig, 'baseUrl'>,
  /** The `error` code of Claude Code's synthetic assistant message, e.g. `authentication_failed`. */
  errorCode?: string,
): AgentTurnOutcome {
  const status = result && result.subtype === 'success' ? result.api_error_status : undefined;
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|Connection refused|Unable to connect|fetch failed/i.test(text)) {
    const where = config.baseUrl?.trim() ? ` at ${config.baseUrl.trim()}` : '';
    return unavailable(`Claude Code could not reach the model server${where}: ${text}. Check the network, or the base URL (${CLAUDE_BASE_URL_SETTING}).`);
  }
  if (errorCode === 'authentication_failed' || status === 401 || status === 403 || /authenticat|invalid api key|x-api-key|\/login/i.test(text)) {
    return unavailable(`Claude Code could not authenticate: ${text}. Set an Anthropic API key for Native Agent Chats, or run \`claude\` in a terminal and log in.`);
  }
  return { status: 'failed', errorClass: 'agent_error', message: `Claude Code reported an error: ${text}` };
}

/** The promise's value, or undefined once `signal` aborts first. */
function raceSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
