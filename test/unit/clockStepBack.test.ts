/**
 * The host's clock steps back an hour during a chat (an NTP correction, a resumed VM): the order of
 * what the chat shows comes from the journal's own sequence, never from `Date.now()`. With `Date.now`
 * wrapped to return an hour earlier after the first turns, turns, their events, the queue, the Edit
 * target (the turn an edit and resend replaces) and the chat list keep the order they were made in,
 * in the runtime and in a second runtime on the same journal (another window, or a reload), and the
 * pages of a long chat page through the step without skipping, repeating or dropping events.
 */
import { strict as assert } from 'node:assert';
import { afterEach, describe, it } from 'node:test';
import type { Agent } from '../../src/runtime/agent';
import { cursorOf, type TurnCursor } from '../../src/core/transcript';
import type { Journal } from '../../src/journal/journal';
import { openRuntime, type RuntimeHarness } from './harness';

const HOUR_MS = 60 * 60 * 1000;
const realNow = Date.now;
/** How far the wrapped `Date.now` is behind the real clock (ms). */
let behind = 0;

/** Wraps `Date.now` before a runtime captures it (its default clock), so `behind` steps it back. */
function wrapClock(): void {
  behind = 0;
  Date.now = () => realNow() - behind;
}

afterEach(() => {
  Date.now = realNow;
  behind = 0;
});

/** An agent that answers `reply to <prompt>`; `holdNext` makes its next reply wait until `release`. */
function replyingAgent() {
  let hold: Promise<void> | undefined;
  let release = () => undefined as void;
  const agent: Agent = {
    provider: 'local',
    label: 'Replier',
    async runTurn(request, ctx) {
      ctx.text(`reply to ${request.prompt}`);
      if (hold) await Promise.race([hold, new Promise((r) => ctx.signal.addEventListener('abort', r))]);
      return { status: 'completed' };
    },
  };
  return { agent, holdNext: () => (hold = new Promise<void>((r) => (release = () => { hold = undefined; r(); }))), release: () => release() };
}

/** Sends `text` (client id `c-<text>`) and waits for the reply to end. */
async function send(h: RuntimeHarness, sessionId: string, text: string, replacesTurnId?: string) {
  const r = await h.runtime.submit(sessionId, { clientId: `c-${text}`, text, ...(replacesTurnId ? { replacesTurnId } : {}) });
  await h.runtime.whenIdle(sessionId);
  return r;
}

/** The chat's prompts in the journal's order, each with the reply its events hold, read whole and page by page (`pageSize`). */
async function chatAsRead(journal: Journal, sessionId: string, pageSize: number) {
  const turns = await journal.read('listTurns', sessionId);
  const events = await journal.read('listEvents', sessionId);
  const whole = turns.map((t) => t.prompt);
  // The ledger's runs in the turns' order: every event of a turn before any of the next turn's.
  const eventTurns = [...new Set(events.map((e) => e.turnId))];
  const paged: string[] = [];
  const pagedReplies: string[] = [];
  let before: TurnCursor | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const page = await journal.read('readTurnPage', sessionId, before, pageSize);
    paged.unshift(...page.turns.map((t) => t.prompt));
    const replies = page.turns.map((t) => page.events.filter((e) => e.turnId === t.id && e.kind === 'text').map((e) => (e.payload as { text: string }).text).join(''));
    pagedReplies.unshift(...replies);
    if (!page.hasOlder) break;
    before = cursorOf(page.turns[0]!);
  }
  return { whole, eventTurns: eventTurns.map((id) => turns.find((t) => t.id === id)?.prompt), paged, pagedReplies, turns };
}

describe('the host clock steps back an hour during a chat', () => {
  it('keeps turns, events, pages, the queue, the Edit target and the chat list in the order they were made, here and in a second window', async () => {
    wrapClock();
    const rec = replyingAgent();
    const a = await openRuntime({ agentFor: () => rec.agent });
    let b: RuntimeHarness | undefined;
    try {
      const created = await a.runtime.createSession('local');
      assert.ok(created.ok);
      const id = created.value.id;
      await send(a, id, 'one');
      await send(a, id, 'two');
      const other = await a.runtime.createSession('local');
      assert.ok(other.ok);
      await send(a, other.value.id, 'elsewhere'); // the other chat is used last before the step

      behind = HOUR_MS; // the clock steps back an hour
      await send(a, id, 'three');
      await send(a, id, 'four');
      // Two messages queued while a reply is held, after the step: they go out in the order queued.
      rec.holdNext();
      const held = await a.runtime.submit(id, { clientId: 'c-five', text: 'five' });
      assert.equal(held.ok && held.value.kind, 'started');
      for (const text of ['six', 'seven']) {
        const q = await a.runtime.submit(id, { clientId: `c-${text}`, text });
        assert.equal(q.ok && q.value.kind, 'queued', JSON.stringify(q));
      }
      assert.deepEqual((await a.journal.read('listQueuedPrompts', id)).map((p) => p.text), ['six', 'seven']);
      rec.release();
      await a.runtime.whenIdle(id);
      await a.runtime.whenIdle(id);
      const order = ['one', 'two', 'three', 'four', 'five', 'six', 'seven'];
      const replies = order.map((p) => `reply to ${p}`);

      // The turns' times went back, their order did not.
      const here = await chatAsRead(a.journal, id, 3);
      const timeOf = (prompt: string) => here.turns.find((t) => t.prompt === prompt)!.createdAt;
      assert.ok(timeOf('three') < timeOf('two'), "the clock stepped back between 'two' and 'three'");
      assert.deepEqual(here.whole, order, 'turns in the order they were sent');
      assert.deepEqual(here.eventTurns, order, 'the ledger in the order of its turns');
      assert.deepEqual(here.paged, order, 'pages of three turns across the step: none skipped or repeated');
      assert.deepEqual(here.pagedReplies, replies, "each page holds its turns' events");

      // The Edit target is the last turn sent ('seven'), not the one with the latest time ('two').
      const turns = here.turns;
      const two = turns.find((t) => t.prompt === 'two')!;
      const seven = turns.find((t) => t.prompt === 'seven')!;
      const refused = await a.runtime.submit(id, { clientId: 'c-two edited', text: 'two edited', replacesTurnId: two.id });
      assert.ok(!refused.ok && /Only the last request/.test(refused.message), `an earlier turn is not the last one: ${JSON.stringify(refused)}`);
      const resent = await send(a, id, 'seven edited', seven.id);
      assert.equal(resent.ok && resent.value.kind, 'started', JSON.stringify(resent));
      const edited = (await a.journal.read('listTurns', id)).at(-1)!;
      assert.equal(edited.prompt, 'seven edited');
      assert.equal(edited.replacesTurnId, seven.id, 'the resend replaces the last turn');

      // The chat used after the step is listed first, though the other one's last time is later.
      const list = await a.journal.read('listChats');
      assert.deepEqual(list.map((c) => c.id), [id, other.value.id]);
      assert.ok(list[0]!.updatedAt < list[1]!.updatedAt, 'the times say otherwise');
      assert.deepEqual((await a.journal.read('listSessions')).map((s) => s.id), [id, other.value.id]);

      // Another window on the same journal (or this one after a reload) reads the same order.
      b = await openRuntime({ file: a.file, workspace: a.workspace, instance: 'host-b', agentFor: () => rec.agent });
      const there = await chatAsRead(b.journal, id, 3);
      const after = [...order, 'seven edited'];
      assert.deepEqual(there.whole, after);
      assert.deepEqual(there.eventTurns, after);
      assert.deepEqual(there.paged, after);
      assert.deepEqual(there.pagedReplies, [...replies, 'reply to seven edited']);
      assert.deepEqual(there.turns.map((t) => t.seq), here.turns.map((t) => t.seq).concat(edited.seq), 'the same sequence numbers in every window');
      assert.deepEqual((await b.journal.read('listChats')).map((c) => c.id), [id, other.value.id]);
    } finally {
      await b?.close();
      await a.close();
    }
  });

  it('pages a long chat whose clock stepped back twice: every turn once, in order, with its events', async () => {
    wrapClock();
    const rec = replyingAgent();
    const h = await openRuntime({ agentFor: () => rec.agent });
    try {
      const created = await h.runtime.createSession('local');
      assert.ok(created.ok);
      const id = created.value.id;
      const order: string[] = [];
      for (let i = 0; i < 14; i++) {
        if (i === 5) behind = HOUR_MS;
        if (i === 10) behind = 2 * HOUR_MS;
        order.push(`turn ${i}`);
        await send(h, id, `turn ${i}`);
      }
      for (const size of [1, 4, 5]) {
        const read = await chatAsRead(h.journal, id, size);
        assert.deepEqual(read.paged, order, `pages of ${size}`);
        assert.deepEqual(read.pagedReplies, order.map((p) => `reply to ${p}`), `the events of pages of ${size}`);
      }
    } finally {
      await h.close();
    }
  });
});
