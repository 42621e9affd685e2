// The vscode.lm provider against the real Language Model API of the extension host: a scripted
// model (test/fixtures/lm-provider, vendor "nac-test") asks to run a command through the product's
// tool runtime; the boundary request is journaled, allowed, and the tool result reaches the model.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { NativeAgentChatsApi } from '../../src/host/extension';
import { VscodeLmAgent } from '../../src/host/vscodeLmAgent';
import { ContextSpy, turnRequest } from '../unit/agentContextSpy';
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

  test('Allow for this session approves the same program again in this chat without asking', async () => {
    const runtime = await (await vscode.extensions.getExtension<NativeAgentChatsApi>(EXTENSION_ID)!.activate()).ready;
    const sessionId = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'vscode-lm' });
    await runtime.send(sessionId, 'run node -e 1');
    const first = await waitFor('a pending request', async () => (await runtime.liveState(sessionId)).actionableRequestIds[0]);
    assert.equal((await runtime.journal.read('getBoundaryRequest', first))?.scopeKey, 'command:node');
    await runtime.decide(sessionId, first, 'allow_session');
    await runtime.whenIdle(sessionId);
    await runtime.send(sessionId, 'run node -e 2');
    await runtime.whenIdle(sessionId);
    const second = (await runtime.transcript(sessionId)).turns[1]!;
    const card = second.items.find((i) => i.type === 'boundary');
    assert.equal(card?.type === 'boundary' && card.closureReason, 'session_grant');
    assert.equal(second.status, 'completed');
  });

  test('Stop mid-stream ends the turn as stopped and cancels the model request', async () => {
    const runtime = await (await vscode.extensions.getExtension<NativeAgentChatsApi>(EXTENSION_ID)!.activate()).ready;
    const sessionId = await vscode.commands.executeCommand<string>('nativeAgentChats.newChat', { provider: 'vscode-lm' });
    await runtime.send(sessionId, 'tell me slowly');
    await waitFor('some streamed text', async () => {
      const t = (await runtime.transcript(sessionId)).turns[0];
      return t?.items.some((i) => i.type === 'text' && i.text.includes('word3')) ? true : undefined;
    });
    assert.deepEqual(await runtime.stop(sessionId), { ok: true, value: { stopped: true } });
    await runtime.whenIdle(sessionId);
    const turn = (await runtime.transcript(sessionId)).turns[0]!;
    assert.equal(turn.status, 'stopped');
    const text = turn.items.filter((i) => i.type === 'text').map((i) => (i.type === 'text' ? i.text : '')).join('');
    assert.equal(text.includes('word99'), false, 'the stream went on after Stop');
  });

  test('the prompt is acknowledged once, when sendRequest resolved: the model has it and no text came yet; a refusal comes after it', async () => {
    const requests = (globalThis as { __nacTestModelRequests?: string[][] }).__nacTestModelRequests;
    assert.ok(requests, 'the test model records its requests');
    const carrying = (prompt: string) => () => requests.filter((r) => r[r.length - 1] === prompt).length;
    const agent = new VscodeLmAgent(() => ({ vendor: 'nac-test' }));
    const spy = new ContextSpy(carrying('hello delivery'));
    assert.deepEqual(await agent.runTurn(turnRequest('hello delivery', __dirname), spy.context), { status: 'completed' });
    const acks = spy.calls('promptDelivered');
    assert.equal(acks.length, 1);
    assert.equal(acks[0]!.probe, 1, 'the model had the prompt when it was acknowledged');
    assert.ok(spy.indexOf('promptDelivered') < spy.indexOf('text'), 'acknowledged before the first text');
    assert.equal(spy.text(), 'You said: hello delivery ');

    // VS Code resolves sendRequest once the provider has the request; the provider's error comes
    // through the stream after that: the prompt was delivered, and the turn fails.
    const refused = new ContextSpy(carrying('refuse me'));
    const outcome = await agent.runTurn(turnRequest('refuse me', __dirname), refused.context);
    assert.equal(outcome.status === 'failed' && outcome.errorClass, 'agent_error');
    assert.match(outcome.status === 'failed' ? outcome.message : '', /nac-test refuses this request/);
    assert.deepEqual(refused.calls('promptDelivered').map((e) => e.probe), [1]);
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
