/**
 * Checkpoints of Claude Code's own file tools, with the real Claude Code CLI (the Agent SDK's) against
 * the loopback Anthropic mock (test/mocks/anthropicMock.ts): the before image journaled when the
 * tool is allowed, the after image with its result; Undo puts the file back byte for byte.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { ClaudeAgent } from '../../src/runtime/agents/claude/claudeAgent';
import { startAnthropicMock, type AnthropicMock } from '../mocks/anthropicMock';
import { openRuntime, pendingRequest, type RuntimeHarness } from './harness';
import { isolateTempDir, tempDir } from './helpers';

// The agent CLIs leave their own files in the temp directory: in this file's own, removed at exit.
isolateTempDir();

const CLAUDE_BIN = path.join(path.dirname(require.resolve('@anthropic-ai/claude-agent-sdk-linux-x64/package.json')), 'claude');
const opened: { mock: AnthropicMock; h: RuntimeHarness }[] = [];
after(async () => {
  for (const { mock, h } of opened) {
    await h.close();
    await mock.close();
  }
});

describe('checkpoints of Claude Code\'s file tools', () => {
  it('Write and Edit: before on Allow, after on the result; Undo restores the exact bytes', async () => {
    const mock = await startAnthropicMock([
      { toolUses: [{ name: 'Write', input: { file_path: 'notes.txt', content: 'one\ntwo\n' } }] },
      { toolUses: [{ name: 'Edit', input: { file_path: 'crlf.txt', old_string: 'beta', new_string: 'BETA' } }] },
      { text: ['Done.'] },
    ]);
    const agent = new ClaudeAgent(() => ({
      executablePath: CLAUDE_BIN, baseUrl: mock.url, model: 'mock-model', apiKey: async () => 'test-key', configDir: tempDir('nac-claude-config-'),
      maxRetries: 0, env: { HOME: tempDir('nac-claude-home-') },
    }));
    const h = await openRuntime({ agentFor: (p) => (p === 'claude' ? agent : undefined) });
    opened.push({ mock, h });
    fs.writeFileSync(path.join(h.workspace, 'notes.txt'), 'old notes');
    fs.writeFileSync(path.join(h.workspace, 'crlf.txt'), 'alpha\r\nbeta\r\n');
    const s = await h.runtime.createSession('claude');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'write notes, edit crlf');
    const first = await pendingRequest(h, s.value.id);
    await h.runtime.decide(s.value.id, first, 'allow_once');
    await h.runtime.decide(s.value.id, await pendingRequest(h, s.value.id, [first]), 'allow_once');
    await h.runtime.whenIdle(s.value.id);
    assert.equal(fs.readFileSync(path.join(h.workspace, 'notes.txt'), 'utf8'), 'one\ntwo\n');
    assert.equal(fs.readFileSync(path.join(h.workspace, 'crlf.txt'), 'utf8'), 'alpha\r\nBETA\r\n');
    const rows = await h.journal.read('listFileChanges', s.value.id);
    assert.deepEqual(rows.map((r) => [r.path, r.state, r.added, r.removed]), [['notes.txt', 'applied', 2, 1], ['crlf.txt', 'applied', 1, 1]]);
    const [cp] = await h.runtime.files.checkpoints(s.value.id);
    const undone = await h.runtime.files.undo(s.value.id, cp!.turnId, 'turn');
    assert.ok(undone.ok && undone.value.kind === 'applied');
    assert.deepEqual(fs.readFileSync(path.join(h.workspace, 'notes.txt')), Buffer.from('old notes'));
    assert.deepEqual(fs.readFileSync(path.join(h.workspace, 'crlf.txt')), Buffer.from('alpha\r\nbeta\r\n'));
  });
});
