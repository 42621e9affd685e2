/**
 * Each provider hands a prompt's attachments to its model, through its REAL client against its
 * loopback mock, and the mock asserts what arrived: the OpenAI-compatible agent (openai client) one
 * user message with the prompt then each attachment as a fenced block (`promptWithAttachments`);
 * Claude (the Claude Code CLI through the Agent SDK) a text block per attachment after the prompt in
 * the user message; Codex (`codex app-server`) a text input item per attachment after the prompt.
 * The attachments are read by the runtime from a workspace on disk and journaled first.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { attachmentBlock, promptWithAttachments, type AgentAttachment } from '../../src/core/attachments';
import type { Agent } from '../../src/runtime/agent';
import { ClaudeAgent } from '../../src/runtime/agents/claude/claudeAgent';
import { CodexAgent } from '../../src/runtime/agents/codex/codexAgent';
import { createOpenAICompatibleAgent } from '../../src/runtime/agents/openaiCompatible/openaiCompatibleAgent';
import { startAnthropicMock, userTexts as anthropicUserTexts } from '../mocks/anthropicMock';
import { OpenAICompatibleMock } from '../mocks/openaiCompatibleMock';
import { ResponsesMock, userTexts as responsesUserTexts } from '../mocks/responsesMock';
import { openRuntime } from './harness';
import { CODEX } from './codexBinary';
import { isolateTempDir, tempDir } from './helpers';

// The agent CLIs leave their own files in the temp directory: in this file's own, removed at exit.
isolateTempDir();

const scratch: string[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  for (const d of scratch) fs.rmSync(d, { recursive: true, force: true });
});

function dir(prefix: string): string {
  const d = tempDir(prefix);
  scratch.push(d);
  return d;
}

/** The prompt and the attachments every provider is sent, and what the agent gets of them. */
const PROMPT = 'What does this do?';
const EXPECTED: AgentAttachment[] = [
  { kind: 'file', path: 'src/util.js', range: { startLine: 2, endLine: 3 }, text: 'function add(a, b) {\n  return a + b;', cutNote: null },
  { kind: 'selection', path: 'src/util.js', range: { startLine: 1, endLine: 1 }, text: '// ```fenced``` in a comment', cutNote: null },
];

/** Sends PROMPT with the attachments through `agent` (provider `provider`) and waits for the turn to end completed. */
async function sendWithAttachments(provider: string, agent: Agent): Promise<void> {
  const workspace = dir('nac-ws-');
  fs.mkdirSync(path.join(workspace, 'src'));
  fs.writeFileSync(path.join(workspace, 'src/util.js'), '// util\nfunction add(a, b) {\n  return a + b;\n}\n');
  const h = await openRuntime({ workspace, agentFor: (id) => (id === provider ? agent : undefined) });
  cleanups.push(h.close);
  const s = await h.runtime.createSession(provider);
  assert.ok(s.ok);
  const sent = await h.runtime.submit(s.value.id, {
    clientId: 'c1', text: PROMPT,
    attachments: [
      { kind: 'file', path: 'src/util.js', range: { startLine: 2, endLine: 3 } },
      { kind: 'selection', path: 'src/util.js', range: { startLine: 1, endLine: 1 }, text: EXPECTED[1]!.text },
    ],
  });
  assert.ok(sent.ok, sent.ok ? '' : sent.message);
  await h.runtime.whenIdle(s.value.id);
  const turn = (await h.runtime.transcript(s.value.id)).turns[0];
  assert.equal(turn?.status, 'completed', JSON.stringify(turn?.items));
}

describe('attachments reach each provider', () => {
  it('OpenAI-compatible (openai client): one user message, the prompt then a fenced block per attachment', async () => {
    const mock = await OpenAICompatibleMock.start();
    cleanups.push(() => mock.close());
    mock.script({ type: 'stream', chunks: [{ delta: { role: 'assistant', content: 'It adds.' } }, { delta: {}, finishReason: 'stop' }] });
    await sendWithAttachments('openai-compatible', createOpenAICompatibleAgent({ baseUrl: mock.baseUrl, model: 'mock-model', apiKey: async () => undefined }));
    const messages = (mock.requests[0]?.body as { messages: { role: string; content: string }[] }).messages;
    assert.equal(messages.filter((m) => m.role === 'user').at(-1)?.content, promptWithAttachments(PROMPT, EXPECTED));
    assert.match(promptWithAttachments(PROMPT, EXPECTED), /File: src\/util\.js \(lines 2-3\)\n```\nfunction add/);
    // A fence longer than the backticks inside the selection, so they cannot end its block.
    assert.match(promptWithAttachments(PROMPT, EXPECTED), /Selection: src\/util\.js \(lines 1-1\)\n````\n\/\/ ```fenced``` in a comment\n````/);
  });

  it('Claude (real Claude Code CLI): a text block per attachment after the prompt, in the one user message', async () => {
    const mock = await startAnthropicMock([{ text: ['It adds.'] }]);
    cleanups.push(() => mock.close());
    const claudeBin = path.join(path.dirname(require.resolve('@anthropic-ai/claude-agent-sdk-linux-x64/package.json')), 'claude');
    await sendWithAttachments('claude', new ClaudeAgent({
      executablePath: claudeBin, baseUrl: mock.url, model: 'mock-model', apiKey: async () => 'test-key',
      configDir: dir('nac-claude-config-'), maxRetries: 0, env: { HOME: dir('nac-claude-home-') },
    }));
    const body = mock.mainRequests()[0]?.body;
    assert.deepEqual(anthropicUserTexts(body).slice(-3), [PROMPT, ...EXPECTED.map(attachmentBlock)]);
    const last = body?.messages.filter((m) => m.role === 'user').at(-1);
    assert.ok(last && typeof last.content !== 'string', 'content blocks, not one string');
  });

  it('Codex (real codex app-server): a text input item per attachment after the prompt', { skip: CODEX ? false : 'the @openai/codex linux-x64 binary is not installed' }, async () => {
    const mock = await ResponsesMock.start();
    cleanups.push(() => mock.close());
    mock.script({ type: 'text', text: 'It adds.' });
    await sendWithAttachments('codex', new CodexAgent({
      executablePath: CODEX!, codexHome: dir('nac-codex-home-'), baseUrl: mock.baseUrl, model: 'mock-model', apiKey: async () => 'test-key', interruptTimeoutMs: 3000,
    }));
    assert.deepEqual(responsesUserTexts(mock.requests[0]!.body).slice(-3), [PROMPT, ...EXPECTED.map(attachmentBlock)]);
  });
});
