/**
 * Stop pressed while a boundary request is being journaled: the request is closed as stopped and
 * the agent's wait ends, so the run ends (the agent does not wait forever on a request Stop's
 * closing of waiting requests could not see yet).
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Journal } from '../../src/journal/journal';
import { LocalAgent } from '../../src/runtime/agents/localAgent';
import { ChatRuntime } from '../../src/runtime/chatRuntime';
import { fakeInstance, openJournal, tempDir, waitFor } from './helpers';

describe('stop while a boundary request is journaled', () => {
  it('closes the request as stopped and ends the run', async () => {
    const journal = await openJournal(path.join(tempDir(), 'journal.sqlite'));
    const workspace = tempDir('nac-ws-');
    let requestWritten: (() => void) | undefined;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The runtime's journal holds the request's write until the test has pressed Stop.
    const gated = {
      read: journal.read.bind(journal),
      write: (async (op: string, ...args: unknown[]) => {
        if (op === 'createBoundaryRequest') {
          requestWritten?.();
          await released;
        }
        return (journal.write as (op: string, ...a: unknown[]) => Promise<unknown>)(op, ...args);
      }) as Journal['write'],
      onExternalChange: journal.onExternalChange.bind(journal),
      get readOnly() {
        return journal.readOnly;
      },
      get readOnlyReason() {
        return journal.readOnlyReason;
      },
    } as unknown as Journal;
    const runtime = new ChatRuntime({
      journal: gated, instance: fakeInstance('host-a', process.pid), agentFor: () => new LocalAgent(),
      workspaceRoot: () => workspace, isAlive: () => true, flushIntervalMs: 5,
    });
    try {
      await runtime.start();
      const s = await runtime.createSession('local');
      assert.ok(s.ok);
      const writing = new Promise<void>((resolve) => (requestWritten = resolve));
      assert.ok((await runtime.send(s.value.id, 'run touch made.txt')).ok);
      await writing;
      assert.deepEqual(await runtime.stop(s.value.id), { ok: true, value: { stopped: true } });
      release();

      let idle = false;
      void runtime.whenIdle(s.value.id).then(() => (idle = true));
      await waitFor('the stopped run to end', () => idle, 10_000);
      const pending = await journal.read('listSessionPendingBoundaryRequests', s.value.id);
      assert.deepEqual(pending, [], 'no request stays pending');
      const turns = await journal.read('listTurns', s.value.id);
      assert.equal(turns.at(-1)?.status, 'stopped');
      assert.equal((await runtime.liveState(s.value.id)).running, false);
    } finally {
      runtime.dispose();
      await journal.close();
    }
  });
});
