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
 * Delivery (`ctx.promptDelivered`, once per turn): the first `stream_event` of the turn, i.e. the
 * model API began its answer to the request that carries the prompt (claudeStream.ts says why
 * not `system/init`); a CLI that fails at start or an API that refuses the request acknowledges nothing.
 * Stop (`ctx.signal`): `interrupt()` (the CLI ends the turn in ~0.1-0.3 s and its session stays
 * usable), then `close()` after `stopGraceMs` if it has not ended by then.
 *
 * Sources: the SDK's `sdk.d.ts` (0.3.332) and its measured behaviour (message shapes, interrupt vs
 * abortController, HTTP errors).
 *
 * Files: claudeConfig.ts (settings, environment), claudeStream.ts (the messages), claudePermissions.ts
 * (`canUseTool`), claudeInvocations.ts (tool_use → invocations), claudeOutcome.ts (how a query
 * ended), claudeTools.ts (what each tool request shows and asks).
 * No `vscode` here: the host wires settings and SecretStorage into `ClaudeAgentConfig`.
 */
import { randomUUID } from 'node:crypto';
import type { CanUseTool, Options, Query, SDKMessage, SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import type { Agent, AgentTurnContext, AgentTurnOutcome, AgentTurnRequest } from '../../agent';
import { withFileNote } from '../../agent';
import { findExecutable } from '../executables';
import { promptWithHistory } from '../historyPrompt';
import { replacedPromptNote } from '../replacedPrompt';
import { attachmentBlock, type AgentAttachment } from '../../../core/attachments';
import {
  CLAUDE_CONTINUE_PROMPT, CLAUDE_DISALLOWED_TOOLS, CLAUDE_EXECUTABLE_SETTING, CLAUDE_INSTALL_HINT, claudeEnvironment,
  parseClaudeProviderState, type ClaudeAgentConfig, type ClaudeProviderState, type ClaudeSdk,
} from './claudeConfig';
import { ClaudeInvocations } from './claudeInvocations';
import { attemptResult, unavailable, type AttemptResult } from './claudeOutcome';
import { claudeCanUseTool } from './claudePermissions';
import { ClaudeStream } from './claudeStream';

export {
  CLAUDE_BASE_URL_SETTING, CLAUDE_CONTINUE_PROMPT, CLAUDE_DENY_MESSAGE, CLAUDE_DISALLOWED_TOOLS, CLAUDE_EXECUTABLE_SETTING,
  CLAUDE_INSTALL_HINT, claudeEnvironment, parseClaudeProviderState,
} from './claudeConfig';
import { failedWith } from '../agentFailure';
import { acknowledgeOnce } from '../promptAcknowledgement';

export type { ClaudeAgentConfig, ClaudeProviderState, ClaudeSdk } from './claudeConfig';
export { classifyFailure } from './claudeOutcome';
/** The prompt that re-creates a lost session: this chat's history, then the request. */
export { promptWithHistory } from '../historyPrompt';

/** Creates the Claude agent; `config` may be a function, read at the start of every run. */
export function createClaudeAgent(config: ClaudeAgentConfig | (() => ClaudeAgentConfig)): ClaudeAgent {
  return new ClaudeAgent(config);
}

/** The Claude agent (see module docstring). */
export class ClaudeAgent implements Agent {
  readonly provider = 'claude' as const;
  readonly label = 'Claude Code';

  constructor(private readonly config: ClaudeAgentConfig | (() => ClaudeAgentConfig)) {}

  /** Runs one turn; never throws. */
  runTurn(request: AgentTurnRequest, ctx: AgentTurnContext): Promise<AgentTurnOutcome> {
    return failedWith('The Claude agent', () => this.runTurnUnguarded(request, ctx));
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
    const prompt = withFileNote(request, request.origin === 'continue' ? CLAUDE_CONTINUE_PROMPT : request.prompt);
    // An edit and resend: Claude's session still holds the request the user replaced.
    const resumed = request.replaces ? replacedPromptNote(request.replaces.prompt, prompt) : prompt;
    const base = { sdk, config, executable: lookup.path, env, request, ctx, sessionId, delivered: acknowledgeOnce(ctx) };
    // A chat with earlier turns but no Claude session yet (they failed before Claude Code started)
    // hands its history over in the prompt.
    const first = await this.attempt({ ...base, resume: known !== undefined, prompt: known ? resumed : promptWithHistory(request.history, prompt) });
    if (!first.sessionMissing || ctx.signal.aborted) return first.outcome;
    config.log?.(`[claude] session ${sessionId} was not found; starting it again with the chat history in the prompt`);
    const again = await this.attempt({ ...base, resume: false, prompt: promptWithHistory(request.history, prompt) });
    return again.outcome;
  }

  /** One `query()` from start to end. */
  private async attempt(a: AttemptInput): Promise<AttemptResult> {
    const { ctx, config, request } = a;
    const log = config.log ?? (() => undefined);
    const invocations = new ClaudeInvocations(ctx, request.cwd, log);
    const stderrTail: string[] = [];
    const input = new StreamingInput(claudeContent(a.prompt, request.attachments ?? []));
    let lifecycle: QueryLifecycle | undefined;
    const stream = new ClaudeStream(ctx, invocations, log, () => lifecycle?.endAfterResult(), a.delivered);
    let query: Query;
    try {
      query = a.sdk.query({ prompt: input.messages(), options: queryOptions(a, claudeCanUseTool(ctx, request.cwd, invocations, log), stderrTail, log) });
    } catch (error) {
      return { outcome: unavailable(`Claude Code (${a.executable}) could not be started: ${(error as Error).message}`), sessionMissing: false };
    }
    lifecycle = new QueryLifecycle(query, input, ctx.signal, config.stopGraceMs ?? 3000, log);
    let thrown: unknown;
    try {
      for await (const m of query as AsyncIterable<SDKMessage>) stream.handle(m);
    } catch (error) {
      thrown = error;
    } finally {
      lifecycle.dispose();
    }
    await invocations.settled();
    return attemptResult({ aborted: ctx.signal.aborted, facts: stream, thrown, stderrTail, executable: a.executable }, config);
  }
}

/** What one attempt needs. */
interface AttemptInput {
  readonly sdk: ClaudeSdk;
  readonly config: ClaudeAgentConfig;
  readonly executable: string;
  readonly env: Record<string, string | undefined>;
  readonly request: AgentTurnRequest;
  readonly ctx: AgentTurnContext;
  readonly sessionId: string;
  /** Acknowledges the turn's prompt, once for all attempts. */
  readonly delivered: () => void;
  readonly resume: boolean;
  readonly prompt: string;
}

/** The SDK options of one attempt; stderr lines are logged and the last 20 kept in `stderrTail`. */
function queryOptions(a: AttemptInput, canUseTool: CanUseTool, stderrTail: string[], log: (line: string) => void): Options {
  const { config } = a;
  return {
    pathToClaudeCodeExecutable: a.executable,
    cwd: a.request.cwd,
    env: a.env,
    permissionMode: 'default',
    settingSources: [],
    includePartialMessages: true,
    ...(a.resume ? { resume: a.sessionId } : { sessionId: a.sessionId }),
    // The turn's model (the chat's choice) goes before the setting.
    ...(a.request.model?.trim() || config.model?.trim() ? { model: a.request.model?.trim() || config.model!.trim() } : {}),
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
}

/**
 * The user message's content: the prompt alone, or with attachments a text block per attachment
 * after it (a fenced block with its path and lines: `attachmentBlock`), as the Messages API takes
 * several blocks in one user message. Text blocks rather than `document` blocks: Claude Code passes
 * the SDK's user message through to the API as it is, and text blocks are what it sends itself for
 * a file the user mentions.
 */
export function claudeContent(prompt: string, attachments: readonly AgentAttachment[]): SDKUserMessage['message']['content'] {
  if (attachments.length === 0) return prompt;
  return [prompt, ...attachments.map(attachmentBlock)].map((text) => ({ type: 'text' as const, text }));
}

/**
 * The CLI's input in streaming-input mode: the one user message, then open until the turn ends
 * (so `interrupt()` works); the CLI exits once it ends.
 */
class StreamingInput {
  private closeInput!: () => void;
  private readonly closed = new Promise<void>((resolve) => (this.closeInput = resolve));

  constructor(private readonly content: SDKUserMessage['message']['content']) {}

  /** The input the SDK reads. */
  async *messages(): AsyncGenerator<SDKUserMessage> {
    yield { type: 'user', message: { role: 'user', content: this.content }, parent_tool_use_id: null };
    await this.closed;
  }

  /** Ends the input (idempotent). */
  close(): void {
    this.closeInput();
  }
}

/**
 * Stop and the end of one query: Stop interrupts the turn and closes the CLI after the grace time
 * if it has not ended by then; a `result` ends the input and closes the CLI after 5 s if it has not
 * exited; `dispose` (the iteration ended) closes it at once.
 */
class QueryLifecycle {
  private closeTimer: NodeJS.Timeout | undefined;
  private readonly onAbort = () => {
    this.log('[claude] stop: interrupting the turn');
    this.query.interrupt().catch((error: Error) => this.log(`[claude] interrupt failed: ${error.message}`));
    this.closeLater(this.stopGraceMs, 'it did not end after the interrupt');
  };

  constructor(
    private readonly query: Query,
    private readonly input: StreamingInput,
    private readonly signal: AbortSignal,
    private readonly stopGraceMs: number,
    private readonly log: (line: string) => void,
  ) {
    if (signal.aborted) this.onAbort();
    else signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** The `result` message came: the CLI exits once its input ends. */
  endAfterResult(): void {
    this.input.close();
    this.closeLater(5000, 'it did not exit after its result');
  }

  /** The iteration ended: no more timers, input ended, the query closed. */
  dispose(): void {
    this.signal.removeEventListener('abort', this.onAbort);
    if (this.closeTimer) clearTimeout(this.closeTimer);
    this.close();
  }

  private closeLater(ms: number, why: string): void {
    if (this.closeTimer) return;
    this.closeTimer = setTimeout(() => {
      this.log(`[claude] closing the CLI (${why})`);
      this.close();
    }, ms);
  }

  private close(): void {
    this.input.close();
    try {
      this.query.close();
    } catch {
      // already closed
    }
  }
}
