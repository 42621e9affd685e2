/**
 * A Stop that lands after a turn was journaled and registered as this window's run, but before its
 * agent was handed the prompt (while the runtime reads the history it needs), ends the turn as
 * stopped without starting the agent. Found by the queue's panel test under load: the agent added its
 * abort listener to a signal already aborted, never heard it, and the chat stayed "running".
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Agent } from '../../src/runtime/agent';
import type { Journal } from '../../src/journal/journal';
import { openRuntime } from './harness';
import { trackedTempDir, waitFor } from './helpers';

describe('Stop before the agent has the prompt', () => {
  it('ends the turn stopped and never starts the agent', async () => {
    let releaseHistory: () => void = () => undefined;
    let historyAsked = false;
    // The runtime's read of the history waits until released: the Stop comes in that gap.
    const held = (j: Journal): Journal => new Proxy(j, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key);
        if (key !== 'read') return typeof value === 'function' ? value.bind(target) : value;
        return async (op: string, ...args: unknown[]) => {
          if (op === 'listHistory') {
            historyAsked = true;
            await new Promise<void>((resolve) => (releaseHistory = resolve));
          }
          return (value as (...a: unknown[]) => unknown).call(target, op, ...args);
        };
      },
    });
    const started: string[] = [];
    // Like an agent that checks its signal only by listening to it (no `aborted` check at start).
    const agent: Agent = {
      provider: 'local', label: 'listening agent',
      runTurn: (request, ctx) => new Promise((resolve) => {
        started.push(request.prompt);
        ctx.signal.addEventListener('abort', () => resolve({ status: 'completed' }));
      }),
    };
    const h = await openRuntime({ file: path.join(trackedTempDir(), 'journal.sqlite'), agentFor: () => agent, wrap: held });
    try {
      const session = await h.runtime.createSession('local');
      assert.ok(session.ok);
      const sessionId = session.value.id;
      const sending = h.runtime.send(sessionId, 'hello');
      await waitFor('the runtime to read the history', () => historyAsked);
      assert.deepEqual(await h.runtime.stop(sessionId), { ok: true, value: { stopped: true } });
      releaseHistory();
      assert.ok((await sending).ok);
      await waitFor('the run to end', async () => (await h.journal.read('listRunsInFlight')).length === 0, 10_000);
      await h.runtime.whenIdle(sessionId);
      const turns = await h.journal.read('listTurns', sessionId);
      assert.deepEqual(turns.map((t) => [t.prompt, t.status, t.delivery]), [['hello', 'stopped', 'sending']]);
      assert.deepEqual(started, [], 'the agent was never handed the prompt');
    } finally {
      await h.journal.close();
    }
  });
});
