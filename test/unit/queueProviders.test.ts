/**
 * The queue, Send now and the delivery acknowledgement through the runtime and a journal on disk,
 * with each provider's REAL client against its loopback mock: the OpenAI-compatible agent (openai
 * client, openaiCompatibleMock.ts), Claude (the Claude Code CLI through the Agent SDK,
 * anthropicMock.ts) and Codex (`codex app-server`, responsesMock.ts; skipped when its binary is not
 * installed). For each: a message submitted while a held reply runs is queued; the running turn is
 * `sending` until the mock got its prompt and `delivered` after; Send now stops the reply and the
 * mock gets the queued message as the next prompt, once; a message queued behind it goes out when
 * that reply ends normally; Send now while a tool call waits on an approval closes the request as
 * `run_stopped` and sends the message; a prompt the provider refused stays `sending`. At the end no
 * Claude Code process of this file is left.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import type { DeliveryState } from '../../src/core/vocabulary';
import type { Journal } from '../../src/journal/journal';
import type { Agent } from '../../src/runtime/agent';
import { ClaudeAgent } from '../../src/runtime/agents/claude/claudeAgent';
import { CodexAgent } from '../../src/runtime/agents/codex/codexAgent';
import { createOpenAICompatibleAgent } from '../../src/runtime/agents/openaiCompatible/openaiCompatibleAgent';
import { STOPPED_NOTE } from '../../src/runtime/turns';
import { startAnthropicMock, userTexts as anthropicUserTexts, type AnthropicMock, type MockReply } from '../mocks/anthropicMock';
import { OpenAICompatibleMock } from '../mocks/openaiCompatibleMock';
import { ResponsesMock, userTexts as responsesUserTexts } from '../mocks/responsesMock';
import { toolCalls } from '../mocks/openaiCompatibleMock';
import { openRuntime, pendingRequest, type RuntimeHarness } from './harness';
import { CODEX } from './codexBinary';
import { isolateTempDir, tempDir, waitFor } from './helpers';

// The agent CLIs leave their own files in the temp directory: in this file's own, removed at exit.
isolateTempDir();

const scratch: string[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
  await waitFor('the Claude Code processes to exit', () => claudeChildren().length === 0, 10_000);
});

/**
 * The bound (ms) of every wait on an agent here. Most of them span an agent process's start or
 * restart (the Claude Code CLI, `codex app-server`), whose wall time grows with the machine's load:
 * at load 23 on 2 cores the Claude CLI took 15 s from the prompt to its approval request, and at load
 * 34 two such waits passed 20 s. A bound, not a speed claim: a wait ends as soon as its condition holds.
 */
const AGENT_WAIT_MS = 120_000;

/** Claude Code processes that are children of this test process (`ps` lines). */
function claudeChildren(): string[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' }).split('\n').filter((l) => l.includes(CLAUDE_BIN));
  } catch {
    return []; // ps exits 1 when there are no children
  }
}

function dir(prefix: string): string {
  const d = tempDir(prefix);
  scratch.push(d);
  return d;
}

/** One provider: its agent on a fresh mock, and how the test drives that mock. */
interface ProviderUnderTest {
  /** The provider id of the chat. */
  readonly provider: string;
  /** The agent (built once per test). */
  readonly agent: Agent;
  /** Scripts the next model reply: it streams `text` and stays open until `release()` (or the client drops it). */
  hold(text: string): void;
  /** Scripts the next model reply: `text`, then the reply ends. */
  answer(text: string): void;
  /** Ends every held reply normally. */
  release(): void;
  /** Scripts the next model reply: a tool call that runs `touch <file>`, which asks for approval. */
  askApproval(file: string): void;
  /**
   * The agent sends the history itself and merges a prompt into the one before it when that turn
   * has no reply text (OpenAI-compatible: `buildMessages`, for chat templates that need alternating roles).
   */
  readonly mergesAfterReplylessTurn?: boolean;
  /** The newest user message of each model request of the main loop, in arrival order. */
  prompts(): string[];
  /**
   * How many prompts the provider has acknowledged so far, as seen outside the agent: model
   * requests the mock received (OpenAI-compatible, Claude), answers of the app-server to
   * `turn/start` (Codex, whose acknowledgement is that answer).
   */
  acknowledged(): number;
}

/** What the journal's turn held, and what the mock had received, when `markDelivered` was written. */
interface DeliveryWrite {
  readonly turnId: string;
  readonly before: DeliveryState | null | undefined;
  /** `acknowledged()` then. */
  readonly acknowledged: number;
}

/** A runtime for `p` on a real journal file whose `markDelivered` writes are recorded as `DeliveryWrite`s. */
async function open(p: ProviderUnderTest): Promise<RuntimeHarness & { deliveries: DeliveryWrite[] }> {
  const deliveries: DeliveryWrite[] = [];
  const spied = (j: Journal): Journal => new Proxy(j, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (key !== 'write') return typeof value === 'function' ? value.bind(target) : value;
      return async (op: string, ...args: unknown[]) => {
        if (op === 'markDelivered') {
          const turnId = args[0] as string;
          const acknowledged = p.acknowledged();
          deliveries.push({ turnId, before: (await target.read('getTurn', turnId))?.delivery, acknowledged });
        }
        return (value as (...a: unknown[]) => unknown).call(target, op, ...args);
      };
    },
  });
  const h = await openRuntime({ agentFor: (id) => (id === p.provider ? p.agent : undefined), wrap: spied });
  cleanups.push(h.close);
  return { ...h, deliveries };
}

/** The chat's turns as [prompt, sentFrom, status, delivery], in journal order. */
async function turnsOf(h: RuntimeHarness, sessionId: string): Promise<[string, unknown, string, unknown][]> {
  return (await h.journal.read('listTurns', sessionId)).map((t) => [t.prompt, t.sentFrom, t.status, t.delivery]);
}

/** How many model requests had `text` as their newest user message. */
const timesSent = (p: ProviderUnderTest, text: string) => p.prompts().filter((x) => x === text).length;

/**
 * The whole path for one provider: a held reply, a queued message, Send now, and a message queued
 * behind it that goes out when the reply ends normally.
 */
async function queueAndSendNow(p: ProviderUnderTest): Promise<void> {
  const h = await open(p);
  const s = await h.runtime.createSession(p.provider);
  assert.ok(s.ok);
  const id = s.value.id;
  p.hold('Working on first');
  const first = await h.runtime.submit(id, { clientId: 'c-first', text: 'first' });
  assert.ok(first.ok && first.value.kind === 'started', JSON.stringify(first));
  const firstTurn = first.value.turnId;
  await waitFor('the first turn to be delivered', async () => (await h.journal.read('getTurn', firstTurn))?.delivery === 'delivered', AGENT_WAIT_MS);
  assert.deepEqual(h.deliveries, [{ turnId: firstTurn, before: 'sending', acknowledged: 1 }], 'sending until the provider acknowledged the prompt');
  // Codex acknowledges at turn/start, which may answer before its model request reaches the mock.
  await waitFor('the model to get "first"', () => timesSent(p, 'first') === 1 || undefined, AGENT_WAIT_MS);

  // a. A message sent while the reply runs is queued; nothing more reaches the model.
  const second = await h.runtime.submit(id, { clientId: 'c-second', text: 'second' });
  assert.equal(second.ok && second.value.kind, 'queued', JSON.stringify(second));
  assert.deepEqual((await h.runtime.queue(id)).map((q) => q.text), ['second']);
  assert.deepEqual(p.prompts(), ['first']);

  // b. Send now stops the reply; the queued message is the next turn and the model's next prompt.
  p.hold('Working on second');
  const sent = await h.runtime.sendQueued(id, 'c-second');
  assert.deepEqual(sent, { ok: true, value: { kind: 'stopping' } });
  await waitFor('the model to get "second"', () => timesSent(p, 'second') === 1 || undefined, AGENT_WAIT_MS);
  await waitFor('the second turn to be delivered', async () => (await turnsOf(h, id))[1]?.[3] === 'delivered', AGENT_WAIT_MS);
  assert.deepEqual(await turnsOf(h, id), [['first', 'composer', 'stopped', 'delivered'], ['second', 'send_now', 'running', 'delivered']]);
  assert.deepEqual(await h.runtime.queue(id), []);
  const secondTurn = (await h.journal.read('listTurns', id))[1]!.id;
  assert.deepEqual(h.deliveries[1], { turnId: secondTurn, before: 'sending', acknowledged: 2 });

  // c. Queued behind it, a third message goes out when the reply ends normally.
  const third = await h.runtime.submit(id, { clientId: 'c-third', text: 'third' });
  assert.equal(third.ok && third.value.kind, 'queued', JSON.stringify(third));
  p.answer('Done.');
  p.release();
  await waitFor('the third turn to complete', async () => (await turnsOf(h, id))[2]?.[2] === 'completed', AGENT_WAIT_MS);
  await h.runtime.whenIdle(id);
  assert.deepEqual(await turnsOf(h, id), [
    ['first', 'composer', 'stopped', 'delivered'], ['second', 'send_now', 'completed', 'delivered'], ['third', 'queue', 'completed', 'delivered'],
  ]);
  assert.deepEqual(p.prompts(), ['first', 'second', 'third'], 'each message reached the model once, in order');
  assert.deepEqual(await h.runtime.queue(id), []);
  const thirdTurn = (await h.journal.read('listTurns', id))[2]!.id;
  assert.deepEqual(h.deliveries, [
    { turnId: firstTurn, before: 'sending', acknowledged: 1 }, { turnId: secondTurn, before: 'sending', acknowledged: 2 },
    { turnId: thirdTurn, before: 'sending', acknowledged: 3 },
  ]);
}

/**
 * Send now while the reply waits on an approval: the request is closed as `run_stopped` (the
 * command never runs), the reply stops, and the queued message is the model's next prompt, once.
 */
async function sendNowDuringApproval(p: ProviderUnderTest): Promise<void> {
  const h = await open(p);
  const s = await h.runtime.createSession(p.provider);
  assert.ok(s.ok);
  const id = s.value.id;
  p.askApproval('waited.txt');
  const first = await h.runtime.submit(id, { clientId: 'c-first', text: 'first' });
  assert.ok(first.ok && first.value.kind === 'started', JSON.stringify(first));
  const requestId = await pendingRequest(h, id, [], AGENT_WAIT_MS);
  const second = await h.runtime.submit(id, { clientId: 'c-second', text: 'second' });
  assert.equal(second.ok && second.value.kind, 'queued', JSON.stringify(second));
  p.answer('Done.');
  assert.deepEqual(await h.runtime.sendQueued(id, 'c-second'), { ok: true, value: { kind: 'stopping' } });
  await waitFor('the second turn to complete', async () => (await turnsOf(h, id))[1]?.[2] === 'completed', AGENT_WAIT_MS);
  await h.runtime.whenIdle(id);
  assert.deepEqual(await turnsOf(h, id), [['first', 'composer', 'stopped', 'delivered'], ['second', 'send_now', 'completed', 'delivered']]);
  const request = await h.journal.read('getBoundaryRequest', requestId);
  assert.deepEqual([request?.status, request?.closureReason], ['denied', 'run_stopped']);
  assert.equal(fs.existsSync(path.join(h.workspace, 'waited.txt')), false, 'the command never ran');
  // The stopped turn has no reply text, so an agent that merges such turns sends both prompts as one
  // message; the history says the first was stopped, so the model does not take it as still to do.
  assert.deepEqual(p.prompts(), ['first', p.mergesAfterReplylessTurn ? `first\n\n${STOPPED_NOTE}\n\nsecond` : 'second']);
  assert.deepEqual(await h.runtime.queue(id), []);
}

/** A prompt the provider refused: the turn fails with `errorClass` and stays `sending`; never acknowledged. */
async function refused(p: ProviderUnderTest, errorClass: string): Promise<void> {
  const h = await open(p);
  const s = await h.runtime.createSession(p.provider);
  assert.ok(s.ok);
  const r = await h.runtime.submit(s.value.id, { clientId: 'c-hello', text: 'hello' });
  assert.ok(r.ok && r.value.kind === 'started', JSON.stringify(r));
  await h.runtime.whenIdle(s.value.id);
  const turn = await h.journal.read('getTurn', r.value.turnId);
  assert.deepEqual([turn?.status, turn?.errorClass, turn?.delivery], ['failed', errorClass, 'sending']);
  assert.deepEqual(h.deliveries, []);
}

// ---- OpenAI-compatible (openai client) ----

async function openaiCompatible(): Promise<ProviderUnderTest & { mock: OpenAICompatibleMock }> {
  const mock = await OpenAICompatibleMock.start();
  cleanups.push(() => mock.close());
  const chunks = (text: string) => [{ delta: { role: 'assistant', content: '' } }, { delta: { content: text } }, { delta: {}, finishReason: 'stop' }];
  return {
    mock,
    provider: 'openai-compatible',
    mergesAfterReplylessTurn: true,
    agent: createOpenAICompatibleAgent({ baseUrl: mock.baseUrl, model: 'mock-model', apiKey: async () => undefined }),
    hold: (text) => mock.script({ type: 'stream', chunks: chunks(text), holdAfter: 2 }),
    answer: (text) => mock.script({ type: 'stream', chunks: chunks(text) }),
    release: () => mock.release(),
    askApproval: (file) => mock.script(toolCalls([{ id: 'call_1', name: 'run', args: { command: `touch ${file}` } }])),
    prompts: () => mock.requests.map((r) => (r.body as { messages: { role: string; content: string }[] }).messages.filter((m) => m.role === 'user').at(-1)?.content ?? ''),
    acknowledged: () => mock.requests.length,
  };
}

describe('the queue with the OpenAI-compatible agent (openai client)', () => {
  it('queues during a held reply, acknowledges after the server answered, Send now stops and sends, the queue goes on at the end', async () => {
    await queueAndSendNow(await openaiCompatible());
  });

  it('Send now while a tool call waits on an approval closes it as run_stopped and sends the message', async () => {
    await sendNowDuringApproval(await openaiCompatible());
  });

  it('a prompt the server refused (HTTP 500) stays sending and fails as agent_error', async () => {
    const p = await openaiCompatible();
    p.mock.script({ type: 'error', status: 500, body: { error: { message: 'mock overload', type: 'server_error' } } });
    await refused(p, 'agent_error');
    assert.deepEqual(p.prompts(), ['hello'], 'the server received it');
  });
});

// ---- Claude (Claude Code CLI) ----

const CLAUDE_BIN = path.join(path.dirname(require.resolve('@anthropic-ai/claude-agent-sdk-linux-x64/package.json')), 'claude');
const claudeHome = dir('nac-claude-home-');

async function claude(script: MockReply[] = []): Promise<ProviderUnderTest & { mock: AnthropicMock }> {
  const mock = await startAnthropicMock(script);
  cleanups.push(() => mock.close());
  return {
    mock,
    provider: 'claude',
    agent: new ClaudeAgent({
      executablePath: CLAUDE_BIN, baseUrl: mock.url, model: 'mock-model', apiKey: async () => 'test-key',
      configDir: dir('nac-claude-config-'), maxRetries: 0, env: { HOME: claudeHome },
    }),
    hold: (text) => mock.push({ text: [text], hang: true }),
    answer: (text) => mock.push({ text: [text] }),
    release: () => mock.release(),
    askApproval: (file) => mock.push({ toolUses: [{ name: 'Bash', input: { command: `touch ${file}`, description: `Make ${file}` } }] }),
    prompts: () => mock.mainRequests().map((r) => anthropicUserTexts(r.body).at(-1) ?? ''),
    acknowledged: () => mock.mainRequests().length,
  };
}

describe('the queue with the Claude agent (real Claude Code CLI)', () => {
  it('queues during a held reply, acknowledges at the first stream event, Send now stops and sends, the queue goes on at the end', async () => {
    await queueAndSendNow(await claude());
  });

  it('Send now while a Bash call waits on an approval closes it as run_stopped and sends the message', async () => {
    await sendNowDuringApproval(await claude());
  });

  it('a prompt the API refused (HTTP 500) stays sending and fails as agent_error', async () => {
    const p = await claude([{ httpError: { status: 500, type: 'api_error', message: 'mock overload' }, repeat: 2 }]);
    await refused(p, 'agent_error');
    assert.ok(p.prompts().includes('hello'), 'the API received it');
  });
});

// ---- Codex (codex app-server) ----


async function codex(executablePath = CODEX!): Promise<ProviderUnderTest> {
  const mock = await ResponsesMock.start();
  cleanups.push(() => mock.close());
  let turnStartAnswers = 0;
  // Answers to turn/start ("result":{"turn"…) in the protocol trace, counted as they arrive.
  const log = (line: string): void => {
    if (/^\[codex ←\] \{"id":\d+,"result":\{"turn"/.test(line)) turnStartAnswers++;
  };
  return {
    provider: 'codex',
    agent: new CodexAgent({
      executablePath, codexHome: dir('nac-codex-home-'), baseUrl: mock.baseUrl, model: 'mock-model', apiKey: async () => 'test-key', interruptTimeoutMs: 3000,
      traceProtocol: true, log,
    }),
    hold: (text) => mock.script({ type: 'hang', text }),
    answer: (text) => mock.script({ type: 'text', text }),
    release: () => mock.release(),
    askApproval: (file) => mock.script({ type: 'exec', cmd: `touch ${file}`, justification: `Create ${file}` }),
    prompts: () => mock.requests.map((r) => responsesUserTexts(r.body).at(-1) ?? ''),
    acknowledged: () => turnStartAnswers,
  };
}

describe('the queue with the Codex agent (real codex app-server)', { skip: CODEX ? false : 'the @openai/codex linux-x64 binary is not installed' }, () => {
  it('queues during a held reply, acknowledges at the answer to turn/start, Send now stops and sends, the queue goes on at the end', async () => {
    await queueAndSendNow(await codex());
  });

  it('Send now while a command waits on an approval closes it as run_stopped and sends the message', async () => {
    await sendNowDuringApproval(await codex());
  });

  it('a turn whose app-server cannot start stays sending and fails as agent_unavailable', async () => {
    await refused(await codex(path.join(dir('nac-codex-bin-'), 'missing-codex')), 'agent_unavailable');
  });
});
