/**
 * The agent for OpenAI-compatible chat servers (Ollama, LM Studio, vLLM, llama.cpp server, or any
 * `/v1/chat/completions` endpoint), driven through the `openai` npm package (v7).
 *
 * One turn is a tool loop against a stateless server:
 *   messages = system + `request.history` (user/assistant text) + this turn's user message
 *   repeat (at most `maxToolRounds` times):
 *     `chat.completions.create({ model, messages, tools: PRODUCT_TOOLS, stream: true }, { signal })`
 *     stream `delta.content` to `ctx.text`; collect `delta.tool_calls` (split over chunks, by index);
 *     no tool calls → the turn is complete;
 *     else run each call through `decodeToolCall` + `ctx.tools.run` (this product's tool runtime
 *     applies the sandbox policy and raises the boundary requests itself) and send the results
 *     back as `{ role: 'tool', tool_call_id, content }` (a denial or failure is reported as text).
 *
 * Origins: `prompt` sends the prompt; `retry` sends the failed turn's prompt again (after the
 * history, which holds that turn's partial reply if any); `continue` sends the history (the
 * interrupted turn's prompt and partial reply) and `CONTINUE_MESSAGE`. The server keeps no session,
 * so nothing but `{ "model": … }` is stored as provider state (never the key or the URL).
 *
 * Errors end the turn, never throw: an unreachable server is `agent_unavailable` naming the base URL
 * and `nativeAgentChats.openaiCompatible.baseUrl`; HTTP 401/403/404 are `agent_error` naming the
 * model setting `nativeAgentChats.openaiCompatible.model` (and the key for 401/403); other HTTP
 * errors and broken streams are `agent_error`. Stop (`ctx.signal`) aborts the HTTP request and a
 * waiting tool, and `runTurn` returns at once. The SDK's retries are off, so a dead server fails fast.
 *
 * Delivery (`ctx.promptDelivered`): when the first model call's response begins, i.e. the server
 * took the request with a 2xx status (the SDK resolves `create` on the response headers and throws
 * on any other status); a refusal (HTTP 4xx/5xx) or an unreachable server is none: the turn fails.
 *
 * Network: the client contacts only `baseUrl`; it ignores OPENAI_ORG_ID / OPENAI_PROJECT_ID from the
 * environment (explicit nulls) and logs through `config.log` only.
 *
 * Sources of the ideas: the OpenAI Chat Completions streaming format (tool-call deltas with
 * `index`), Ollama's OpenAI compatibility docs (`http://localhost:11434/v1`, any API key), and
 * measured behaviour of such servers.
 */
import { promptWithAttachments } from '../../../core/attachments';
import OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { Agent, AgentTurnContext, AgentTurnOutcome, AgentTurnRequest, HistoryEntry, ToolResult } from '../../agent';
import { withFileNote } from '../../agent';
import { decodeToolCall, PRODUCT_TOOLS } from '../productTools';
import { ABORTED, unlessAborted } from '../abortRace';
import { acknowledgeOnce } from '../promptAcknowledgement';

/** The setting names this agent's messages refer to (the host maps them to its configuration). */
export const OPENAI_COMPATIBLE_SETTINGS = {
  baseUrl: 'nativeAgentChats.openaiCompatible.baseUrl',
  model: 'nativeAgentChats.openaiCompatible.model',
} as const;

/** Ollama's OpenAI-compatible endpoint: a sensible default for the base URL setting. */
export const OPENAI_COMPATIBLE_DEFAULT_BASE_URL = 'http://127.0.0.1:11434/v1';

/** The API key sent when none is configured (local servers accept any key). */
export const NO_API_KEY = 'not-needed';

/** The user message a `continue` run sends after the history. */
export const CONTINUE_MESSAGE =
  'Your previous reply was interrupted because VS Code restarted. Continue where you left off, without repeating what you already said.';

/** Default cap on model calls per turn (each call after the first answers tool results). */
export const DEFAULT_MAX_TOOL_ROUNDS = 25;

/** Default time to wait for the response headers of one model call, ms. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 300_000;

/**
 * Configuration of the agent. Plain values: the host builds a new agent from its settings when a
 * turn starts (the runtime calls `agentFor` per turn), so setting changes apply to the next turn.
 */
export interface OpenAICompatibleAgentConfig {
  /** Base URL of the server's OpenAI API, with its `/v1` path, e.g. `http://127.0.0.1:11434/v1`. */
  readonly baseUrl: string;
  /** Model name as the server knows it (e.g. `qwen2.5-coder:7b` for Ollama). Empty: not configured. */
  readonly model: string;
  /** Reads the API key (e.g. from SecretStorage). Undefined or empty: `NO_API_KEY` is sent. */
  readonly apiKey?: () => Promise<string | undefined>;
  /** Time to wait for the response headers of one model call, ms (default 300 000: local models may load slowly). */
  readonly requestTimeoutMs?: number;
  /** Most model calls in one turn (default 25); when reached, the reply says so and the turn ends. */
  readonly maxToolRounds?: number;
  /**
   * The system message. Default: `defaultSystemPrompt(cwd)`. `null` sends none (for models whose
   * chat template rejects a system role).
   */
  readonly systemPrompt?: string | null;
  /** Extra HTTP headers for every request (e.g. for a proxy in front of vLLM). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Diagnostic log lines of the client (warnings and errors of the SDK). */
  readonly log?: (line: string) => void;
}

/** The default system message: who the model is, where it works, how tools and denials work. */
export function defaultSystemPrompt(cwd: string): string {
  return [
    `You are a coding agent inside VS Code, working in the folder ${cwd}.`,
    'Use the tools to act: run (a shell command in that folder), read (a file), write (a whole file).',
    'Read-only commands and files inside the folder need no approval; anything else asks the user first.',
    'When a tool result says the request was denied, do not try the same thing again: say what you wanted to do, or find another way.',
    'Answer in Markdown.',
  ].join('\n');
}

/**
 * Builds the messages of the first model call of a turn (pure): the system message, the history
 * (consecutive entries of one role merged with a blank line, since some chat templates require
 * alternating roles), then the user message for the origin (see module docstring), after the file note if any.
 */
export function buildMessages(request: Pick<AgentTurnRequest, 'prompt' | 'origin' | 'history' | 'attachments' | 'fileNews'>, systemPrompt: string | null): ChatCompletionMessageParam[] {
  const entries: HistoryEntry[] = [...request.history];
  // The turn's attachments go with its user message, whatever its origin (fenced blocks: promptWithAttachments).
  entries.push({ role: 'user', text: promptWithAttachments(withFileNote(request, request.origin === 'continue' ? CONTINUE_MESSAGE : request.prompt), request.attachments ?? []) });
  const merged: HistoryEntry[] = [];
  for (const entry of entries) {
    const last = merged[merged.length - 1];
    if (last && last.role === entry.role) {
      // A retry right after a reply-less failure would repeat the same prompt twice: keep one.
      if (last.text !== entry.text) merged[merged.length - 1] = { role: last.role, text: `${last.text}\n\n${entry.text}` };
    } else {
      merged.push(entry);
    }
  }
  const messages: ChatCompletionMessageParam[] = systemPrompt ? [{ role: 'system', content: systemPrompt }] : [];
  for (const entry of merged) messages.push({ role: entry.role, content: entry.text });
  return messages;
}

/** PRODUCT_TOOLS as OpenAI function tools. */
export function openAITools(): ChatCompletionFunctionTool[] {
  return PRODUCT_TOOLS.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: JSON.parse(JSON.stringify(t.parameters)) as Record<string, unknown> },
  }));
}

/** The text a model receives as the result of one tool call (pure). */
export function toolResultText(result: ToolResult): string {
  switch (result.status) {
    case 'completed':
      return result.output === '' ? '(no output)' : result.output;
    case 'failed':
      return `Failed: ${result.message}${result.output ? `\n${result.output}` : ''}`;
    case 'denied':
      return `Denied by the user: ${result.message}`;
  }
}

/** One tool call being assembled from stream deltas. */
interface PendingToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Folds one chunk's `delta.tool_calls` into `calls` (by index). The id and name usually arrive in
 * the first delta of a call and the arguments in pieces; a server that repeats the id or the whole
 * name in later deltas is tolerated.
 */
export function mergeToolCallDeltas(calls: PendingToolCall[], deltas: readonly ChatCompletionChunk.Choice.Delta.ToolCall[]): void {
  for (const d of deltas) {
    const index = typeof d.index === 'number' ? d.index : calls.length;
    const call = (calls[index] ??= { id: '', name: '', arguments: '' });
    if (d.id) call.id = d.id;
    const name = d.function?.name;
    if (name && name !== call.name) call.name += name;
    if (d.function?.arguments) call.arguments += d.function.arguments;
  }
}

/** The innermost `code` (e.g. ECONNREFUSED) or message of an error's cause chain. */
function rootCause(error: unknown): string | undefined {
  let e: unknown = error;
  let found: string | undefined;
  for (let depth = 0; e && typeof e === 'object' && depth < 6; depth++) {
    const o = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof o.code === 'string') found = o.code;
    else if (depth > 0 && typeof o.message === 'string' && o.message) found ??= o.message;
    e = o.cause;
  }
  return found;
}

/** The server's own error message of an APIError (its JSON `error.message`), else the SDK's. */
function serverMessage(error: InstanceType<typeof OpenAI.APIError>): string {
  const body = error.error as { message?: unknown } | string | undefined;
  if (body && typeof body === 'object' && typeof body.message === 'string' && body.message) return body.message;
  if (typeof body === 'string' && body) return body;
  return error.message;
}

/** The agent (see module docstring). Create it with `createOpenAICompatibleAgent`. */
export class OpenAICompatibleAgent implements Agent {
  readonly provider = 'openai-compatible' as const;
  readonly label: string;

  constructor(private readonly config: OpenAICompatibleAgentConfig) {
    this.label = config.model.trim() ? `${config.model.trim()} (OpenAI-compatible)` : 'OpenAI-compatible server';
  }

  /** Runs one turn (see module docstring). Never throws. */
  async runTurn(request: AgentTurnRequest, ctx: AgentTurnContext): Promise<AgentTurnOutcome> {
    try {
      return await this.turn(request, ctx);
    } catch (error) {
      if (ctx.signal.aborted) return { status: 'completed' };
      return this.describeError(error, request);
    }
  }

  private async turn(request: AgentTurnRequest, ctx: AgentTurnContext): Promise<AgentTurnOutcome> {
    const baseUrl = this.config.baseUrl.trim().replace(/\/+$/, '');
    const model = this.modelOf(request);
    if (!baseUrl || !/^https?:\/\/[^/]/i.test(baseUrl)) {
      return {
        status: 'failed',
        errorClass: 'agent_unavailable',
        message: `The OpenAI-compatible server address "${this.config.baseUrl}" is not an http(s) URL. Set ${OPENAI_COMPATIBLE_SETTINGS.baseUrl} (for Ollama: ${OPENAI_COMPATIBLE_DEFAULT_BASE_URL}).`,
      };
    }
    if (!model) {
      return {
        status: 'failed',
        errorClass: 'agent_unavailable',
        message: `No model is configured for the OpenAI-compatible server. Set ${OPENAI_COMPATIBLE_SETTINGS.model} to a model the server at ${baseUrl} serves (for Ollama: a name from \`ollama list\`).`,
      };
    }
    const state = JSON.stringify({ model });
    if (request.providerState !== state) await ctx.setProviderState(state);
    let apiKey: string | undefined;
    try {
      apiKey = (await this.config.apiKey?.())?.trim();
    } catch (error) {
      return { status: 'failed', errorClass: 'agent_unavailable', message: `The API key for the OpenAI-compatible server could not be read: ${(error as Error).message}` };
    }
    const client = this.client(baseUrl, apiKey);

    const messages = buildMessages(request, this.config.systemPrompt === undefined ? defaultSystemPrompt(request.cwd) : this.config.systemPrompt);
    const tools = openAITools();
    const maxRounds = Math.max(1, this.config.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS);
    let wroteText = false;
    const delivered = acknowledgeOnce(ctx);
    for (let round = 1; round <= maxRounds; round++) {
      if (ctx.signal.aborted) return { status: 'completed' };
      const stream = await client.chat.completions.create({ model, messages, tools, stream: true }, { signal: ctx.signal });
      delivered();
      let text = '';
      let startedText = false;
      let finishReason: string | null = null;
      const calls: PendingToolCall[] = [];
      for await (const chunk of stream) {
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const content = choice.delta?.content;
        if (content) {
          // Text of a later round follows tool activity: start it as a new paragraph.
          if (!startedText && wroteText) ctx.text('\n\n');
          startedText = true;
          wroteText = true;
          text += content;
          ctx.text(content);
        }
        if (choice.delta?.tool_calls) mergeToolCallDeltas(calls, choice.delta.tool_calls);
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
      // The SDK ends the iteration quietly when the request is aborted.
      if (ctx.signal.aborted) return { status: 'completed' };
      const toolCalls = calls.filter((c) => c !== undefined && (c.name || c.arguments));
      // Some servers (older Ollama) say `stop` even with tool calls: the calls decide.
      if (toolCalls.length === 0) {
        if (finishReason === 'length') ctx.text(`${wroteText ? '\n\n' : ''}_(The reply was cut off: the model reached its output length limit.)_`);
        else if (!wroteText && finishReason === null) {
          return { status: 'failed', errorClass: 'agent_error', message: `The OpenAI-compatible server at ${baseUrl} ended its reply without any content.` };
        }
        return { status: 'completed' };
      }
      const assistantCalls: ChatCompletionMessageFunctionToolCall[] = toolCalls.map((c, i) => ({
        id: c.id || `call_${round}_${i}`,
        type: 'function',
        function: { name: c.name, arguments: c.arguments },
      }));
      messages.push({ role: 'assistant', content: text || null, tool_calls: assistantCalls });
      if (await this.runToolCalls(assistantCalls, messages, ctx)) return { status: 'completed' };
    }
    ctx.text(
      `${wroteText ? '\n\n' : ''}_(Stopped after ${maxRounds} model calls in this turn without a final answer. Send a new message to let it carry on.)_`,
    );
    return { status: 'completed' };
  }

  /** The SDK client of one turn: no retries, the configured timeout and headers, warnings to the log. */
  private client(baseUrl: string, apiKey: string | undefined): OpenAI {
    const log = this.config.log;
    return new OpenAI({
      apiKey: apiKey || NO_API_KEY,
      baseURL: baseUrl,
      organization: null,
      project: null,
      maxRetries: 0,
      timeout: this.config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      ...(this.config.headers ? { defaultHeaders: { ...this.config.headers } } : {}),
      logLevel: 'warn',
      logger: {
        error: (...a: unknown[]) => log?.(`[openai] ${a.map(String).join(' ')}`),
        warn: (...a: unknown[]) => log?.(`[openai] ${a.map(String).join(' ')}`),
        info: () => undefined,
        debug: () => undefined,
      },
    });
  }

  /**
   * Runs the model's tool calls through the product tool runtime, one after the other, and appends
   * each result to `messages` (a call that cannot be decoded gets the reason instead). True when
   * Stop came while a tool ran.
   */
  private async runToolCalls(calls: readonly ChatCompletionMessageFunctionToolCall[], messages: ChatCompletionMessageParam[], ctx: AgentTurnContext): Promise<boolean> {
    for (const call of calls) {
      const decoded = decodeToolCall(call.function.name, call.function.arguments);
      let content: string;
      if (!decoded.ok) {
        content = decoded.message;
      } else {
        const result = await unlessAborted(ctx.signal, ctx.tools.run(decoded.call));
        if (result === ABORTED) return true;
        content = toolResultText(result);
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
    return false;
  }

  /** The model of a turn: the one the turn recorded (the chat's choice), else the configured one; trimmed. */
  private modelOf(request: AgentTurnRequest): string {
    return request.model?.trim() || this.config.model.trim();
  }

  private describeError(error: unknown, request: AgentTurnRequest): AgentTurnOutcome {
    const baseUrl = this.config.baseUrl.trim().replace(/\/+$/, '');
    const model = this.modelOf(request);
    const settings = OPENAI_COMPATIBLE_SETTINGS;
    if (error instanceof OpenAI.APIConnectionTimeoutError) {
      const s = (this.config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS) / 1000;
      const seconds = Number.isInteger(s) ? String(s) : s.toFixed(1);
      return {
        status: 'failed',
        errorClass: 'agent_error',
        message: `The OpenAI-compatible server at ${baseUrl} did not answer within ${seconds} s. Check that the model "${model}" loads on that server.`,
      };
    }
    if (error instanceof OpenAI.APIConnectionError) {
      const cause = rootCause(error);
      return {
        status: 'failed',
        errorClass: 'agent_unavailable',
        message:
          `Could not connect to the OpenAI-compatible server at ${baseUrl}${cause ? ` (${cause})` : ''}. ` +
          `Start the server (for Ollama: \`ollama serve\`) or fix the setting ${settings.baseUrl}.`,
      };
    }
    if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
      const detail = serverMessage(error);
      if (error.status === 401 || error.status === 403) {
        return {
          status: 'failed',
          errorClass: 'agent_error',
          message:
            `The OpenAI-compatible server at ${baseUrl} refused the request for model "${model}" (HTTP ${error.status}: ${detail}). ` +
            `Check the API key for this server and the setting ${settings.model}.`,
        };
      }
      if (error.status === 404) {
        return {
          status: 'failed',
          errorClass: 'agent_error',
          message:
            `The OpenAI-compatible server at ${baseUrl} does not know the model "${model}" (HTTP 404: ${detail}). ` +
            `Set ${settings.model} to a model it serves (for Ollama: \`ollama pull ${model}\`), and check that ${settings.baseUrl} ends with /v1.`,
        };
      }
      return { status: 'failed', errorClass: 'agent_error', message: `The OpenAI-compatible server at ${baseUrl} answered HTTP ${error.status}: ${detail}` };
    }
    if (error instanceof OpenAI.APIError) {
      // An error event inside the stream (no HTTP status).
      return { status: 'failed', errorClass: 'agent_error', message: `The OpenAI-compatible server at ${baseUrl} reported an error: ${serverMessage(error)}` };
    }
    const cause = rootCause(error);
    return {
      status: 'failed',
      errorClass: 'agent_error',
      message: `The reply from the OpenAI-compatible server at ${baseUrl} failed: ${(error as Error)?.message ?? String(error)}${cause ? ` (${cause})` : ''}. Check the server's log.`,
    };
  }
}

/**
 * Creates the agent.
 * @param config see `OpenAICompatibleAgentConfig`: `{ baseUrl, model, apiKey?, requestTimeoutMs?,
 *        maxToolRounds?, systemPrompt?, headers?, log? }`.
 */
export function createOpenAICompatibleAgent(config: OpenAICompatibleAgentConfig): OpenAICompatibleAgent {
  return new OpenAICompatibleAgent(config);
}
