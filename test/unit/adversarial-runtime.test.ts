/**
 * Adversarial tests of the chat runtime across windows and restarts, written by a reviewer trying
 * to break it. Every test here FAILS against the code it was written against: each shows a confirmed
 * bug named in its docstring, and passes once that bug is fixed. Two "windows" are two journals (two
 * worker threads, two in-memory databases) on the same files, each with its own ChatRuntime.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Journal } from '../../src/journal/journal';
import { LocalAgent } from '../../src/runtime/agents/localAgent';
import { ChatRuntime } from '../../src/runtime/chatRuntime';
import { fakeInstance, openJournal, trackedTempDir as tempDir, waitFor } from './helpers';


interface Window {
  readonly journal: Journal;
  readonly runtime: ChatRuntime;
}

async function openWindow(file: string, workspace: string, id: string, isAlive: (i: { id: string }) => boolean = () => true): Promise<Window> {
  const journal = await openJournal(file);
  const agent = new LocalAgent();
  const runtime = new ChatRuntime({
    journal,
    instance: fakeInstance(id, process.pid),
    agentFor: () => agent,
    workspaceRoot: () => workspace,
    isAlive,
    flushIntervalMs: 5,
  });
  await runtime.start();
  return { journal, runtime };
}


const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function closeAll(...windows: Window[]): Promise<void> {
  for (const w of windows) {
    w.runtime.dispose();
    await w.journal.close();
  }
}

describe('adversarial: decisions across windows', () => {
  /**
   * BUG (a run never finishes): `LogStore.writeGroup` catches up on other processes' commits before
   * writing but throws away the sessions they touched, so no `external` notice is ever posted for
   * them. When window B approves a request of window A's run and window A writes anything before its
   * next 50 ms poll (here: recording another chat's tab; in practice any streaming chat), A's waiter
   * never hears the decision: the agent waits forever, the prompt stays "actionable" in A.
   * Fails today: after 3 s the turn is still running and the approved command never ran.
   */
  it("another window's decision reaches the waiting agent even if this window writes first", async () => {
    const workspace = tempDir('nac-ws-');
    const a = await openWindow(path.join(tempDir(), 'journal.sqlite'), workspace, 'window-a');
    const b = await openWindow(a.journal.file, workspace, 'window-b');
    try {
      const s = await a.runtime.createSession('local');
      const other = await a.runtime.createSession('local');
      assert.ok(s.ok && other.ok);
      assert.ok((await a.runtime.send(s.value.id, 'run touch made.txt')).ok);
      const requestId = await waitFor('the request in window B', async () => (await b.runtime.liveState(s.value.id)).actionableRequestIds[0]);
      assert.deepEqual(await b.runtime.decide(s.value.id, requestId, 'allow_once'), { ok: true, value: { approved: true } });
      await a.runtime.recordTab(other.value.id); // window A writes something before its next poll
      const status = await waitFor('the turn to end', async () => {
        const turn = (await a.runtime.transcript(s.value.id)).turns[0];
        return turn && turn.status !== 'running' ? turn.status : undefined;
      }, 3000).catch(() => 'running');
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
   * Fails today: 3 s after Stop the turn is still running.
   */
  it("Stop ends a run whose owner's click lost the race to another window's decision", async () => {
    const workspace = tempDir('nac-ws-');
    const a = await openWindow(path.join(tempDir(), 'journal.sqlite'), workspace, 'window-a');
    const b = await openWindow(a.journal.file, workspace, 'window-b');
    try {
      const s = await a.runtime.createSession('local');
      assert.ok(s.ok);
      assert.ok((await a.runtime.send(s.value.id, 'run touch made.txt')).ok);
      const requestId = await waitFor('the request in window B', async () => (await b.runtime.liveState(s.value.id)).actionableRequestIds[0]);
      assert.ok((await b.runtime.decide(s.value.id, requestId, 'allow_once')).ok);
      const click = await a.runtime.decide(s.value.id, requestId, 'allow_once'); // the owner's click, a moment later
      assert.equal(!click.ok && click.reason, 'already_decided', JSON.stringify(click));
      assert.ok((await a.runtime.stop(s.value.id)).ok);
      const status = await waitFor('the turn to end', async () => {
        const turn = (await a.runtime.transcript(s.value.id)).turns[0];
        return turn && turn.status !== 'running' ? turn.status : undefined;
      }, 3000).catch(() => 'running');
      assert.notEqual(status, 'running');
      assert.equal((await a.runtime.liveState(s.value.id)).running, false);
    } finally {
      await closeAll(a, b);
    }
  });
});

describe('adversarial: restart attribution', () => {
  /**
   * BUG (wrong attribution; "a host that is shutting down writes nothing more"): `dispose()` aborts
   * the runs, and the tool runtime answers the abort of a running command by journaling
   * `invocation_finished {status: failed, message: "Stopped"}` — after dispose. The next host's
   * recovery then finds no open invocation, so the command reads as stopped by the user instead of
   * interrupted by the restart (no `app_restarted` failure class on it).
   * Fails today: one `invocation_finished` event is written after dispose.
   */
  it('a disposed host writes nothing, so recovery attributes its running command to the restart', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const workspace = tempDir('nac-ws-');
    fs.writeFileSync(path.join(workspace, 'x.txt'), 'x\n');
    const old = await openWindow(file, workspace, 'old-host');
    const s = await old.runtime.createSession('local');
    assert.ok(s.ok);
    assert.ok((await old.runtime.send(s.value.id, 'run tail -f x.txt')).ok); // allowlisted, runs until killed
    await waitFor('the command output', async () => (await old.journal.read('listEvents', s.value.id)).some((e) => e.kind === 'invocation_output' && e.payload.chunk !== ''));
    const before = (await old.journal.read('listEvents', s.value.id)).length;
    old.runtime.dispose(); // the window reloads
    await sleep(500);
    const written = (await old.journal.read('listEvents', s.value.id)).slice(before).map((e) => `${e.kind} ${JSON.stringify(e.payload)}`);
    await old.journal.close();
    const next = await openWindow(file, workspace, 'new-host', (i) => i.id !== 'old-host');
    try {
      assert.deepEqual(written, [], 'events written by the disposed host');
      const inv = (await next.journal.read('listEvents', s.value.id)).find((e) => e.kind === 'invocation_finished');
      assert.equal(inv?.kind === 'invocation_finished' && inv.payload.failureClass, 'app_restarted');
    } finally {
      await closeAll(next);
    }
  });
});
