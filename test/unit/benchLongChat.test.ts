import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { LONG_CHAT_SESSION, LS_ENTRIES, buildChats, buildLongChat, longChatId, longChatTurnWrites, lsListing } from '../../bench/longChatRows';
import { FIRST_PROMPT, seededChats } from '../../bench/longChatSeed';
import type { LongChatViewResult } from '../../bench/longChatView';
import { summarizeFrames } from '../../bench/longChatSteps';
import { viewRows } from '../../bench/longChatViewReport';
import { parseArgs } from '../../bench/run';
import { buildTranscript } from '../../src/core/transcript';
import { JournalCore } from '../../src/journal/core';
import { loadSqlJs } from '../../src/journal/sqljs';
import { LocalAgent } from '../../src/runtime/agents/localAgent';
import { ChatRuntime } from '../../src/runtime/chatRuntime';
import { WASM_PATH, fakeInstance, openJournal, trackedTempDir } from './helpers';

/** The shape of a transcript turn, without ids, times and the `ls` output's text. */
function shapeOf(turn: { prompt: string; status: string; items: readonly { type: string; [k: string]: unknown }[] }): unknown {
  return {
    prompt: turn.prompt,
    status: turn.status,
    items: turn.items.map((i) => (i.type === 'invocation' ? { type: i.type, tool: i.tool, summary: i.summary, status: i.status, exitCode: i.exitCode, hasOutput: String(i.output).length > 0 } : i)),
  };
}

describe('bench: the long-chat row builder', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it('lists LS_ENTRIES sorted names, one a line', () => {
    const lines = lsListing().split('\n');
    assert.equal(lines.pop(), '', 'ends with a newline');
    assert.equal(lines.length, LS_ENTRIES);
    assert.deepEqual(lines, [...lines].sort());
    assert.equal(new Set(lines).size, LS_ENTRIES);
  });

  it('builds N completed `run ls` turns through the journal operations, six ledger events each', async () => {
    const SQL = await loadSqlJs(WASM_PATH);
    const db = new SQL.Database(buildLongChat(SQL, 3));
    try {
      const core = new JournalCore(db);
      const turns = core.listTurns(LONG_CHAT_SESSION);
      assert.deepEqual(turns.map((t) => [t.id, t.prompt, t.status]), [0, 1, 2].map((i) => [longChatId('turn', i), 'run ls', 'completed']));
      const events = core.listEvents(LONG_CHAT_SESSION);
      assert.equal(events.length, 18);
      assert.deepEqual(events.filter((e) => e.turnId === longChatId('turn', 1)).map((e) => [e.seq, e.kind]), [
        [1, 'text'], [2, 'invocation_started'], [3, 'invocation_output'], [4, 'invocation_finished'], [5, 'text'], [6, 'run_finished'],
      ]);
      assert.equal(core.getInvocation(longChatId('inv', 2))?.status, 'completed');
      assert.deepEqual(core.listTabs().map((t) => t.sessionId), [LONG_CHAT_SESSION]);
      assert.deepEqual(core.listRunsInFlight(), []);
    } finally {
      db.close();
    }
  });

  it('makes the same transcript turn as the local agent answering `run ls` through ChatRuntime', async () => {
    const dir = trackedTempDir('nac-longchat-');
    dirs.push(dir);
    fs.writeFileSync(path.join(dir, 'a.txt'), 'x');
    const journal = await openJournal(path.join(dir, 'journal.sqlite'));
    try {
      const runtime = new ChatRuntime({ journal, instance: fakeInstance('real', process.pid), agentFor: () => new LocalAgent(), workspaceRoot: () => dir });
      await runtime.start();
      const session = await runtime.createSession('local');
      assert.ok(session.ok);
      await runtime.send(session.value.id, 'run ls');
      await runtime.whenIdle(session.value.id);
      const real = (await runtime.transcript(session.value.id)).turns;
      const SQL = await loadSqlJs(WASM_PATH);
      const db = new SQL.Database(buildLongChat(SQL, 1));
      const core = new JournalCore(db);
      const built = buildTranscript(core.listTurns(LONG_CHAT_SESSION), core.listEvents(LONG_CHAT_SESSION)).turns;
      db.close();
      assert.equal(real.length, 1);
      assert.equal(built.length, 1);
      assert.deepEqual(shapeOf(built[0]!), shapeOf(real[0]!));
    } finally {
      await journal.close();
    }
  });

  it('seeds a long and a short chat with ids of their own, the first prompt told apart, and no tab records', async () => {
    const SQL = await loadSqlJs(WASM_PATH);
    const { long, short } = seededChats(4, 2);
    const db = new SQL.Database(buildChats(SQL, [long, short], { tabs: false }));
    try {
      const core = new JournalCore(db);
      assert.deepEqual(core.listTurns(long.session).map((t) => [t.id, t.prompt]), [
        [longChatId('turn', 0, 'long'), FIRST_PROMPT], [longChatId('turn', 1, 'long'), 'run ls'], [longChatId('turn', 2, 'long'), 'run ls'], [longChatId('turn', 3, 'long'), 'run ls'],
      ]);
      assert.deepEqual(core.listTurns(short.session).map((t) => [t.id, t.prompt]), [[longChatId('turn', 0, 'shrt'), 'run ls'], [longChatId('turn', 1, 'shrt'), 'run ls']]);
      assert.equal(core.listEvents(short.session).length, 12);
      assert.deepEqual(core.listTabs(), []);
    } finally {
      db.close();
    }
  });

  it('gives every turn its own ids, a minute after the one before', () => {
    const [a, b] = [longChatTurnWrites(0), longChatTurnWrites(1)];
    assert.deepEqual(a.map((w) => w.op), ['startTurn', 'appendEvents', 'startInvocation', 'appendEvents', 'finishInvocation', 'appendEvents', 'finishRun']);
    const start = (w: (typeof a)[number]) => (w.op === 'startTurn' ? w.args[0] : assert.fail('not startTurn'));
    assert.notEqual(start(a[0]!).turn.id, start(b[0]!).turn.id);
    assert.equal(start(b[0]!).turn.createdAt - start(a[0]!).turn.createdAt, 60_000);
  });
});

describe('bench: arguments and the long-chat section of docs/BENCHMARKS.md', () => {
  it('runs the long-chat section in the full run and with --long-chat, not in --quick', () => {
    assert.deepEqual(parseArgs([]), { quick: false, sizes: [1, 10, 50, 200], writes: undefined, longChat: true });
    assert.deepEqual(parseArgs(['--quick']), { quick: true, sizes: [1, 10], writes: undefined, longChat: false });
    assert.deepEqual(parseArgs(['--sizes=1']), { quick: false, sizes: [1], writes: undefined, longChat: false });
    assert.deepEqual(parseArgs(['--long-chat']), { quick: false, sizes: [], writes: undefined, longChat: true });
    assert.deepEqual(parseArgs(['--quick', '--long-chat']), { quick: true, sizes: [1, 10], writes: undefined, longChat: true });
    assert.throws(() => parseArgs(['--long-chat', '--writes=100']), /--writes needs journal sizes/);
    assert.throws(() => parseArgs(['--longchat']), /unknown argument --longchat/);
  });

  it('measures activation and Open Chat… with many chats only with --chat-list-view, alone', () => {
    assert.deepEqual(parseArgs(['--chat-list-view']), { quick: false, sizes: [], writes: undefined, longChat: false, chatListView: true });
    assert.equal(parseArgs([]).chatListView, undefined);
    assert.equal(parseArgs(['--search']).chatListView, undefined);
    assert.throws(() => parseArgs(['--chat-list-view', '--search']), /--chat-list-view runs alone/);
    assert.throws(() => parseArgs(['--quick', '--chat-list-view']), /--chat-list-view runs alone/);
  });

  it('measures the view in code-server only with --long-chat-view, alone or after --long-chat', () => {
    assert.deepEqual(parseArgs(['--long-chat-view']), { quick: false, sizes: [], writes: undefined, longChat: false, longChatView: {} });
    assert.deepEqual(parseArgs(['--long-chat-view', '--cards=3', '--opens=2']), { quick: false, sizes: [], writes: undefined, longChat: false, longChatView: { cards: 3, opens: 2 } });
    assert.deepEqual(parseArgs(['--long-chat', '--long-chat-view']), { quick: false, sizes: [], writes: undefined, longChat: true, longChatView: {} });
    assert.equal(parseArgs([]).longChatView, undefined);
    assert.throws(() => parseArgs(['--cards=3']), /go with --long-chat-view/);
    assert.throws(() => parseArgs(['--long-chat-view', '--cards=0']), /--cards=0: a positive integer/);
    assert.throws(() => parseArgs(['--long-chat-view', '--quick']), /runs alone or with --long-chat/);
  });

  it('sums up the frames while scrolling: percentiles of the deltas, long tasks (the chat frame\'s own apart), those after a page arrived', () => {
    const f = summarizeFrames({
      deltas: [16, 17, 16, 90, 16],
      longTasks: [{ start: 1000, duration: 70, name: 'self' }, { start: 2050, duration: 120, name: 'self' }, { start: 3000, duration: 200, name: 'same-origin-ancestor' }],
      messages: [{ at: 2000, type: 'page' }, { at: 2990, type: 'pong' }],
    });
    assert.deepEqual(f, { n: 5, p50: 16, p95: 90, max: 90, longTasks: 3, longestMs: 200, ownLongTasks: 2, ownLongestMs: 120, pages: 1, longTasksNearPage: 1 });
  });

  it('judges the view against the targets of issue 11', () => {
    const good: LongChatViewResult = {
      date: '2026-12-01T00:00:00.000Z', extension: '.', load: { start: 1, end: 1 }, wallMs: 1000, longTurns: 5000, shortTurns: 10, journalBytes: 1,
      openShort: { skeletonMs: 100, paintedMs: 200 }, openShortWarm: { skeletonMs: 90, paintedMs: 150 }, openLong: [250, 290, 400].map((paintedMs) => ({ skeletonMs: 100, paintedMs })), rssShort: 200 * 1048576, rssLong: 240 * 1048576, reloadShort: { readyMs: 5000, skeletonMs: 300, shownMs: 800 }, reloadLong: { readyMs: 5000, skeletonMs: 300, shownMs: 900 },
      scroll: { reachedTop: true, wheelSteps: 10, wallMs: 1000, heightPx: 1, wheelPx: 3000, frames: summarizeFrames({ deltas: [16, 16, 17, 20], longTasks: [{ start: 0, duration: 50, name: 'self' }], messages: [] }) },
      openInB: { skeletonMs: 100, paintedMs: 500 }, decisions: [{ disabledMs: 20, decidedAMs: 100, clearedBMs: 150 }, { disabledMs: 30, decidedAMs: 120, clearedBMs: 190 }],
    };
    const verdicts = (r: LongChatViewResult) => viewRows(r).map((row) => row[5]).filter(Boolean);
    assert.deepEqual(verdicts(good), ['met', 'met', 'met', 'met', 'met', 'met', 'met']);
    const bad: LongChatViewResult = {
      ...good, openLong: [301, 302].map((paintedMs) => ({ skeletonMs: 100, paintedMs })), rssLong: 251 * 1048576, reloadLong: { readyMs: 5000, skeletonMs: 300, shownMs: 1001 },
      scroll: { ...good.scroll, reachedTop: false, frames: summarizeFrames({ deltas: [16, 21], longTasks: [{ start: 0, duration: 51 }] }) },
      decisions: [{ disabledMs: 51, decidedAMs: 100, clearedBMs: 201 }],
    };
    assert.deepEqual(verdicts(bad), ['NOT MET', 'NOT MET', 'NOT MET', 'NOT MET', 'NOT MET', 'NOT MET', 'NOT MET']);
    assert.equal(verdicts({ ...good, scroll: { ...good.scroll, reachedTop: false } })[2], 'NOT MET', 'frames of a scroll that stopped short do not count as met');
  });
});
