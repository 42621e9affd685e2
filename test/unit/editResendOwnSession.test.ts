/**
 * Edit and resend with the agents that keep their own session: the real Claude Code CLI (through the
 * Agent SDK) against the loopback Anthropic mock, and the real `codex app-server` against the
 * Responses mock (skipped when its binary is not installed). Their session still holds the request
 * the user edited, so the resent prompt that reaches the model says that request was replaced, quotes
 * it, and then gives the new one; the chat's turns keep both. At the end no Claude Code process of
 * this file is left.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { ClaudeAgent } from '../../src/runtime/agents/claude/claudeAgent';
import { CodexAgent } from '../../src/runtime/agents/codex/codexAgent';
import { ResponsesMock, userTexts as responsesUserTexts } from '../mocks/responsesMock';
import { CODEX } from './codexBinary';
import { replacedPromptNote } from '../../src/runtime/agents/replacedPrompt';
import { startAnthropicMock, userTexts } from '../mocks/anthropicMock';
import { openRuntime } from './harness';
import { isolateTempDir, tempDir, waitFor } from './helpers';

// The agent CLIs leave their own files in the temp directory: in this file's own, removed at exit.
isolateTempDir();

const CLAUDE_BIN = path.join(path.dirname(require.resolve('@anthropic-ai/claude-agent-sdk-linux-x64/package.json')), 'claude');
const scratch: string[] = [];
const dir = (prefix: string) => {
  const d = tempDir(prefix);
  scratch.push(d);
  return d;
};

/** Claude Code processes that are children of this test process (`ps` lines). */
function claudeChildren(): string[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' }).split('\n').filter((l) => l.includes(CLAUDE_BIN));
  } catch {
    return []; // ps exits 1 when there are no children
  }
}

after(async () => {
  await waitFor('the Claude Code processes to exit', () => claudeChildren().length === 0, 10_000);
  for (const d of scratch) fs.rmSync(d, { recursive: true, force: true });
});

describe('edit and resend with Claude (real Claude Code CLI, its own session)', () => {
  it('tells the model, in the resumed session, that the previous request was replaced, and what the new one is', async () => {
    const mock = await startAnthropicMock([{ text: ['Here are the files.'] }, { text: ['Sorted by size.'] }]);
    const agent = new ClaudeAgent({
      executablePath: CLAUDE_BIN, baseUrl: mock.url, model: 'mock-model', apiKey: async () => 'test-key',
      configDir: dir('nac-claude-config-'), maxRetries: 0, env: { HOME: dir('nac-claude-home-') },
    });
    const h = await openRuntime({ agentFor: () => agent });
    try {
      const chat = await h.runtime.createSession('claude');
      assert.ok(chat.ok);
      const id = chat.value.id;
      const first = await h.runtime.submit(id, { clientId: 'c1', text: 'list the files' });
      assert.ok(first.ok && first.value.kind === 'started');
      await h.runtime.whenIdle(id);
      const resent = await h.runtime.submit(id, { clientId: 'c2', text: 'list the files, sorted by size', replacesTurnId: first.value.turnId });
      assert.ok(resent.ok && resent.value.kind === 'started', JSON.stringify(resent));
      await h.runtime.whenIdle(id);
      const main = mock.mainRequests();
      assert.equal(main.length, 2);
      const sent = userTexts(main[1]!.body);
      assert.equal(sent.at(-1), replacedPromptNote('list the files', 'list the files, sorted by size'));
      assert.ok(sent.includes('list the files'), 'the resumed session still holds the first request, hence the note');
      const turns = await h.journal.read('listTurns', id);
      assert.deepEqual(turns.map((t) => [t.prompt, t.status]), [['list the files', 'completed'], ['list the files, sorted by size', 'completed']]);
    } finally {
      await h.close();
      await mock.close();
    }
  });
});

describe('edit and resend with Codex (real codex app-server, its own thread)', { skip: CODEX ? false : 'the @openai/codex linux-x64 binary is not installed' }, () => {
  it('tells the model, in the resumed thread, that the previous request was replaced, and what the new one is', async () => {
    const mock = await ResponsesMock.start();
    mock.script({ type: 'text', text: 'Here are the files.' }, { type: 'text', text: 'Sorted by size.' });
    const agent = new CodexAgent({
      executablePath: CODEX!, codexHome: dir('nac-codex-home-'), baseUrl: mock.baseUrl, model: 'mock-model', apiKey: async () => 'test-key', interruptTimeoutMs: 3000,
    });
    const h = await openRuntime({ agentFor: () => agent });
    try {
      const chat = await h.runtime.createSession('codex');
      assert.ok(chat.ok);
      const id = chat.value.id;
      const first = await h.runtime.submit(id, { clientId: 'c1', text: 'list the files' });
      assert.ok(first.ok && first.value.kind === 'started');
      await h.runtime.whenIdle(id);
      const resent = await h.runtime.submit(id, { clientId: 'c2', text: 'list the files, sorted by size', replacesTurnId: first.value.turnId });
      assert.ok(resent.ok && resent.value.kind === 'started', JSON.stringify(resent));
      await h.runtime.whenIdle(id);
      assert.equal(mock.requests.length, 2);
      const sent = responsesUserTexts(mock.requests[1]!.body);
      assert.equal(sent.at(-1), replacedPromptNote('list the files', 'list the files, sorted by size'));
      assert.ok(sent.includes('list the files'), 'the resumed thread still holds the first request, hence the note');
      assert.deepEqual((await h.journal.read('listTurns', id)).map((t) => t.status), ['completed', 'completed']);
    } finally {
      await h.close();
      await mock.close();
    }
  });
});
