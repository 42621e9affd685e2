/**
 * Attachments (src/core/attachments.ts, src/runtime/attachments/, operations/attachments.ts): what
 * the user attached is journaled with its prompt — path, range, content hash, sizes, the cut note —
 * shown in the transcript (and after a reload), sent to the agent, sent again by Retry from the
 * journal (not from the disk), kept with a queued message until it goes out; a file outside the
 * workspace is read only after a boundary request; deleting a chat keeps content another chat uses.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { MAX_ATTACHMENT_BYTES, type AgentAttachment } from '../../src/core/attachments';
import { contentHash } from '../../src/journal/contentHash';
import type { Agent, AgentTurnRequest } from '../../src/runtime/agent';
import { LocalAgent } from '../../src/runtime/agents/localAgent';
import { capText } from '../../src/runtime/attachments/readAttachments';
import { chatToMarkdown } from '../../src/core/exportMarkdown';
import { openRuntime, pendingRequest, type RuntimeHarness } from './harness';
import { trackedTempDir, waitFor } from './helpers';

/** A runtime whose agent records each request and completes it at once (or waits on the test's `release`). */
async function recording(o: { workspace?: string; file?: string } = {}): Promise<RuntimeHarness & { requests: AgentTurnRequest[]; sessionId: string }> {
  const requests: AgentTurnRequest[] = [];
  const agent: Agent = {
    provider: 'local', label: 'recording',
    runTurn: async (request) => {
      requests.push(request);
      return request.prompt === 'fail' ? { status: 'failed', errorClass: 'agent_error', message: 'scripted failure' } : { status: 'completed' };
    },
  };
  const h = await openRuntime({ ...o, agentFor: () => agent });
  const s = await h.runtime.createSession('local');
  assert.ok(s.ok);
  return { ...h, requests, sessionId: s.value.id };
}

/** The text each attachment carried to the agent, by path. */
function sentTexts(request: AgentTurnRequest | undefined): Record<string, string> {
  return Object.fromEntries((request?.attachments ?? []).map((a: AgentAttachment) => [a.path, a.text]));
}

describe('attachments', () => {
  it('journals path, range, hash and sizes with the turn, shows them in the transcript after a reopen, and sends the text', async () => {
    const workspace = trackedTempDir('nac-ws-');
    fs.mkdirSync(path.join(workspace, 'src'));
    fs.writeFileSync(path.join(workspace, 'src/a.ts'), 'one\ntwo\nthree\nfour\n');
    const h = await recording({ workspace });
    const sent = await h.runtime.submit(h.sessionId, {
      clientId: 'c1', text: 'explain',
      attachments: [
        { kind: 'file', path: 'src/a.ts', range: { startLine: 2, endLine: 3 } },
        { kind: 'folder', path: 'src' },
        { kind: 'selection', path: 'src/a.ts', range: { startLine: 1, endLine: 1 }, text: 'one (unsaved)' },
      ],
    });
    assert.ok(sent.ok, sent.ok ? '' : sent.message);
    await h.runtime.whenIdle(h.sessionId);
    assert.deepEqual(h.requests[0]?.attachments, [
      { kind: 'file', path: 'src/a.ts', range: { startLine: 2, endLine: 3 }, text: 'two\nthree', cutNote: null },
      { kind: 'folder', path: 'src', text: 'a.ts', cutNote: null },
      { kind: 'selection', path: 'src/a.ts', range: { startLine: 1, endLine: 1 }, text: 'one (unsaved)', cutNote: null },
    ]);
    await h.close();
    const again = await recording({ workspace, file: h.file });
    const turn = (await again.runtime.transcriptPage(h.sessionId)).transcript.turns[0];
    assert.deepEqual(turn?.attachments?.[0], {
      kind: 'file', path: 'src/a.ts', range: { startLine: 2, endLine: 3 }, state: 'attached', hash: contentHash('two\nthree'), sentSize: 9, originalSize: 9, cutNote: null,
    });
    assert.equal(turn?.attachments?.length, 3);
    // The export lists them under the prompt as the chat tab does.
    const session = (await again.runtime.getSession(h.sessionId))!;
    assert.match(chatToMarkdown(session, await again.runtime.transcript(h.sessionId)), /\*\*Attached:\*\*\n- src\/a\.ts:2-3: 9 bytes\n- src\/: \d+ bytes\n- src\/a\.ts:1: 13 bytes/);
    await again.close();
  });

  it('cuts an attachment over the limit at a line end, with a note, and records both sizes', async () => {
    const workspace = trackedTempDir('nac-ws-');
    const line = `${'x'.repeat(99)}\n`;
    const big = line.repeat(Math.ceil((MAX_ATTACHMENT_BYTES * 2) / line.length));
    fs.writeFileSync(path.join(workspace, 'big.txt'), big);
    const h = await recording({ workspace });
    assert.ok((await h.runtime.submit(h.sessionId, { clientId: 'c1', text: 'look', attachments: [{ kind: 'file', path: 'big.txt' }] })).ok);
    await h.runtime.whenIdle(h.sessionId);
    const a = (await h.runtime.transcript(h.sessionId)).turns[0]?.attachments?.[0];
    const expected = capText(big);
    assert.ok(expected.text.length <= MAX_ATTACHMENT_BYTES && expected.text.endsWith('\n'));
    assert.equal(a?.sentSize, Buffer.byteLength(expected.text));
    assert.equal(a?.originalSize, Buffer.byteLength(big));
    assert.match(a?.cutNote ?? '', /^cut: only the first [\d,]+ of [\d,]+ bytes were sent/);
    assert.equal(h.requests[0]?.attachments?.[0]?.text, expected.text);
    assert.equal(h.requests[0]?.attachments?.[0]?.cutNote, a?.cutNote);
    await h.close();
  });

  it('Retry sends the same attachments from the journal, not the file as it is now', async () => {
    const workspace = trackedTempDir('nac-ws-');
    fs.writeFileSync(path.join(workspace, 'notes.md'), 'first version\n');
    const h = await recording({ workspace });
    assert.ok((await h.runtime.submit(h.sessionId, { clientId: 'c1', text: 'fail', attachments: [{ kind: 'file', path: 'notes.md' }] })).ok);
    await h.runtime.whenIdle(h.sessionId);
    fs.writeFileSync(path.join(workspace, 'notes.md'), 'changed on disk since\n');
    const failed = (await h.runtime.transcript(h.sessionId)).turns[0]!;
    assert.equal(failed.status, 'failed');
    assert.ok((await h.runtime.retry(h.sessionId, failed.id)).ok);
    await h.runtime.whenIdle(h.sessionId);
    assert.deepEqual(sentTexts(h.requests[1]), { 'notes.md': 'first version\n' });
    const retried = (await h.runtime.transcript(h.sessionId)).turns[1];
    assert.equal(retried?.origin, 'retry');
    assert.equal(retried?.attachments?.[0]?.hash, contentHash('first version\n'));
    await h.close();
  });

  it('an edit and resend journals and sends the edited message\'s attachments with the replaced prompt', async () => {
    const workspace = trackedTempDir('nac-ws-');
    fs.writeFileSync(path.join(workspace, 'notes.md'), 'notes\n');
    const h = await recording({ workspace });
    const first = await h.runtime.submit(h.sessionId, { clientId: 'c1', text: 'summarize' });
    assert.ok(first.ok && first.value.kind === 'started');
    await h.runtime.whenIdle(h.sessionId);
    const edited = await h.runtime.submit(h.sessionId, {
      clientId: 'c2', text: 'summarize this', replacesTurnId: first.value.turnId, attachments: [{ kind: 'file', path: 'notes.md' }],
    });
    assert.ok(edited.ok, edited.ok ? '' : edited.message);
    await h.runtime.whenIdle(h.sessionId);
    assert.deepEqual(h.requests[1]?.replaces, { prompt: 'summarize' });
    assert.deepEqual(sentTexts(h.requests[1]), { 'notes.md': 'notes\n' });
    const turn = (await h.runtime.transcript(h.sessionId)).turns[1];
    assert.equal(turn?.replacesTurnId, first.value.turnId);
    assert.deepEqual(turn?.attachments?.map((a) => [a.path, a.state, a.hash]), [['notes.md', 'attached', contentHash('notes\n')]]);
    await h.close();
  });

  it('keeps a queued message\'s attachments and sends them when it goes out', async () => {
    const workspace = trackedTempDir('nac-ws-');
    fs.writeFileSync(path.join(workspace, 'q.txt'), 'queued content\n');
    let release: () => void = () => undefined;
    const requests: AgentTurnRequest[] = [];
    const agent: Agent = {
      provider: 'local', label: 'held',
      runTurn: (request) => {
        requests.push(request);
        return request.prompt === 'hold' ? new Promise((r) => (release = () => r({ status: 'completed' }))) : Promise.resolve({ status: 'completed' });
      },
    };
    const h = await openRuntime({ workspace, agentFor: () => agent });
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    assert.ok((await h.runtime.submit(s.value.id, { clientId: 'c1', text: 'hold' })).ok);
    const queued = await h.runtime.submit(s.value.id, { clientId: 'c2', text: 'next', attachments: [{ kind: 'file', path: 'q.txt' }] });
    assert.ok(queued.ok && queued.value.kind === 'queued');
    assert.equal((await h.runtime.queue(s.value.id))[0]?.attachments?.[0]?.path, 'q.txt');
    release();
    await waitFor('the queued message to be sent', () => requests.length === 2);
    await h.runtime.whenIdle(s.value.id);
    assert.deepEqual(sentTexts(requests[1]), { 'q.txt': 'queued content\n' });
    assert.equal((await h.runtime.transcript(s.value.id)).turns[1]?.attachments?.[0]?.hash, contentHash('queued content\n'));
    await h.close();
  });

  it('asks before reading a file outside the workspace: denied, nothing is read or sent; allowed, it is attached', async () => {
    const workspace = trackedTempDir('nac-ws-');
    const outside = path.join(trackedTempDir('nac-outside-'), 'secret.txt');
    fs.writeFileSync(outside, 'outside text\n');
    const h = await recording({ workspace });
    assert.ok((await h.runtime.submit(h.sessionId, { clientId: 'c1', text: 'one', attachments: [{ kind: 'file', path: outside }] })).ok);
    const first = await pendingRequest(h, h.sessionId);
    assert.equal(h.requests.length, 0, 'the agent waits for the decision');
    assert.ok((await h.runtime.decide(h.sessionId, first, 'deny')).ok);
    await h.runtime.whenIdle(h.sessionId);
    assert.deepEqual(h.requests[0]?.attachments, []);
    const denied = (await h.runtime.transcript(h.sessionId)).turns[0]!;
    assert.equal(denied.attachments?.[0]?.state, 'denied');
    assert.equal(denied.attachments?.[0]?.hash, null);
    assert.ok(denied.items.some((i) => i.type === 'boundary' && i.kind === 'read_outside_workspace' && i.subject === fs.realpathSync(outside)));

    assert.ok((await h.runtime.submit(h.sessionId, { clientId: 'c2', text: 'two', attachments: [{ kind: 'file', path: outside }] })).ok);
    const second = await pendingRequest(h, h.sessionId, [first]);
    assert.ok((await h.runtime.decide(h.sessionId, second, 'allow_once')).ok);
    await h.runtime.whenIdle(h.sessionId);
    assert.deepEqual(sentTexts(h.requests[1]), { [fs.realpathSync(outside)]: 'outside text\n' });
    assert.equal((await h.runtime.transcript(h.sessionId)).turns[1]?.attachments?.[0]?.state, 'attached');
    await h.close();
  });

  it('refuses a message whose attachment cannot be read, naming it, and journals nothing', async () => {
    const workspace = trackedTempDir('nac-ws-');
    fs.writeFileSync(path.join(workspace, 'bin.dat'), Buffer.from([0, 1, 2, 0xff]));
    const h = await recording({ workspace });
    const missing = await h.runtime.submit(h.sessionId, { clientId: 'c1', text: 'x', attachments: [{ kind: 'file', path: 'gone.ts' }] });
    assert.ok(!missing.ok && missing.reason === 'invalid' && /gone\.ts was not attached: there is no such file/.test(missing.message));
    const binary = await h.runtime.submit(h.sessionId, { clientId: 'c2', text: 'x', attachments: [{ kind: 'file', path: 'bin.dat' }] });
    assert.ok(!binary.ok && /bin\.dat was not attached: it is not a text file/.test(binary.message));
    assert.equal((await h.runtime.transcript(h.sessionId)).turns.length, 0);
    await h.close();
  });

  it('deleting a chat keeps content another chat\'s attachment references, and drops its own', async () => {
    const workspace = trackedTempDir('nac-ws-');
    fs.writeFileSync(path.join(workspace, 'shared.txt'), 'shared\n');
    fs.writeFileSync(path.join(workspace, 'own.txt'), 'own\n');
    const h = await recording({ workspace });
    const other = await h.runtime.createSession('local');
    assert.ok(other.ok);
    assert.ok((await h.runtime.submit(h.sessionId, { clientId: 'c1', text: 'a', attachments: [{ kind: 'file', path: 'shared.txt' }, { kind: 'file', path: 'own.txt' }] })).ok);
    await h.runtime.whenIdle(h.sessionId);
    assert.ok((await h.runtime.submit(other.value.id, { clientId: 'c2', text: 'b', attachments: [{ kind: 'file', path: 'shared.txt' }] })).ok);
    await h.runtime.whenIdle(other.value.id);
    assert.ok((await h.runtime.deleteSession(h.sessionId)).ok);
    assert.ok(await h.journal.read('getContent', contentHash('shared\n')));
    assert.equal(await h.journal.read('getContent', contentHash('own\n')), null);
    await h.close();
  });

  it('the local agent lists what it received', async () => {
    const workspace = trackedTempDir('nac-ws-');
    fs.writeFileSync(path.join(workspace, 'README.md'), '# Title\nbody\n');
    const agent = new LocalAgent();
    const h = await openRuntime({ workspace, agentFor: () => agent });
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    assert.ok((await h.runtime.submit(s.value.id, { clientId: 'c1', text: 'help', attachments: [{ kind: 'file', path: 'README.md' }] })).ok);
    await h.runtime.whenIdle(s.value.id);
    const text = (await h.runtime.transcript(s.value.id)).turns[0]!.items.filter((i) => i.type === 'text').map((i) => (i as { text: string }).text).join('');
    assert.match(text, /I received 1 attachment:\n- file `README\.md`: 2 lines, 13 bytes\n/);
    await h.close();
  });
});
