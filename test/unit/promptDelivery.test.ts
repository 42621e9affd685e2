/**
 * Each agent's delivery acknowledgement (`ctx.promptDelivered`, docs/ARCHITECTURE.md "Agents"), with
 * the real clients against the loopback mocks and a recording context (agentContextSpy.ts): it is
 * called exactly once per turn, at the provider's acknowledgement — after the provider got the
 * prompt and before the first text — and never when the provider refused the request or could not
 * be reached. The Claude and Codex tests run the real CLIs (about 1-3 s each).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { ClaudeAgent } from '../../src/runtime/agents/claude/claudeAgent';
import { CodexAgent, type CodexAgentConfig } from '../../src/runtime/agents/codex/codexAgent';
import { LocalAgent } from '../../src/runtime/agents/localAgent';
import { createOpenAICompatibleAgent } from '../../src/runtime/agents/openaiCompatible/openaiCompatibleAgent';
import { startAnthropicMock, userTexts as anthropicUserTexts, type AnthropicMock, type MockReply } from '../mocks/anthropicMock';
import { OpenAICompatibleMock, text, toolCalls } from '../mocks/openaiCompatibleMock';
import { ResponsesMock, userTexts as responsesUserTexts } from '../mocks/responsesMock';
import { ContextSpy, turnRequest } from './agentContextSpy';
import { isolateTempDir, tempDir } from './helpers';
import { CODEX } from './codexBinary';

// The agent CLIs leave their own files in the temp directory: in this file's own, removed at exit.
isolateTempDir();

const scratch: string[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
});

function dir(prefix: string): string {
  const d = tempDir(prefix);
  scratch.push(d);
  return d;
}

/** A URL of 127.0.0.1 where nothing listens. */
async function deadUrl(): Promise<string> {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  return url;
}

/** The one acknowledgement came after the prompt reached the provider and before the first text. */
function assertAcknowledgedOnceBeforeText(spy: ContextSpy, promptRequests: number): void {
  const acks = spy.calls('promptDelivered');
  assert.equal(acks.length, 1, `promptDelivered once, got ${acks.length}`);
  assert.ok(acks[0]!.probe! >= promptRequests, `the mock held the prompt when it was acknowledged (probe ${acks[0]!.probe})`);
  const firstText = spy.indexOf('text');
  assert.ok(firstText >= 0, 'some text streamed');
  assert.ok(spy.indexOf('promptDelivered') < firstText, 'acknowledged before the first text');
}

describe('prompt delivery: local agent', () => {
  it('acknowledges as soon as runTurn starts handling the prompt, before any text or tool call', async () => {
    const spy = new ContextSpy();
    const outcome = await new LocalAgent().runTurn(turnRequest('run echo hi', dir('nac-ws-')), spy.context);
    assert.deepEqual(outcome, { status: 'completed' });
    assert.deepEqual(spy.log.slice(0, 1).map((e) => e.call), ['promptDelivered']);
    assert.equal(spy.calls('promptDelivered').length, 1);
    assert.ok(spy.indexOf('tools.run') > 0);
    assert.ok(spy.indexOf('text') > 0);
  });
});

describe('prompt delivery: OpenAI-compatible agent (openai client)', () => {
  async function mock(): Promise<OpenAICompatibleMock> {
    const m = await OpenAICompatibleMock.start();
    cleanups.push(() => m.close());
    return m;
  }

  it('acknowledges once the server answered 200, once for a turn of two model calls, before the first tool call and text', async () => {
    const m = await mock();
    m.script(toolCalls([{ id: 'c1', name: 'run', args: { command: 'ls' } }]), text('Listed', '.'));
    const spy = new ContextSpy(() => m.requests.length);
    const outcome = await createOpenAICompatibleAgent({ baseUrl: m.baseUrl, model: 'm' }).runTurn(turnRequest('list the files', dir('nac-ws-')), spy.context);
    assert.deepEqual(outcome, { status: 'completed' });
    assert.equal(m.requests.length, 2);
    assert.deepEqual(m.requests[0]!.body.messages.at(-1), { role: 'user', content: 'list the files' });
    assertAcknowledgedOnceBeforeText(spy, 1);
    // The acknowledgement belongs to the first request: the second was not sent yet.
    assert.equal(spy.calls('promptDelivered')[0]!.probe, 1);
    assert.ok(spy.indexOf('promptDelivered') < spy.indexOf('tools.run'));
    assert.equal(spy.text(), 'Listed.');
  });

  it('does not acknowledge a prompt the server refused (HTTP 500) or that never reached it', async () => {
    const m = await mock();
    m.script({ type: 'error', status: 500, body: { error: { message: 'mock overload', type: 'server_error' } } });
    const refused = new ContextSpy(() => m.requests.length);
    const outcome = await createOpenAICompatibleAgent({ baseUrl: m.baseUrl, model: 'm' }).runTurn(turnRequest('hello', dir('nac-ws-')), refused.context);
    assert.equal(outcome.status, 'failed');
    assert.equal(outcome.status === 'failed' && outcome.errorClass, 'agent_error');
    assert.equal(m.requests.length, 1, 'the server received the prompt');
    assert.deepEqual(refused.calls('promptDelivered'), []);

    const unreachable = new ContextSpy();
    const down = await createOpenAICompatibleAgent({ baseUrl: `${await deadUrl()}/v1`, model: 'm' }).runTurn(turnRequest('hello', dir('nac-ws-')), unreachable.context);
    assert.equal(down.status === 'failed' && down.errorClass, 'agent_unavailable');
    assert.deepEqual(unreachable.calls('promptDelivered'), []);
  });
});

const CLAUDE_BIN = path.join(path.dirname(require.resolve('@anthropic-ai/claude-agent-sdk-linux-x64/package.json')), 'claude');

describe('prompt delivery: Claude agent (real Claude Code CLI)', () => {
  const home = dir('nac-claude-home-');

  async function claudeMock(script: MockReply[]): Promise<AnthropicMock> {
    const m = await startAnthropicMock(script);
    cleanups.push(() => m.close());
    return m;
  }

  function claude(baseUrl: string, executablePath = CLAUDE_BIN): ClaudeAgent {
    return new ClaudeAgent({ executablePath, baseUrl, model: 'mock-model', apiKey: async () => 'test-key', configDir: dir('nac-claude-config-'), maxRetries: 0, env: { HOME: home } });
  }

  /** Main-loop requests of `m` that carry `prompt`. */
  const carrying = (m: AnthropicMock, prompt: string) => () => m.mainRequests().filter((r) => anthropicUserTexts(r.body).includes(prompt)).length;

  it('acknowledges at the first stream event of the model API, after the API got the prompt and before the first text; once for two model calls', async () => {
    const m = await claudeMock([{ text: ['Reading.'], toolUses: [{ name: 'Read', input: { file_path: 'hello.txt' } }] }, { text: ['Hel', 'lo.'] }]);
    const workspace = dir('nac-ws-');
    fs.writeFileSync(path.join(workspace, 'hello.txt'), 'hello\n');
    const spy = new ContextSpy(carrying(m, 'say hello'));
    const outcome = await claude(m.url).runTurn(turnRequest('say hello', workspace), spy.context);
    assert.deepEqual(outcome, { status: 'completed' });
    assert.equal(m.mainRequests().length, 2);
    assertAcknowledgedOnceBeforeText(spy, 1);
    assert.equal(spy.calls('promptDelivered')[0]!.probe, 1, 'acknowledged at the first model call');
    assert.ok(spy.indexOf('setProviderState') < spy.indexOf('promptDelivered'));
    assert.equal(spy.text(), 'Reading.\n\nHello.');
  });

  it('does not acknowledge when the API refuses the request (HTTP 500) or the CLI fails at start', async () => {
    const m = await claudeMock([{ httpError: { status: 500, type: 'api_error', message: 'mock overload' }, repeat: 2 }]);
    const refused = new ContextSpy(carrying(m, 'hello'));
    const outcome = await claude(m.url).runTurn(turnRequest('hello', dir('nac-ws-')), refused.context);
    assert.equal(outcome.status === 'failed' && outcome.errorClass, 'agent_error');
    assert.ok(carrying(m, 'hello')() >= 1, 'the API received the prompt');
    assert.deepEqual(refused.calls('promptDelivered'), []);

    // A "CLI" that exits at once with an error.
    const broken = path.join(dir('nac-claude-bin-'), 'claude');
    fs.writeFileSync(broken, '#!/bin/sh\necho "claude: cannot start" >&2\nexit 1\n', { mode: 0o755 });
    const failed = new ContextSpy();
    const start = await claude(m.url, broken).runTurn(turnRequest('hello', dir('nac-ws-')), failed.context);
    assert.equal(start.status, 'failed');
    assert.deepEqual(failed.calls('promptDelivered'), []);
  });
});


describe('prompt delivery: Codex agent (real codex app-server)', { skip: CODEX ? false : 'the @openai/codex linux-x64 binary is not installed' }, () => {
  async function responsesMock(): Promise<ResponsesMock> {
    const m = await ResponsesMock.start();
    cleanups.push(() => m.close());
    return m;
  }

  /** A Codex agent whose protocol trace goes into `spy`'s log. */
  function codex(m: ResponsesMock, spy: ContextSpy): CodexAgent {
    const config: CodexAgentConfig = {
      executablePath: CODEX, codexHome: dir('nac-codex-home-'), baseUrl: m.baseUrl, model: 'mock-model', apiKey: async () => 'test-key',
      traceProtocol: true, log: (line) => spy.note(line),
    };
    return new CodexAgent(config);
  }

  /** The id of the `turn/start` request in the trace. */
  function turnStartId(spy: ContextSpy): number {
    const line = spy.log.find((e) => e.call === 'note' && /^\[codex →\] .*"method":"turn\/start"/.test(e.detail));
    assert.ok(line, 'turn/start was sent');
    return (JSON.parse(line.detail.slice('[codex →] '.length)) as { id: number }).id;
  }

  it("acknowledges at the app-server's answer to turn/start, before the first text", async () => {
    const m = await responsesMock();
    m.script({ type: 'text', text: ['Hel', 'lo.'] });
    const spy = new ContextSpy(() => m.requests.length);
    const outcome = await codex(m, spy).runTurn(turnRequest('say hello', dir('nac-ws-')), spy.context);
    assert.deepEqual(outcome, { status: 'completed' });
    const id = turnStartId(spy);
    const answer = spy.log.findIndex((e) => e.call === 'note' && e.detail.startsWith(`[codex ←] {"id":${id},"result":{"turn"`));
    assert.ok(answer >= 0, 'the app-server answered turn/start');
    assert.equal(spy.calls('promptDelivered').length, 1);
    assert.ok(spy.indexOf('promptDelivered') > answer, 'acknowledged after the answer to turn/start');
    assert.ok(spy.indexOf('promptDelivered') < spy.indexOf('text'), 'and before the first text');
    assert.deepEqual(responsesUserTexts(m.requests[0]!.body), ['say hello']);
    assert.equal(spy.text(), 'Hello.');
  });

  it('does not acknowledge a prompt the app-server refused at turn/start (input_too_large)', async () => {
    const m = await responsesMock();
    const spy = new ContextSpy(() => m.requests.length);
    const outcome = await codex(m, spy).runTurn(turnRequest('x'.repeat(1_048_577), dir('nac-ws-')), spy.context);
    assert.equal(outcome.status === 'failed' && outcome.errorClass, 'agent_error');
    assert.match(outcome.status === 'failed' ? outcome.message : '', /^Codex refused to start the turn: Input exceeds the maximum length/);
    const id = turnStartId(spy);
    assert.ok(spy.log.some((e) => e.call === 'note' && e.detail.startsWith(`[codex ←] {"error"`) && e.detail.endsWith(`"id":${id}}`)), 'turn/start got an error answer');
    assert.deepEqual(spy.calls('promptDelivered'), []);
    assert.equal(m.requests.length, 0);
  });
});
