/**
 * A scripted OpenAI Responses API server on 127.0.0.1 for driving the real Codex CLI offline.
 *
 * Codex only calls `POST /v1/responses` with `stream: true`; each call consumes the next scripted
 * step and gets it as SSE (`event: NAME\ndata: JSON\n\n`): response.created,
 * response.output_item.added, response.output_text.delta (text) or
 * response.function_call_arguments.delta/done (tool calls), response.output_item.done,
 * response.completed. Every request body is recorded, so tests can assert on what the model received
 * (tool outputs after an allow or a deny, the earlier history of a resumed thread).
 *
 * A command that needs approval is an `exec_command` call with `sandbox_permissions:
 * "require_escalated"` and a justification; a file change is `apply_patch` run through
 * `exec_command` (Codex intercepts it and asks for a file change approval).
 */
import * as http from 'node:http';
import { LoopbackMock } from './loopbackMock';

/** One scripted model response. */
export type MockStep =
  /** Assistant text, streamed as one delta per string. */
  | { readonly type: 'text'; readonly text: string | readonly string[] }
  /** An `exec_command` call; with `justification` it asks for escalation (an approval request). */
  | { readonly type: 'exec'; readonly cmd: string; readonly justification?: string }
  /** `apply_patch` through `exec_command` (a file change). `patch` is the body between Begin/End Patch. */
  | { readonly type: 'patch'; readonly patch: string }
  /** Streams `text` (if any), then holds the response open until the client drops it or `release()`. */
  | { readonly type: 'hang'; readonly text?: string };

/** A request the mock received. */
export interface RecordedRequest {
  readonly index: number;
  readonly url: string;
  readonly body: ResponsesBody;
  /** The call id of the function call answered with this request's step, if any. */
  callId?: string;
  /** True when the client closed the connection before the response ended (e.g. Stop). */
  closedByClient: boolean;
}

/** The parts of a Responses API request body the tests look at. */
export interface ResponsesBody {
  readonly model: string;
  readonly stream: boolean;
  readonly input: readonly InputItem[];
  readonly tools?: readonly { readonly name?: string; readonly type: string }[];
}

/** An input item of a request (messages, function calls, their outputs). */
export interface InputItem {
  readonly type: string;
  readonly role?: string;
  readonly content?: readonly { readonly type: string; readonly text?: string }[];
  readonly call_id?: string;
  readonly name?: string;
  readonly arguments?: string;
  readonly output?: string;
}

/** The user-typed texts of a request (environment context and instructions left out). */
export function userTexts(body: ResponsesBody): string[] {
  return body.input
    .filter((i) => i.type === 'message' && i.role === 'user')
    .flatMap((i) => (i.content ?? []).map((c) => c.text ?? ''))
    .filter((t) => !t.startsWith('<environment_context>') && !t.startsWith('# AGENTS.md') && !t.startsWith('<'));
}

/** The output the model received for a function call, or undefined. */
export function functionOutput(body: ResponsesBody, callId: string): string | undefined {
  return body.input.find((i) => i.type === 'function_call_output' && i.call_id === callId)?.output;
}

/** The scripted server. */
export class ResponsesMock extends LoopbackMock<RecordedRequest> {
  /** Requests that found no scripted step (answered with a short text). */
  readonly unexpected: number[] = [];
  private readonly steps: MockStep[] = [];
  private readonly hanging = new Set<() => void>();
  private calls = 0;

  private constructor() {
    super(20_000);
  }

  /** Starts a mock on an ephemeral port of 127.0.0.1. */
  static async start(): Promise<ResponsesMock> {
    const mock = new ResponsesMock();
    await mock.listen();
    return mock;
  }

  /** Appends steps; each model request consumes one. */
  script(...steps: MockStep[]): void {
    this.steps.push(...steps);
  }

  /** Steps not consumed yet. */
  get remaining(): number {
    return this.steps.length;
  }

  /** Ends every held (`hang`) response normally. */
  release(): void {
    for (const end of [...this.hanging]) end();
  }

  /** Stops the server and drops every connection. */
  async close(): Promise<void> {
    this.release();
    await this.closeServer();
  }

  protected handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/responses')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      let body: ResponsesBody;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ResponsesBody;
      } catch {
        res.writeHead(400).end();
        return;
      }
      const record: RecordedRequest = { index: this.requests.length, url: req.url, body, closedByClient: false };
      this.record(record);
      const step = this.steps.shift();
      if (!step) this.unexpected.push(record.index);
      this.respond(record, step ?? { type: 'text', text: '(mock: no scripted response)' }, res);
    });
  }

  private respond(record: RecordedRequest, step: MockStep, res: http.ServerResponse): void {
    const responseId = `resp_${record.index}`;
    let finished = false;
    res.on('close', () => {
      if (!finished) record.closedByClient = true;
    });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (type: string, data: object): void => {
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    };
    const complete = (): void => {
      if (finished) return;
      send('response.completed', {
        response: { id: responseId, usage: { input_tokens: 10, input_tokens_details: null, output_tokens: 5, output_tokens_details: null, total_tokens: 15 } },
      });
      finished = true;
      res.end();
    };
    send('response.created', { response: { id: responseId } });
    const message = (texts: readonly string[], done: boolean): void => {
      const id = `msg_${record.index}`;
      send('response.output_item.added', { output_index: 0, item: { type: 'message', id, role: 'assistant', content: [] } });
      for (const delta of texts) send('response.output_text.delta', { output_index: 0, item_id: id, content_index: 0, delta });
      if (done) {
        send('response.output_item.done', {
          output_index: 0,
          item: { type: 'message', id, role: 'assistant', content: [{ type: 'output_text', text: texts.join(''), annotations: [] }] },
        });
      }
    };
    switch (step.type) {
      case 'text':
        message(typeof step.text === 'string' ? [step.text] : step.text, true);
        complete();
        return;
      case 'hang': {
        message(step.text ? [step.text] : [], false);
        const release = (): void => {
          this.hanging.delete(release);
          if (finished || res.destroyed) return;
          const id = `msg_${record.index}`;
          send('response.output_item.done', {
            output_index: 0,
            item: { type: 'message', id, role: 'assistant', content: [{ type: 'output_text', text: step.text ?? '', annotations: [] }] },
          });
          complete();
        };
        this.hanging.add(release);
        res.on('close', () => this.hanging.delete(release));
        return;
      }
      case 'exec':
      case 'patch': {
        const args = step.type === 'exec'
          ? { cmd: step.cmd, ...(step.justification ? { sandbox_permissions: 'require_escalated', justification: step.justification } : {}) }
          : { cmd: `apply_patch <<'PATCH'\n*** Begin Patch\n${step.patch.replace(/\n?$/, '\n')}*** End Patch\nPATCH\n` };
        const callId = `call_${++this.calls}`;
        record.callId = callId;
        const item = { type: 'function_call', id: `fc_${this.calls}`, call_id: callId, name: 'exec_command', arguments: JSON.stringify(args) };
        send('response.output_item.added', { output_index: 0, item: { ...item, arguments: '' } });
        send('response.function_call_arguments.delta', { output_index: 0, item_id: item.id, delta: item.arguments });
        send('response.function_call_arguments.done', { output_index: 0, item_id: item.id, arguments: item.arguments });
        send('response.output_item.done', { output_index: 0, item });
        complete();
        return;
      }
    }
  }
}
