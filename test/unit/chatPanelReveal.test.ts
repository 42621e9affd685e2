/**
 * A search result opened in a chat whose tab is hidden: VS Code rebuilds a hidden tab's view when
 * the tab shows (no `retainContextWhenHidden`) and a message posted before then is lost, so the
 * panel keeps the reveal and sends it after the snapshot that answers the new view's `ready`. A
 * visible tab gets it at once, and only once. ChatPanel is host code: `vscode` is replaced by the
 * little its constructor touches.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { cursorOf } from '../../src/core/transcript';
import type { HostMessage } from '../../src/protocol/messages';
import { ChatPanel, fakePanel } from './fakePanels';
import { closeWindows, openWindow } from './harness';
import { tempDir, waitFor } from './helpers';

describe('a search result revealed in a chat tab', () => {
  it('waits for a hidden tab\'s new view and follows its snapshot; goes at once, once, to a visible one', async () => {
    const window = await openWindow(path.join(tempDir(), 'journal.sqlite'), undefined, 'window-a');
    try {
      const s = await window.runtime.createSession('local');
      assert.ok(s.ok);
      const at = 1_700_000_000_000;
      assert.ok((await window.journal.write('startTurn', { turn: { id: 't1', sessionId: s.value.id, prompt: 'run ls', origin: 'prompt', parentTurnId: null, createdAt: at }, run: { id: 'run-t1', instanceId: 'x', provider: 'local' } })).ok);
      assert.ok((await window.journal.write('finishRun', { runId: 'run-t1', status: 'completed', turnStatus: 'completed', at })).ok);
      const turn = await window.journal.read('getTurn', 't1');
      assert.ok(turn);

      const tab = (visible: boolean) => {
        const { panel, posted, receive } = fakePanel({ visible });
        const host = { runtime: window.runtime, extensionUri: {}, log: () => undefined, pickSessionFor: async () => undefined, panelDisposed: () => undefined };
        const chat = new ChatPanel(panel as never, s.value.id, host as never);
        return { chat, posted, receive };
      };
      const expected = { type: 'reveal', at: cursorOf(turn), terms: ['quorblefrump'] };
      // The checkpoints' list follows every snapshot (its own message); the order under test is the rest's.
      const kinds = (posted: HostMessage[]) => posted.map((m) => m.type).filter((t) => t !== 'checkpoints');
      const reveals = (posted: HostMessage[]) => posted.filter((m) => m.type === 'reveal').map(({ type, ...rest }) => ({ type, at: (rest as { at: unknown }).at, terms: (rest as { terms: unknown }).terms }));

      const hidden = tab(false);
      hidden.chat.revealTurn('t1', 'README.md quorblefrump.txt', [[10, 22]]);
      await hidden.chat.post({ type: 'pong' }); // the outbox is drained
      assert.deepEqual(kinds(hidden.posted), ['pong'], 'nothing is posted to a hidden tab\'s view (it would be lost)');
      hidden.receive({ type: 'ready' });
      await waitFor('the reveal after the snapshot', () => (hidden.posted.some((m) => m.type === 'reveal') ? true : undefined));
      assert.deepEqual(kinds(hidden.posted), ['pong', 'snapshot', 'reveal']);
      assert.deepEqual(reveals(hidden.posted), [expected]);
      hidden.receive({ type: 'ready' });
      await waitFor('a second snapshot', () => (hidden.posted.filter((m) => m.type === 'snapshot').length === 2 ? true : undefined));
      await hidden.chat.post({ type: 'pong' });
      assert.equal(reveals(hidden.posted).length, 1, 'a later view of the tab is not sent to the result again');

      const shown = tab(true);
      shown.chat.revealTurn('t1', 'README.md quorblefrump.txt', [[10, 22]]);
      await shown.chat.post({ type: 'pong' });
      assert.deepEqual(reveals(shown.posted), [expected], 'a visible tab\'s view gets it at once');
      shown.receive({ type: 'ready' });
      await waitFor('the snapshot', () => (shown.posted.some((m) => m.type === 'snapshot') ? true : undefined));
      await shown.chat.post({ type: 'pong' });
      assert.equal(reveals(shown.posted).length, 1, 'and only once');
    } finally {
      await closeWindows(window);
    }
  });
});
