/**
 * The checkpoints ("Files changed" of every turn) a chat panel sends its view, through the real
 * panels and two windows on one journal (the local agent): another window's change that changed no
 * file sends no `checkpoints` message again, one that did sends the new list, and a view's snapshot
 * always comes with the list. An Undo or Redo from the view that did all it was asked is said in the
 * status bar and by the view's announcement, not in a notification (one stood over the view's Send
 * button); Undo Last Turn's Changes from the palette says it in a notification. `vscode` is replaced by
 * the little the panels touch.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { openLocal } from './harness';
import { openChatPanel, said, type Posted } from './fakePanels';
import { trackedTempDir, waitFor } from './helpers';
import { hostMessageProblem } from '../../src/protocol/checkHostMessage';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { OUTCOME_STATUS_MS, undoLastTurn } = require('../../src/host/checkpointActions') as typeof import('../../src/host/checkpointActions');

/** The `checkpoints` messages posted, as the turn ids each listed. */
const checkpointLists = (posted: readonly Posted[]) => posted.flatMap((m) => (m.type === 'checkpoints' ? [m.turns.map((t) => t.turnId)] : []));

describe('the checkpoints a chat panel sends', () => {
  it('another window\'s change sends them again only when they changed', async () => {
    // Sent at every change of another window, the whole list cost the view ~10 ms to check in a chat with 2,000 file-changing turns.
    const workspace = trackedTempDir('nac-ws-');
    const a = await openLocal({ workspace, instance: 'window-a' });
    const b = await openLocal({ file: a.file, workspace, instance: 'window-b' });
    const { sessionId, panel, settled, dispose } = await openChatPanel(a.runtime);
    try {
      await settled();
      assert.deepEqual(checkpointLists(panel.posted), [[]], 'the snapshot comes with the (empty) list');

      // Window B's turn writes a file: window A's view gets the list with it. The change is journaled
      // `pending` before the write and `applied` after, in two commits: A may read between them and
      // send the pending list, then (rightly) the applied one. Wait for the list as B left it, or the
      // applied one would arrive after `before` is counted.
      assert.ok((await b.runtime.send(sessionId, 'write notes/a.txt\n```\nhello\n```')).ok);
      await b.runtime.whenIdle(sessionId);
      const wrote = (await b.runtime.transcript(sessionId)).turns[0]!.id;
      await waitFor('window A\'s view to list the file change, written', () => panel.view().files.get(wrote)?.files.every((f) => !f.pending) === true, 10_000);

      // Window B's next turn changes no file: its changes reach A's view, the same list is not sent again.
      const before = checkpointLists(panel.posted).length;
      assert.ok((await b.runtime.send(sessionId, 'help')).ok);
      await b.runtime.whenIdle(sessionId);
      await waitFor('window A\'s view to show the second turn done', () => panel.view().transcript.turns[1]?.status === 'completed', 10_000);
      await settled();
      assert.equal(checkpointLists(panel.posted).length, before, `no list sent again: ${JSON.stringify(checkpointLists(panel.posted))}`);
      assert.deepEqual([...panel.view().files.keys()], [wrote], 'the view still lists the first turn\'s change');

      // A view built again gets a snapshot, and the list with it.
      panel.receive({ type: 'resync' });
      await waitFor('the list again', () => checkpointLists(panel.posted).length === before + 1);
      assert.deepEqual(checkpointLists(panel.posted).at(-1), [wrote]);
    } finally {
      dispose();
      await a.close();
      await b.close();
    }
  });

  it('an undo and a redo from the view are said in the status bar and announced in the view; from the palette, in a notification', async () => {
    const h = await openLocal({});
    const { sessionId, panel, settled, dispose } = await openChatPanel(h.runtime);
    try {
      assert.ok((await h.runtime.send(sessionId, 'write made/a.txt\n```\nhello\n```')).ok);
      await h.runtime.whenIdle(sessionId);
      const turnId = (await h.runtime.transcript(sessionId)).turns[0]!.id;
      await waitFor('the view to list the change', () => panel.view().files.has(turnId), 10_000);
      const notifications = said.notifications.length;
      const announced = () => panel.posted.flatMap((m) => (m.type === 'announce' ? [m.text] : []));

      panel.receive({ type: 'undoFiles', turnId, scope: 'turn' });
      await waitFor('the undo announced', () => announced().length === 1, 10_000);
      assert.deepEqual(announced(), ['Undo: removed 1 file the agent had created.']);
      for (const m of panel.posted) assert.equal(hostMessageProblem(m), null, `the view takes ${JSON.stringify(m).slice(0, 200)}`);
      assert.deepEqual(said.statusBar.at(-1), { text: 'Undo: removed 1 file the agent had created.', ms: OUTCOME_STATUS_MS });
      const undoId = (await h.runtime.files.checkpoints(sessionId))[0]!.undoneBy!;
      panel.receive({ type: 'redoFiles', undoId });
      await waitFor('the redo announced', () => announced().length === 2, 10_000);
      assert.equal(announced()[1], 'Redo: created 1 file again.');
      await settled();
      assert.equal(said.notifications.length, notifications, `no notification: ${said.notifications.slice(notifications).join(' | ')}`);

      await undoLastTurn(h.runtime, sessionId);
      assert.deepEqual(said.notifications.slice(notifications), ['Undo: removed 1 file the agent had created.']);
      assert.equal(announced().length, 2, 'nothing announced in the view for the palette\'s undo');
    } finally {
      dispose();
      await h.close();
    }
  });
});
