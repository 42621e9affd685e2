/**
 * A chat panel of a long chat against a real journal shared by two windows: it opens on the last
 * page, answers `loadOlder` with the page before, sends what another window changed as that turn
 * alone (never the whole chat again), numbers every message it sends, and answers `resync` with a
 * snapshot. ChatPanel is host code: `vscode` is replaced by the little its constructor touches.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { cursorOf } from '../../src/core/transcript';
import { PAGE_TURNS } from '../../src/protocol/messages';
import { ChatPanel, fakePanel } from './fakePanels';
import { closeWindows, openWindow } from './harness';
import { tempDir, waitFor } from './helpers';

describe('chat panel of a long chat', () => {
  it('pages, sends another window\'s change as that turn alone, numbers its messages and resyncs', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const a = await openWindow(file, undefined, 'window-a');
    const b = await openWindow(file, undefined, 'window-b');
    try {
      const s = await a.runtime.createSession('local');
      assert.ok(s.ok);
      let at = 1_700_000_000_000;
      const addTurn = async (w: typeof a, id: string) => {
        at += 1000;
        assert.ok((await w.journal.write('startTurn', { turn: { id, sessionId: s.value.id, prompt: `prompt ${id}`, origin: 'prompt', parentTurnId: null, createdAt: at }, run: { id: `run-${id}`, instanceId: 'x', provider: 'local' } })).ok);
        assert.ok((await w.journal.write('appendEvents', `run-${id}`, [{ kind: 'text', payload: { text: `reply ${id}` } }], at)).ok);
        assert.ok((await w.journal.write('finishRun', { runId: `run-${id}`, status: 'completed', turnStatus: 'completed', at })).ok);
      };
      for (let i = 0; i < 2 * PAGE_TURNS; i++) await addTurn(a, `t${String(i).padStart(3, '0')}`);

      const { panel, posted, receive } = fakePanel();
      const host = { runtime: a.runtime, extensionUri: {}, log: () => undefined, pickSessionFor: async () => undefined, panelDisposed: () => undefined };
      const chat = new ChatPanel(panel as never, s.value.id, host as never);
      a.runtime.onNotification((n) => {
        if (n.type === 'refresh' && n.sessionId === s.value.id) void chat.sendChanges();
      });

      receive({ type: 'ready' });
      const snapshot = await waitFor('the snapshot', () => posted.find((m) => m.type === 'snapshot'));
      assert.ok(snapshot.type === 'snapshot');
      assert.equal(snapshot.transcript.turns.length, PAGE_TURNS);
      assert.equal(snapshot.transcript.turns.at(-1)!.id, `t${String(2 * PAGE_TURNS - 1).padStart(3, '0')}`, 'the last page ends with the last turn');
      assert.equal(snapshot.hasOlder, true);
      assert.equal(snapshot.turnCount, 2 * PAGE_TURNS);

      receive({ type: 'loadOlder', before: cursorOf(snapshot.transcript.turns[0]!) });
      const page = await waitFor('the older page', () => posted.find((m) => m.type === 'page'));
      assert.ok(page.type === 'page');
      assert.deepEqual(page.turns.map((t) => t.id), Array.from({ length: PAGE_TURNS }, (_, i) => `t${String(i).padStart(3, '0')}`));
      assert.equal(page.hasOlder, false);

      await addTurn(b, 'from-b');
      // Window B wrote three transactions: they may reach this window in one catch-up or several.
      const changed = () => posted.flatMap((m) => (m.type === 'changes' ? m.updates : []));
      await waitFor('the change from window B', () => changed().some((u) => u.type === 'event' && u.event.kind === 'run_finished'));
      assert.deepEqual(changed().map((u) => (u.type === 'turn' ? u.turn.id : u.event.turnId)).filter((id, i, all) => all.indexOf(id) === i), ['from-b'], 'only the changed turn');
      assert.deepEqual(changed().filter((u) => u.type === 'event').length, 2, 'its two events, once each');
      const last = posted.filter((m) => m.type === 'changes').at(-1);
      assert.equal(last?.type === 'changes' && last.turnCount, 2 * PAGE_TURNS + 1);
      // The live state comes in the same message: one change, one render in the view.
      assert.equal(last?.type === 'changes' && last.live?.running, false, 'the live state read with the change: no run live');
      assert.equal(typeof (last?.type === 'changes' && last.hostNow), 'number');
      assert.deepEqual(posted.filter((m) => m.type === 'live'), [], 'no separate live message after a change');
      assert.ok(!posted.some((m, i) => m.type === 'snapshot' && i > 0), 'the change did not re-send the chat');

      receive({ type: 'resync' });
      await waitFor('a snapshot after resync', () => posted.filter((m) => m.type === 'snapshot').length === 2);
      await chat.post({ type: 'pong' }); // the outbox is drained
      assert.deepEqual(posted.map((m) => m.seq), posted.map((_, i) => i + 1), 'every message numbered 1, 2, 3… in the order sent');
    } finally {
      await closeWindows(a, b);
    }
  });
});
