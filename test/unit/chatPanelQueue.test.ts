/**
 * A chat panel's outbox (src/host/panelOutbox.ts) with a stand-in runtime that records what it was
 * asked: each `send` and queue action goes to the runtime and is answered with `succeeded` or `error`
 * carrying the message's `clientId`; a malformed `send` is refused with its id, so the view gives the
 * text back; the snapshot carries the queue, and a `queue` message goes out only when it changed.
 * ChatPanel is host code: `vscode` is replaced by the little its constructor touches.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { QueuedPromptView } from '../../src/core/outbox';
import type { LiveState } from '../../src/protocol/messages';
import { MAX_PROMPT_CHARS } from '../../src/protocol/messages';
import { ChatPanel, fakePanel, said } from './fakePanels';

/** What the stand-in `vscode.window` was asked to tell the user. */
const told = said.notifications;

const idle: LiveState = { running: false, actionableRequestIds: [], readOnlyReason: null };
const queued = (clientId: string, text: string, over: Partial<QueuedPromptView> = {}): QueuedPromptView =>
  ({ clientId, text, hold: null, sendNow: false, createdAt: 10, ...over });
type Refusal = { ok: false; reason: 'conflict' | 'not_actionable' | 'invalid'; message: string };

/** A panel on a stand-in runtime; `view` plays the webview's messages and waits for their answers. */
function panelOn(runtime: Record<string, unknown>) {
  const { panel, posted, receive } = fakePanel();
  const session = { id: 'chat-1', title: 'Chat', provider: 'local', createdAt: 1, updatedAt: 1 };
  const full = {
    getSession: async () => session,
    transcriptPage: async () => ({ transcript: { turns: [] }, hasOlder: false, turnCount: 0, mark: { eventId: 0, turnRow: 0, turns: 0 } }),
    liveState: async () => idle,
    ...runtime,
  };
  const log: string[] = [];
  const chat = new ChatPanel(panel as never, 'chat-1', { runtime: full, extensionUri: {}, log: (l: string) => log.push(l), pickSessionFor: async () => undefined, panelDisposed: () => undefined } as never);
  /** Posts `raw` as the view would and waits until the panel has posted all it will of it. */
  const view = async (raw: unknown) => {
    receive(raw);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    await chat.post(async () => undefined);
  };
  const strip = () => posted.map(({ seq: _seq, ...m }) => m as Record<string, unknown>);
  return { chat, posted, view, strip, log };
}

describe('a chat panel\'s outbox', () => {
  it('hands a send to submit and answers with its clientId and whether it was queued', async () => {
    const calls: unknown[] = [];
    const outcomes = [
      { ok: true, value: { kind: 'started', turnId: 't1' } },
      { ok: true, value: { kind: 'queued', prompt: queued('c2', 'next') } },
      { ok: true, value: { kind: 'duplicate', turnId: 't1' } },
      { ok: true, value: { kind: 'duplicate', turnId: null } },
    ];
    const { view, strip } = panelOn({
      submit: async (sessionId: string, message: unknown) => (calls.push([sessionId, message]), outcomes.shift()),
      queue: async () => [queued('c2', 'next')],
    });
    await view({ type: 'send', clientId: 'c1', text: 'first' });
    await view({ type: 'send', clientId: 'c2', text: 'next' });
    await view({ type: 'send', clientId: 'c1', text: 'first' });
    await view({ type: 'send', clientId: 'c2', text: 'next' });
    assert.deepEqual(calls, [
      ['chat-1', { clientId: 'c1', text: 'first' }], ['chat-1', { clientId: 'c2', text: 'next' }],
      ['chat-1', { clientId: 'c1', text: 'first' }], ['chat-1', { clientId: 'c2', text: 'next' }],
    ]);
    assert.deepEqual(strip(), [
      { type: 'succeeded', action: 'send', clientId: 'c1', queued: false },
      { type: 'succeeded', action: 'send', clientId: 'c2', queued: true },
      { type: 'succeeded', action: 'send', clientId: 'c1', queued: false },
      { type: 'succeeded', action: 'send', clientId: 'c2', queued: true }, // posted again by a rebuilt view: still queued
    ]);
  });

  it('hands the view\'s messages to the runtime one at a time, in the order posted', async () => {
    // Two messages typed quickly are queued in the order typed, even when the first takes longer.
    const calls: string[] = [];
    let release: () => void = () => undefined;
    const slow = new Promise<void>((r) => (release = r));
    const { view, strip } = panelOn({
      submit: async (_s: string, m: { clientId: string }) => {
        calls.push(`start ${m.clientId}`);
        if (m.clientId === 'c1') await slow;
        calls.push(`end ${m.clientId}`);
        return { ok: true, value: { kind: 'queued', prompt: queued(m.clientId, 'x') } };
      },
    });
    const both = Promise.all([view({ type: 'send', clientId: 'c1', text: 'one' }), view({ type: 'send', clientId: 'c2', text: 'two' })]);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(calls, ['start c1'], 'the second waits for the first');
    release();
    await both;
    await view({ type: 'ping' });
    assert.deepEqual(calls, ['start c1', 'end c1', 'start c2', 'end c2']);
    assert.deepEqual(strip().filter((m) => m.type === 'succeeded').map((m) => m.clientId), ['c1', 'c2']);
  });

  it('answers a refused send with the refusal and its clientId, then the live state', async () => {
    const { view, strip } = panelOn({
      submit: async (): Promise<Refusal> => ({ ok: false, reason: 'conflict', message: 'This message was already sent with another text.' }),
    });
    await view({ type: 'send', clientId: 'c1', text: 'other text' });
    assert.deepEqual(strip().slice(0, 1), [{ type: 'error', code: 'conflict', message: 'This message was already sent with another text.', action: 'send', clientId: 'c1' }]);
    assert.equal(strip()[1]?.type, 'live');
  });

  it('refuses a malformed send with its clientId (the view gives the text back) and asks nothing of the runtime', async () => {
    let submitted = 0;
    const { view, strip, log } = panelOn({ submit: async () => (submitted++, { ok: true, value: { kind: 'started', turnId: 't' } }) });
    await view({ type: 'send', clientId: 'c1', text: 'x'.repeat(MAX_PROMPT_CHARS + 1) });
    await view({ type: 'send', text: 'no id' });
    await view({ type: 'editQueued', clientId: 'c2', text: '' });
    assert.equal(submitted, 0);
    const [tooLong, noId, emptyEdit] = strip();
    assert.deepEqual({ ...tooLong, message: undefined }, { type: 'error', code: 'malformed_message', message: undefined, action: 'send', clientId: 'c1' });
    assert.match(String(tooLong!.message), /^Malformed message from the chat view at "text"/);
    assert.deepEqual({ ...noId, message: undefined }, { type: 'error', code: 'malformed_message', message: undefined, action: 'send' });
    assert.deepEqual({ ...emptyEdit, message: undefined }, { type: 'error', code: 'malformed_message', message: undefined, action: 'editQueued', clientId: 'c2' });
    assert.equal(log.length, 3, 'each is logged');
  });

  it('a send whose handling throws is answered (internal) with its clientId', async () => {
    const { view, strip } = panelOn({ submit: async () => { throw new Error('disk on fire'); } });
    await view({ type: 'send', clientId: 'c1', text: 'hello' });
    assert.deepEqual(strip(), [{ type: 'error', code: 'internal', message: 'Something went wrong: disk on fire. See Agent Chats: Show Logs.', action: 'send', clientId: 'c1' }]);
  });

  it('hands Edit, Remove and Send now to the runtime and answers each with its clientId', async () => {
    const calls: unknown[] = [];
    const { view, strip } = panelOn({
      editQueued: async (...args: unknown[]) => (calls.push(['edit', ...args]), { ok: true, value: queued('c1', 'edited') }),
      discardQueued: async (...args: unknown[]) => (calls.push(['discard', ...args]), { ok: true, value: undefined }),
      sendQueued: async (...args: unknown[]) => (calls.push(['send', ...args]), { ok: true, value: { kind: 'stopping' } }),
      queue: async () => [],
    });
    await view({ type: 'editQueued', clientId: 'c1', text: 'edited' });
    await view({ type: 'discardQueued', clientId: 'c2' });
    await view({ type: 'sendQueued', clientId: 'c3' });
    assert.deepEqual(calls, [['edit', 'chat-1', 'c1', 'edited'], ['discard', 'chat-1', 'c2'], ['send', 'chat-1', 'c3']]);
    assert.deepEqual(strip(), [
      { type: 'succeeded', action: 'editQueued', clientId: 'c1' },
      { type: 'succeeded', action: 'discardQueued', clientId: 'c2' },
      { type: 'succeeded', action: 'sendQueued', clientId: 'c3' },
    ]);
  });

  it('a refused queue action is answered with its clientId, and the view gets the queue as it is now', async () => {
    const { chat, view, strip } = panelOn({
      editQueued: async (): Promise<Refusal> => ({ ok: false, reason: 'not_actionable', message: 'This message was already sent.' }),
      queue: async () => [queued('c9', 'other')],
    });
    await chat.sendSnapshot();
    await view({ type: 'editQueued', clientId: 'c1', text: 'too late' });
    const [, error, ...rest] = strip();
    assert.deepEqual(error, { type: 'error', code: 'not_actionable', message: 'This message was already sent.', action: 'editQueued', clientId: 'c1' });
    assert.deepEqual(rest.map((m) => m.type).sort(), ['live'], 'the queue did not change since the snapshot: not sent again');
  });

  it('an edit that asks for it undoes the replaced turn\'s file changes before it is submitted; cancelled there, it is given back', async () => {
    const calls: string[] = [];
    let undo: { kind: string; id?: string; files?: unknown[]; changedMeanwhile?: unknown[] } = { kind: 'applied', id: 'u1', files: [{ path: 'a.txt', outcome: 'restored', found: { exists: true, hash: 'b', size: 1 }, target: { exists: true, hash: 'a', size: 1 } }], changedMeanwhile: [] };
    let problem: string | null = null;
    const { view, strip } = panelOn({
      journal: { read: async (op: string, ...args: unknown[]) => (calls.push(`${op} ${args.join(' ')}`), problem) },
      files: { undo: async (sessionId: string, turnId: string, scope: string) => (calls.push(`undo ${sessionId} ${turnId} ${scope}`), { ok: true, value: undo }) },
      submit: async (_s: string, m: { clientId: string }) => (calls.push(`submit ${m.clientId}`), { ok: true, value: { kind: 'started', turnId: 't2' } }),
    });
    told.length = 0;
    await view({ type: 'send', clientId: 'c1', text: 'write it better', replacesTurnId: 't1', undoReplacedFiles: true });
    assert.deepEqual(calls, ['replaceProblemOf chat-1 t1', 'undo chat-1 t1 turn', 'submit c1'], 'undone first, then submitted');
    assert.deepEqual(told, ['Undo: put back 1 file.']);
    assert.deepEqual(strip().at(-1), { type: 'succeeded', action: 'send', clientId: 'c1', queued: false });
    calls.length = 0;
    undo = { kind: 'cancelled' };
    await view({ type: 'send', clientId: 'c2', text: 'write it better', replacesTurnId: 't1', undoReplacedFiles: true });
    assert.deepEqual(calls, ['replaceProblemOf chat-1 t1', 'undo chat-1 t1 turn'], 'not submitted');
    const refused = strip().find((m) => m.type === 'error' && m.clientId === 'c2');
    assert.deepEqual(refused, { type: 'error', code: 'not_actionable', message: 'The edited request was not sent: undoing its file changes was cancelled.', action: 'send', clientId: 'c2' });
    calls.length = 0;
    problem = 'Only the last request can be edited and sent again: another one followed it.';
    await view({ type: 'send', clientId: 'c1', text: 'write it better', replacesTurnId: 't1', undoReplacedFiles: true });
    assert.deepEqual(calls, ['replaceProblemOf chat-1 t1', 'submit c1'], 'no longer replaceable (already sent, before a reload): nothing undone, the journal answers');
    calls.length = 0;
    await view({ type: 'send', clientId: 'c3', text: 'no undo asked', replacesTurnId: 't1' });
    assert.deepEqual(calls, ['submit c3']);
  });

  it('the snapshot carries the queue; a queue message goes out only when the queue changed', async () => {
    let queue = [queued('c1', 'one')];
    const { chat, strip } = panelOn({ queue: async () => queue });
    await chat.sendSnapshot();
    assert.deepEqual(strip()[0]?.queue, [queued('c1', 'one')]);
    await chat.sendQueue();
    assert.equal(strip().length, 1, 'unchanged since the snapshot');
    queue = [queued('c1', 'one edited')];
    await chat.sendQueue();
    await chat.sendQueue();
    queue = [];
    await chat.sendQueue();
    assert.deepEqual(strip().slice(1), [{ type: 'queue', prompts: [queued('c1', 'one edited')] }, { type: 'queue', prompts: [] }]);
  });
});
