/**
 * A scripted Anthropic Messages API server on 127.0.0.1 for driving the real Claude Code CLI offline.
 *
 * Claude Code only calls `POST /v1/messages?beta=true` with `stream: true` and reads SSE events
 * (`event: NAME\ndata: JSON\n\n`): message_start, content_block_start/delta/stop (text via
 * `text_delta`, tool calls via `tool_use` + `input_json_delta`), message_delta (`stop_reason`),
 * message_stop. A request whose `tools` include `Bash` is the agent's main loop: it gets the next
 * scripted reply. Any other request (session title, topic detection, …) is a side request and gets a
 * short text. Every request is recorded (path and parsed body) so tests can assert on what the model
 * received: the tool_result after an allow or a deny, and the earlier history of a resumed session.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One tool call in a scripted reply. */
export interface MockToolUse {
  /** tool_use id (default `toolu_mock_<n>`). */
  readonly id?: string;
  readonly name: string;
  readonly input: Record<string, unknown>;
}

/** One scripted reply to a main-loop request. */
export interface MockReply {
  /** Text streamed first, split into these chunks (one text_delta each). */
  readonly text?: readonly string[];
  /** Tool calls after the text (`stop_reason: tool_use`); none means `end_turn`. */
  readonly toolUses?: readonly MockToolUse[];
  /** Delay before each SSE event after message_start, ms (default 0). */
  readonly delayMs?: number;
  /**
   * Stream the text, then keep the response open until the client goes away (for Stop / restarts)
   * or the test calls `release()`, which ends the reply normally (its tool calls, then its stop).
   */
  readonly hang?: boolean;
  /** Answer with this HTTP error instead of a stream. */
  readonly httpError?: { readonly status: number; readonly type: string; readonly message: string };
  /** Serve this reply to this many consecutive main-loop requests (default 1; the client retries errors). */
  readonly repeat?: number;
}

/** A request the mock received. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly body: MessagesBody | undefined;
  /** True for main-loop requests (their `tools` include `Bash`). */
  readonly main: boolean;
}

/** The parts of a Messages API request body the tests look at. */
export interface MessagesBody {
  readonly model?: string;
  readonly stream?: boolean;
  readonly messages: readonly { readonly role: string; readonly content: string | readonly ContentBlock[] }[];
  readonly tools?: readonly { readonly name: string }[];
  readonly [key: string]: unknown;
}

/** A content block of a request message. */
export interface ContentBlock {
  readonly type: string;
  readonly text?: string;
  readonly tool_use_id?: string;
  readonly is_error?: boolean;
  readonly content?: string | readonly { readonly type: string; readonly text?: string }[];
  readonly [key: string]: unknown;
}

/** A running mock server. */
export interface AnthropicMock {
  /** `http://127.0.0.1:PORT` (for ANTHROPIC_BASE_URL). */
  readonly url: string;
  /** Every request so far, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /** Main-loop requests so far. */
  mainRequests(): RecordedRequest[];
  /** Appends replies for later main-loop requests. */
  push(...replies: MockReply[]): void;
  /** Resolves when `count` main-loop requests have arrived (rejects after `timeoutMs`). */
  waitForMainRequests(count: number, timeoutMs?: number): Promise<void>;
  /** Number of responses still open (hanging streams). */
  openResponses(): number;
  /** Ends every held (`hang`) reply normally, as if the model had finished it. */
  release(): void;
  /** Closes the server and every open connection. */
  close(): Promise<void>;
}

/** The text of every text and tool_result block of a request, in order (for assertions). */
export function flattenMessages(body: MessagesBody | undefined): string[] {
  const out: string[] = [];
  for (const m of body?.messages ?? []) {
    if (typeof m.content === 'string') {
      out.push(`${m.role}: ${m.content}`);
      continue;
    }
    for (const b of m.content) {
      if (b.type === 'text' && typeof b.text === 'string') out.push(`${m.role}: ${b.text}`);
      else if (b.type === 'tool_use') out.push(`${m.role}: tool_use ${String(b.name)} ${JSON.stringify(b.input)}`);
      else if (b.type === 'tool_result') out.push(`${m.role}: tool_result${b.is_error ? ' (error)' : ''} ${toolResultText(b)}`);
    }
  }
  return out;
}

/** The text of a tool_result block. */
export function toolResultText(block: ContentBlock): string {
  if (typeof block.content === 'string') return block.content;
  return (block.content ?? []).map((c) => c.text ?? '').join('');
}

/** The Claude Code session id a request was sent for (from `metadata.user_id`, a JSON text), if any. */
export function sessionIdOf(body: MessagesBody | undefined): string | undefined {
  const userId = (body?.metadata as { user_id?: unknown } | undefined)?.user_id;
  if (typeof userId !== 'string') return undefined;
  try {
    const parsed = JSON.parse(userId) as { session_id?: unknown };
    return typeof parsed.session_id === 'string' ? parsed.session_id : undefined;
  } catch {
    return undefined;
  }
}

/** The user's own words in a request: text blocks of user messages, without `<system-reminder>` blocks. */
export function userTexts(body: MessagesBody | undefined): string[] {
  const out: string[] = [];
  for (const m of body?.messages ?? []) {
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') out.push(m.content);
    else for (const b of m.content) if (b.type === 'text' && typeof b.text === 'string' && !b.text.startsWith('<system-reminder>')) out.push(b.text);
  }
  return out;
}

/** The tool_result blocks of a request. */
export function toolResults(body: MessagesBody | undefined): ContentBlock[] {
  const out: ContentBlock[] = [];
  for (const m of body?.messages ?? []) if (typeof m.content !== 'string') out.push(...m.content.filter((b) => b.type === 'tool_result'));
  return out;
}

/** Starts the mock on 127.0.0.1 with an ephemeral port. Replies beyond the script are a short text. */
export async function startAnthropicMock(script: readonly MockReply[] = []): Promise<AnthropicMock> {
  const queue = [...script];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const open = new Set<http.ServerResponse>();
  const waiters: { count: number; resolve: () => void }[] = [];
  const held = new Set<() => void>();
  let toolCounter = 0;
  let messageCounter = 0;

  const mainCount = () => requests.filter((r) => r.main).length;
  const notify = () => {
    for (const w of [...waiters]) {
      if (mainCount() >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: MessagesBody | undefined;
      try {
        body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as MessagesBody) : undefined;
      } catch {
        body = undefined;
      }
      const path = req.url ?? '';
      const isMessages = req.method === 'POST' && path.startsWith('/v1/messages') && !path.startsWith('/v1/messages/count_tokens');
      const main = isMessages && (body?.tools ?? []).some((t) => t.name === 'Bash');
      requests.push({ method: req.method ?? '', path, body, main });
      notify();
      if (path.startsWith('/v1/messages/count_tokens')) {
        json(res, 200, { input_tokens: 10 });
        return;
      }
      if (!isMessages) {
        json(res, 404, { type: 'error', error: { type: 'not_found_error', message: `mock: no route ${req.method} ${path}` } });
        return;
      }
      const reply: MockReply = main ? (queue.shift() ?? { text: ['(mock: end of script)'] }) : { text: ['Mock title'] };
      if (main && (reply.repeat ?? 1) > 1) queue.unshift({ ...reply, repeat: (reply.repeat ?? 1) - 1 });
      if (reply.httpError) {
        json(res, reply.httpError.status, { type: 'error', error: { type: reply.httpError.type, message: reply.httpError.message } });
        return;
      }
      const model = body?.model ?? 'mock-model';
      if (body?.stream === false) {
        json(res, 200, {
          id: `msg_mock_${++messageCounter}`, type: 'message', role: 'assistant', model,
          content: [{ type: 'text', text: (reply.text ?? []).join('') }],
          stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 },
        });
        return;
      }
      open.add(res);
      res.on('close', () => open.delete(res));
      const hold = (): Promise<void> => new Promise<void>((resolve) => {
        held.add(resolve);
        res.on('close', () => held.delete(resolve));
      });
      void stream(res, reply, model, `msg_mock_${++messageCounter}`, () => `toolu_mock_${++toolCounter}`, hold);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    mainRequests: () => requests.filter((r) => r.main),
    push: (...replies) => queue.push(...replies),
    waitForMainRequests: (count, timeoutMs = 30_000) =>
      new Promise<void>((resolve, reject) => {
        if (mainCount() >= count) return resolve();
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`mock: timed out waiting for ${count} main-loop requests (got ${mainCount()})`));
        }, timeoutMs);
        const waiter = { count, resolve: () => { clearTimeout(timer); resolve(); } };
        waiters.push(waiter);
      }),
    openResponses: () => open.size,
    release: () => {
      for (const resume of [...held]) {
        held.delete(resume);
        resume();
      }
    },
    close: async () => {
      for (const r of open) r.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function json(res: http.ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'request-id': 'req_mock' });
  res.end(text);
}

/** Streams `reply` as SSE; a `hang` reply waits on `hold` (resolved by `release()`) before it ends. */
async function stream(
  res: http.ServerResponse, reply: MockReply, model: string, messageId: string, nextToolId: () => string, hold: () => Promise<void>,
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'request-id': 'req_mock' });
  const delay = reply.delayMs ?? 0;
  const send = async (event: string, data: unknown, wait = true): Promise<boolean> => {
    if (res.destroyed || res.writableEnded) return false;
    if (wait && delay > 0) await new Promise((r) => setTimeout(r, delay));
    if (res.destroyed || res.writableEnded) return false;
    res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...(data as object) })}\n\n`);
    return true;
  };
  const usage = { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  await send('message_start', { message: { id: messageId, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } }, false);
  await send('ping', {}, false);
  let index = 0;
  if (reply.text && reply.text.length > 0) {
    await send('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const chunk of reply.text) if (!(await send('content_block_delta', { index, delta: { type: 'text_delta', text: chunk } }))) return;
    // Keep the stream open: the client ends it (Stop, or its process dies), or the test releases it.
    if (reply.hang) await hold();
    if (!(await send('content_block_stop', { index }))) return;
    index++;
  } else if (reply.hang) {
    await hold();
    if (res.destroyed || res.writableEnded) return;
  }
  for (const tool of reply.toolUses ?? []) {
    const id = tool.id ?? nextToolId();
    await send('content_block_start', { index, content_block: { type: 'tool_use', id, name: tool.name, input: {} } });
    const input = JSON.stringify(tool.input);
    const half = Math.ceil(input.length / 2);
    await send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: input.slice(0, half) } });
    await send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: input.slice(half) } });
    await send('content_block_stop', { index });
    index++;
  }
  const stopReason = reply.toolUses && reply.toolUses.length > 0 ? 'tool_use' : 'end_turn';
  await send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } });
  await send('message_stop', {});
  res.end();
}
