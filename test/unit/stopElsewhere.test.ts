/**
 * Stop pressed in a window that does not drive the reply (chatRuntime.ts `askOwnerToStop`, core.ts
 * `requestStop`): several windows (each its own Journal + ChatRuntime) on one journal file, with a
 * controllable agent (harness.ts `openWindow`). The first three tests failed before their fixes.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Journal } from '../../src/journal/journal';
import type { Transcript } from '../../src/core/transcript';
import { STOP_ELSEWHERE_NOTICE } from '../../src/runtime/chatRuntime';
import { closeWindows as closeAll, openWindow, startWaitingRun } from './harness';
import { tempDir, waitFor } from './helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Stop pressed in another window', () => {
  it('reaches the window that drives the run, once, and both transcripts say so', async () => {
    // Found by a fresh user: Stop in window B, while window A ran the reply, did nothing.
    const file = path.join(tempDir(), 'journal.sqlite');
    const ws = tempDir('nac-ws-');
    const a = await openWindow(file, ws, 'window-a');
    const b = await openWindow(file, ws, 'window-b');
    try {
      const id = await startWaitingRun(a, 'wait', b);
      assert.deepEqual(await b.runtime.stop(id), { ok: true, value: { stopped: true } });
      assert.deepEqual(await b.runtime.stop(id), { ok: true, value: { stopped: false } }, 'a replayed Stop asks once');
      await waitFor('window A to stop the run', () => a.aborted.length === 1);
      await a.runtime.whenIdle(id);
      await waitFor('window B to see it stopped', async () => !(await b.runtime.liveState(id)).running);
      for (const w of [a, b]) {
        const transcript: Transcript = await w.runtime.transcript(id);
        const turn = transcript.turns[0]!;
        assert.equal(turn.status, 'stopped');
        assert.ok(turn.items.some((i) => i.type === 'notice' && i.message === STOP_ELSEWHERE_NOTICE), 'the transcript names the Stop from elsewhere');
      }
      assert.equal(a.aborted.length, 1);
      assert.deepEqual(await b.runtime.stop(id), { ok: true, value: { stopped: false } }, 'nothing left to stop');
    } finally {
      await closeAll(a, b);
    }
  });

  it('reaches the owner\'s running reply even when an earlier run of the chat it could not finish (full disk) is still in flight', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const ws = tempDir('nac-ws-');
    const a = await openWindow(file, ws, 'window-a');
    const b = await openWindow(file, ws, 'window-b');
    try {
      const s = await a.runtime.createSession('local');
      assert.ok(s.ok);
      assert.ok((await a.runtime.send(s.value.id, 'first')).ok);
      fs.writeFileSync(`${file}.fault-enospc`, ''); // the disk fills up
      assert.deepEqual(await a.runtime.stop(s.value.id), { ok: true, value: { stopped: true } });
      await a.runtime.whenIdle(s.value.id); // finishRun fails: run 'first' stays 'running', owned by live A
      fs.rmSync(`${file}.fault-enospc`); // space again
      assert.equal((await a.runtime.liveState(s.value.id)).running, false, 'A lets its user send again');
      assert.ok((await a.runtime.send(s.value.id, 'second')).ok);
      await waitFor('B to see the second run', async () => (await b.journal.read('listRunsInFlight')).length === 2);
      assert.deepEqual(await b.runtime.stop(s.value.id), { ok: true, value: { stopped: true } });
      await sleep(1000);
      const again = await b.runtime.stop(s.value.id); // the user presses Stop again
      await sleep(1000);
      assert.deepEqual(a.aborted, ['first', 'second'], `Stop in B must reach A's running reply (second Stop answered ${JSON.stringify(again)})`);
    } finally {
      a.complete.get('second')?.();
      await closeAll(a, b);
    }
  });

  it('a request read for run R1 after R1 ended stops nothing else (not another window\'s run R2)', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const ws = tempDir('nac-ws-');
    let gate: Promise<void> | undefined;
    let release!: () => void;
    // Window A's journal answers `stopRequested` only once released (a slow worker round trip).
    const wrap = (j: Journal): Journal =>
      new Proxy(j, {
        get(target, prop, receiver) {
          if (prop === 'read') {
            return async (op: string, ...args: unknown[]) => {
              const v = await (target.read as (op: string, ...a: unknown[]) => Promise<unknown>)(op, ...args);
              if (op === 'stopRequested' && v === true && gate) await gate;
              return v;
            };
          }
          const v = Reflect.get(target, prop, receiver);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
    gate = new Promise<void>((r) => (release = r));
    const a = await openWindow(file, ws, 'window-a', { wrap });
    const b = await openWindow(file, ws, 'window-b');
    const c = await openWindow(file, ws, 'window-c');
    try {
      const s = await a.runtime.createSession('local');
      assert.ok(s.ok);
      assert.ok((await a.runtime.send(s.value.id, 'r1')).ok);
      await waitFor('C to see r1', async () => (await c.runtime.transcript(s.value.id)).turns.length === 1);
      // A second run of the chat in C: the one-sender rule makes C's send wait (`busy`), and so
      // would a Retry; r2 is journaled as C's run directly, as a window whose end of r1 the journal
      // had not recorded yet (a full disk) could start it, or a build before the busy check did.
      assert.equal((await c.runtime.send(s.value.id, 'r2')).ok, false);
      const r1Id = (await c.journal.read('listRunsInFlight'))[0]!.id;
      assert.ok((await c.journal.write('startTurn', {
        turn: { id: 'turn-r2', sessionId: s.value.id, prompt: 'r2', origin: 'prompt', parentTurnId: null, createdAt: Date.now() },
        run: { id: 'run-r2', instanceId: 'window-c', provider: 'local' },
        endedRunIds: [r1Id],
      })).ok);
      await waitFor('B to see both runs', async () => (await b.journal.read('listRunsInFlight')).length === 2);
      const runs = await b.journal.read('listRunsInFlight');
      const r1 = runs.find((r) => r.instanceId === 'window-a')!.id;
      const r2 = runs.find((r) => r.instanceId === 'window-c')!.id;
      // B asks for r1 only (its Stop asks every run; the request itself is what is under test).
      assert.ok((await b.journal.write('requestStop', r1, 'window-b', STOP_ELSEWHERE_NOTICE, Date.now())).ok);
      assert.equal(await b.journal.read('stopRequested', r1), true);
      assert.equal(await b.journal.read('stopRequested', r2), false, 'B asked for r1 only');
      await sleep(300); // A has read stopRequested(r1) = true; its answer is held
      a.complete.get('r1')!(); // r1 completes on its own meanwhile
      await a.runtime.whenIdle(s.value.id);
      release();
      await sleep(1000);
      assert.equal(await c.journal.read('stopRequested', r2), false, `nobody pressed Stop for r2, yet A asked (C aborted: ${JSON.stringify(c.aborted)})`);
      assert.deepEqual(c.aborted, [], 'nobody asked to stop r2');
    } finally {
      release();
      c.complete.get('r2')?.();
      await closeAll(a, b, c);
    }
  });

  it('three windows pressing Stop at once: asked once, stopped once', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const ws = tempDir('nac-ws-');
    const [a, b, c, d] = [await openWindow(file, ws, 'a'), await openWindow(file, ws, 'b'), await openWindow(file, ws, 'c'), await openWindow(file, ws, 'd')];
    try {
      const s = await a.runtime.createSession('local');
      assert.ok(s.ok);
      assert.ok((await a.runtime.send(s.value.id, 'x')).ok);
      await waitFor('all to see it', async () => {
        for (const w of [b, c, d]) if (!(await w.runtime.liveState(s.value.id)).running) return false;
        return true;
      });
      const answers = await Promise.all([b, c, d, b].map((w) => w.runtime.stop(s.value.id)));
      const stopped = answers.filter((r) => r.ok && r.value.stopped).length;
      assert.equal(stopped, 1, JSON.stringify(answers));
      await waitFor('A to stop', () => a.aborted.length === 1);
      await a.runtime.whenIdle(s.value.id);
      const t = await d.runtime.transcript(s.value.id);
      assert.equal(t.turns[0]!.status, 'stopped');
      assert.equal(t.turns[0]!.items.filter((i) => i.type === 'notice' && i.message === STOP_ELSEWHERE_NOTICE).length, 1);
    } finally {
      await closeAll(a, b, c, d);
    }
  });

  it('Stop in B racing the end of A\'s run never stops A\'s next run', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const ws = tempDir('nac-ws-');
    const a = await openWindow(file, ws, 'a');
    const b = await openWindow(file, ws, 'b');
    try {
      const s = await a.runtime.createSession('local');
      assert.ok(s.ok);
      for (let i = 0; i < 8; i++) {
        const p = `run-${i}`;
        assert.ok((await a.runtime.send(s.value.id, p)).ok);
        await waitFor('B sees it', async () => (await b.runtime.liveState(s.value.id)).running);
        const stopping = b.runtime.stop(s.value.id);
        await sleep(i * 3);
        a.complete.get(p)!();
        await stopping;
        await a.runtime.whenIdle(s.value.id);
        await waitFor('B sees it end', async () => !(await b.runtime.liveState(s.value.id)).running);
        await b.runtime.stop(s.value.id); // after the end: nothing to ask
      }
      assert.ok((await a.runtime.send(s.value.id, 'next')).ok);
      await sleep(500);
      assert.equal(a.aborted.includes('next'), false);
      a.complete.get('next')!();
      await a.runtime.whenIdle(s.value.id);
      const t = await a.runtime.transcript(s.value.id);
      assert.equal(t.turns.at(-1)!.status, 'completed');
    } finally {
      await closeAll(a, b);
    }
  });

  it('dead owner: Stop in B asks nothing and returns; recovery settles the run', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const ws = tempDir('nac-ws-');
    const dead = new Set<string>();
    const a = await openWindow(file, ws, 'a');
    const b = await openWindow(file, ws, 'b', { dead });
    try {
      const id = await startWaitingRun(a, 'x', b);
      a.runtime.dispose(); // A "dies"
      dead.add('a');
      assert.deepEqual(await b.runtime.stop(id), { ok: true, value: { stopped: false } });
      const rec = await b.runtime.recoverOrphans();
      assert.equal(rec.length, 1);
      assert.equal((await b.journal.read('listRunsInFlight')).length, 0);
    } finally {
      await closeAll(a, b);
    }
  });

  it('request pending while A is disposed: A\'s successor (A dead) recovers the run; no hang', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const ws = tempDir('nac-ws-');
    const dead = new Set<string>();
    const a = await openWindow(file, ws, 'a');
    const b = await openWindow(file, ws, 'b', { dead });
    try {
      const id = await startWaitingRun(a, 'x', b);
      a.runtime.dispose();
      assert.deepEqual(await b.runtime.stop(id), { ok: true, value: { stopped: true } });
      dead.add('a');
      const a2 = await openWindow(file, ws, 'a2', { dead });
      const t = await a2.runtime.transcript(id);
      assert.equal(t.turns[0]!.status, 'failed');
      assert.ok((await a2.runtime.send(id, 'y')).ok);
      await sleep(300);
      assert.deepEqual(a2.aborted, []);
      a2.complete.get('y')!();
      await a2.runtime.whenIdle(id);
      await closeAll(a2);
    } finally {
      await closeAll(a, b);
    }
  });

  it('request written while A\'s disk is full: A still stops (its own writes fail)', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const ws = tempDir('nac-ws-');
    const a = await openWindow(file, ws, 'a');
    const b = await openWindow(file, ws, 'b');
    try {
      const id = await startWaitingRun(a, 'x', b);
      assert.deepEqual(await b.runtime.stop(id), { ok: true, value: { stopped: true } });
      fs.writeFileSync(`${file}.fault-enospc`, '');
      await waitFor('A stops', () => a.aborted.length === 1);
      await a.runtime.whenIdle(id);
      fs.rmSync(`${file}.fault-enospc`);
      // B on a full disk: a refusal, not a hang
      assert.ok((await a.runtime.send(id, 'y')).ok);
      await waitFor('B sees y', async () => (await b.journal.read('listRunsInFlight')).some((r) => r.instanceId === 'a' && r.status === 'running'));
      fs.writeFileSync(`${file}.fault-enospc`, '');
      const r = await b.runtime.stop(id);
      fs.rmSync(`${file}.fault-enospc`);
      assert.ok(!r.ok || r.value.stopped === false || r.value.stopped === true);
      a.complete.get('y')?.();
    } finally {
      await closeAll(a, b);
    }
  });
});
