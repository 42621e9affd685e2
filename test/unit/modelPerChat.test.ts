/**
 * The model picked per chat (schema 9), through the runtime and a journal on disk: a turn records
 * the model it ran with (the chat's choice, else the provider's setting), the agent is asked for
 * that model, the choice survives a reopen and reaches another window, and a bad name is refused.
 * Also the real OpenAI-compatible client against its loopback mock: the request carries the chosen
 * model, and the server's `/models` fills the picker.
 */
import { strict as assert } from 'node:assert';
import { after, describe, it } from 'node:test';
import type { Agent } from '../../src/runtime/agent';
import { chatMarkdown } from '../../src/runtime/chatExport';
import { openAICompatibleModels } from '../../src/runtime/agents/modelLists';
import { createOpenAICompatibleAgent } from '../../src/runtime/agents/openaiCompatible/openaiCompatibleAgent';
import { OpenAICompatibleMock, text } from '../mocks/openaiCompatibleMock';
import { openRuntime } from './harness';
import { openJournal, waitFor } from './helpers';

/** An agent that records the model each turn asked it for and answers at once. */
function recordingAgent(): { agent: Agent; asked: (string | undefined)[] } {
  const asked: (string | undefined)[] = [];
  const agent: Agent = {
    provider: 'openai-compatible',
    label: 'Recorder',
    async runTurn(request, ctx) {
      asked.push(request.model);
      ctx.text('done');
      return { status: 'completed' };
    },
  };
  return { agent, asked };
}

const mocks: OpenAICompatibleMock[] = [];
after(async () => {
  for (const m of mocks) await m.close();
});

describe('the model per chat', () => {
  it('records on each turn the model it ran with: the setting, then the chat\'s choice, then the setting again', async () => {
    const { agent, asked } = recordingAgent();
    const h = await openRuntime({ agentFor: () => agent, defaultModel: (p) => (p === 'openai-compatible' ? 'llama3.2' : null) });
    try {
      const chat = await h.runtime.createSession('openai-compatible');
      assert.ok(chat.ok);
      const id = chat.value.id;
      assert.equal(chat.value.model ?? null, null, 'a new chat has no model of its own');
      const turn = async (prompt: string) => {
        const sent = await h.runtime.send(id, prompt);
        assert.ok(sent.ok, JSON.stringify(sent));
        await h.runtime.whenIdle(id);
        return (await h.journal.read('getTurn', sent.value.turnId))!;
      };
      assert.equal((await turn('one')).model, 'llama3.2');
      const picked = await h.runtime.setModel(id, '  qwen2.5-coder:7b ');
      assert.ok(picked.ok);
      assert.equal(picked.value.model, 'qwen2.5-coder:7b', 'trimmed');
      assert.equal((await turn('two')).model, 'qwen2.5-coder:7b');
      const back = await h.runtime.setModel(id, null);
      assert.ok(back.ok);
      assert.equal(back.value.model, null);
      assert.equal((await turn('three')).model, 'llama3.2');
      assert.deepEqual(asked, ['llama3.2', 'qwen2.5-coder:7b', 'llama3.2'], 'the agent was asked for the model each turn recorded');
      const turns = await h.journal.read('listTurns', id);
      assert.deepEqual(turns.map((t) => t.model), ['llama3.2', 'qwen2.5-coder:7b', 'llama3.2'], 'earlier turns keep theirs');
      const md = (await chatMarkdown(h.runtime, (await h.runtime.getSession(id))!)).markdown;
      assert.match(md, /## Turn 2\n\n\*Sent [^\n]* · Model `qwen2\.5-coder:7b`\*\n/, 'the export says which model a turn ran with');
    } finally {
      await h.close();
    }
  });

  it('leaves the model to the agent when neither the chat nor the settings name one', async () => {
    const { agent, asked } = recordingAgent();
    const h = await openRuntime({ agentFor: () => agent });
    try {
      const chat = await h.runtime.createSession('openai-compatible');
      assert.ok(chat.ok);
      const sent = await h.runtime.send(chat.value.id, 'hello');
      assert.ok(sent.ok);
      await h.runtime.whenIdle(chat.value.id);
      assert.equal((await h.journal.read('getTurn', sent.value.turnId))!.model, null);
      assert.deepEqual(asked, [undefined]);
    } finally {
      await h.close();
    }
  });

  it('refuses a name that is empty, too long or holds control characters, and changes nothing', async () => {
    const { agent } = recordingAgent();
    const h = await openRuntime({ agentFor: () => agent });
    try {
      const chat = await h.runtime.createSession('openai-compatible');
      assert.ok(chat.ok);
      assert.ok((await h.runtime.setModel(chat.value.id, 'kept')).ok);
      for (const bad of ['   ', 'x'.repeat(201), 'a\nb', 'tab\there']) {
        const r = await h.runtime.setModel(chat.value.id, bad);
        assert.equal(r.ok, false, JSON.stringify(bad));
        assert.equal(!r.ok && r.reason, 'invalid');
      }
      assert.equal((await h.runtime.getSession(chat.value.id))!.model, 'kept');
      const unknown = await h.runtime.setModel('no-such-chat', 'm');
      assert.equal(!unknown.ok && unknown.reason, 'not_found');
    } finally {
      await h.close();
    }
  });

  it('reaches another window, which hears the chat changed, and survives a reopen', async () => {
    const { agent } = recordingAgent();
    const h = await openRuntime({ agentFor: () => agent });
    const other = await openJournal(h.file);
    try {
      const chat = await h.runtime.createSession('openai-compatible');
      assert.ok(chat.ok);
      const heard: string[] = [];
      other.onExternalChange((ids) => heard.push(...ids));
      assert.ok((await h.runtime.setModel(chat.value.id, 'gpt-4o')).ok);
      await waitFor('the other window to hear of the change', () => heard.includes(chat.value.id));
      assert.equal((await other.read('getSession', chat.value.id))!.model, 'gpt-4o');
    } finally {
      await other.close();
      await h.close();
    }
    const reopened = await openJournal(h.file);
    try {
      const session = (await reopened.read('listSessions'))[0]!;
      assert.equal(session.model, 'gpt-4o');
    } finally {
      await reopened.close();
    }
  });
});

describe('the OpenAI-compatible server and the picked model (real openai client, loopback mock)', () => {
  it('sends the chat\'s model in the request, not the setting\'s', async () => {
    const mock = await OpenAICompatibleMock.start();
    mocks.push(mock);
    mock.script(text('hi'));
    const agent = createOpenAICompatibleAgent({ baseUrl: mock.baseUrl, model: 'llama3.2' });
    const h = await openRuntime({ agentFor: () => agent, defaultModel: () => 'llama3.2' });
    try {
      const chat = await h.runtime.createSession('openai-compatible');
      assert.ok(chat.ok);
      assert.ok((await h.runtime.setModel(chat.value.id, 'qwen2.5-coder:7b')).ok);
      const sent = await h.runtime.send(chat.value.id, 'hello');
      assert.ok(sent.ok);
      await h.runtime.whenIdle(chat.value.id);
      const completions = mock.requests.filter((r) => r.url === '/v1/chat/completions');
      assert.equal(completions.length, 1);
      assert.equal(completions[0]!.body.model, 'qwen2.5-coder:7b');
      assert.equal((await h.journal.read('getTurn', sent.value.turnId))!.status, 'completed');
    } finally {
      await h.close();
    }
  });

  it('lists the server\'s models for the picker, the setting\'s first; a server that cannot be reached leaves the setting and a note', async () => {
    const mock = await OpenAICompatibleMock.start();
    mocks.push(mock);
    mock.models = ['qwen2.5-coder:7b', 'llama3.2', 'mistral'];
    const listed = await openAICompatibleModels({ baseUrl: `${mock.baseUrl}/`, configured: 'llama3.2' });
    assert.deepEqual(listed.models.map((m) => m.id), ['llama3.2', 'mistral', 'qwen2.5-coder:7b']);
    assert.equal(listed.note, undefined);
    assert.ok(mock.requests.some((r) => r.method === 'GET' && r.url === '/v1/models'), 'asked the server');
    const baseUrl = mock.baseUrl;
    await mock.close();
    const down = await openAICompatibleModels({ baseUrl, configured: 'llama3.2', timeoutMs: 2000 });
    assert.deepEqual(down.models.map((m) => m.id), ['llama3.2']);
    assert.match(down.note ?? '', /did not list its models/);
  });
});
