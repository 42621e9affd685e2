/**
 * How the view holds the newest turns of a long chat (webview/paging.ts through webview/state.ts):
 * older pages prepended only when they answer the oldest turn held, turn records of turns older than
 * those held left for their page, one `loadOlder` per oldest turn, one `resync` per gap in `seq`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SessionRecord, TurnRecord } from '../../src/core/events';
import { cursorOf, type TranscriptTurn } from '../../src/core/transcript';
import type { HostMessage } from '../../src/protocol/messages';
import { INITIAL_VIEW_STATE, markOlderAsked, olderPageToAsk, reduceHostMessage, type ViewState } from '../../webview/state';

const session: SessionRecord = { id: 's1', title: 'Chat', provider: 'local', createdAt: 1, updatedAt: 1 };
const live = { running: false, actionableRequestIds: [], readOnlyReason: null };

/** Turn record n of the chat (the journal's nth turn, created at n ms, so turn n sorts before turn n + 1). */
function record(n: number): TurnRecord {
  return { id: `t${String(n).padStart(4, '0')}`, sessionId: 's1', prompt: `prompt ${n}`, origin: 'prompt', parentTurnId: null, status: 'completed', errorClass: null, seq: n, createdAt: n };
}
function turn(n: number): TranscriptTurn {
  return { ...record(n), items: [], applied: {} };
}
function range(from: number, to: number): TranscriptTurn[] {
  return Array.from({ length: to - from }, (_, i) => turn(from + i));
}
const ids = (s: ViewState) => s.transcript.turns.map((t) => t.createdAt);

/** A view holding turns 70..99 of a 100-turn chat. */
function lastPage(seq?: number): ViewState {
  return reduceHostMessage(INITIAL_VIEW_STATE, { type: 'snapshot', queue: [], session, transcript: { turns: range(70, 100) }, hasOlder: true, turnCount: 100, live, ...(seq ? { seq } : {}) });
}

describe('the view of a long chat', () => {
  test('prepends a page that answers its oldest turn, once, and drops one that does not', () => {
    let s = lastPage();
    assert.equal(s.hasOlder, true);
    assert.equal(s.turnCount, 100);
    const before = olderPageToAsk(s);
    assert.deepEqual(before, cursorOf(turn(70)));
    s = markOlderAsked(s, before!);
    assert.equal(olderPageToAsk(s), null, 'not asked twice while the page is on its way');

    // The page overlaps what is held by one turn (70): it is not shown twice.
    const page: HostMessage = { type: 'page', before: before!, turns: range(40, 71), hasOlder: true };
    s = reduceHostMessage(s, page);
    assert.deepEqual(ids(s), [...range(40, 100).map((t) => t.createdAt)]);
    assert.equal(s.olderAsked, null);
    assert.deepEqual(olderPageToAsk(s), cursorOf(turn(40)), 'the next page is asked before the new oldest turn');

    assert.equal(reduceHostMessage(s, page).transcript, s.transcript, 'the same page again changes nothing');
    // A snapshot came while a page was on its way: the page no longer fits and is dropped.
    const fresh = lastPage();
    assert.equal(reduceHostMessage(fresh, { type: 'page', before: cursorOf(turn(40)), turns: range(10, 40), hasOlder: true }).transcript, fresh.transcript);

    s = reduceHostMessage(s, { type: 'page', before: cursorOf(turn(40)), turns: range(0, 40), hasOlder: false });
    assert.equal(s.transcript.turns.length, 100);
    assert.equal(s.hasOlder, false);
    assert.equal(olderPageToAsk(s), null, 'nothing older to ask for');
  });

  test('leaves a turn older than those held for its page, and applies newer ones and those held', () => {
    let s = lastPage();
    const renamed = { ...session, title: 'Renamed' };
    s = reduceHostMessage(s, {
      type: 'changes', session: renamed, turnCount: 101,
      updates: [
        { type: 'turn', turn: { ...record(5), status: 'failed' } }, // not held, older: comes with its page
        { type: 'event', event: { runId: 'r5', seq: 1, sessionId: 's1', turnId: record(5).id, kind: 'text', payload: { text: 'old' }, at: 9 } },
        { type: 'turn', turn: { ...record(80), status: 'failed' } }, // held
        { type: 'turn', turn: record(100) }, // new
        { type: 'event', event: { runId: 'r100', seq: 1, sessionId: 's1', turnId: record(100).id, kind: 'text', payload: { text: 'new' }, at: 9 } },
      ],
    });
    assert.equal(s.session?.title, 'Renamed');
    assert.deepEqual(ids(s), range(70, 101).map((t) => t.createdAt), 'turn 5 is not put next to turn 70');
    assert.equal(s.transcript.turns.find((t) => t.createdAt === 80)?.status, 'failed');
    assert.deepEqual(s.transcript.turns.at(-1)?.items, [{ type: 'text', text: 'new' }]);
    assert.equal(s.turnCount, 101);

    // The same rule for this window's own updates; with nothing older, an older turn is taken.
    s = reduceHostMessage(s, { type: 'update', update: { type: 'turn', turn: record(6) } });
    assert.equal(s.transcript.turns.length, 31);
    s = reduceHostMessage(s, { type: 'update', update: { type: 'turn', turn: record(101) } });
    assert.equal(s.turnCount, 102, 'a turn added here counts');
    const whole = reduceHostMessage(INITIAL_VIEW_STATE, { type: 'snapshot', queue: [], session, transcript: { turns: range(70, 100) }, hasOlder: false, turnCount: 30, live });
    assert.equal(reduceHostMessage(whole, { type: 'update', update: { type: 'turn', turn: record(6) } }).transcript.turns[0]?.createdAt, 6);
  });

  test('a change from another window that carries the live state applies both, in one new state', () => {
    const before = reduceHostMessage(lastPage(), { type: 'live', live: { ...live, running: true, actionableRequestIds: ['req-1'] } });
    const hostNow = Date.now() + 60_000;
    const after = reduceHostMessage(before, {
      type: 'changes', session, turnCount: 100, updates: [{ type: 'turn', turn: { ...record(99), status: 'completed' } }],
      live: { ...live, running: false }, hostNow,
    });
    assert.equal(after.transcript.turns.at(-1)?.status, 'completed');
    assert.deepEqual(after.live, { ...live, running: false }, 'the card is no longer actionable, the run is over');
    assert.ok(Math.abs(after.hostClockOffsetMs - 60_000) < 1000, `the host's clock is taken: offset ${after.hostClockOffsetMs} ms`);
    const without = reduceHostMessage(before, { type: 'changes', session, turnCount: 100, updates: [] });
    assert.equal(without.live, before.live, 'a change without live facts keeps the ones held');
  });

  test('asks for a snapshot once per gap in the numbered messages, and goes on', () => {
    let s = lastPage(7);
    let resyncs = 0;
    /** Folds a message and counts the `resync`s the entry point posts (when `resyncAsked` turns true). */
    const receive = (message: HostMessage) => {
      const next = reduceHostMessage(s, message);
      if (next.seq.resyncAsked && !s.seq.resyncAsked) resyncs++;
      s = next;
    };
    assert.equal(s.seq.lastSeq, 7, 'the first number seen is the baseline');
    receive({ type: 'live', live, seq: 8 });
    assert.equal(resyncs, 0);
    receive({ type: 'update', update: { type: 'turn', turn: record(100) }, seq: 10 }); // 9 was missed
    assert.equal(resyncs, 1);
    assert.equal(s.transcript.turns.length, 31, 'the message after the gap is still applied');
    receive({ type: 'live', live, seq: 11 });
    receive({ type: 'live', live, seq: 13 }); // another gap before the snapshot came
    receive({ type: 'pong' });
    assert.equal(resyncs, 1, 'one resync until the snapshot comes');
    assert.equal(s.seq.lastSeq, 13, 'an unnumbered message counts for nothing');
    receive({ type: 'snapshot', queue: [], session, transcript: { turns: range(71, 101) }, hasOlder: true, turnCount: 101, live, seq: 14 });
    assert.deepEqual(s.seq, { lastSeq: 14, resyncAsked: false });
    receive({ type: 'live', live, seq: 15 });
    assert.equal(resyncs, 1);
    receive({ type: 'live', live, seq: 17 });
    assert.equal(resyncs, 2, 'a new gap after the snapshot asks again');
  });

  test("a view whose first numbered message is not a snapshot asks for one (it missed the tab's early snapshot)", () => {
    // The host posts a tab's first snapshot before the view loads and answers its `ready` with the
    // live state only; a view built again meanwhile gets that live state first.
    const missed = reduceHostMessage(INITIAL_VIEW_STATE, { type: 'live', live, seq: 2 });
    assert.deepEqual(missed.seq, { lastSeq: 2, resyncAsked: true });
    const got = reduceHostMessage(reduceHostMessage(INITIAL_VIEW_STATE, { type: 'snapshot', queue: [], session, transcript: { turns: range(70, 100) }, hasOlder: true, turnCount: 100, live, seq: 1 }), { type: 'live', live, seq: 2 });
    assert.deepEqual(got.seq, { lastSeq: 2, resyncAsked: false }, 'the view that got the early snapshot asks nothing');
    assert.deepEqual(reduceHostMessage(INITIAL_VIEW_STATE, { type: 'orphan', seq: 1 }).seq, { lastSeq: 1, resyncAsked: false }, "a tab with no chat: `orphan` is its whole state");
    assert.deepEqual(reduceHostMessage(INITIAL_VIEW_STATE, { type: 'pong' }).seq, { lastSeq: undefined, resyncAsked: false }, 'an unnumbered message counts for nothing');
  });

  test('a rebuilt view loads older pages until it holds the turn the user read, within a limit', async () => {
    const { MAX_RESTORE_PAGES, restoreStep } = await import('../../webview/restore');
    const anchor = { turnId: record(12).id, offset: 40 };
    let s = lastPage(); // turns 70..99
    assert.deepEqual(restoreStep(s, { turnId: record(85).id, offset: 5 }, 0), { kind: 'restore', anchor: { turnId: record(85).id, offset: 5 } }, 'in the last page: at once');
    let pages = 0;
    for (let step = restoreStep(s, anchor, pages); step.kind !== 'restore'; step = restoreStep(s, anchor, pages)) {
      assert.equal(step.kind, 'load');
      if (step.kind !== 'load') break;
      s = markOlderAsked(s, step.before);
      assert.equal(restoreStep(s, anchor, ++pages).kind, 'wait', 'one page at a time');
      const to = step.before.seq;
      s = reduceHostMessage(s, { type: 'page', before: step.before, turns: range(Math.max(0, to - 30), to), hasOlder: to > 30 });
    }
    assert.equal(pages, 2, 'two pages (40..69, 10..39) hold turn 12');
    assert.equal(restoreStep(lastPage(), anchor, MAX_RESTORE_PAGES).kind, 'give-up', 'farther up than the pages allowed: the end');
    assert.equal(restoreStep(lastPage(), anchor, MAX_RESTORE_PAGES, Number.POSITIVE_INFINITY).kind, 'load', 'a search result is followed however far up');
    const whole = reduceHostMessage(INITIAL_VIEW_STATE, { type: 'snapshot', queue: [], session, transcript: { turns: range(70, 100) }, hasOlder: false, turnCount: 30, live });
    assert.equal(restoreStep(whole, anchor, 0).kind, 'give-up', 'a turn no longer in the chat');
  });
});
