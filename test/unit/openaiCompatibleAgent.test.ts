/**
 * The OpenAI-compatible agent with the real `openai` client against a mock server on 127.0.0.1
 * (`test/mocks/openaiCompatibleMock.ts`), driven through a real ChatRuntime and a journal on disk:
 * allow, deny, allow for this session, Stop mid-stream, a pending approval across a host restart
 * then Retry, Continue after a plain restart, an unreachable server, HTTP errors, the tool-round cap
 * and bad tool calls, plus the pure message building.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import type { Transcript } from '../../src/core/transcript';
import {
  buildMessages,
  CONTINUE_MESSAGE,
  createOpenAICompatibleAgent,
  defaultSystemPrompt,
  mergeToolCallDeltas,
  NO_API_KEY,
  type OpenAICompatibleAgentConfig,
} from '../../src/runtime/agents/openaiCompatible/openaiCompatibleAgent';
import { OpenAICompatibleMock, slowText, text, toolCalls } from '../mocks/openaiCompatibleMock';
import { openRuntime, pendingRequest, type RuntimeHarness, type RuntimeHarnessOptions } from './harness';
import { tempDir, waitFor } from './helpers';
import { textOf } from './turnItems';

const MODEL = 'qwen2.5-coder:7b';
const PROVIDER = 'openai-compatible';
/** Bound of each test (they take 0.1-2 s). */
const TEST_TIMEOUT_MS = 20_000;

const mocks: OpenAICompatibleMock[] = [];
after(async () => {
  for (const m of mocks) await m.close();
});

async function startMock(): Promise<OpenAICompatibleMock> {
  const m = await OpenAICompatibleMock.start();
  mocks.push(m);
  return m;
}

/** A runtime whose agent is built per turn from `config()` (as the host does from its settings). */
function harness(config: () => OpenAICompatibleAgentConfig, opts: Omit<RuntimeHarnessOptions, 'agentFor'> = {}): Promise<RuntimeHarness> {
  return openRuntime({ ...opts, agentFor: (p) => (p === PROVIDER ? createOpenAICompatibleAgent(config()) : undefined) });
}

function configFor(mock: OpenAICompatibleMock, extra: Partial<OpenAICompatibleAgentConfig> = {}): () => OpenAICompatibleAgentConfig {
  return () => ({ baseUrl: mock.baseUrl, model: MODEL, apiKey: async () => undefined, ...extra });
}

/** The message of a failed turn (its error notice). */
function failureOf(turn: Transcript['turns'][number]): string | undefined {
  const notices = turn.items.filter((i) => i.type === 'notice' && i.level === 'error');
  return notices.length === 1 && notices[0]!.type === 'notice' ? notices[0]!.message : undefined;
}

async function newSession(h: RuntimeHarness): Promise<string> {
  const s = await h.runtime.createSession(PROVIDER);
  assert.ok(s.ok);
  return s.value.id;
}

const system = (workspace: string) => ({ role: 'system', content: defaultSystemPrompt(workspace) });

describe('OpenAI-compatible agent: approvals', () => {
  it('Allow once: the split tool call asks, runs, and its output reaches the model', { timeout: TEST_TIMEOUT_MS }, async () => {
    const mock = await startMock();
    const h = await harness(configFor(mock));
    const sid = await newSession(h);
    const command = 'touch made.txt && echo made-it';
    mock.script(toolCalls([{ id: 'call_a1', name: 'run', args: { command } }], 'Creating it.'), text('Created ', 'made.txt.'));
    assert.ok((await h.runtime.send(sid, 'make a file')).ok);
    const requestId = await pendingRequest(h, sid);
    const row = (await h.journal.read('getBoundaryRequest', requestId))!;
    assert.equal(row.subject, command);
    assert.equal(row.kind, 'command');
    assert.equal(row.scopeKey, 'command-exact:touch made.txt && echo made-it'); // chained: granted exactly, never for all of touch
    assert.equal(fs.existsSync(path.join(h.workspace, 'made.txt')), false);
    assert.deepEqual(await h.runtime.decide(sid, requestId, 'allow_once'), { ok: true, value: { approved: true } });
    await h.runtime.whenIdle(sid);

    assert.equal(fs.existsSync(path.join(h.workspace, 'made.txt')), true);
    const t = await h.runtime.transcript(sid);
    assert.equal(t.turns[0]!.status, 'completed');
    assert.equal(textOf(t, 0), 'Creating it.\n\nCreated made.txt.');
    const inv = t.turns[0]!.items.find((i) => i.type === 'invocation');
    assert.ok(inv && inv.type === 'invocation');
    assert.equal(inv.tool, 'run');
    assert.equal(inv.status, 'completed');
    assert.equal(inv.output, 'made-it\n');

    assert.equal(mock.requests.length, 2);
    const first = mock.requests[0]!;
    assert.equal(first.url, '/v1/chat/completions');
    assert.equal(first.headers.authorization, `Bearer ${NO_API_KEY}`);
    assert.equal(first.body.model, MODEL);
    assert.equal(first.body.stream, true);
    assert.deepEqual(first.body.tools.map((x: { type: string; function: { name: string } }) => `${x.type}:${x.function.name}`), ['function:run', 'function:read', 'function:write']);
    assert.deepEqual(first.body.messages, [system(h.workspace), { role: 'user', content: 'make a file' }]);
    assert.deepEqual(mock.requests[1]!.body.messages, [
      system(h.workspace),
      { role: 'user', content: 'make a file' },
      { role: 'assistant', content: 'Creating it.', tool_calls: [{ id: 'call_a1', type: 'function', function: { name: 'run', arguments: JSON.stringify({ command }) } }] },
      { role: 'tool', tool_call_id: 'call_a1', content: 'made-it\n' },
    ]);
    assert.deepEqual(JSON.parse((await h.journal.read('getProviderState', sid))!), { model: MODEL });
    await h.journal.close();
  });

  it('Deny: nothing runs and the model receives the denial as the tool result', { timeout: TEST_TIMEOUT_MS }, async () => {
    const mock = await startMock();
    const h = await harness(configFor(mock, { apiKey: async () => 'sk-local-123' }));
    const sid = await newSession(h);
    mock.script(toolCalls([{ id: 'call_d1', name: 'run', args: { command: 'touch nope.txt' } }]), text('Understood, I will not.'));
    await h.runtime.send(sid, 'touch nope');
    await h.runtime.decide(sid, await pendingRequest(h, sid), 'deny');
    await h.runtime.whenIdle(sid);
    assert.equal(fs.existsSync(path.join(h.workspace, 'nope.txt')), false);
    const t = await h.runtime.transcript(sid);
    assert.equal(t.turns[0]!.status, 'completed');
    const inv = t.turns[0]!.items.find((i) => i.type === 'invocation');
    assert.equal(inv?.type === 'invocation' && inv.status, 'denied');
    assert.equal(textOf(t, 0), 'Understood, I will not.');
    assert.equal(mock.requests[0]!.headers.authorization, 'Bearer sk-local-123');
    assert.deepEqual(mock.requests[1]!.body.messages.at(-1), {
      role: 'tool',
      tool_call_id: 'call_d1',
      content: 'Denied by the user: The request was denied, so it did not run.',
    });
    assert.equal(mock.requests[1]!.body.messages.at(-2).content, null);
    await h.journal.close();
  });

  it('Allow for this session: a later same-kind request runs without a waiter; the next turn carries the history', { timeout: TEST_TIMEOUT_MS }, async () => {
    const mock = await startMock();
    const h = await harness(configFor(mock));
    const sid = await newSession(h);
    mock.script(toolCalls([{ id: 'c1', name: 'run', args: { command: 'touch a.txt' } }]), text('Made a.txt.'));
    await h.runtime.send(sid, 'make a');
    await h.runtime.decide(sid, await pendingRequest(h, sid), 'allow_session');
    await h.runtime.whenIdle(sid);

    mock.script(toolCalls([{ id: 'c2', name: 'run', args: { command: 'touch b.txt' } }]), text('Made b.txt.'));
    await h.runtime.send(sid, 'make b');
    await h.runtime.whenIdle(sid);
    assert.equal(fs.existsSync(path.join(h.workspace, 'b.txt')), true);
    const t = await h.runtime.transcript(sid);
    assert.equal(t.turns[1]!.status, 'completed');
    const card = t.turns[1]!.items.find((i) => i.type === 'boundary');
    assert.ok(card && card.type === 'boundary');
    assert.equal(card.status, 'approved');
    assert.equal(card.closureReason, 'session_grant');
    assert.deepEqual(mock.requests[2]!.body.messages, [
      system(h.workspace),
      { role: 'user', content: 'make a' },
      { role: 'assistant', content: 'Made a.txt.' },
      { role: 'user', content: 'make b' },
    ]);
    assert.equal(mock.requests[3]!.body.messages.at(-1).content, '(no output)');
    // Another program is another scope: it asks.
    mock.script(toolCalls([{ id: 'c3', name: 'run', args: { command: 'mkdir d' } }]), text('Not made.'));
    await h.runtime.send(sid, 'make d');
    await h.runtime.decide(sid, await pendingRequest(h, sid), 'deny');
    await h.runtime.whenIdle(sid);
    assert.equal(fs.existsSync(path.join(h.workspace, 'd')), false);
    assert.equal(mock.requests.length, 6);
    await h.journal.close();
  });
});

describe('OpenAI-compatible agent: Stop and restarts', () => {
  it('Stop mid-stream ends the turn as stopped and closes the HTTP request', { timeout: TEST_TIMEOUT_MS }, async () => {
    const mock = await startMock();
    const h = await harness(configFor(mock));
    const sid = await newSession(h);
    const parts = Array.from({ length: 100 }, (_, i) => `w${i} `);
    mock.script(slowText(parts, 50));
    await h.runtime.send(sid, 'talk slowly');
    await waitFor('some streamed text', async () => textOf(await h.runtime.transcript(sid), 0).startsWith('w0 w1 '));
    const stoppedAt = Date.now();
    assert.deepEqual(await h.runtime.stop(sid), { ok: true, value: { stopped: true } });
    await h.runtime.whenIdle(sid);
    assert.ok(Date.now() - stoppedAt < 2000, `stop took ${Date.now() - stoppedAt} ms`);
    const t = await h.runtime.transcript(sid);
    assert.equal(t.turns[0]!.status, 'stopped');
    const req = mock.requests[0]!;
    await waitFor('the mock to see the hang-up', () => req.clientClosedEarly);
    assert.equal(req.completed, false);
    assert.ok(req.chunksSent < 100, `sent ${req.chunksSent}`);
    const sentAtStop = req.chunksSent;
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(req.chunksSent, sentAtStop);
    assert.equal(mock.requests.length, 1);
    assert.equal((await h.runtime.liveState(sid)).running, false);
    await h.journal.close();
  });

  it('a pending approval across a host restart: sandbox_boundary_closed_by_restart; Retry asks again, Allow completes it', { timeout: TEST_TIMEOUT_MS }, async () => {
    const mock = await startMock();
    const workspace = tempDir('nac-ws-');
    const a = await harness(configFor(mock), { workspace, instance: 'host-a' });
    const sid = await newSession(a);
    const call = { id: 'call_r1', name: 'run', args: { command: 'touch proof.txt && echo proved' } };
    mock.script(toolCalls([call], 'I will create proof.txt.'));
    await a.runtime.send(sid, 'prove it');
    const firstRequest = await pendingRequest(a, sid);
    a.runtime.dispose();
    await a.journal.close();

    const b = await harness(configFor(mock), { file: a.file, workspace, instance: 'host-b', dead: ['host-a'] });
    const failed = (await b.runtime.transcript(sid)).turns[0]!;
    assert.equal(failed.status, 'failed');
    assert.equal(failed.errorClass, 'sandbox_boundary_closed_by_restart');
    const card = failed.items.find((i) => i.type === 'boundary');
    assert.equal(card?.type === 'boundary' && card.closureReason, 'host_restarted');
    assert.equal(textOf(await b.runtime.transcript(sid), 0), 'I will create proof.txt.');

    mock.script(toolCalls([{ ...call, id: 'call_r2' }]), text('Proved.'));
    assert.ok((await b.runtime.retry(sid, failed.id)).ok);
    const secondRequest = await pendingRequest(b, sid);
    assert.notEqual(secondRequest, firstRequest);
    assert.equal(fs.existsSync(path.join(workspace, 'proof.txt')), false);
    // The retried run sent the earlier exchange and the prompt again.
    assert.deepEqual(mock.requests[1]!.body.messages, [
      system(workspace),
      { role: 'user', content: 'prove it' },
      { role: 'assistant', content: 'I will create proof.txt.' },
      { role: 'user', content: 'prove it' },
    ]);
    await b.runtime.decide(sid, secondRequest, 'allow_once');
    await b.runtime.whenIdle(sid);
    const t = await b.runtime.transcript(sid);
    assert.equal(t.turns[1]!.origin, 'retry');
    assert.equal(t.turns[1]!.status, 'completed');
    assert.equal(textOf(t, 1), 'Proved.');
    assert.equal(fs.existsSync(path.join(workspace, 'proof.txt')), true);
    assert.deepEqual(mock.requests[2]!.body.messages.at(-1), { role: 'tool', tool_call_id: 'call_r2', content: 'proved\n' });
    assert.equal(mock.requests.length, 3);
    await b.journal.close();
  });

  it('Continue after a plain restart sends the history, the partial reply and a request to carry on', { timeout: TEST_TIMEOUT_MS }, async () => {
    const mock = await startMock();
    const workspace = tempDir('nac-ws-');
    const a = await harness(configFor(mock), { workspace, instance: 'host-a' });
    const sid = await newSession(a);
    mock.script(text('Hello.'));
    await a.runtime.send(sid, 'say hello');
    await a.runtime.whenIdle(sid);
    mock.script(slowText(Array.from({ length: 100 }, (_, i) => `p${i} `), 50));
    await a.runtime.send(sid, 'write an essay');
    await waitFor('a partial reply in the journal', async () => textOf(await a.runtime.transcript(sid), 1).startsWith('p0 p1 '));
    a.runtime.dispose();
    await a.journal.close();
    await waitFor('host A to hang up', () => mock.requests[1]!.clientClosedEarly);

    const b = await harness(configFor(mock), { file: a.file, workspace, instance: 'host-b', dead: ['host-a'] });
    const before = await b.runtime.transcript(sid);
    const failed = before.turns[1]!;
    assert.equal(failed.errorClass, 'app_restarted');
    const partial = textOf(before, 1);
    assert.match(partial, /^p0 p1 (p\d+ )*$/);
    mock.script(text('p99 done.'));
    assert.ok((await b.runtime.continueTurn(sid, failed.id)).ok);
    await b.runtime.whenIdle(sid);
    const t = await b.runtime.transcript(sid);
    assert.equal(t.turns[2]!.origin, 'continue');
    assert.equal(t.turns[2]!.status, 'completed');
    assert.equal(textOf(t, 2), 'p99 done.');
    assert.deepEqual(mock.requests[2]!.body.messages, [
      system(workspace),
      { role: 'user', content: 'say hello' },
      { role: 'assistant', content: 'Hello.' },
      { role: 'user', content: 'write an essay' },
      { role: 'assistant', content: partial },
      { role: 'user', content: CONTINUE_MESSAGE },
    ]);
    await b.journal.close();
  });
});

describe('OpenAI-compatible agent: failures', () => {
  it('an unreachable server ends the turn agent_unavailable naming the URL and setting; the chat stays usable', { timeout: TEST_TIMEOUT_MS }, async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/v1`;
    await new Promise<void>((r) => closed.close(() => r()));
    const mock = await startMock();
    let baseUrl = deadUrl;
    const h = await harness(() => ({ baseUrl, model: MODEL }));
    const sid = await newSession(h);
    const started = Date.now();
    await h.runtime.send(sid, 'hello?');
    await h.runtime.whenIdle(sid);
    assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
    const failed = (await h.runtime.transcript(sid)).turns[0]!;
    assert.equal(failed.status, 'failed');
    assert.equal(failed.errorClass, 'agent_unavailable');
    assert.equal(
      failureOf(failed),
      `Could not connect to the OpenAI-compatible server at ${deadUrl} (ECONNREFUSED). Start the server (for Ollama: \`ollama serve\`) or fix the setting nativeAgentChats.openaiCompatible.baseUrl.`,
    );
    baseUrl = mock.baseUrl;
    mock.script(text('Here now.'));
    assert.ok((await h.runtime.send(sid, 'hello again')).ok);
    await h.runtime.whenIdle(sid);
    const t = await h.runtime.transcript(sid);
    assert.equal(t.turns[1]!.status, 'completed');
    assert.equal(textOf(t, 1), 'Here now.');
    // The failed turn had no reply: its prompt and the new one are merged into one user message.
    assert.deepEqual(mock.requests[0]!.body.messages.slice(1), [{ role: 'user', content: 'hello?\n\nhello again' }]);
    await h.journal.close();
  });

  it('HTTP 404 (unknown model) and 401 are agent_error naming the model setting; an unset model is agent_unavailable', { timeout: TEST_TIMEOUT_MS }, async () => {
    const mock = await startMock();
    let model = 'nope:1b';
    const h = await harness(() => ({ baseUrl: `${mock.baseUrl}/`, model }));
    const sid = await newSession(h);
    mock.script({ type: 'error', status: 404, body: { error: { message: 'model "nope:1b" not found, try pulling it first', type: 'api_error' } } });
    await h.runtime.send(sid, 'one');
    await h.runtime.whenIdle(sid);
    let turn = (await h.runtime.transcript(sid)).turns[0]!;
    assert.equal(turn.errorClass, 'agent_error');
    assert.equal(
      failureOf(turn),
      `The OpenAI-compatible server at ${mock.baseUrl} does not know the model "nope:1b" (HTTP 404: model "nope:1b" not found, try pulling it first). ` +
        'Set nativeAgentChats.openaiCompatible.model to a model it serves (for Ollama: `ollama pull nope:1b`), and check that nativeAgentChats.openaiCompatible.baseUrl ends with /v1.',
    );
    mock.script({ type: 'error', status: 401, body: { error: { message: 'Invalid API key', type: 'invalid_request_error' } } });
    await h.runtime.send(sid, 'two');
    await h.runtime.whenIdle(sid);
    turn = (await h.runtime.transcript(sid)).turns[1]!;
    assert.equal(turn.errorClass, 'agent_error');
    assert.equal(
      failureOf(turn),
      `The OpenAI-compatible server at ${mock.baseUrl} refused the request for model "nope:1b" (HTTP 401: Invalid API key). Check the API key for this server and the setting nativeAgentChats.openaiCompatible.model.`,
    );
    mock.script({ type: 'error', status: 500, body: { error: { message: 'out of memory', type: 'server_error' } } });
    await h.runtime.send(sid, 'three');
    await h.runtime.whenIdle(sid);
    turn = (await h.runtime.transcript(sid)).turns[2]!;
    assert.equal(turn.errorClass, 'agent_error');
    assert.equal(failureOf(turn), `The OpenAI-compatible server at ${mock.baseUrl} answered HTTP 500: out of memory`);
    // No retries: one request per failed turn.
    assert.equal(mock.requests.length, 3);
    model = '  ';
    await h.runtime.send(sid, 'four');
    await h.runtime.whenIdle(sid);
    turn = (await h.runtime.transcript(sid)).turns[3]!;
    assert.equal(turn.errorClass, 'agent_unavailable');
    assert.equal(
      failureOf(turn),
      `No model is configured for the OpenAI-compatible server. Set nativeAgentChats.openaiCompatible.model to a model the server at ${mock.baseUrl} serves (for Ollama: a name from \`ollama list\`).`,
    );
    assert.equal(mock.requests.length, 3);
    await h.journal.close();
  });

  it('a server that never answers times out (agent_error) after requestTimeoutMs, with no retry', { timeout: TEST_TIMEOUT_MS }, async () => {
    const mock = await startMock();
    const h = await harness(configFor(mock, { requestTimeoutMs: 400 }));
    const sid = await newSession(h);
    mock.script({ type: 'silent' });
    const started = Date.now();
    await h.runtime.send(sid, 'anyone?');
    await h.runtime.whenIdle(sid);
    const took = Date.now() - started;
    assert.ok(took >= 400 && took < 3000, `took ${took} ms`);
    const turn = (await h.runtime.transcript(sid)).turns[0]!;
    assert.equal(turn.errorClass, 'agent_error');
    assert.equal(failureOf(turn), `The OpenAI-compatible server at ${mock.baseUrl} did not answer within 0.4 s. Check that the model "${MODEL}" loads on that server.`);
    assert.equal(mock.requests.length, 1);
    await h.journal.close();
  });

  it('a server dying mid-reply ends the turn agent_error (no hang); the streamed part stays', { timeout: TEST_TIMEOUT_MS }, async () => {
    const mock = await startMock();
    const h = await harness(configFor(mock));
    const sid = await newSession(h);
    mock.script({ ...slowText(['Half ', 'a ', 'reply'], 20), hangUpAfter: 2 });
    await h.runtime.send(sid, 'go');
    await h.runtime.whenIdle(sid);
    const t = await h.runtime.transcript(sid);
    assert.equal(t.turns[0]!.status, 'failed');
    assert.equal(t.turns[0]!.errorClass, 'agent_error');
    assert.equal(textOf(t, 0), 'Half a ');
    assert.equal(failureOf(t.turns[0]!), `The reply from the OpenAI-compatible server at ${mock.baseUrl} failed: terminated (UND_ERR_SOCKET). Check the server's log.`);
    await h.journal.close();
  });

  it('bad tool calls are answered as text, and the round cap ends the turn with a note', { timeout: TEST_TIMEOUT_MS }, async () => {
    const mock = await startMock();
    const h = await harness(configFor(mock, { maxToolRounds: 3, systemPrompt: null }));
    fs.writeFileSync(path.join(h.workspace, 'notes.md'), 'one\ntwo\n');
    const sid = await newSession(h);
    mock.script(
      toolCalls([
        { id: 'x1', name: 'run', args: null, rawArgs: '{"command": "ls' },
        { id: 'x2', name: 'delete', args: { path: 'a' } },
      ]),
      toolCalls([{ id: 'x3', name: 'read', args: { path: 'notes.md' } }]),
      toolCalls([{ id: 'x4', name: 'run', args: { command: 'echo hi' } }]),
      text('never sent'),
    );
    await h.runtime.send(sid, 'loop');
    await h.runtime.whenIdle(sid);
    const t = await h.runtime.transcript(sid);
    assert.equal(t.turns[0]!.status, 'completed');
    assert.equal(textOf(t, 0), '_(Stopped after 3 model calls in this turn without a final answer. Send a new message to let it carry on.)_');
    assert.equal(mock.requests.length, 3);
    assert.equal(mock.pending, 1);
    assert.deepEqual(mock.requests[0]!.body.messages, [{ role: 'user', content: 'loop' }]);
    assert.deepEqual(mock.requests[1]!.body.messages.slice(2), [
      { role: 'tool', tool_call_id: 'x1', content: 'The arguments of run are not valid JSON.' },
      { role: 'tool', tool_call_id: 'x2', content: 'There is no tool named delete. The tools are run, read and write.' },
    ]);
    assert.deepEqual(mock.requests[2]!.body.messages.at(-1), { role: 'tool', tool_call_id: 'x3', content: 'one\ntwo\n' });
    // Only the two valid calls became invocations (read inside the workspace and echo run at once).
    const invs = t.turns[0]!.items.filter((i) => i.type === 'invocation').map((i) => i.type === 'invocation' && `${i.tool}:${i.status}:${i.output}`);
    assert.deepEqual(invs, ['read:completed:one\ntwo\n', 'run:completed:hi\n']);
    await h.journal.close();
  });
});

describe('OpenAI-compatible agent: shutdown', () => {
  it('runTurn settles when the signal aborts while a tool waits on an approval that never comes (host shutdown)', { timeout: TEST_TIMEOUT_MS }, async () => {
    const mock = await startMock();
    mock.script(toolCalls([{ id: 'w1', name: 'run', args: { command: 'touch w' } }]));
    const abort = new AbortController();
    let runs = 0;
    const agent = createOpenAICompatibleAgent({ baseUrl: mock.baseUrl, model: MODEL });
    const outcome = agent.runTurn(
      { sessionId: 's', turnId: 't', prompt: 'p', origin: 'prompt', history: [], providerState: null, cwd: '/tmp' },
      {
        signal: abort.signal,
        text: () => undefined,
        tools: { run: () => { runs++; return new Promise(() => undefined); } },
        startInvocation: () => Promise.reject(new Error('unused')),
        requestBoundary: () => Promise.reject(new Error('unused')),
        setProviderState: async () => undefined,
        promptDelivered: async () => undefined,
      },
    );
    await waitFor('the tool call', () => runs === 1);
    abort.abort();
    assert.deepEqual(await outcome, { status: 'completed' });
  });
});

describe('OpenAI-compatible agent: pure parts', () => {
  it('buildMessages merges same-role neighbours and does not repeat a retried prompt', () => {
    assert.deepEqual(
      buildMessages({ prompt: 'again', origin: 'retry', history: [{ role: 'user', text: 'a' }, { role: 'assistant', text: 'b' }, { role: 'user', text: 'again' }] }, 'S'),
      [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
        { role: 'user', content: 'again' },
      ],
    );
    assert.deepEqual(buildMessages({ prompt: 'p', origin: 'continue', history: [{ role: 'user', text: 'p' }] }, null), [
      { role: 'user', content: `p\n\n${CONTINUE_MESSAGE}` },
    ]);
  });

  it('mergeToolCallDeltas assembles calls by index and tolerates repeated ids and names', () => {
    const calls: { id: string; name: string; arguments: string }[] = [];
    mergeToolCallDeltas(calls, [{ index: 0, id: 'a', function: { name: 'run', arguments: '{"comm' } }]);
    mergeToolCallDeltas(calls, [{ index: 1, id: 'b', function: { name: 're' } }]);
    mergeToolCallDeltas(calls, [{ index: 0, id: 'a', function: { name: 'run', arguments: 'and":"ls"}' } }, { index: 1, function: { name: 'ad', arguments: '{}' } }]);
    assert.deepEqual(calls, [
      { id: 'a', name: 'run', arguments: '{"command":"ls"}' },
      { id: 'b', name: 'read', arguments: '{}' },
    ]);
  });
});
