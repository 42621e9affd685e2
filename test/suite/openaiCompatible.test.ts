// The OpenAI-compatible provider wired into VS Code: settings (base URL, model) and the API key in
// SecretStorage reach the real `openai` client, which talks to a mock server on 127.0.0.1.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { NativeAgentChatsApi } from '../../src/host/extension';
import { EXTENSION_ID, waitFor } from './helpers';
import { OpenAICompatibleMock, text, toolCalls } from '../mocks/openaiCompatibleMock';



suite('OpenAI-compatible provider', () => {
  let mock: OpenAICompatibleMock;
  const config = () => vscode.workspace.getConfiguration('nativeAgentChats');
  suiteSetup(async () => {
    mock = await OpenAICompatibleMock.start();
    await config().update('openaiCompatible.baseUrl', mock.baseUrl, vscode.ConfigurationTarget.Global);
    await config().update('openaiCompatible.model', 'mock-model', vscode.ConfigurationTarget.Global);
  });
  suiteTeardown(async () => {
    await config().update('openaiCompatible.baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await config().update('openaiCompatible.model', undefined, vscode.ConfigurationTarget.Global);
    await mock.close();
  });

  test('settings and the API key from SecretStorage reach the server; a tool call is approved and runs', async () => {
    const ext = vscode.extensions.getExtension<NativeAgentChatsApi>(EXTENSION_ID)!;
    const runtime = await (await ext.activate()).ready;
    const context = ext.exports.secretsForTests;
    assert.ok(context, 'the extension exposes its SecretStorage to its own tests');
    await context.store('nativeAgentChats.apiKey.openai-compatible', 'sk-suite-key');
    mock.script(toolCalls([{ id: 'call-1', name: 'run', args: { command: 'echo from-openai && true' } }], 'Running it. '), text('It printed from-openai.'));
    const sessionId = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'openai-compatible' });
    const sent = await runtime.send(sessionId, 'print something');
    assert.ok(sent.ok, !sent.ok ? sent.message : '');
    const requestId = await waitFor('a pending request', async () => (await runtime.liveState(sessionId)).actionableRequestIds[0]);
    assert.equal((await runtime.journal.read('getBoundaryRequest', requestId))?.subject, 'echo from-openai && true');
    await runtime.decide(sessionId, requestId, 'allow_once');
    await runtime.whenIdle(sessionId);
    const turn = (await runtime.transcript(sessionId)).turns[0]!;
    assert.equal(turn.status, 'completed');
    const inv = turn.items.find((i) => i.type === 'invocation');
    assert.equal(inv?.type === 'invocation' && inv.output, 'from-openai\n');
    // The chat tab's model picker may list the server's /models meanwhile: only the chat calls count here.
    const calls = mock.requests.filter((r) => r.method === 'POST' && r.url === '/v1/chat/completions');
    assert.equal(calls.length, 2);
    assert.equal(calls[0]!.body.model, 'mock-model');
    assert.equal(calls[0]!.headers.authorization, 'Bearer sk-suite-key');
    await context.delete('nativeAgentChats.apiKey.openai-compatible');
  });
});
