/**
 * The webview's check of host messages (`hostMessageProblem`): everything a real runtime sends
 * passes, and malformed messages are named — as strictly as the host decodes the view's messages.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { hostMessageProblem } from '../../src/protocol/checkHostMessage';
import { cursorOf } from '../../src/core/transcript';
import { MAX_ID_CHARS, type HostMessage } from '../../src/protocol/messages';
import type { RuntimeNotification } from '../../src/runtime/chatRuntime';
import { openLocal } from './harness';
import { tempDir, waitFor } from './helpers';

describe('host messages checked in the view', () => {
  it('lets through every message a real chat produces: snapshots, updates, live states, errors', async () => {
    const workspace = tempDir('nac-ws-');
    fs.writeFileSync(path.join(workspace, 'hello.txt'), 'hi\n');
    const { journal, runtime } = await openLocal({ workspace });
    const sent: HostMessage[] = [];
    runtime.onNotification((n: RuntimeNotification) => {
      if (n.type === 'update') sent.push({ type: 'update', update: n.update });
    });
    try {
      const s = await runtime.createSession('local');
      assert.ok(s.ok);
      for (const prompt of ['help', 'run ls', 'read hello.txt', 'write out.md\n```md\n# x\n```']) {
        assert.ok((await runtime.send(s.value.id, prompt)).ok);
        await runtime.whenIdle(s.value.id);
      }
      assert.ok((await runtime.send(s.value.id, 'run touch x && echo y')).ok);
      const requestId = await waitFor('a pending request', async () => (await runtime.liveState(s.value.id)).actionableRequestIds[0]);
      sent.push({ type: 'live', live: await runtime.liveState(s.value.id), hostNow: Date.now() });
      assert.ok((await runtime.decide(s.value.id, requestId, 'allow_once')).ok);
      await runtime.whenIdle(s.value.id);
      const refused = await runtime.decide(s.value.id, requestId, 'deny');
      assert.ok(!refused.ok);
      sent.push({ type: 'error', code: refused.reason, message: refused.message, action: 'decide' }, { type: 'succeeded', action: 'send' });
      const session = (await runtime.getSession(s.value.id))!;
      const last = await runtime.transcriptPage(s.value.id);
      sent.push({ type: 'snapshot', queue: [], session, transcript: last.transcript, hasOlder: last.hasOlder, turnCount: last.turnCount, live: await runtime.liveState(s.value.id), hostNow: Date.now(), seq: 1 });
      const before = cursorOf(last.transcript.turns[2]!);
      const older = await runtime.transcriptPage(s.value.id, before);
      sent.push({ type: 'page', before, turns: older.transcript.turns, hasOlder: older.hasOlder, seq: 2 });
      const changes = await runtime.changesSince(s.value.id, { eventId: 0, turnRow: 0, turns: 0 });
      assert.ok(changes && changes.updates.length > 10, 'precondition: every turn and event changed since the start');
      sent.push({ type: 'changes', session, updates: changes.updates, turnCount: changes.turnCount, seq: 3 });
      sent.push({ type: 'orphan' }, { type: 'pong' }, { type: 'announce', text: 'Undo: put back 1 file.', seq: 4 });
      assert.ok(sent.filter((m) => m.type === 'update').length > 10, 'precondition: the chat streamed updates');
      for (const message of sent) assert.equal(hostMessageProblem(message), null, `${message.type}: ${JSON.stringify(message).slice(0, 300)}`);
    } finally {
      await journal.close();
    }
  });

  it('names what is wrong with a malformed message', () => {
    const live = { running: false, actionableRequestIds: [], readOnlyReason: null };
    const queued = { clientId: 'c1', text: 'run ls', hold: null, sendNow: false, createdAt: 5 };
    const turn = { id: 't1', sessionId: 's', prompt: 'p', origin: 'prompt', parentTurnId: null, status: 'completed', errorClass: null, seq: 1, createdAt: 1 };
    const cases: [unknown, RegExp][] = [
      [null, /without a type/],
      ['snapshot', /without a type/],
      [{ type: 'explode' }, /unknown message type "explode"/],
      [{ type: 'toString' }, /unknown message type/],
      [{ type: 'pong', extra: 1 }, /unexpected key "extra"/],
      [{ type: 'announce', text: 3 }, /announce\.text is not a string/],
      [{ type: 'live' }, /live\.live is missing/],
      [{ type: 'live', live: { ...live, running: 'yes' } }, /live\.live\.running is not a boolean/],
      [{ type: 'live', live: { ...live, actionableRequestIds: [''] } }, /actionableRequestIds\[0\] is not an id/],
      [{ type: 'live', live, hostNow: 'now' }, /hostNow is not a number/],
      [{ type: 'error', code: 'whatever', message: 'm' }, /code is not one of/],
      [{ type: 'error', code: 'busy', message: 'm', action: 'explode' }, /action is not one of/],
      [{ type: 'succeeded' }, /action is missing/],
      [{ type: 'update', update: { type: 'other' } }, /update\.type is not turn or event/],
      [{ type: 'update', update: { type: 'event', event: { runId: 'r', seq: 1, sessionId: 's', turnId: 't', kind: 'nope', payload: {}, at: 1 } } }, /kind is not one of/],
      [{ type: 'snapshot', queue: [], session: { id: 's', title: 't', provider: 'local', createdAt: 1, updatedAt: 1 }, transcript: { turns: [{}] }, hasOlder: false, turnCount: 1, live }, /turns\[0\]\.id is missing/],
      [{ type: 'snapshot', queue: [], session: { id: 's', title: 't', provider: 'local', createdAt: 1, updatedAt: 1 }, transcript: { turns: [] }, turnCount: 0, live }, /hasOlder is missing/],
      [{ type: 'page', before: { seq: 1 }, turns: [], hasOlder: false }, /before\.id is missing/],
      [{ type: 'changes', session: { id: 's', title: 't', provider: 'local', createdAt: 1, updatedAt: 1 }, updates: [{ type: 'x' }], turnCount: 1 }, /updates\[0\]\.type is not turn or event/],
      [{ type: 'live', live, seq: '3' }, /seq is not a number/],
      [{ type: 'changes', session: { id: 's', title: 't', provider: 'local', createdAt: 1, updatedAt: 1 }, updates: [], turnCount: 1, live: { running: 'no' } }, /live\.running is not a boolean/],
      [{ type: 'snapshot', session: { id: 's', title: 't', provider: 'local', createdAt: 1, updatedAt: 1 }, transcript: { turns: [] }, hasOlder: false, turnCount: 0, live }, /snapshot\.queue is missing/],
      [{ type: 'queue' }, /queue\.prompts is missing/],
      [{ type: 'queue', prompts: [{ ...queued, hold: 'bored' }] }, /prompts\[0\]\.hold is not one of stopped, failed, restarted/],
      [{ type: 'queue', prompts: [{ ...queued, text: '' }] }, /prompts\[0\]\.text is not a message's text/],
      [{ type: 'queue', prompts: [{ ...queued, clientId: 'c'.repeat(MAX_ID_CHARS + 1) }] }, /prompts\[0\]\.clientId is not an id/],
      [{ type: 'queue', prompts: [{ ...queued, position: 1 }] }, /prompts\[0\] has an unexpected key "position"/],
      [{ type: 'queue', prompts: [{ ...queued, sendNow: 'yes' }] }, /prompts\[0\]\.sendNow is not a boolean/],
      [{ type: 'succeeded', action: 'send', clientId: 'c1', queued: 'yes' }, /succeeded\.queued is not a boolean/],
      [{ type: 'succeeded', action: 'sendLater' }, /succeeded\.action is not one of/],
      [{ type: 'error', code: 'conflict', message: 'm', action: 'send', clientId: '' }, /error\.clientId is not an id/],
      [{ type: 'update', update: { type: 'turn', turn: { ...turn, sentFrom: 'mail' } } }, /turn\.sentFrom is not one of composer, queue, send_now/],
      [{ type: 'update', update: { type: 'turn', turn: { ...turn, delivery: 'lost' } } }, /turn\.delivery is not one of sending, delivered/],
    ];
    for (const [raw, problem] of cases) assert.match(hostMessageProblem(raw) ?? 'accepted', problem, JSON.stringify(raw));
    assert.equal(hostMessageProblem({ type: 'live', live }), null, 'hostNow may be absent');
    assert.equal(hostMessageProblem({ type: 'changes', session: { id: 's', title: 't', provider: 'local', createdAt: 1, updatedAt: 1 }, updates: [], turnCount: 1, live, hostNow: 5 }), null, 'a change may carry the live state');
    // The outbox's messages and fields, as the panel sends them.
    for (const ok of [
      { type: 'queue', prompts: [], seq: 4 },
      { type: 'queue', prompts: [queued, { ...queued, clientId: 'c2', hold: 'restarted', sendNow: true }] },
      { type: 'succeeded', action: 'send', clientId: 'c1', queued: true },
      { type: 'succeeded', action: 'discardQueued', clientId: 'c1' },
      { type: 'error', code: 'conflict', message: 'm', action: 'send', clientId: 'c1' },
      { type: 'error', code: 'malformed_message', message: 'm', action: 'editQueued', clientId: 'c1' },
      { type: 'update', update: { type: 'turn', turn: { ...turn, clientId: 'c1', delivery: 'sending', sentFrom: 'queue' } } },
      { type: 'update', update: { type: 'turn', turn: { ...turn, clientId: null, delivery: null, sentFrom: null } } },
    ]) assert.equal(hostMessageProblem(ok), null, JSON.stringify(ok));
  });
});
