// The agent picker's notes on what a provider still lacks here (src/host/providers.ts), read from
// this VS Code's settings and language models. A fresh user picked Claude, Codex or the VS Code LM
// provider and learned only from a failed first message that it was not set up.
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import * as vscode from 'vscode';
import { PROVIDERS, providerReadiness } from '../../src/host/providers';
import { contributedSettingIds, openOwnSetting } from '../../src/host/openSetting';

suite('agent picker notes', () => {
  const config = () => vscode.workspace.getConfiguration('nativeAgentChats');
  teardown(async () => {
    await config().update('codex.executablePath', undefined, vscode.ConfigurationTarget.Global);
    await config().update('claude.executablePath', undefined, vscode.ConfigurationTarget.Global);
    await config().update('openaiCompatible.baseUrl', undefined, vscode.ConfigurationTarget.Global);
  });

  test('a CLI at a configured path that does not exist is named; one that exists adds no note', async () => {
    await config().update('codex.executablePath', '/nonexistent/codex', vscode.ConfigurationTarget.Global);
    assert.equal(await providerReadiness('codex'), '$(warning) codex not found at /nonexistent/codex');
    await config().update('claude.executablePath', process.execPath, vscode.ConfigurationTarget.Global);
    assert.equal(await providerReadiness('claude'), '');
  });

  test('the OpenAI-compatible provider names its server, or says nothing answers there; the local agent needs nothing', async () => {
    const server = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      await config().update('openaiCompatible.baseUrl', `http://127.0.0.1:${port}/v1`, vscode.ConfigurationTarget.Global);
      assert.equal(await providerReadiness('openai-compatible'), `server http://127.0.0.1:${port}/v1`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    // The port is free again: nothing answers there now.
    assert.equal(await providerReadiness('openai-compatible'), `$(warning) nothing answers at http://127.0.0.1:${port}/v1`);
    await config().update('openaiCompatible.baseUrl', 'not a url', vscode.ConfigurationTarget.Global);
    assert.equal(await providerReadiness('openai-compatible'), '$(warning) nothing answers at not a url');
    assert.equal(await providerReadiness('local'), '');
  });

  test('the VS Code LM provider says when no language model is available', async () => {
    const models = await vscode.lm.selectChatModels({});
    assert.equal(await providerReadiness('vscode-lm'), models.length > 0 ? '' : '$(warning) no language model available (e.g. install GitHub Copilot Chat)');
  });
});

suite('words of the agent picker', () => {
  test('are plain text: a quick pick shows markdown literally', () => {
    // A fresh user saw the Codex entry's `codex app-server` with its backticks.
    for (const p of PROVIDERS) {
      for (const text of [p.label, p.detail]) assert.doesNotMatch(text, /`/, `${p.id}: ${text}`);
    }
  });
});

suite('a setting name clicked in a chat message', () => {
  const self = () => vscode.extensions.all.find((e) => e.packageJSON?.contributes?.configuration && contributedSettingIds(e.packageJSON).has('nativeAgentChats.claude.executablePath'))!;

  test('opens only settings this extension contributes', async () => {
    const ids = contributedSettingIds(self().packageJSON);
    assert.ok(ids.has('nativeAgentChats.codex.baseUrl'));
    assert.ok(!ids.has('editor.fontSize'));
    assert.equal(await openOwnSetting('nativeAgentChats.noSuchSetting', self().extensionUri), false);
    assert.equal(await openOwnSetting('editor.fontSize', self().extensionUri), false);
    assert.equal(await openOwnSetting('nativeAgentChats.claude.executablePath', self().extensionUri), true);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  test('reads the setting ids of a manifest of either shape, and nothing from a malformed one', () => {
    assert.deepEqual([...contributedSettingIds({ contributes: { configuration: { properties: { 'a.b': {} } } } })], ['a.b']);
    assert.deepEqual([...contributedSettingIds({ contributes: { configuration: [{ properties: { 'a.b': {} } }, { properties: { 'a.c': {} } }] } })], ['a.b', 'a.c']);
    assert.deepEqual([...contributedSettingIds(undefined)], []);
    assert.deepEqual([...contributedSettingIds({ contributes: { configuration: 'x' } })], []);
  });
});
