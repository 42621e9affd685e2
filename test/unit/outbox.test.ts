/**
 * The outbox (docs/ARCHITECTURE.md, "Prompts: the outbox, the queue and delivery") against real
 * journals: two runtimes on one file as two VS Code windows, restarts as separate store lifetimes,
 * and writer processes killed mid-way (the crash harness).
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Journal } from '../../src/journal/journal';
import type { Agent, AgentTurnOutcome } from '../../src/runtime/agent';
import type { ChatRuntime, RuntimeNotification } from '../../src/runtime/chatRuntime';
import { openRuntime, type RuntimeHarness } from './harness';
import { trackedTempDir, waitFor } from './helpers';

/** A window whose agent runs each prompt until the test ends it (`end`), recording every prompt it ran. */
interface ScriptedWindow extends RuntimeHarness {
  /** Prompts this window's agent was given, in order. */
  readonly ran: string[];
  /** Ends the run of `prompt` with `outcome` (default completed). */
  end(prompt: string, outcome?: AgentTurnOutcome): void;
  /** The `queue` notifications this window emitted, by chat. */
  readonly queueNotices: string[];
}

/**
 * Opens a window on `file` with instance `id`. `deliver`: the agent acknowledges each prompt
 * (`promptDelivered`) as it starts; otherwise it never does and writes no event.
 */
async function openScripted(file: string, id: string, o: { deliver?: boolean; dead?: readonly string[] } = {}): Promise<ScriptedWindow> {
  const ran: string[] = [];
  const enders = new Map<string, (o: AgentTurnOutcome) => void>();
  const agent: Agent = {
    provider: 'local',
    label: 'scripted agent',
    runTurn: async (request, ctx) => {
      ran.push(request.prompt);
      if (o.deliver) await ctx.promptDelivered();
      return new Promise<AgentTurnOutcome>((resolve) => {
        enders.set(request.prompt, resolve);
        ctx.signal.addEventListener('abort', () => resolve({ status: 'completed' }));
      });
    },
  };
  const h = await openRuntime({ file, instance: id, agentFor: () => agent, journal: { pollIntervalMs: 20 }, ...(o.dead ? { dead: o.dead } : {}) });
  const queueNotices: string[] = [];
  h.runtime.onNotification((n: RuntimeNotification) => {
    if (n.type === 'queue') queueNotices.push(n.sessionId);
  });
  return {
    ...h, ran, queueNotices,
    end: (prompt, outcome = { status: 'completed' }) => {
      const resolve = enders.get(prompt);
      assert.ok(resolve, `no run of "${prompt}" in window ${id}`);
      resolve(outcome);
    },
  };
}

/** Starts a chat in `w` running `prompt` (its agent waiting); returns the chat's id. */
async function chatRunning(w: ScriptedWindow, prompt: string): Promise<string> {
  const s = await w.runtime.createSession('local');
  assert.ok(s.ok);
  const sent = await w.runtime.submit(s.value.id, { clientId: `id-${prompt}`, text: prompt });
  assert.ok(sent.ok && sent.value.kind === 'started', JSON.stringify(sent));
  await waitFor(`"${prompt}" to run`, () => w.ran.includes(prompt));
  return s.value.id;
}

/** Submits `text` (client id `id-<text>`) and asserts it was queued. */
async function queue(runtime: ChatRuntime, sessionId: string, text: string): Promise<void> {
  const r = await runtime.submit(sessionId, { clientId: `id-${text}`, text });
  assert.equal(r.ok && r.value.kind, 'queued', JSON.stringify(r));
}

/** The chat's turns as [prompt, sentFrom, status] (journal order). */
async function turnsOf(j: Journal, sessionId: string): Promise<[string, string | null | undefined, string][]> {
  return (await j.read('listTurns', sessionId)).map((t) => [t.prompt, t.sentFrom, t.status]);
}

async function closeAll(...ws: RuntimeHarness[]): Promise<void> {
  for (const w of ws) await w.close();
}

describe('the outbox: a queue while the agent works', () => {
  it('sends a queued message exactly once when the reply ends, with two windows showing the chat; an edit in B is what A sends', async () => {
    const file = path.join(trackedTempDir(), 'journal.sqlite');
    const a = await openScripted(file, 'window-a');
    const b = await openScripted(file, 'window-b');
    try {
      const id = await chatRunning(a, 'first');
      await waitFor('B to see the run', async () => (await b.runtime.liveState(id)).running);
      await queue(b.runtime, id, 'second'); // queued in B, the window that does not drive the run
      await queue(a.runtime, id, 'third');
      await waitFor('A to see both', async () => (await a.runtime.queue(id)).length === 2);
      const edited = await b.runtime.editQueued(id, 'id-second', 'second, edited in B');
      assert.equal(edited.ok && edited.value.text, 'second, edited in B');
      assert.deepEqual(b.queueNotices, [id, id], 'B told its views of its queueing and its edit');
      a.end('first');
      await waitFor('the edited message to run in A', () => a.ran.includes('second, edited in B'));
      a.end('second, edited in B');
      await waitFor('the third to run', () => a.ran.includes('third'));
      a.end('third');
      await a.runtime.whenIdle(id);
      await waitFor('B to see it idle', async () => !(await b.runtime.liveState(id)).running);
      assert.deepEqual(a.ran, ['first', 'second, edited in B', 'third']);
      assert.deepEqual(b.ran, [], 'only the window that drove the reply sends the queue');
      assert.deepEqual(await turnsOf(b.journal, id), [
        ['first', 'composer', 'completed'], ['second, edited in B', 'queue', 'completed'], ['third', 'queue', 'completed'],
      ]);
      assert.deepEqual(await b.runtime.queue(id), []);
      const sent = await b.journal.read('getQueuedPrompt', 'id-second');
      assert.equal(sent?.state, 'sent');
      const edit = await b.runtime.editQueued(id, 'id-second', 'too late');
      assert.deepEqual(edit.ok ? 'edited' : [edit.reason, edit.message], ['not_actionable', 'This message was sent already: it is in the transcript.']);
    } finally {
      await closeAll(a, b);
    }
  });

  it('after Stop the queue waits (stopped), after a failure too (failed); Send starts a held message, Discard removes one', async () => {
    const file = path.join(trackedTempDir(), 'journal.sqlite');
    const a = await openScripted(file, 'window-a');
    try {
      const id = await chatRunning(a, 'first');
      await queue(a.runtime, id, 'second');
      await queue(a.runtime, id, 'third');
      assert.deepEqual(await a.runtime.stop(id), { ok: true, value: { stopped: true } });
      await a.runtime.whenIdle(id);
      assert.deepEqual((await a.runtime.queue(id)).map((p) => [p.text, p.hold, p.sendNow]), [['second', 'stopped', false], ['third', 'stopped', false]]);
      assert.deepEqual(a.ran, ['first'], 'nothing sent after a Stop');
      // Held messages do not hold back a new one: with nothing running it goes at once.
      const fourth = await a.runtime.submit(id, { clientId: 'id-fourth', text: 'fourth' });
      assert.equal(fourth.ok && fourth.value.kind, 'started');
      await waitFor('fourth to run', () => a.ran.includes('fourth'));
      await queue(a.runtime, id, 'fifth');
      a.end('fourth', { status: 'failed', errorClass: 'agent_error', message: 'boom' });
      await a.runtime.whenIdle(id);
      assert.deepEqual((await a.runtime.queue(id)).map((p) => [p.text, p.hold]), [['second', 'stopped'], ['third', 'stopped'], ['fifth', 'failed']]);
      assert.deepEqual(await a.runtime.discardQueued(id, 'id-second'), { ok: true, value: undefined });
      assert.deepEqual(await a.runtime.discardQueued(id, 'id-second'), { ok: true, value: undefined }, 'discarding twice is not an error');
      const sent = await a.runtime.sendQueued(id, 'id-third');
      assert.equal(sent.ok && sent.value.kind, 'started');
      await waitFor('third to run', () => a.ran.includes('third'));
      a.end('third');
      await a.runtime.whenIdle(id);
      assert.deepEqual(a.ran, ['first', 'fourth', 'third'], 'a completed reply never sends a held message');
      assert.deepEqual((await a.runtime.queue(id)).map((p) => [p.text, p.hold]), [['fifth', 'failed']]);
      assert.deepEqual(await turnsOf(a.journal, id), [
        ['first', 'composer', 'stopped'], ['fourth', 'composer', 'failed'], ['third', 'send_now', 'completed'],
      ]);
      const again = await a.runtime.sendQueued(id, 'id-second');
      assert.deepEqual(again.ok ? 'sent' : [again.reason, again.message], ['not_actionable', 'This message was discarded.']);
    } finally {
      await closeAll(a);
    }
  });

  it('Send now while the other window drives the reply stops it there and sends that message next, before earlier ones, which follow it', async () => {
    const file = path.join(trackedTempDir(), 'journal.sqlite');
    const a = await openScripted(file, 'window-a');
    const b = await openScripted(file, 'window-b');
    try {
      const id = await chatRunning(a, 'first');
      await queue(a.runtime, id, 'second');
      await queue(a.runtime, id, 'urgent');
      await waitFor('B to see the queue', async () => (await b.runtime.queue(id)).length === 2);
      const now = await b.runtime.sendQueued(id, 'id-urgent');
      assert.deepEqual(now, { ok: true, value: { kind: 'stopping' } });
      await waitFor('urgent to run in A', () => a.ran.includes('urgent'));
      assert.deepEqual(a.ran, ['first', 'urgent']);
      assert.deepEqual(b.ran, []);
      // The Stop only made way for the message the user chose: the earlier one is not held, it follows.
      assert.deepEqual((await a.runtime.queue(id)).map((p) => [p.text, p.hold, p.sendNow]), [['second', null, false]]);
      assert.deepEqual(await turnsOf(a.journal, id), [['first', 'composer', 'stopped'], ['urgent', 'send_now', 'running']]);
      a.end('urgent');
      await waitFor('second to run in A after urgent', () => a.ran.includes('second'));
      assert.deepEqual(a.ran, ['first', 'urgent', 'second']);
      assert.deepEqual(b.ran, []);
      a.end('second');
      await a.runtime.whenIdle(id);
      assert.deepEqual(await turnsOf(a.journal, id), [['first', 'composer', 'stopped'], ['urgent', 'send_now', 'completed'], ['second', 'queue', 'completed']]);
    } finally {
      await closeAll(a, b);
    }
  });

  it('the same client id twice makes one turn; with another text it is refused (conflict)', async () => {
    const file = path.join(trackedTempDir(), 'journal.sqlite');
    const a = await openScripted(file, 'window-a');
    const b = await openScripted(file, 'window-b');
    try {
      const id = await chatRunning(a, 'first');
      const again = await b.runtime.submit(id, { clientId: 'id-first', text: 'first' }); // a view rebuilt in B posts it again
      const turnId = (await a.journal.read('listTurns', id))[0]!.id;
      assert.deepEqual(again, { ok: true, value: { kind: 'duplicate', turnId } });
      const other = await a.runtime.submit(id, { clientId: 'id-first', text: 'something else' });
      assert.deepEqual(other.ok ? other.value : [other.reason, other.message], ['conflict', 'This message was already sent with another text; it was not sent again.']);
      await queue(a.runtime, id, 'second');
      assert.deepEqual(await b.runtime.submit(id, { clientId: 'id-second', text: 'second' }), { ok: true, value: { kind: 'duplicate', turnId: null } });
      a.end('first');
      await waitFor('second to run', () => a.ran.includes('second'));
      const secondTurn = (await a.journal.read('listTurns', id))[1]!.id;
      assert.deepEqual(await b.runtime.submit(id, { clientId: 'id-second', text: 'second' }), { ok: true, value: { kind: 'duplicate', turnId: secondTurn } });
      assert.equal((await a.journal.read('listTurns', id)).length, 2);
      assert.deepEqual(a.ran, ['first', 'second']);
      a.end('second');
    } finally {
      await closeAll(a, b);
    }
  });
});
