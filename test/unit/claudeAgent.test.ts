/**
 * The Claude agent with the REAL Claude Code CLI (the binary shipped in
 * `@anthropic-ai/claude-agent-sdk-linux-x64`) driven through a real `ChatRuntime` and a journal on
 * disk, talking to a scripted Anthropic Messages API mock on 127.0.0.1 (`test/mocks/anthropicMock.ts`).
 * Covers allow, deny, allow for this session, Stop mid-stream, a pending approval across a host
 * restart then Retry, Continue after a plain restart, and a missing CLI / unreachable or failing
 * model server. Plus fast pure tests of the tool mapping and the environment.
 * Each CLI run costs about 1 s and 220 MB; the file keeps the number of runs small.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import type { Transcript, TranscriptItem } from '../../src/core/transcript';
import {
  CLAUDE_CONTINUE_PROMPT, ClaudeAgent, claudeEnvironment, parseClaudeProviderState, promptWithHistory, type ClaudeAgentConfig,
} from '../../src/runtime/agents/claude/claudeAgent';
import { describeToolRequest, programOf, unifiedDiff } from '../../src/runtime/agents/claude/claudeTools';
import {
  flattenMessages, sessionIdOf, startAnthropicMock, toolResults, toolResultText, userTexts, type AnthropicMock, type MockReply,
} from '../mocks/anthropicMock';
import { openRuntime, pendingRequest, type RuntimeHarness, type RuntimeHarnessOptions } from './harness';
import { isolateTempDir, tempDir, waitFor } from './helpers';
import { items, textOf } from './turnItems';

// The agent CLIs leave their own files in the temp directory: in this file's own, removed at exit.
isolateTempDir();

const CLAUDE_BIN = path.join(path.dirname(require.resolve('@anthropic-ai/claude-agent-sdk-linux-x64/package.json')), 'claude');

interface Harness extends RuntimeHarness {
  logs: string[];
}

interface HarnessOptions extends Pick<RuntimeHarnessOptions, 'file' | 'workspace' | 'instance' | 'dead'> {
  configDir?: string;
  config?: () => Partial<ClaudeAgentConfig>;
}

const mocks: AnthropicMock[] = [];
const scratchHome = tempDir('nac-claude-home-');
/** Everything a test opened, closed in `after` even when the test failed half-way. */
const cleanups: (() => Promise<void> | void)[] = [];

async function mockWith(script: MockReply[]): Promise<AnthropicMock> {
  const mock = await startAnthropicMock(script);
  mocks.push(mock);
  return mock;
}

async function harness(mock: AnthropicMock | undefined, o: HarnessOptions = {}): Promise<Harness & { configDir: string }> {
  const configDir = o.configDir ?? tempDir('nac-claude-config-');
  const logs: string[] = [];
  const agent = new ClaudeAgent(() => ({
    executablePath: CLAUDE_BIN,
    baseUrl: mock?.url,
    model: 'mock-model',
    apiKey: async () => 'test-key',
    configDir,
    maxRetries: 0,
    // A scratch HOME: Claude Code's Bash tool sources ~/.bashrc for its shell snapshot, and this
    // machine's (pyenv hooks) can take tens of seconds under load.
    env: { HOME: scratchHome },
    log: (line) => {
      logs.push(line);
      if (process.env.DEBUG_CLAUDE_TEST) console.error(`${new Date().toISOString()} ${line}`);
    },
    ...o.config?.(),
  }));
  const h = await openRuntime({ file: o.file, workspace: o.workspace, instance: o.instance, dead: o.dead, agentFor: (p) => (p === 'claude' ? agent : undefined) });
  cleanups.push(h.close);
  return { ...h, logs, configDir };
}


/** Waits for the chat's run to end, with a bound. */
async function idle(h: Harness, sessionId: string, timeoutMs = 30_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    h.runtime.whenIdle(sessionId),
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('the run did not end in time')), timeoutMs))),
  ]);
  clearTimeout(timer);
}


/** The error notice the run ended with ('' if none). */
function errorNotice(t: Transcript, turnIndex: number): string {
  return items(t, turnIndex).filter((i) => i.type === 'notice' && i.level === 'error').map((i) => (i as { message: string }).message).join('\n');
}
function invocations(t: Transcript, turnIndex: number) {
  return items(t, turnIndex).filter((i): i is Extract<TranscriptItem, { type: 'invocation' }> => i.type === 'invocation');
}
function boundaries(t: Transcript, turnIndex: number) {
  return items(t, turnIndex).filter((i): i is Extract<TranscriptItem, { type: 'boundary' }> => i.type === 'boundary');
}

/** Claude Code processes that are children of this test process. */
function claudeChildren(): string[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes(CLAUDE_BIN));
  } catch {
    return []; // ps exits 1 when there are no children
  }
}

async function noClaudeChildren(): Promise<void> {
  await waitFor('the Claude Code process to exit', () => claudeChildren().length === 0 || undefined, 10_000);
}

async function sessionOf(h: Harness, sessionId: string): Promise<string> {
  const state = parseClaudeProviderState(await h.journal.read('getProviderState', sessionId));
  assert.ok(state, 'provider state was journaled');
  return state.sessionId;
}

after(async () => {
  for (const c of cleanups) await c();
  for (const m of mocks) await m.close();
  await noClaudeChildren();
  assert.deepEqual(claudeChildren(), []);
});

describe('Claude agent with the real Claude Code CLI', () => {
  it('Allow once runs the command; the result reaches the model; the session id is journaled up front', async () => {
    const mock = await mockWith([
      {
        text: ['I will ', 'make it.'],
        toolUses: [
          { name: 'Read', input: { file_path: 'hello.txt' } },
          { name: 'Bash', input: { command: 'echo hi > made.txt && echo made-it', description: 'Make the file' } },
        ],
      },
      { text: ['Done', '.'] },
    ]);
    const h = await harness(mock);
    fs.writeFileSync(path.join(h.workspace, 'hello.txt'), 'hello from the workspace\n');
    const s = await h.runtime.createSession('claude');
    assert.ok(s.ok);
    assert.ok((await h.runtime.send(s.value.id, 'make a file')).ok);
    const requestId = await pendingRequest(h, s.value.id);
    const row = (await h.journal.read('getBoundaryRequest', requestId))!;
    assert.equal(row.kind, 'command');
    assert.equal(row.subject, 'echo hi > made.txt && echo made-it');
    assert.equal(row.scopeKey, 'claude:Bash:echo');
    assert.equal(row.why, 'Claude Code wants to run a shell command (Make the file).');
    assert.equal(row.status, 'pending');
    assert.equal(fs.existsSync(path.join(h.workspace, 'made.txt')), false);
    // The provider session id was journaled before the CLI ran, and it is the one the CLI uses.
    const claudeSession = await sessionOf(h, s.value.id);
    assert.equal(sessionIdOf(mock.mainRequests()[0]!.body), claudeSession);
    assert.deepEqual(await h.runtime.decide(s.value.id, requestId, 'allow_once'), { ok: true, value: { approved: true } });
    await idle(h, s.value.id);

    const t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[0]!.status, 'completed');
    assert.equal(textOf(t, 0), 'I will make it.\n\nDone.');
    // Read inside the workspace needs no permission, yet it is journaled as an invocation too.
    const [read, inv] = invocations(t, 0);
    assert.deepEqual([read?.tool, read?.summary, read?.status], ['Read', 'hello.txt', 'completed']);
    assert.equal(read?.output, '1\thello from the workspace\n2\t'); // Claude Code's numbered-lines format
    assert.equal(inv?.tool, 'Bash');
    assert.equal(inv?.summary, 'echo hi > made.txt && echo made-it');
    assert.equal(inv?.status, 'completed');
    assert.equal(inv?.output, 'made-it');
    assert.equal(boundaries(t, 0).length, 1);
    assert.equal(boundaries(t, 0)[0]?.invocationId, inv?.id);
    assert.equal(fs.readFileSync(path.join(h.workspace, 'made.txt'), 'utf8'), 'hi\n');
    // The model received the command's output as the tool result.
    assert.equal(mock.mainRequests().length, 2);
    const results = toolResults(mock.mainRequests()[1]!.body);
    assert.equal(results.length, 2);
    assert.equal(results[1]!.is_error, false);
    assert.equal(toolResultText(results[1]!), 'made-it');
    assert.deepEqual(userTexts(mock.mainRequests()[0]!.body), ['make a file']);
    await h.journal.close();
  });

  it('Deny: the file change is not made and the model receives the denial', async () => {
    const mock = await mockWith([
      { toolUses: [{ name: 'Write', input: { file_path: 'notes.txt', content: 'one\ntwo\n' } }] },
      { text: ['Understood, I will not write it.'] },
    ]);
    const h = await harness(mock);
    const s = await h.runtime.createSession('claude');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'write notes');
    const requestId = await pendingRequest(h, s.value.id);
    const row = (await h.journal.read('getBoundaryRequest', requestId))!;
    assert.equal(row.kind, 'file_change');
    assert.equal(row.subject, path.join(h.workspace, 'notes.txt'));
    assert.equal(row.scopeKey, 'claude:Edit');
    assert.equal(row.detail, '--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n');
    await h.runtime.decide(s.value.id, requestId, 'deny');
    await idle(h, s.value.id);

    assert.equal(fs.existsSync(path.join(h.workspace, 'notes.txt')), false);
    const t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[0]!.status, 'completed');
    const [inv] = invocations(t, 0);
    assert.equal(inv?.tool, 'Write');
    assert.equal(inv?.summary, 'notes.txt');
    assert.equal(inv?.status, 'denied');
    assert.equal(inv?.diff, '--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n');
    assert.equal(boundaries(t, 0)[0]?.closureReason, 'user_decision');
    assert.equal(textOf(t, 0), 'Understood, I will not write it.');
    const results = toolResults(mock.mainRequests()[1]!.body);
    assert.equal(results.length, 1);
    assert.equal(results[0]!.is_error, true);
    assert.equal(toolResultText(results[0]!), 'The user denied this.');
    await h.journal.close();
  });

  it('Allow for this session: the same kind of request in a later turn is approved without asking; another program asks', async () => {
    const mock = await mockWith([
      { toolUses: [{ name: 'Bash', input: { command: 'touch a.txt' } }] },
      { text: ['Made a.txt.'] },
      { toolUses: [{ name: 'Bash', input: { command: 'touch b.txt' } }] },
      { toolUses: [{ name: 'Bash', input: { command: 'mkdir d' } }] },
      { text: ['Made b.txt, not d.'] },
    ]);
    const h = await harness(mock);
    const s = await h.runtime.createSession('claude');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'touch a');
    await h.runtime.decide(s.value.id, await pendingRequest(h, s.value.id), 'allow_session');
    await idle(h, s.value.id);
    const claudeSession = await sessionOf(h, s.value.id);

    await h.runtime.send(s.value.id, 'touch b');
    // `mkdir` is another program: it asks. `touch b.txt` before it never waited on the user.
    const mkdir = await pendingRequest(h, s.value.id);
    assert.equal((await h.journal.read('getBoundaryRequest', mkdir))!.scopeKey, 'claude:Bash:mkdir');
    assert.equal(fs.existsSync(path.join(h.workspace, 'b.txt')), true);
    await h.runtime.decide(s.value.id, mkdir, 'deny');
    await idle(h, s.value.id);

    const t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[1]!.status, 'completed');
    const cards = boundaries(t, 1);
    assert.deepEqual(cards.map((c) => [c.subject, c.status, c.closureReason]), [
      ['touch b.txt', 'approved', 'session_grant'],
      ['mkdir d', 'denied', 'user_decision'],
    ]);
    assert.deepEqual(invocations(t, 1).map((i) => [i.summary, i.status]), [['touch b.txt', 'completed'], ['mkdir d', 'denied']]);
    assert.equal(fs.existsSync(path.join(h.workspace, 'd')), false);
    // The second turn resumed the same Claude session: the model saw the first turn.
    assert.equal(await sessionOf(h, s.value.id), claudeSession);
    const second = mock.mainRequests()[2]!.body;
    assert.equal(sessionIdOf(second), claudeSession);
    assert.deepEqual(userTexts(second), ['touch a', 'touch b']);
    assert.ok(flattenMessages(second).includes('assistant: Made a.txt.'));
    await h.journal.close();
  });

  it('Stop mid-stream interrupts Claude Code promptly; the turn is stopped and the chat stays usable', async () => {
    const mock = await mockWith([{ text: ['Thinking about ', 'it'], hang: true }, { text: ['Fresh answer.'] }]);
    const h = await harness(mock);
    const s = await h.runtime.createSession('claude');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'think long');
    await waitFor('streamed text', async () => textOf(await h.runtime.transcript(s.value.id), 0) === 'Thinking about it' || undefined);
    assert.equal(mock.openResponses(), 1);
    const stoppedAt = Date.now();
    assert.deepEqual(await h.runtime.stop(s.value.id), { ok: true, value: { stopped: true } });
    await idle(h, s.value.id, 10_000);
    const stopMs = Date.now() - stoppedAt;
    assert.ok(stopMs < 5000, `Stop took ${stopMs} ms`);
    assert.equal((await h.runtime.transcript(s.value.id)).turns[0]!.status, 'stopped');
    await waitFor('the model request to be dropped', () => mock.openResponses() === 0 || undefined, 5000);
    await noClaudeChildren();
    assert.ok(h.logs.includes('[claude] stop: interrupting the turn'));
    // The interrupt ended the turn: the CLI never had to be closed.
    assert.deepEqual(h.logs.filter((l) => l.startsWith('[claude] closing the CLI')), []);

    await h.runtime.send(s.value.id, 'again');
    await idle(h, s.value.id);
    const t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[1]!.status, 'completed');
    assert.equal(textOf(t, 1), 'Fresh answer.');
    const last = mock.mainRequests()[1]!.body;
    assert.deepEqual(userTexts(last), ['think long', '[Request interrupted by user]', 'again']);
    assert.ok(flattenMessages(last).includes('assistant: Thinking about it'));
    await h.journal.close();
  });
});

describe('Claude agent across host restarts', () => {
  it('a pending approval at restart is closed; Retry resumes the Claude session, asks again, and Allow completes it', async () => {
    const mock = await mockWith([
      { text: ['Touching.'], toolUses: [{ name: 'Bash', input: { command: 'touch proof.txt' } }] },
      { toolUses: [{ name: 'Bash', input: { command: 'touch proof.txt' } }] },
      { text: ['Made proof.txt.'] },
    ]);
    const workspace = tempDir('nac-ws-');
    const configDir = tempDir('nac-claude-config-');
    const a = await harness(mock, { workspace, configDir, instance: 'host-a' });
    const s = await a.runtime.createSession('claude');
    assert.ok(s.ok);
    await a.runtime.send(s.value.id, 'make proof');
    const firstRequest = await pendingRequest(a, s.value.id);
    const claudeSession = await sessionOf(a, s.value.id);
    // Host A dies: it writes nothing more, and its Claude Code process goes away with it.
    a.runtime.dispose();
    await a.journal.close();
    await noClaudeChildren();

    const b = await harness(mock, { file: a.file, workspace, configDir, instance: 'host-b', dead: ['host-a'] });
    const failed = (await b.runtime.transcript(s.value.id)).turns[0]!;
    assert.equal(failed.status, 'failed');
    assert.equal(failed.errorClass, 'sandbox_boundary_closed_by_restart');
    assert.equal((await b.journal.read('getBoundaryRequest', firstRequest))!.closureReason, 'host_restarted');
    assert.equal(fs.existsSync(path.join(workspace, 'proof.txt')), false);

    assert.ok((await b.runtime.retry(s.value.id, failed.id)).ok);
    const secondRequest = await pendingRequest(b, s.value.id, [firstRequest]);
    assert.notEqual(secondRequest, firstRequest);
    assert.equal((await b.journal.read('getBoundaryRequest', secondRequest))!.subject, 'touch proof.txt');
    await b.runtime.decide(s.value.id, secondRequest, 'allow_once');
    await idle(b, s.value.id);

    const t = await b.runtime.transcript(s.value.id);
    assert.equal(t.turns[1]!.origin, 'retry');
    assert.equal(t.turns[1]!.status, 'completed');
    assert.equal(textOf(t, 1), 'Made proof.txt.');
    assert.equal(fs.existsSync(path.join(workspace, 'proof.txt')), true);
    // Retry resumed the same Claude session: the model saw the first attempt, then the prompt again.
    assert.equal(await sessionOf(b, s.value.id), claudeSession);
    const retried = mock.mainRequests()[1]!.body;
    assert.equal(sessionIdOf(retried), claudeSession);
    assert.deepEqual(userTexts(retried), ['make proof', '[Request interrupted by user for tool use]', 'make proof']);
    const history = flattenMessages(retried);
    assert.ok(history.includes('assistant: Touching.'));
    assert.ok(history.includes('assistant: tool_use Bash {"command":"touch proof.txt"}'));
    await b.journal.close();
  });

  it('Continue after a plain restart resumes the Claude session: the model sees its interrupted reply', async () => {
    const mock = await mockWith([{ text: ['Step one is '], hang: true }, { text: ['step two.'] }]);
    const workspace = tempDir('nac-ws-');
    const configDir = tempDir('nac-claude-config-');
    const a = await harness(mock, { workspace, configDir, instance: 'host-a' });
    const s = await a.runtime.createSession('claude');
    assert.ok(s.ok);
    await a.runtime.send(s.value.id, 'explain the steps');
    await waitFor('streamed text', async () => textOf(await a.runtime.transcript(s.value.id), 0) === 'Step one is ' || undefined);
    const claudeSession = await sessionOf(a, s.value.id);
    a.runtime.dispose();
    await a.journal.close();
    await noClaudeChildren();

    const b = await harness(mock, { file: a.file, workspace, configDir, instance: 'host-b', dead: ['host-a'] });
    const failed = (await b.runtime.transcript(s.value.id)).turns[0]!;
    assert.equal(failed.errorClass, 'app_restarted');
    assert.ok((await b.runtime.continueTurn(s.value.id, failed.id)).ok);
    await idle(b, s.value.id);
    const t = await b.runtime.transcript(s.value.id);
    assert.equal(t.turns[1]!.origin, 'continue');
    assert.equal(t.turns[1]!.status, 'completed');
    assert.equal(textOf(t, 1), 'step two.');
    const continued = mock.mainRequests()[1]!.body;
    assert.equal(sessionIdOf(continued), claudeSession);
    assert.deepEqual(userTexts(continued), ['explain the steps', '[Request interrupted by user]', CLAUDE_CONTINUE_PROMPT]);
    assert.ok(flattenMessages(continued).includes('assistant: Step one is '));
    await b.journal.close();
  });

  it('a session the CLI cannot find is started again under the same id with the chat history in the prompt', async () => {
    const mock = await mockWith([{ text: ['First.'] }, { text: ['Second.'] }]);
    const h = await harness(mock);
    const s = await h.runtime.createSession('claude');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'one');
    await idle(h, s.value.id);
    const claudeSession = await sessionOf(h, s.value.id);
    // Claude Code's stored sessions are gone (another config dir, a cleaned home, …).
    fs.rmSync(path.join(h.configDir, 'projects'), { recursive: true, force: true });
    await h.runtime.send(s.value.id, 'two');
    await idle(h, s.value.id);
    const t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[1]!.status, 'completed');
    assert.equal(textOf(t, 1), 'Second.');
    const body = mock.mainRequests()[1]!.body;
    assert.equal(sessionIdOf(body), claudeSession);
    assert.deepEqual(userTexts(body), [promptWithHistory([{ role: 'user', text: 'one' }, { role: 'assistant', text: 'First.' }], 'two')]);
    assert.ok(h.logs.some((l) => l.startsWith(`[claude] session ${claudeSession} was not found`)));
    await h.journal.close();
  });
});

describe('Claude agent when it cannot work', () => {
  it('a missing CLI fails the turn as agent_unavailable naming the setting and the install; the chat stays usable', async () => {
    const mock = await mockWith([{ text: ['Now it works.'] }]);
    let executablePath = '/nonexistent/claude';
    const h = await harness(mock, { config: () => ({ executablePath }) });
    const s = await h.runtime.createSession('claude');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'hello');
    await idle(h, s.value.id);
    let t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[0]!.status, 'failed');
    assert.equal(t.turns[0]!.errorClass, 'agent_unavailable');
    assert.equal(
      errorNotice(t, 0),
      'Claude Code was not found at /nonexistent/claude (setting nativeAgentChats.claude.executablePath). Fix the path, or clear it to use claude from PATH. ' +
        'To install Claude Code: npm install -g @anthropic-ai/claude-code.',
    );
    assert.equal(await h.journal.read('getProviderState', s.value.id), null);
    assert.equal(mock.requests.length, 0);

    // Not on PATH either.
    executablePath = '';
    const noPath = new ClaudeAgent({ searchPath: tempDir('nac-empty-path-') });
    const outcome = await noPath.runTurn(
      { sessionId: 'x', turnId: 'y', prompt: 'hi', origin: 'prompt', history: [], providerState: null, cwd: h.workspace },
      { signal: new AbortController().signal } as never,
    );
    assert.deepEqual(outcome, {
      status: 'failed', errorClass: 'agent_unavailable',
      message: 'Claude Code (`claude`) is not installed or not on PATH. Install it (npm install -g @anthropic-ai/claude-code) or set nativeAgentChats.claude.executablePath.',
    });

    // The user fixes the setting: the same chat works.
    executablePath = CLAUDE_BIN;
    await h.runtime.send(s.value.id, 'hello again');
    await idle(h, s.value.id);
    t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[1]!.status, 'completed');
    assert.equal(textOf(t, 1), 'Now it works.');
    await h.journal.close();
  });

  it('an unreachable model server or a missing login is agent_unavailable saying what to fix; an HTTP error is agent_error with its text', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const mock = await mockWith([{ httpError: { status: 500, type: 'api_error', message: 'mock overload' }, repeat: 2 }]);
    let baseUrl = deadUrl;
    let noKey = false;
    const h = await harness(mock, {
      config: () => ({ baseUrl, ...(noKey ? { apiKey: async () => undefined, env: { HOME: scratchHome, ANTHROPIC_API_KEY: '', ANTHROPIC_AUTH_TOKEN: '', CLAUDE_CODE_OAUTH_TOKEN: '' } } : {}) }),
    });
    const s = await h.runtime.createSession('claude');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'hello');
    await idle(h, s.value.id);
    let t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[0]!.status, 'failed');
    assert.equal(t.turns[0]!.errorClass, 'agent_unavailable');
    assert.equal(
      errorNotice(t, 0),
      `Claude Code could not reach the model server at ${deadUrl}: API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED). ` +
        'Check the network, or the base URL (nativeAgentChats.claude.baseUrl).',
    );

    baseUrl = mock.url;
    await h.runtime.send(s.value.id, 'hello again');
    await idle(h, s.value.id);
    t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[1]!.status, 'failed');
    assert.equal(t.turns[1]!.errorClass, 'agent_error');
    assert.match(errorNotice(t, 1), /^Claude Code reported an error: API Error: 500 mock overload\b/);
    assert.equal(textOf(t, 1), '');
    assert.equal(mock.mainRequests().length, 1);

    // No API key and no login (an empty Claude config dir): Claude Code never calls the model.
    const before = mock.requests.length;
    noKey = true;
    await h.runtime.send(s.value.id, 'hello without a key');
    await idle(h, s.value.id);
    t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns[2]!.errorClass, 'agent_unavailable');
    assert.equal(
      errorNotice(t, 2),
      'Claude Code could not authenticate: Not logged in · Please run /login. Set an Anthropic API key for Native Agent Chats, or run `claude` in a terminal and log in.',
    );
    assert.equal(mock.requests.length, before);
    await h.journal.close();
  });
});

describe('Claude tool mapping and environment (pure)', () => {
  it('maps tools to boundary kinds, subjects and scope keys', () => {
    const cwd = tempDir('nac-ws-');
    fs.writeFileSync(path.join(cwd, 'a.txt'), 'one\ntwo\nthree\n');
    assert.equal(programOf('FOO=1 /usr/bin/npm test'), 'npm');
    assert.equal(programOf('"my tool" --x'), 'my tool');
    const edit = describeToolRequest('Edit', { file_path: path.join(cwd, 'a.txt'), old_string: 'two', new_string: 'TWO' }, cwd);
    assert.deepEqual(
      { kind: edit.kind, subject: edit.subject, scopeKey: edit.scopeKey, why: edit.why, summary: edit.summary, diff: edit.diff },
      {
        kind: 'file_change', subject: path.join(cwd, 'a.txt'), scopeKey: 'claude:Edit', why: 'Claude Code wants to edit a.txt.', summary: 'a.txt',
        diff: '--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n',
      },
    );
    const outside = describeToolRequest('Write', { file_path: '/etc/x.conf', content: 'x\n' }, cwd);
    assert.deepEqual([outside.kind, outside.scopeKey, outside.why], ['write_outside_workspace', 'claude:Edit:outside:/etc', 'Claude Code wants to create /etc/x.conf, outside the workspace folder.']);
    const read = describeToolRequest('Read', { file_path: '/etc/hosts' }, cwd, { decisionReason: 'Path is outside allowed working directories' });
    assert.deepEqual([read.kind, read.subject, read.scopeKey, read.why], ['read_outside_workspace', '/etc/hosts', 'claude:Read:/etc', 'Path is outside allowed working directories']);
    const fetch = describeToolRequest('WebFetch', { url: 'https://example.com/a', prompt: 'summarize' }, cwd);
    assert.deepEqual([fetch.kind, fetch.subject, fetch.scopeKey, fetch.detail], ['network', 'https://example.com/a', 'claude:WebFetch:example.com', 'summarize']);
    const mcp = describeToolRequest('mcp__db__query', { sql: 'select 1' }, cwd);
    assert.deepEqual([mcp.kind, mcp.scopeKey, mcp.summary], ['command', 'claude:mcp__db__query', 'mcp__db__query {"sql":"select 1"}']);
  });

  it('builds unified diffs with context and separate hunks', () => {
    const before = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join('\n') + '\n';
    const after = before.replace('l2\n', 'L2\n').replace('l18\n', '');
    assert.equal(
      unifiedDiff(before, after, 'f', 'f'),
      '--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n l1\n-l2\n+L2\n l3\n l4\n l5\n@@ -15,6 +15,5 @@\n l15\n l16\n l17\n-l18\n l19\n l20\n',
    );
  });

  it('gives the CLI a copy of the environment with the key, URL, config dir and privacy switches', () => {
    const env = claudeEnvironment(
      { baseUrl: 'http://127.0.0.1:1', configDir: '/cfg', maxRetries: 2, env: { EXTRA: 'yes', DISABLE_TELEMETRY: '0' } },
      'sk-test',
      { PATH: '/bin', CLAUDECODE: '1', HOME: '/home/u' },
    );
    assert.deepEqual(env, {
      PATH: '/bin', HOME: '/home/u', EXTRA: 'yes',
      ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: 'http://127.0.0.1:1', CLAUDE_CONFIG_DIR: '/cfg', CLAUDE_CODE_MAX_RETRIES: '2',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1', DISABLE_ERROR_REPORTING: '1',
      CLAUDE_AGENT_SDK_CLIENT_APP: 'native-agent-chats',
    });
    assert.deepEqual(parseClaudeProviderState('{"sessionId":"abc"}'), { sessionId: 'abc' });
    assert.equal(parseClaudeProviderState('not json'), undefined);
    assert.equal(parseClaudeProviderState(null), undefined);
  });
});
