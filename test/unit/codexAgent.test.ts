/**
 * The Codex agent with the REAL `codex app-server` (from @openai/codex, installed in node_modules)
 * against a scripted Responses API mock on 127.0.0.1, driven through a real ChatRuntime and a journal
 * on disk: allow, deny, allow for this session, a file change with its diff, Stop mid-stream, a
 * pending approval across a host restart then Retry, Continue after a plain restart, a missing CLI,
 * an unreachable model server, and the app-server dying mid-turn. Every test checks that no Codex
 * process is left behind.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import type { Transcript, TranscriptItem } from '../../src/core/transcript';
import { codexConfigToml } from '../../src/runtime/agents/codex/codexConfig';
import { CodexAgent, displayCommand, programOf, unifiedDiff, type CodexAgentConfig } from '../../src/runtime/agents/codex/codexAgent';
import { functionOutput, ResponsesMock, userTexts } from '../mocks/responsesMock';
import { openRuntime, pendingRequest, type RuntimeHarness, type RuntimeHarnessOptions } from './harness';
import { CODEX } from './codexBinary';
import { isolateTempDir, tempDir, waitFor } from './helpers';
import { items, textOf } from './turnItems';

// The agent CLIs leave their own files in the temp directory: in this file's own, removed at exit.
isolateTempDir();

const MODEL = 'mock-model';

/** Process ids whose environment has CODEX_HOME=`home` (app-server and anything it started). */
function codexProcesses(home: string): number[] {
  const needle = `CODEX_HOME=${home}\0`;
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/environ`, 'latin1').includes(needle)) pids.push(Number(entry));
    } catch {
      // gone or not ours
    }
  }
  return pids;
}


interface Harness extends RuntimeHarness {
  config: { current: CodexAgentConfig };
}

const homes = new Set<string>();
/** Temporary folders this file made (removed at the end). */
const scratchDirs = new Set<string>();

function scratch(prefix: string): string {
  const dir = tempDir(prefix);
  scratchDirs.add(dir);
  return dir;
}
const cleanups: (() => Promise<void> | void)[] = [];

/** A codex config for `mock` with a fresh CODEX_HOME (or `home`). */
function codexConfig(mock: ResponsesMock | { baseUrl: string }, home = scratch('nac-codex-home-')): CodexAgentConfig {
  homes.add(home);
  return {
    executablePath: CODEX, codexHome: home, baseUrl: mock.baseUrl, model: MODEL, apiKey: async () => 'test-key', interruptTimeoutMs: 3000,
    ...(process.env.CODEX_TEST_LOG ? { log: (line: string) => console.error(`${Date.now() % 100000} ${line.slice(0, 600)}`), traceProtocol: true } : {}),
  };
}

async function harness(config: CodexAgentConfig, options: Omit<RuntimeHarnessOptions, 'agentFor'> = {}): Promise<Harness> {
  const holder = { current: config };
  const agent = new CodexAgent(() => holder.current);
  const h = await openRuntime({ file: options.file ?? path.join(scratch('nac-test-'), 'journal.sqlite'), workspace: options.workspace ?? scratch('nac-ws-'), ...options, agentFor: (p) => (p === 'codex' ? agent : undefined) });
  cleanups.push(() => h.close().catch(() => undefined));
  return { ...h, config: holder };
}

async function newMock(): Promise<ResponsesMock> {
  const mock = await ResponsesMock.start();
  cleanups.push(() => mock.close());
  return mock;
}

function invocation(t: Transcript, turn: number): Extract<TranscriptItem, { type: 'invocation' }> {
  const inv = items(t, turn).find((i) => i.type === 'invocation');
  assert.ok(inv && inv.type === 'invocation', 'an invocation');
  return inv;
}

function boundary(t: Transcript, turn: number): Extract<TranscriptItem, { type: 'boundary' }> {
  const card = items(t, turn).find((i) => i.type === 'boundary');
  assert.ok(card && card.type === 'boundary', 'a boundary card');
  return card;
}

function notice(t: Transcript, turn: number): string | undefined {
  const n = items(t, turn).find((i) => i.type === 'notice');
  return n?.type === 'notice' ? n.message : undefined;
}

async function providerThread(h: Harness, sessionId: string): Promise<string> {
  const state = await h.journal.read('getProviderState', sessionId);
  assert.ok(state, 'provider state journaled');
  return (JSON.parse(state) as { threadId: string }).threadId;
}

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  // No Codex process outlives its test.
  for (const home of homes) await waitFor(`no codex process for ${home}`, () => codexProcesses(home).length === 0, 5000);
});

after(() => {
  for (const dir of scratchDirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('codex agent: pure helpers', () => {
  it('unwraps the shell wrapper and names the program for the scope key', () => {
    assert.equal(displayCommand("/bin/bash -lc 'touch a.txt && echo '\"'\"'hi'\"'\"''"), "touch a.txt && echo 'hi'");
    assert.equal(displayCommand('ls -la'), 'ls -la');
    assert.equal(programOf('FOO=1 /usr/bin/make test'), 'make');
    assert.equal(programOf('touch a.txt && rm b'), 'touch');
  });

  it('turns Codex file changes into a unified diff', () => {
    const diff = unifiedDiff([
      { path: '/w/new.txt', kind: { type: 'add' }, diff: 'a\nb\n' },
      { path: '/w/old.txt', kind: { type: 'delete' }, diff: 'x\n' },
      { path: '/w/f.txt', kind: { type: 'update', move_path: null }, diff: '@@ -1 +1 @@\n-one\n+two\n' },
    ], '/w');
    assert.equal(diff, [
      '--- /dev/null', '+++ b/new.txt', '@@ -0,0 +1,2 @@', '+a', '+b',
      '--- a/old.txt', '+++ /dev/null', '@@ -1,1 +0,0 @@', '-x',
      '--- a/f.txt', '+++ b/f.txt', '@@ -1 +1 @@', '-one', '+two', '',
    ].join('\n'));
  });

  it('writes a config.toml that names the provider and turns off outside traffic', () => {
    const toml = codexConfigToml({ baseUrl: 'http://127.0.0.1:9/v1/', hasApiKey: true });
    for (const line of [
      'model_provider = "native_agent_chats"',
      'base_url = "http://127.0.0.1:9/v1"',
      'wire_api = "responses"',
      'env_key = "NATIVE_AGENT_CHATS_CODEX_API_KEY"',
      'request_max_retries = 0',
      'plugins = false',
      'apps = false',
      'remote_plugin = false',
      'unbounded_connection_retries = false',
      'shell_snapshot = false',
      'web_search = "disabled"',
      '[analytics]',
    ]) assert.ok(toml.split('\n').includes(line), line);
    assert.equal(codexConfigToml({ hasApiKey: false }).includes('env_key'), false);
    assert.ok(codexConfigToml({ hasApiKey: false }).includes('base_url = "https://api.openai.com/v1"'));
  });
});

describe('codex agent with the real codex app-server', { skip: CODEX ? false : 'the @openai/codex linux-x64 binary is not installed' }, () => {
  it('Allow once: the command runs, its output reaches the model, the reply streams', async () => {
    const mock = await newMock();
    const h = await harness(codexConfig(mock));
    mock.script({ type: 'exec', cmd: 'touch made.txt && echo made-it', justification: 'Create made.txt' }, { type: 'text', text: ['Made ', 'it.'] });
    const s = await h.runtime.createSession('codex');
    assert.ok(s.ok);
    assert.ok((await h.runtime.send(s.value.id, 'make a file')).ok);
    const requestId = await pendingRequest(h, s.value.id);
    const row = (await h.journal.read('getBoundaryRequest', requestId))!;
    assert.equal(row.kind, 'command');
    assert.equal(row.subject, 'touch made.txt && echo made-it');
    assert.equal(row.why, 'Create made.txt');
    assert.equal(row.scopeKey, 'codex:command:touch');
    assert.equal(fs.existsSync(path.join(h.workspace, 'made.txt')), false);
    // The thread was journaled before the turn ran.
    const threadId = await providerThread(h, s.value.id);
    assert.deepEqual(await h.runtime.decide(s.value.id, requestId, 'allow_once'), { ok: true, value: { approved: true } });
    await h.runtime.whenIdle(s.value.id);
    const t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[0]!.status, 'completed');
    assert.equal(fs.existsSync(path.join(h.workspace, 'made.txt')), true);
    const inv = invocation(t, 0);
    assert.equal(inv.tool, 'run');
    assert.equal(inv.summary, 'touch made.txt && echo made-it');
    assert.equal(inv.status, 'completed');
    assert.equal(inv.exitCode, 0);
    assert.equal(inv.output, 'made-it\n');
    assert.equal(boundary(t, 0).invocationId, inv.id);
    assert.equal(textOf(t, 0), 'Made it.');
    assert.equal(mock.requests.length, 2);
    assert.deepEqual(userTexts(mock.requests[0]!.body), ['make a file']);
    assert.match(functionOutput(mock.requests[1]!.body, mock.requests[0]!.callId!) ?? '', /Process exited with code 0\n[\s\S]*Output:\nmade-it\n$/);
    assert.equal(mock.requests[0]!.body.model, MODEL);
    assert.deepEqual(mock.unexpected, []);
    assert.equal(await providerThread(h, s.value.id), threadId);
  });

  it('Deny: nothing runs and the model receives the denial', async () => {
    const mock = await newMock();
    const h = await harness(codexConfig(mock));
    mock.script({ type: 'exec', cmd: 'touch nope.txt', justification: 'Create nope.txt' }, { type: 'text', text: 'Understood, I will not.' });
    const s = await h.runtime.createSession('codex');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'make nope');
    const requestId = await pendingRequest(h, s.value.id);
    await h.runtime.decide(s.value.id, requestId, 'deny');
    await h.runtime.whenIdle(s.value.id);
    assert.equal(fs.existsSync(path.join(h.workspace, 'nope.txt')), false);
    const t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[0]!.status, 'completed');
    assert.equal(invocation(t, 0).status, 'denied');
    assert.equal(boundary(t, 0).closureReason, 'user_decision');
    assert.equal(boundary(t, 0).status, 'denied');
    assert.equal(textOf(t, 0), 'Understood, I will not.');
    assert.equal(mock.requests.length, 2);
    assert.match(functionOutput(mock.requests[1]!.body, mock.requests[0]!.callId!) ?? '', /rejected by user/);
    assert.deepEqual(mock.unexpected, []);
  });

  it('Allow for this session: the next command of the same program in the chat is approved without asking, on the same thread', async () => {
    const mock = await newMock();
    const h = await harness(codexConfig(mock));
    mock.script(
      { type: 'exec', cmd: 'touch a.txt', justification: 'Create a.txt' }, { type: 'text', text: 'a done' },
      { type: 'exec', cmd: 'touch b.txt', justification: 'Create b.txt' }, { type: 'text', text: 'b done' },
    );
    const s = await h.runtime.createSession('codex');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'first prompt');
    await h.runtime.decide(s.value.id, await pendingRequest(h, s.value.id), 'allow_session');
    await h.runtime.whenIdle(s.value.id);
    const threadId = await providerThread(h, s.value.id);
    // No decision is given for the second turn: it must complete on its own.
    await h.runtime.send(s.value.id, 'second prompt');
    await h.runtime.whenIdle(s.value.id);
    assert.equal(fs.existsSync(path.join(h.workspace, 'b.txt')), true);
    const t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[1]!.status, 'completed');
    const card = boundary(t, 1);
    assert.equal(card.status, 'approved');
    assert.equal(card.closureReason, 'session_grant');
    assert.equal(card.subject, 'touch b.txt');
    assert.equal(invocation(t, 1).status, 'completed');
    assert.equal(textOf(t, 1), 'b done');
    // The second turn resumed the same Codex thread: the model saw the first exchange.
    assert.equal(await providerThread(h, s.value.id), threadId);
    assert.deepEqual(userTexts(mock.requests[2]!.body), ['first prompt', 'second prompt']);
    assert.deepEqual(mock.unexpected, []);
  });

  it('a file change asks with its diff (kind file_change) and is applied after Allow once', async () => {
    const mock = await newMock();
    const h = await harness(codexConfig(mock));
    fs.writeFileSync(path.join(h.workspace, 'greet.txt'), 'hello\nworld\n');
    mock.script({ type: 'patch', patch: '*** Update File: greet.txt\n@@\n hello\n-world\n+codex' }, { type: 'text', text: 'Edited.' });
    const s = await h.runtime.createSession('codex');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'edit greet.txt');
    const requestId = await pendingRequest(h, s.value.id);
    const expectedDiff = '--- a/greet.txt\n+++ b/greet.txt\n@@ -1,2 +1,2 @@\n hello\n-world\n+codex\n';
    const row = (await h.journal.read('getBoundaryRequest', requestId))!;
    assert.equal(row.kind, 'file_change');
    assert.equal(row.subject, 'greet.txt');
    assert.equal(row.scopeKey, 'codex:file_change');
    assert.equal(row.detail, expectedDiff);
    assert.equal(fs.readFileSync(path.join(h.workspace, 'greet.txt'), 'utf8'), 'hello\nworld\n');
    await h.runtime.decide(s.value.id, requestId, 'allow_once');
    await h.runtime.whenIdle(s.value.id);
    assert.equal(fs.readFileSync(path.join(h.workspace, 'greet.txt'), 'utf8'), 'hello\ncodex\n');
    const t = await h.runtime.transcript(s.value.id);
    const inv = invocation(t, 0);
    assert.equal(inv.tool, 'edit');
    assert.equal(inv.summary, 'greet.txt');
    assert.equal(inv.diff, expectedDiff);
    assert.equal(inv.status, 'completed');
    assert.equal(textOf(t, 0), 'Edited.');
  });

  it('Stop mid-stream ends the turn as stopped, drops the model stream and ends the process', async () => {
    const mock = await newMock();
    const config = codexConfig(mock);
    const h = await harness(config);
    mock.script({ type: 'hang', text: 'Working on it' });
    const s = await h.runtime.createSession('codex');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'long task');
    await waitFor('streamed text', async () => textOf(await h.runtime.transcript(s.value.id), 0) === 'Working on it');
    assert.equal(codexProcesses(config.codexHome).length > 0, true);
    const stoppedAt = Date.now();
    assert.deepEqual(await h.runtime.stop(s.value.id), { ok: true, value: { stopped: true } });
    await h.runtime.whenIdle(s.value.id);
    const stopMs = Date.now() - stoppedAt;
    assert.ok(stopMs < 4000, `Stop took ${stopMs} ms`);
    assert.equal((await h.runtime.transcript(s.value.id)).turns[0]!.status, 'stopped');
    await waitFor('the model stream to be dropped', () => mock.requests[0]!.closedByClient, 5000);
    assert.deepEqual(codexProcesses(config.codexHome), []);
    assert.equal((await h.runtime.liveState(s.value.id)).running, false);
  });

  it('Stop while Codex waits for an approval closes the request as run_stopped and runs nothing', async () => {
    const mock = await newMock();
    const config = codexConfig(mock);
    const h = await harness(config);
    mock.script({ type: 'exec', cmd: 'touch stopped.txt', justification: 'Create stopped.txt' });
    const s = await h.runtime.createSession('codex');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'make stopped.txt');
    const requestId = await pendingRequest(h, s.value.id);
    await h.runtime.stop(s.value.id);
    await h.runtime.whenIdle(s.value.id);
    const t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[0]!.status, 'stopped');
    const row = (await h.journal.read('getBoundaryRequest', requestId))!;
    assert.equal(row.status, 'denied');
    assert.equal(row.closureReason, 'run_stopped');
    assert.equal(invocation(t, 0).status, 'stopped');
    assert.equal(invocation(t, 0).message, 'Stopped.');
    assert.equal(fs.existsSync(path.join(h.workspace, 'stopped.txt')), false);
    assert.equal(mock.requests.length, 1);
    assert.deepEqual(codexProcesses(config.codexHome), []);
  });

  it('a pending approval across a host restart: the turn is closed by the restart; Retry resumes the thread and asks again', async () => {
    const mock = await newMock();
    const config = codexConfig(mock);
    const a = await harness(config, { instance: 'host-a' });
    mock.script({ type: 'exec', cmd: 'touch proof.txt && echo proof', justification: 'Create proof.txt' });
    const s = await a.runtime.createSession('codex');
    assert.ok(s.ok);
    await a.runtime.send(s.value.id, 'make proof');
    const firstRequest = await pendingRequest(a, s.value.id);
    const threadId = await providerThread(a, s.value.id);
    // Host A dies: it writes nothing more; its agent ends its Codex process.
    a.runtime.dispose();
    await a.runtime.whenIdle(s.value.id);
    await a.journal.close();
    await waitFor('host A codex to exit', () => codexProcesses(config.codexHome).length === 0, 5000);

    const b = await harness(config, { file: a.file, workspace: a.workspace, instance: 'host-b', dead: ['host-a'] });
    const failed = (await b.runtime.transcript(s.value.id)).turns[0]!;
    assert.equal(failed.status, 'failed');
    assert.equal(failed.errorClass, 'sandbox_boundary_closed_by_restart');
    assert.equal(boundary(await b.runtime.transcript(s.value.id), 0).closureReason, 'host_restarted');
    assert.equal(fs.existsSync(path.join(a.workspace, 'proof.txt')), false);

    mock.script({ type: 'exec', cmd: 'touch proof.txt && echo proof', justification: 'Create proof.txt' }, { type: 'text', text: 'Proof made.' });
    assert.ok((await b.runtime.retry(s.value.id, failed.id)).ok);
    const secondRequest = await pendingRequest(b, s.value.id, [firstRequest]);
    assert.notEqual(secondRequest, firstRequest);
    await b.runtime.decide(s.value.id, secondRequest, 'allow_once');
    await b.runtime.whenIdle(s.value.id);
    const t = await b.runtime.transcript(s.value.id);
    assert.equal(t.turns[1]!.origin, 'retry');
    assert.equal(t.turns[1]!.status, 'completed');
    assert.equal(invocation(t, 1).output, 'proof\n');
    assert.equal(textOf(t, 1), 'Proof made.');
    assert.equal(fs.existsSync(path.join(a.workspace, 'proof.txt')), true);
    // Retry resumed the same thread: the model saw the first attempt, its aborted call, and the prompt again.
    assert.equal(await providerThread(b, s.value.id), threadId);
    const retried = mock.requests[1]!.body;
    assert.deepEqual(userTexts(retried), ['make proof', 'make proof']);
    assert.match(functionOutput(retried, mock.requests[0]!.callId!) ?? '', /\naborted by user$/);
    assert.deepEqual(mock.unexpected, []);
  });

  it('Continue after a plain restart resumes the thread and asks Codex to carry on', async () => {
    const mock = await newMock();
    const config = codexConfig(mock);
    const a = await harness(config, { instance: 'host-a' });
    mock.script({ type: 'hang', text: 'First half' });
    const s = await a.runtime.createSession('codex');
    assert.ok(s.ok);
    await a.runtime.send(s.value.id, 'write a poem');
    await waitFor('streamed text', async () => textOf(await a.runtime.transcript(s.value.id), 0) === 'First half');
    const threadId = await providerThread(a, s.value.id);
    a.runtime.dispose();
    await a.runtime.whenIdle(s.value.id);
    await a.journal.close();

    const b = await harness(config, { file: a.file, workspace: a.workspace, instance: 'host-b', dead: ['host-a'] });
    const failed = (await b.runtime.transcript(s.value.id)).turns[0]!;
    assert.equal(failed.errorClass, 'app_restarted');
    mock.script({ type: 'text', text: 'Second half.' });
    assert.ok((await b.runtime.continueTurn(s.value.id, failed.id)).ok);
    await b.runtime.whenIdle(s.value.id);
    const t = await b.runtime.transcript(s.value.id);
    assert.equal(t.turns[1]!.origin, 'continue');
    assert.equal(t.turns[1]!.status, 'completed');
    assert.equal(textOf(t, 1), 'Second half.');
    assert.equal(await providerThread(b, s.value.id), threadId);
    const continued = userTexts(mock.requests[1]!.body);
    assert.equal(continued.length, 2);
    assert.equal(continued[0], 'write a poem');
    assert.match(continued[1]!, /^Your previous reply was interrupted because the editor restarted\. Continue where you left off/);
    assert.deepEqual(mock.unexpected, []);
  });

  it('a missing CLI fails the turn as agent_unavailable naming the setting and the install command; the chat stays usable', async () => {
    const mock = await newMock();
    const good = codexConfig(mock);
    const h = await harness({ ...good, executablePath: '/nonexistent/codex' });
    const s = await h.runtime.createSession('codex');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'hello');
    await h.runtime.whenIdle(s.value.id);
    let t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[0]!.status, 'failed');
    assert.equal(t.turns[0]!.errorClass, 'agent_unavailable');
    assert.equal(notice(t, 0), 'Codex was not found at /nonexistent/codex (setting nativeAgentChats.codex.executablePath). Fix the path, or clear it to use codex from PATH. To install Codex: npm install -g @openai/codex.');

    h.config.current = { ...good, executablePath: undefined, envPath: scratch('nac-empty-path-') };
    await h.runtime.send(s.value.id, 'hello again');
    await h.runtime.whenIdle(s.value.id);
    t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[1]!.errorClass, 'agent_unavailable');
    assert.equal(notice(t, 1), 'Codex (`codex`) is not installed or not on PATH. Install it (npm install -g @openai/codex) or set nativeAgentChats.codex.executablePath.');

    h.config.current = good;
    mock.script({ type: 'text', text: 'Hello.' });
    await h.runtime.send(s.value.id, 'third time');
    await h.runtime.whenIdle(s.value.id);
    t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[2]!.status, 'completed');
    assert.equal(textOf(t, 2), 'Hello.');
    assert.equal(mock.requests.length, 1);
  });

  it('no base URL and no API key fails as agent_unavailable before starting Codex', async () => {
    const mock = await newMock();
    const config = codexConfig(mock);
    const h = await harness({ ...config, baseUrl: undefined, apiKey: async () => undefined });
    const s = await h.runtime.createSession('codex');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'hello');
    await h.runtime.whenIdle(s.value.id);
    const t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[0]!.errorClass, 'agent_unavailable');
    assert.equal(notice(t, 0), 'Codex needs an OpenAI API key for https://api.openai.com/v1. Set the API key, or set nativeAgentChats.codex.baseUrl to a model server that needs none.');
    assert.equal(fs.existsSync(path.join(config.codexHome, 'config.toml')), false);
  });

  it('an unreachable model server fails fast as agent_unavailable naming the URL; the next turn resumes the thread', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/v1`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const mock = await newMock();
    const good = codexConfig(mock);
    const h = await harness({ ...good, baseUrl: deadUrl });
    const s = await h.runtime.createSession('codex');
    assert.ok(s.ok);
    const startedAt = Date.now();
    await h.runtime.send(s.value.id, 'are you there');
    await h.runtime.whenIdle(s.value.id);
    assert.ok(Date.now() - startedAt < 15_000);
    let t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[0]!.errorClass, 'agent_unavailable');
    assert.equal(
      notice(t, 0),
      `Codex could not reach the model server at ${deadUrl}: Connection failed: error sending request. Check that it is running, or change nativeAgentChats.codex.baseUrl.`,
    );
    h.config.current = good;
    mock.script({ type: 'text', text: 'Here now.' });
    await h.runtime.send(s.value.id, 'and now');
    await h.runtime.whenIdle(s.value.id);
    t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[1]!.status, 'completed');
    assert.equal(textOf(t, 1), 'Here now.');
    assert.deepEqual(userTexts(mock.requests[0]!.body), ['are you there', 'and now']);
  });

  it('the app-server dying mid-turn fails the turn as agent_error (no hang)', async () => {
    const mock = await newMock();
    const config = codexConfig(mock);
    const h = await harness(config);
    mock.script({ type: 'hang', text: 'Thinking' });
    const s = await h.runtime.createSession('codex');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'think');
    await waitFor('streamed text', async () => textOf(await h.runtime.transcript(s.value.id), 0) === 'Thinking');
    for (const pid of codexProcesses(config.codexHome)) process.kill(pid, 'SIGKILL');
    await h.runtime.whenIdle(s.value.id);
    const t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[0]!.status, 'failed');
    assert.equal(t.turns[0]!.errorClass, 'agent_error');
    assert.match(notice(t, 0) ?? '', /^The Codex app-server was killed \(SIGKILL\) before the turn finished/);
  });
});
