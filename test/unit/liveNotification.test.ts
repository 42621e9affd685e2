/**
 * The runtime's `live` notification carries the chat's live state (panels post it as it is, with
 * no journal reads of their own), and the run context hands each boundary request exactly one
 * answer.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { LiveState } from '../../src/protocol/messages';
import type { BoundaryOutcome } from '../../src/runtime/agent';
import { RunContext } from '../../src/runtime/runContext';
import type { RuntimeScope } from '../../src/runtime/scope';
import { openLocal } from './harness';
import { waitFor } from './helpers';

describe('live notification', () => {
  it('carries the live state: running with the request the agent waits on, then idle with nothing to answer', async () => {
    const { journal, runtime } = await openLocal();
    const lives: { sessionId: string; live: LiveState }[] = [];
    runtime.onNotification((n) => {
      if (n.type === 'live') lives.push({ sessionId: n.sessionId, live: n.live });
    });
    const s = await runtime.createSession('local');
    assert.ok(s.ok);
    await runtime.send(s.value.id, 'run touch made.txt && echo made');
    const asked = await waitFor('a live notification naming the pending request', () => lives.find((l) => l.live.actionableRequestIds.length > 0));
    assert.equal(asked.sessionId, s.value.id);
    assert.equal(asked.live.running, true);
    const requestId = asked.live.actionableRequestIds[0]!;
    assert.equal((await journal.read('getBoundaryRequest', requestId))?.status, 'pending');
    assert.deepEqual(asked.live.actionableRequestIds, [requestId]);

    const decided = await runtime.decide(s.value.id, requestId, 'deny');
    assert.deepEqual(decided, { ok: true, value: { approved: false } });
    await runtime.whenIdle(s.value.id);
    const ended = await waitFor('a live notification of the ended run', () => {
      const last = lives.at(-1)?.live;
      return last && !last.running ? last : undefined;
    });
    assert.deepEqual(ended.actionableRequestIds, []);
    assert.deepEqual(ended, await runtime.liveState(s.value.id), 'the notification carries what the runtime reads now');
    runtime.dispose();
    await journal.close();
  });
});

describe('run context', () => {
  it('hands each boundary request exactly one answer: the first delivered, or the claimer\'s', async () => {
    const scope = { now: Date.now, log: () => undefined, disposed: () => false } as unknown as RuntimeScope;
    const run = new RunContext(scope, 'run-1', 'turn-1', 'chat-1');
    const allow: BoundaryOutcome = { approved: true, decision: 'allow_once', requestId: 'a' };
    const deny = (requestId: string): BoundaryOutcome => ({ approved: false, decision: 'deny', requestId });
    const a = run.waitFor('a');
    const b = run.waitFor('b');
    assert.deepEqual(run.waitingIds(), ['a', 'b']);

    assert.equal(run.claim('b'), true);
    assert.equal(run.claim('b'), false, 'a claimed answer is not claimed twice');
    assert.deepEqual(run.waitingIds(), ['a'], 'a request whose answer is claimed is no longer waiting');
    assert.equal(run.isWaiting('b'), false);

    assert.equal(run.deliver('a', allow), true);
    assert.equal(run.deliver('a', deny('a')), false, 'a second answer is not delivered');
    assert.deepEqual(await a, allow);
    assert.equal(run.deliver('b', deny('b')), true, 'the claimer delivers the claimed answer');
    assert.deepEqual(await b, deny('b'));
    assert.equal(run.deliver('never-asked', deny('never-asked')), false);
    assert.deepEqual(run.waitingIds(), []);
  });
});
