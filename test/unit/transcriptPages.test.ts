/**
 * Long chats read in pieces (src/journal/operations/pages.ts, src/runtime/pages.ts): the first page
 * is the chat's end, walking back by cursor returns every turn once while another window adds turns,
 * a page is the same transcript the whole chat folds to, and what another window changed reads as
 * that change alone.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { TurnRecord } from '../../src/core/events';
import { cursorOf, type TurnCursor } from '../../src/core/transcript';
import type { Journal } from '../../src/journal/journal';
import { PAGE_TURNS } from '../../src/protocol/messages';
import { historyFrom, MAX_CHANGE_EVENTS } from '../../src/runtime/chatRuntime';
import { closeWindows, openLocal, openWindow, type Win } from './harness';
import { tempDir, waitFor } from './helpers';

let clock = 1_700_000_000_000;

/** Writes one finished turn (a prompt, one text event, its run's end) straight into the journal. */
async function addTurn(journal: Journal, sessionId: string, label: string): Promise<TurnRecord> {
  const at = (clock += 1000);
  const started = await journal.write('startTurn', {
    turn: { id: `turn-${label}`, sessionId, prompt: `prompt ${label}`, origin: 'prompt', parentTurnId: null, createdAt: at },
    run: { id: `run-${label}`, instanceId: 'writer', provider: 'local' },
  });
  assert.ok(started.ok, started.ok ? '' : started.message);
  assert.ok((await journal.write('appendEvents', `run-${label}`, [{ kind: 'text', payload: { text: `reply ${label}` } }], at + 1)).ok);
  assert.ok((await journal.write('finishRun', { runId: `run-${label}`, status: 'completed', turnStatus: 'completed', at: at + 2 })).ok);
  return started.value.turn;
}

async function chatWith(w: Win, turns: number, prefix: string): Promise<string> {
  const s = await w.runtime.createSession('local');
  assert.ok(s.ok);
  for (let i = 0; i < turns; i++) await addTurn(w.journal, s.value.id, `${prefix}${i}`);
  return s.value.id;
}

async function twoWindows(): Promise<[Win, Win]> {
  const file = path.join(tempDir(), 'journal.sqlite');
  const a = await openWindow(file, undefined, 'window-a');
  return [a, await openWindow(file, undefined, 'window-b')];
}

describe('pages of a long chat', () => {
  it('starts at the end and walks back over every turn once while another window adds turns', async () => {
    const [a, b] = await twoWindows();
    try {
      const sessionId = await chatWith(a, 2 * PAGE_TURNS + 10, 'old-');
      const whole = await a.runtime.transcript(sessionId);
      let page = await a.runtime.transcriptPage(sessionId);
      assert.equal(page.transcript.turns.length, PAGE_TURNS);
      assert.equal(page.turnCount, 2 * PAGE_TURNS + 10);
      assert.equal(page.hasOlder, true);
      assert.deepEqual(page.transcript.turns, whole.turns.slice(-PAGE_TURNS), 'the last page folds to the end of the whole transcript');
      const seen = [...page.transcript.turns];
      let added = 0;
      while (page.hasOlder) {
        // Another window goes on writing between two pages.
        await addTurn(b.journal, sessionId, `new-${added++}`);
        await waitFor('window A to see the new turn', async () => (await a.journal.read('getTurn', `turn-new-${added - 1}`)) !== undefined);
        const before: TurnCursor = cursorOf(seen[0]!);
        page = await a.runtime.transcriptPage(sessionId, before);
        seen.unshift(...page.transcript.turns);
      }
      assert.equal(page.transcript.turns.length, 10, 'the first page holds what is left');
      assert.deepEqual(seen.map((t) => t.id), whole.turns.map((t) => t.id), 'no turn skipped or repeated, none of the new ones among the old');
      assert.deepEqual(seen, whole.turns, 'every page folds to its slice of the whole transcript');
    } finally {
      await closeWindows(a, b);
    }
  });

  it('reads what another window changed as that turn alone, and nothing twice', async () => {
    const [a, b] = await twoWindows();
    try {
      const sessionId = await chatWith(a, 40, 't');
      const other = await chatWith(a, 3, 'other-');
      const { mark } = await a.runtime.transcriptPage(sessionId);
      const turn = await addTurn(b.journal, sessionId, 'from-b');
      await addTurn(b.journal, other, 'other-from-b');
      const changes = await waitFor('window A to see the change', async () => {
        const c = await a.runtime.changesSince(sessionId, mark);
        // Three transactions in window B: wait until all of them reached this window.
        return c?.updates.some((u) => u.type === 'event' && u.event.kind === 'run_finished') ? c : undefined;
      });
      assert.deepEqual(changes.updates.map((u) => u.type), ['turn', 'event', 'event'], 'the record first, then its text and its end');
      for (const u of changes.updates) assert.equal(u.type === 'turn' ? u.turn.id : u.event.turnId, turn.id);
      assert.equal(changes.turnCount, 41);
      const again = await a.runtime.changesSince(sessionId, changes.mark);
      assert.deepEqual(again?.updates, [], 'nothing new since the mark the change read returned');
      const both = await a.runtime.changesWithSession(sessionId, mark);
      assert.deepEqual(both, { changes, session: await a.runtime.getSession(sessionId) }, 'the panel\'s read: the same changes, with the session row');
    } finally {
      await closeWindows(a, b);
    }
  });

  it('finds changes after a chat with newer rows was deleted', async () => {
    const [a, b] = await twoWindows();
    try {
      const sessionId = await chatWith(a, 2, 'kept-');
      const doomed = await chatWith(a, 3, 'doomed-');
      const { mark } = await a.runtime.transcriptPage(sessionId);
      assert.ok((await a.runtime.deleteSession(doomed)).ok);
      // The deleted chat held the highest event ids: SQLite hands them out again.
      const turn = await addTurn(a.journal, sessionId, 'after-delete');
      const changes = await a.runtime.changesSince(sessionId, mark);
      assert.deepEqual(changes?.updates.map((u) => (u.type === 'turn' ? u.turn.id : u.event.turnId)), [turn.id, turn.id, turn.id]);
    } finally {
      await closeWindows(a, b);
    }
  });

  it('asks for a page instead when more changed than one read should carry', async () => {
    const [a, b] = await twoWindows();
    try {
      const sessionId = await chatWith(a, 1, 'only-');
      const { mark } = await a.runtime.transcriptPage(sessionId);
      const many = Array.from({ length: MAX_CHANGE_EVENTS + 1 }, (_, i) => ({ kind: 'text' as const, payload: { text: `${i} ` } }));
      const started = await a.journal.write('startTurn', {
        turn: { id: 'busy', sessionId, prompt: 'stream', origin: 'prompt', parentTurnId: null, createdAt: (clock += 1000) },
        run: { id: 'busy-run', instanceId: 'writer', provider: 'local' },
      });
      assert.ok(started.ok);
      assert.ok((await a.journal.write('appendEvents', 'busy-run', many, clock)).ok);
      assert.equal(await a.runtime.changesSince(sessionId, mark), undefined);
    } finally {
      await closeWindows(a, b);
    }
  });
});

describe('the history agents are given', () => {
  it('is every prompt and the text its agent wrote, without tool output, read without folding the chat', async () => {
    const workspace = tempDir('nac-ws-');
    const { journal, runtime } = await openLocal({ workspace });
    try {
      const s = await runtime.createSession('local');
      assert.ok(s.ok);
      for (const prompt of ['help', 'run echo tool-output-here', 'read missing.txt', 'write note.md\n```md\n# n\n```']) {
        assert.ok((await runtime.send(s.value.id, prompt)).ok);
        const live = await waitFor('an approval asked or the reply ended', async () => {
          const l = await runtime.liveState(s.value.id);
          return l.actionableRequestIds.length > 0 || !l.running ? l : undefined;
        });
        for (const requestId of live.actionableRequestIds) assert.ok((await runtime.decide(s.value.id, requestId, 'allow_once')).ok);
        await runtime.whenIdle(s.value.id);
      }
      // What the fold of the whole transcript gives: a prompt, then the turn's text items joined.
      const expected = (await runtime.transcript(s.value.id)).turns.flatMap((t) => {
        const text = t.items.map((i) => (i.type === 'text' ? i.text : '')).join('');
        return text ? [{ role: 'user' as const, text: t.prompt }, { role: 'assistant' as const, text }] : [{ role: 'user' as const, text: t.prompt }];
      });
      const history = historyFrom(await journal.read('listHistory', s.value.id));
      assert.deepEqual(history, expected);
      assert.equal(history.length, 8, 'precondition: every turn wrote text');
      assert.ok(!JSON.stringify(history).includes('tool-output-here\n'), 'no tool output');
    } finally {
      await journal.close();
    }
  });
});
