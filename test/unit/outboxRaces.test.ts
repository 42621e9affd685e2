/**
 * Races of the outbox (docs/ARCHITECTURE.md, "Prompts: the outbox, the queue and delivery") against
 * real journals, two runtimes on one file as two VS Code windows: a window's action interleaved with
 * the other window's end of a reply at the one point where it can land, forced by a journal wrapper
 * that lets the other window move before the action's transaction is written.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { MAX_QUEUED_PROMPTS } from '../../src/core/outbox';
import type { Journal } from '../../src/journal/journal';
import type { Agent, AgentTurnOutcome } from '../../src/runtime/agent';
import { closeWindows, openRuntime, openWindow, type RuntimeHarness } from './harness';
import { trackedTempDir, waitFor } from './helpers';

/** A window whose agent runs each prompt until the test ends it (`end`) or it is stopped. */
interface Window extends RuntimeHarness {
  /** Prompts this window's agent was given, in order. */
  readonly ran: string[];
  /** Prompts whose run was stopped (aborted), in order. */
  readonly stopped: string[];
  /** Ends the run of `prompt` with `outcome` (default completed). */
  end(prompt: string, outcome?: AgentTurnOutcome): void;
}

/** Runs `hook` before the wrapped journal writes operation `op` (once), then writes it. */
function beforeWrite(op: string, hook: () => Promise<void>): (j: Journal) => Journal {
  let armed = true;
  return (j) => new Proxy(j, {
    get(target, prop) {
      if (prop === 'write') {
        return async (name: string, ...args: unknown[]) => {
          if (name === op && armed) {
            armed = false;
            await hook();
          }
          return (target.write as (n: string, ...a: unknown[]) => unknown)(name, ...args);
        };
      }
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

async function openWin(file: string, id: string, wrap?: (j: Journal) => Journal, dead?: readonly string[]): Promise<Window> {
  const ran: string[] = [];
  const stopped: string[] = [];
  const enders = new Map<string, (o: AgentTurnOutcome) => void>();
  const agent: Agent = {
    provider: 'local',
    label: 'scripted agent',
    runTurn: async (request, ctx) => {
      await ctx.promptDelivered();
      return new Promise<AgentTurnOutcome>((resolve) => {
        ran.push(request.prompt);
        enders.set(request.prompt, resolve);
        ctx.signal.addEventListener('abort', () => {
          stopped.push(request.prompt);
          resolve({ status: 'completed' });
        });
      });
    },
  };
  const h = await openRuntime({ file, instance: id, agentFor: () => agent, journal: { pollIntervalMs: 20 }, ...(wrap ? { wrap } : {}), ...(dead ? { dead } : {}) });
  return {
    ...h, ran, stopped,
    end: (prompt, outcome = { status: 'completed' }) => {
      const resolve = enders.get(prompt);
      assert.ok(resolve, `no run of "${prompt}" in window ${id}`);
      resolve(outcome);
    },
  };
}

describe('outbox races between two windows', () => {
  it('Send of a message held by a Stop, while a newer reply runs, stops that reply (the view names it Send now)', async () => {
    const file = path.join(trackedTempDir(), 'journal.sqlite');
    const a = await openWin(file, 'window-a');
    try {
      const s = await a.runtime.createSession('local');
      assert.ok(s.ok);
      const id = s.value.id;
      assert.equal((await a.runtime.submit(id, { clientId: 'id-first', text: 'first' })).ok, true);
      await waitFor('"first" to run', () => a.ran.includes('first'));
      assert.equal((await a.runtime.submit(id, { clientId: 'id-held', text: 'held' })).ok, true);
      await a.runtime.stop(id);
      await a.runtime.whenIdle(id);
      const newer = await a.runtime.submit(id, { clientId: 'id-newer', text: 'newer' });
      assert.equal(newer.ok && newer.value.kind, 'started', 'a held message does not hold back a new one');
      await waitFor('"newer" to run', () => a.ran.includes('newer'));
      assert.deepEqual(await a.runtime.sendQueued(id, 'id-held'), { ok: true, value: { kind: 'stopping' } });
      await waitFor('"held" to run', () => a.ran.includes('held'));
      assert.deepEqual(a.stopped, ['first', 'newer']);
      a.end('held');
      await a.runtime.whenIdle(id);
    } finally {
      await a.close();
    }
  });

  it('Send now marked just after the reply ended naturally and sent the first queued message stops that new reply, and the message goes next', async () => {
    const file = path.join(trackedTempDir(), 'journal.sqlite');
    const a = await openWin(file, 'window-a');
    // B's Send now is asked; before it is marked, A's reply ends and sends "second".
    const b = await openWin(file, 'window-b', beforeWrite('sendQueuedPrompt', async () => {
      a.end('first');
      await waitFor('"second" to run in A', () => a.ran.includes('second'));
    }));
    try {
      const s = await a.runtime.createSession('local');
      assert.ok(s.ok);
      const id = s.value.id;
      const first = await a.runtime.submit(id, { clientId: 'id-first', text: 'first' });
      assert.equal(first.ok && first.value.kind, 'started');
      await waitFor('"first" to run', () => a.ran.includes('first'));
      for (const text of ['second', 'urgent']) {
        const q = await a.runtime.submit(id, { clientId: `id-${text}`, text });
        assert.equal(q.ok && q.value.kind, 'queued');
      }
      await waitFor('B to see the queue', async () => (await b.runtime.queue(id)).length === 2);
      assert.deepEqual(await b.runtime.sendQueued(id, 'id-urgent'), { ok: true, value: { kind: 'stopping' } });
      await waitFor('"urgent" to run in A', () => a.ran.includes('urgent'));
      assert.deepEqual(a.stopped, ['second'], 'the reply running when Send now was marked is the one stopped');
      assert.deepEqual((await a.journal.read('listTurns', id)).map((t) => [t.prompt, t.sentFrom, t.status]), [
        ['first', 'composer', 'completed'], ['second', 'queue', 'stopped'], ['urgent', 'send_now', 'running'],
      ]);
      a.end('urgent');
      await a.runtime.whenIdle(id);
    } finally {
      await b?.close();
      await a.close();
    }
  });

  it('a run whose end is written late (full disk) holds nothing queued behind the reply that ran meanwhile: that reply\'s end sends it', async () => {
    const file = path.join(trackedTempDir(), 'journal.sqlite');
    const w = await openWindow(file, trackedTempDir('nac-ws-'), 'host');
    try {
      const s = await w.runtime.createSession('local');
      assert.ok(s.ok);
      const id = s.value.id;
      assert.equal((await w.runtime.submit(id, { clientId: 'id-first', text: 'first' })).ok, true);
      await waitFor('"first" to run', () => w.complete.has('first'));
      fs.writeFileSync(`${file}.fault-enospc`, ''); // the disk fills up: the Stop's end is not written
      await w.runtime.stop(id);
      await w.runtime.whenIdle(id);
      fs.rmSync(`${file}.fault-enospc`); // room again, before the periodic check writes that end
      const second = await w.runtime.submit(id, { clientId: 'id-second', text: 'second' });
      assert.equal(second.ok && second.value.kind, 'started', 'a run ended here does not count as running');
      await waitFor('"second" to run', () => w.complete.has('second'));
      const third = await w.runtime.submit(id, { clientId: 'id-third', text: 'third' });
      assert.equal(third.ok && third.value.kind, 'queued');
      await w.runtime.recoverOrphans(); // the periodic check writes the stopped end of "first"
      assert.deepEqual((await w.runtime.queue(id)).map((p) => [p.text, p.hold]), [['third', null]], 'the Stop of "first" does not hold what waits for "second"');
      w.complete.get('second')!();
      await waitFor('"third" to run', () => w.complete.has('third'));
      assert.deepEqual((await w.journal.read('listTurns', id)).map((t) => [t.prompt, t.sentFrom, t.status]), [
        ['first', 'composer', 'stopped'], ['second', 'composer', 'completed'], ['third', 'queue', 'running'],
      ]);
      w.complete.get('third')!();
      await w.runtime.whenIdle(id);
    } finally {
      fs.rmSync(`${file}.fault-enospc`, { force: true });
      await closeWindows(w);
    }
  });

  it('a reply that completes while the end of an earlier one waits for room on the disk sends the next queued message at once', async () => {
    const file = path.join(trackedTempDir(), 'journal.sqlite');
    const w = await openWindow(file, trackedTempDir('nac-ws-'), 'host');
    try {
      const s = await w.runtime.createSession('local');
      assert.ok(s.ok);
      const id = s.value.id;
      assert.equal((await w.runtime.submit(id, { clientId: 'id-first', text: 'first' })).ok, true);
      await waitFor('"first" to run', () => w.complete.has('first'));
      fs.writeFileSync(`${file}.fault-enospc`, '');
      await w.runtime.stop(id);
      await w.runtime.whenIdle(id);
      fs.rmSync(`${file}.fault-enospc`);
      assert.equal((await w.runtime.submit(id, { clientId: 'id-second', text: 'second' })).ok, true);
      await waitFor('"second" to run', () => w.complete.has('second'));
      const third = await w.runtime.submit(id, { clientId: 'id-third', text: 'third' });
      assert.equal(third.ok && third.value.kind, 'queued');
      w.complete.get('second')!(); // before the periodic check writes the end of "first"
      await waitFor('"third" to run', () => w.complete.has('third'));
      await w.runtime.recoverOrphans();
      assert.deepEqual((await w.journal.read('listTurns', id)).map((t) => [t.prompt, t.sentFrom, t.status]), [
        ['first', 'composer', 'stopped'], ['second', 'composer', 'completed'], ['third', 'queue', 'running'],
      ]);
      w.complete.get('third')!();
      await w.runtime.whenIdle(id);
    } finally {
      fs.rmSync(`${file}.fault-enospc`, { force: true });
      await closeWindows(w);
    }
  });

  it('a Retry in another window while a reply runs is refused as busy (two runs of one chat would interleave); Send now then stops the one run and sends', async () => {
    const file = path.join(trackedTempDir(), 'journal.sqlite');
    const a = await openWin(file, 'window-a');
    const b = await openWin(file, 'window-b');
    try {
      const s = await a.runtime.createSession('local');
      assert.ok(s.ok);
      const id = s.value.id;
      assert.equal((await a.runtime.submit(id, { clientId: 'id-boom', text: 'boom' })).ok, true);
      await waitFor('"boom" to run', () => a.ran.includes('boom'));
      a.end('boom', { status: 'failed', errorClass: 'agent_error', message: 'boom' });
      await a.runtime.whenIdle(id);
      assert.equal((await a.runtime.submit(id, { clientId: 'id-first', text: 'first' })).ok, true);
      await waitFor('"first" to run', () => a.ran.includes('first'));
      const failed = (await b.journal.read('listTurns', id))[0]!;
      const retried = await b.runtime.retry(id, failed.id);
      assert.equal(!retried.ok && retried.reason, 'busy', JSON.stringify(retried));
      assert.equal((await b.journal.read('listTurns', id)).length, 2, 'the refused Retry wrote no turn');
      assert.equal((await a.runtime.submit(id, { clientId: 'id-urgent', text: 'urgent' })).ok, true);
      assert.deepEqual(await a.runtime.sendQueued(id, 'id-urgent'), { ok: true, value: { kind: 'stopping' } });
      await waitFor('"urgent" to run', () => a.ran.includes('urgent') || b.ran.includes('urgent'));
      assert.deepEqual([...a.stopped, ...b.stopped], ['first']);
      const urgent = (await a.journal.read('listTurns', id)).find((t) => t.prompt === 'urgent')!;
      assert.deepEqual([urgent.sentFrom, urgent.status], ['send_now', 'running']);
    } finally {
      await b.close();
      await a.close();
    }
  });
});

describe('a window shutting down between the end that claimed a message and driving it', () => {
  it('leaves the claimed turn sending: the next window\'s recovery says prompt_delivery_unknown, holds the rest, and sends nothing', async () => {
    const file = path.join(trackedTempDir(), 'journal.sqlite');
    // A's host shuts down the moment the transaction that ended "first" and claimed "second" is answered.
    const a: Window = await openWin(file, 'window-a', (j) => new Proxy(j, {
      get(target, prop) {
        if (prop === 'write') {
          return async (name: string, ...args: unknown[]) => {
            const r = await (target.write as (n: string, ...x: unknown[]) => Promise<unknown>)(name, ...args);
            if (name === 'finishRun') a.runtime.dispose();
            return r;
          };
        }
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? (v as (...x: unknown[]) => unknown).bind(target) : v;
      },
    }));
    let b: Window | undefined;
    try {
      const s = await a.runtime.createSession('local');
      assert.ok(s.ok);
      const id = s.value.id;
      assert.equal((await a.runtime.submit(id, { clientId: 'id-first', text: 'first' })).ok, true);
      await waitFor('"first" to run', () => a.ran.includes('first'));
      for (const text of ['second', 'third']) assert.equal((await a.runtime.submit(id, { clientId: `id-${text}`, text })).ok, true);
      a.end('first');
      await waitFor('the end of "first" to be written', async () => (await a.journal.read('getQueuedPrompt', 'id-second'))?.state === 'sent');
      assert.deepEqual(a.ran, ['first'], 'the claimed message was never handed to the agent');
      b = await openWin(file, 'window-b', undefined, ['window-a']);
      const turns = (await b.journal.read('listTurns', id)).map((t) => [t.prompt, t.status, t.errorClass, t.delivery]);
      assert.deepEqual(turns, [['first', 'completed', null, 'delivered'], ['second', 'failed', 'prompt_delivery_unknown', 'sending']]);
      assert.deepEqual((await b.runtime.queue(id)).map((p) => [p.text, p.hold]), [['third', 'restarted']]);
      assert.deepEqual([...a.ran, ...b.ran], ['first'], 'nothing sent again on its own');
    } finally {
      await b?.close();
      await a.close();
    }
  });
});

describe('a Stop that lands before the agent has the prompt', () => {
  it('ends the run stopped without handing the prompt to the agent (an agent listening for abort only would never end it)', async () => {
    const file = path.join(trackedTempDir(), 'journal.sqlite');
    let a: Window | undefined;
    let sessionId = '';
    // The Stop (or a Send now) lands while the runtime reads what the agent needs: the run is registered, its agent not started.
    const stopEarly = (j: Journal) => new Proxy(j, {
      get(target, prop) {
        if (prop === 'read') {
          return async (name: string, ...args: unknown[]) => {
            if (name === 'getProviderState') await a!.runtime.stop(sessionId);
            return (target.read as (n: string, ...x: unknown[]) => Promise<unknown>)(name, ...args);
          };
        }
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? (v as (...x: unknown[]) => unknown).bind(target) : v;
      },
    });
    a = await openWin(file, 'window-a', stopEarly);
    try {
      const s = await a.runtime.createSession('local');
      assert.ok(s.ok);
      sessionId = s.value.id;
      assert.equal((await a.runtime.submit(sessionId, { clientId: 'id-first', text: 'first' })).ok, true);
      await waitFor('the run to end', async () => !(await a!.runtime.liveState(sessionId)).running);
      assert.deepEqual(a.ran, [], 'the agent never got the prompt');
      assert.deepEqual((await a.journal.read('listTurns', sessionId)).map((t) => [t.status, t.delivery]), [['stopped', 'sending']]);
    } finally {
      await a.close();
    }
  });
});

describe('the queue\'s bound', () => {
  it(`holds ${MAX_QUEUED_PROMPTS} messages; one more is refused and journals nothing; a message posted again is still answered; after a Remove there is room`, async () => {
    const file = path.join(trackedTempDir(), 'journal.sqlite');
    const a = await openWin(file, 'window-a');
    try {
      const s = await a.runtime.createSession('local');
      assert.ok(s.ok);
      const id = s.value.id;
      assert.equal((await a.runtime.submit(id, { clientId: 'id-first', text: 'first' })).ok, true);
      await waitFor('"first" to run', () => a.ran.includes('first'));
      for (let i = 1; i <= MAX_QUEUED_PROMPTS; i++) {
        const q = await a.runtime.submit(id, { clientId: `id-${i}`, text: `message ${i}` });
        assert.equal(q.ok && q.value.kind, 'queued', `message ${i}`);
      }
      const over = await a.runtime.submit(id, { clientId: 'id-over', text: 'one too many' });
      assert.deepEqual(over.ok ? over.value : [over.reason, over.message], ['invalid', `The queue holds ${MAX_QUEUED_PROMPTS} messages already: wait for the agent, or discard one.`]);
      assert.equal(await a.journal.read('getQueuedPrompt', 'id-over'), undefined, 'nothing of it journaled');
      assert.deepEqual(await a.runtime.submit(id, { clientId: 'id-7', text: 'message 7' }), { ok: true, value: { kind: 'duplicate', turnId: null } });
      assert.deepEqual(await a.runtime.discardQueued(id, 'id-7'), { ok: true, value: undefined });
      const now = await a.runtime.submit(id, { clientId: 'id-over', text: 'one too many' });
      assert.equal(now.ok && now.value.kind, 'queued');
      const queue = await a.runtime.queue(id);
      assert.equal(queue.length, MAX_QUEUED_PROMPTS);
      assert.equal(queue.at(-1)!.text, 'one too many', 'at the end of the queue');
      await a.runtime.stop(id);
      await a.runtime.whenIdle(id);
    } finally {
      await a.close();
    }
  });
});
