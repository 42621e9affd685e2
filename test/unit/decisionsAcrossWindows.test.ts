/**
 * A boundary decision taken in any window reaches the run that waits on it, and Stop still ends a run
 * whose owner's own click lost the race to another window's decision. Two "windows" are two journals
 * (two worker threads, two in-memory databases) on the same file, each with its own ChatRuntime and
 * the local agent.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { openLocal, type RuntimeHarness } from './harness';
import { trackedTempDir as tempDir, waitFor } from './helpers';

/** Windows A and B (the local agent) on one new journal file and workspace. */
async function twoWindows(): Promise<{ a: RuntimeHarness; b: RuntimeHarness; workspace: string }> {
  const workspace = tempDir('nac-ws-');
  const a = await openLocal({ workspace, instance: 'window-a' });
  const b = await openLocal({ file: a.file, workspace, instance: 'window-b' });
  return { a, b, workspace };
}

/** The chat's first turn's status once it stopped running, or `running` if it still runs after 3 s. */
function firstTurnEnd(w: RuntimeHarness, sessionId: string): Promise<string> {
  return waitFor('the turn to end', async () => {
    const turn = (await w.runtime.transcript(sessionId)).turns[0];
    return turn && turn.status !== 'running' ? turn.status : undefined;
  }, 3000).catch(() => 'running');
}

/** Closes the windows in order. */
async function closeAll(...windows: RuntimeHarness[]): Promise<void> {
  for (const w of windows) await w.close();
}

describe('boundary decisions across windows', () => {
  /**
   * BUG (a run never finishes): `LogStore.writeGroup` catches up on other processes' commits before
   * writing but throws away the sessions they touched, so no `external` notice is ever posted for
   * them. When window B approves a request of window A's run and window A writes anything before its
   * next 50 ms poll (here: recording another chat's tab; in practice any streaming chat), A's waiter
   * never hears the decision: the agent waits forever, the prompt stays "actionable" in A.
   */
  it("another window's decision reaches the waiting agent even if this window writes first", async () => {
    const { a, b, workspace } = await twoWindows();
    try {
      const s = await a.runtime.createSession('local');
      const other = await a.runtime.createSession('local');
      assert.ok(s.ok && other.ok);
      assert.ok((await a.runtime.send(s.value.id, 'run touch made.txt')).ok);
      const requestId = await waitFor('the request in window B', async () => (await b.runtime.liveState(s.value.id)).actionableRequestIds[0]);
      assert.deepEqual(await b.runtime.decide(s.value.id, requestId, 'allow_once'), { ok: true, value: { approved: true } });
      await a.runtime.recordTab(other.value.id); // window A writes something before its next poll
      const status = await firstTurnEnd(a, s.value.id);
      assert.equal(status, 'completed');
      assert.equal(fs.existsSync(path.join(workspace, 'made.txt')), true);
    } finally {
      await closeAll(a, b);
    }
  });

  /**
   * BUG (a run that even Stop cannot end): when the owner window's own click loses the race to
   * another window's decision, `decide` finds the row already settled, deletes the waiter — and
   * never resolves it. The agent's `requestBoundary` promise is then orphaned: Stop's `closeWaiters`
   * no longer finds it, so the run stays `running` until the window reloads (and `send` answers busy).
   */
  it("Stop ends a run whose owner's click lost the race to another window's decision", async () => {
    const { a, b } = await twoWindows();
    try {
      const s = await a.runtime.createSession('local');
      assert.ok(s.ok);
      assert.ok((await a.runtime.send(s.value.id, 'run touch made.txt')).ok);
      const requestId = await waitFor('the request in window B', async () => (await b.runtime.liveState(s.value.id)).actionableRequestIds[0]);
      assert.ok((await b.runtime.decide(s.value.id, requestId, 'allow_once')).ok);
      const click = await a.runtime.decide(s.value.id, requestId, 'allow_once'); // the owner's click, a moment later
      assert.equal(!click.ok && click.reason, 'already_decided', JSON.stringify(click));
      assert.ok((await a.runtime.stop(s.value.id)).ok);
      const status = await firstTurnEnd(a, s.value.id);
      assert.notEqual(status, 'running');
      assert.equal((await a.runtime.liveState(s.value.id)).running, false);
    } finally {
      await closeAll(a, b);
    }
  });
});
