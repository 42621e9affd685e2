/**
 * Checkpoints of the OpenAI-compatible agent's `write` tool calls (the product's own tool runtime),
 * with the real agent against the loopback chat-completions mock (test/mocks/openaiCompatibleMock.ts):
 * the before and after images journaled with the invocation; Undo puts the non-UTF-8 file back.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { contentHash } from '../../src/journal/contentHash';
import { createOpenAICompatibleAgent } from '../../src/runtime/agents/openaiCompatible/openaiCompatibleAgent';
import { OpenAICompatibleMock, text, toolCalls } from '../mocks/openaiCompatibleMock';
import { openRuntime, type RuntimeHarness } from './harness';

const opened: (OpenAICompatibleMock | RuntimeHarness)[] = [];
after(async () => {
  for (const o of opened.reverse()) await o.close();
});

describe('checkpoints of the OpenAI-compatible agent', () => {
  it('a write tool call journals the file before and after; Undo restores the Latin-1 bytes', async () => {
    const mock = await OpenAICompatibleMock.start();
    opened.push(mock);
    const h = await openRuntime({
      agentFor: (p) => (p === 'openai-compatible' ? createOpenAICompatibleAgent({ baseUrl: mock.baseUrl, model: 'm', apiKey: async () => undefined }) : undefined),
    });
    opened.push(h);
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0d, 0x0a]);
    fs.writeFileSync(path.join(h.workspace, 'menu.txt'), latin1);
    mock.script(toolCalls([{ id: 'w1', name: 'write', args: { path: 'menu.txt', content: 'café\n' } }]), text('Rewrote it.'));
    const s = await h.runtime.createSession('openai-compatible');
    assert.ok(s.ok);
    const sent = await h.runtime.send(s.value.id, 'rewrite the menu');
    assert.ok(sent.ok);
    await h.runtime.whenIdle(s.value.id);
    assert.equal(fs.readFileSync(path.join(h.workspace, 'menu.txt'), 'utf8'), 'café\n');
    const [row] = await h.journal.read('listFileChanges', s.value.id);
    assert.deepEqual([row!.path, row!.state, row!.before.hash, row!.after?.hash], ['menu.txt', 'applied', contentHash(latin1), contentHash('café\n')]);
    assert.deepEqual(Buffer.from((await h.journal.read('getContent', row!.before.hash!))!), latin1);
    const undone = await h.runtime.files.undo(s.value.id, sent.value.turnId, 'turn');
    assert.ok(undone.ok && undone.value.kind === 'applied');
    assert.deepEqual(fs.readFileSync(path.join(h.workspace, 'menu.txt')), latin1);
  });
});
