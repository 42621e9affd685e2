/**
 * A mock OpenAI-compatible server on 127.0.0.1 for tests: `POST /v1/chat/completions` answered from
 * a queue of scripted responses (one per request, in order), streamed as SSE (`data: {json}\n\n`
 * chunks, then `data: [DONE]\n\n`), the way Ollama / vLLM / llama.cpp server stream. It records every
 * request (body, headers) and whether the client hung up before the response ended.
 *
 * Scripted responses:
 * - `text(...)`: text deltas, then `finish_reason: 'stop'`;
 * - `toolCalls(...)`: optional text, then tool calls whose id/name come in one delta and whose
 *   arguments are split over several deltas, then `finish_reason: 'tool_calls'`;
 * - `{ type: 'stream', chunks, delayMs, hangUpAfter }`: any deltas with a delay between chunks (for
 *   Stop tests), optionally cut off by destroying the socket (a server dying mid-reply);
 * - `{ type: 'error', status, body }`: an HTTP error with a JSON body;
 * - `{ type: 'silent' }`: no answer at all (until the client hangs up or the mock closes).
 * A request with nothing left in the queue gets HTTP 500 `mock: no scripted response`.
 * `GET /v1/models` lists `models` (the server's model list, as Ollama's OpenAI-compatible API answers it).
 */
import * as http from 'node:http';
import { LoopbackMock } from './loopbackMock';

/** One streamed choice delta (the `delta` object) plus an optional finish reason. */
export interface MockChunk {
  readonly delta: Record<string, unknown>;
  readonly finishReason?: string | null;
}

/** One scripted response. */
export type MockResponse =
  | {
      readonly type: 'stream';
      readonly chunks: readonly MockChunk[];
      readonly delayMs?: number;
      /** Destroy the connection after this many chunks (a server that dies mid-reply). */
      readonly hangUpAfter?: number;
      /** Hold the response open after this many chunks until `release()` (a reply still being written). */
      readonly holdAfter?: number;
    }
  | { readonly type: 'error'; readonly status: number; readonly body: unknown }
  /** Never answers (a server stuck loading a model). */
  | { readonly type: 'silent' };

/** A request the mock received. */
export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read any field of the request's JSON
  readonly body: any;
  /** Chunks written before the response ended or the client hung up. */
  chunksSent: number;
  /** The response was written to the end (`[DONE]`). */
  completed: boolean;
  /** The client closed the connection before the end. */
  clientClosedEarly: boolean;
}

/** A scripted tool call: id, tool name and arguments (an object, sent as JSON in pieces). */
export interface MockToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
  /** Raw argument text instead of JSON of `args` (for invalid-JSON tests). */
  readonly rawArgs?: string;
}

/** Text deltas (`parts`), then finish `stop`. */
export function text(...parts: string[]): MockResponse {
  return { type: 'stream', chunks: [{ delta: { role: 'assistant', content: '' } }, ...parts.map((p) => ({ delta: { content: p } })), { delta: {}, finishReason: 'stop' }] };
}

/** Optional text, then tool calls (arguments split into 3 pieces each), then finish `tool_calls`. */
export function toolCalls(calls: readonly MockToolCall[], leadingText?: string): MockResponse {
  const chunks: MockChunk[] = [{ delta: { role: 'assistant', content: leadingText ?? null } }];
  calls.forEach((call, index) => {
    const args = call.rawArgs ?? JSON.stringify(call.args);
    const third = Math.ceil(args.length / 3);
    chunks.push({ delta: { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] } });
    for (let i = 0; i < args.length; i += third) {
      chunks.push({ delta: { tool_calls: [{ index, function: { arguments: args.slice(i, i + third) } }] } });
    }
  });
  chunks.push({ delta: {}, finishReason: 'tool_calls' });
  return { type: 'stream', chunks };
}

/** Text deltas with `delayMs` between chunks (a slow model). */
export function slowText(parts: readonly string[], delayMs: number): Extract<MockResponse, { type: 'stream' }> {
  return { type: 'stream', delayMs, chunks: [...parts.map((p) => ({ delta: { content: p } })), { delta: {}, finishReason: 'stop' }] };
}

/** The mock server. */
export class OpenAICompatibleMock extends LoopbackMock<RecordedRequest> {
  private readonly queue: MockResponse[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly held = new Set<() => void>();
  /** The ids `GET /v1/models` lists. */
  models: readonly string[] = [];

  private constructor() {
    super(5000);
  }

  /** Starts a mock on 127.0.0.1 (a free port). */
  static async start(): Promise<OpenAICompatibleMock> {
    const mock = new OpenAICompatibleMock();
    await mock.listen();
    return mock;
  }

  /** Appends scripted responses to the queue. */
  script(...responses: MockResponse[]): void {
    this.queue.push(...responses);
  }

  /** Scripted responses not consumed yet. */
  get pending(): number {
    return this.queue.length;
  }

  /** Goes on with every response held by `holdAfter`. */
  release(): void {
    for (const resume of [...this.held]) {
      this.held.delete(resume);
      resume();
    }
  }

  /** Stops the server, its timers and every open connection. */
  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await this.closeServer();
  }

  protected handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const body: Buffer[] = [];
    req.on('data', (b: Buffer) => body.push(b));
    req.on('end', () => {
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(Buffer.concat(body).toString('utf8'));
      } catch {
        parsed = Buffer.concat(body).toString('utf8');
      }
      const record: RecordedRequest = {
        method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: parsed,
        chunksSent: 0, completed: false, clientClosedEarly: false,
      };
      this.record(record);
      if (req.method === 'GET' && req.url === '/v1/models') {
        this.json(res, 200, { object: 'list', data: this.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'mock' })) });
        return;
      }
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        this.json(res, 404, { error: { message: `mock: no route ${req.method} ${req.url}`, type: 'not_found' } });
        return;
      }
      const response = this.queue.shift();
      if (!response) {
        this.json(res, 500, { error: { message: 'mock: no scripted response', type: 'server_error' } });
        return;
      }
      if (response.type === 'silent') return;
      if (response.type === 'error') {
        this.json(res, response.status, response.body);
        return;
      }
      this.stream(record, res, response);
    });
  }

  private json(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private stream(record: RecordedRequest, res: http.ServerResponse, response: Extract<MockResponse, { type: 'stream' }>): void {
    const model = (record.body as { model?: string } | null)?.model ?? 'mock';
    const id = `chatcmpl-mock-${this.requests.length}`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.on('close', () => {
      if (!record.completed) record.clientClosedEarly = true;
    });
    let i = 0;
    let holding = response.holdAfter !== undefined;
    const next = () => {
      if (res.destroyed || res.writableEnded) return;
      if (holding && i >= response.holdAfter!) {
        holding = false;
        this.held.add(next);
        res.on('close', () => this.held.delete(next));
        return;
      }
      if (response.hangUpAfter !== undefined && i >= response.hangUpAfter) {
        res.socket?.destroy();
        return;
      }
      if (i >= response.chunks.length) {
        res.write('data: [DONE]\n\n');
        record.completed = true;
        res.end();
        return;
      }
      const c = response.chunks[i++]!;
      const chunk = {
        id, object: 'chat.completion.chunk', created: 1_700_000_000, model,
        choices: [{ index: 0, delta: c.delta, finish_reason: c.finishReason ?? null }],
      };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      record.chunksSent++;
      if (response.delayMs) {
        const t = setTimeout(() => {
          this.timers.delete(t);
          next();
        }, response.delayMs);
        this.timers.add(t);
      } else {
        next();
      }
    };
    next();
  }
}
