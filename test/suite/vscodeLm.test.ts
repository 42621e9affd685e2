// The vscode.lm provider against the real Language Model API of the extension host: a scripted
// model (test/fixtures/lm-provider, vendor "nac-test") asks to run a command through the product's
// tool runtime; the boundary request is journaled, allowed, and the tool result reaches the model.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { NativeAgentChatsApi } from '../../src/host/extension';
import { EXTENSION_ID, waitFor } from './helpers';



suite('VS Code language model provider', () => {
  suiteSetup(async () => {
    await vscode.workspace.getConfiguration('nativeAgentChats').update('vscodeLm.vendor', 'nac-test', vscode.ConfigurationTarget.Global);
  });
  suiteTeardown(async () => {
    await vscode.workspace.getConfiguration('nativeAgentChats').update('vscodeLm.vendor', undefined, vscode.ConfigurationTarget.Global);
  });

  test('the test model is visible through vscode.lm', async () => {
    const models = await waitFor('the nac-test model', async () => {
      const found = await vscode.lm.selectChatModels({ vendor: 'nac-test' });
      return found.length > 0 ? found : undefined;
    });
    assert.equal(models[0]!.id, 'nac-test-model');
  });

  test('a tool call becomes a journaled boundary request; allowed, its output reaches the model', async () => {
    const runtime = await (await vscode.extensions.getExtension<NativeAgentChatsApi>(EXTENSION_ID)!.activate()).ready;
    const sessionId = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'vscode-lm' });
    assert.equal((await runtime.getSession(sessionId))?.provider, 'vscode-lm');
    const sent = await runtime.send(sessionId, 'please run echo lm-said-hi && true');
    assert.ok(sent.ok, !sent.ok ? sent.message : '');
    const requestId = await waitFor('a pending request', async () => (await runtime.liveState(sessionId)).actionableRequestIds[0]);
    const row = await runtime.journal.read('getBoundaryRequest', requestId);
    assert.equal(row?.subject, 'echo lm-said-hi && true');
    assert.equal(row?.kind, 'command');
    assert.deepEqual(await runtime.decide(sessionId, requestId, 'allow_once'), { ok: true, value: { approved: true } });
    await runtime.whenIdle(sessionId);
    const turn = (await runtime.transcript(sessionId)).turns[0]!;
    assert.equal(turn.status, 'completed');
    const inv = turn.items.find((i) => i.type === 'invocation');
    assert.equal(inv?.type === 'invocation' && inv.output, 'lm-said-hi\n');
    const text = turn.items.filter((i) => i.type === 'text').map((i) => (i.type === 'text' ? i.text : '')).join('');
    assert.match(text, /The tool said: lm-said-hi/);
  });

  test('a denied tool call is reported to the model as not run', async () => {
    const runtime = await (await vscode.extensions.getExtension<NativeAgentChatsApi>(EXTENSION_ID)!.activate()).ready;
    const sessionId = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'vscode-lm' });
    await runtime.send(sessionId, 'run touch should-not-exist.txt');
    const requestId = await waitFor('a pending request', async () => (await runtime.liveState(sessionId)).actionableRequestIds[0]);
    await runtime.decide(sessionId, requestId, 'deny');
    await runtime.whenIdle(sessionId);
    const turn = (await runtime.transcript(sessionId)).turns[0]!;
    const text = turn.items.filter((i) => i.type === 'text').map((i) => (i.type === 'text' ? i.text : '')).join('');
    assert.match(text, /The tool said: Not run: the user denied this request/);
  });

  test('with no matching model the turn fails as agent_unavailable and says what to install', async () => {
    const runtime = await (await vscode.extensions.getExtension<NativeAgentChatsApi>(EXTENSION_ID)!.activate()).ready;
    await vscode.workspace.getConfiguration('nativeAgentChats').update('vscodeLm.vendor', 'no-such-vendor', vscode.ConfigurationTarget.Global);
    try {
      const sessionId = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'vscode-lm' });
      await runtime.send(sessionId, 'hello');
      await runtime.whenIdle(sessionId);
      const turn = (await runtime.transcript(sessionId)).turns[0]!;
      assert.equal(turn.status, 'failed');
      assert.equal(turn.errorClass, 'agent_unavailable');
      const notice = turn.items.find((i) => i.type === 'notice');
      assert.match(notice?.type === 'notice' ? notice.message : '', /No VS Code language model matches \(vendor "no-such-vendor"\)/);
    } finally {
      await vscode.workspace.getConfiguration('nativeAgentChats').update('vscodeLm.vendor', 'nac-test', vscode.ConfigurationTarget.Global);
    }
  });
});
