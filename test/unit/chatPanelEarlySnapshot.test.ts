/**
 * A tab's early snapshot (`ChatPanel.sendEarlySnapshot`) and the `ready` answered with the live state
 * only. A restored tab's view may have posted its `ready` before the panel listened (the journal was
 * still opening): no `ready` then follows the early snapshot, and the next view of the tab (shown
 * again, or back from a lost host) must not be answered as if it had it. ChatPanel is host code:
 * `vscode` is replaced by the little its constructor touches.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { HostMessage } from '../../src/protocol/messages';
// Before anything that loads `vscode`: it installs the stand-in.
import { ChatPanel, fakePanel } from './fakePanels';
import { closeWindows, openWindow } from './harness';
import { tempDir, waitFor } from './helpers';

describe("a chat tab's early snapshot", () => {
  it("answers a new view's ready with the live state only while no view spoke since; with a snapshot once one did", async () => {
    const window = await openWindow(path.join(tempDir(), 'journal.sqlite'), undefined, 'window-a');
    try {
      const s = await window.runtime.createSession('local');
      assert.ok(s.ok);
      const tab = () => {
        const fake = fakePanel();
        const host = { runtime: window.runtime, extensionUri: {}, log: () => undefined, pickSessionFor: async () => undefined, panelDisposed: () => undefined };
        const chat = new ChatPanel(fake.panel as never, s.value.id, host as never);
        return { chat, posted: fake.posted, receive: fake.receive };
      };
      // Numbered messages only (a `pong` is not), the checkpoints' list after each snapshot left out.
      const kinds = (posted: HostMessage[]) => posted.filter((m) => m.type !== 'checkpoints' && m.type !== 'pong').map((m) => m.type);
      const drained = async (t: ReturnType<typeof tab>) => t.chat.post({ type: 'pong' });

      // A tab opened: its view loads and its ready follows the early snapshot.
      const opened = tab();
      await opened.chat.sendEarlySnapshot();
      opened.receive({ type: 'ready' });
      await waitFor('the live state', () => (opened.posted.some((m) => m.type === 'live') ? true : undefined));
      assert.deepEqual(kinds(opened.posted), ['snapshot', 'live'], 'the ready that follows the early snapshot gets the live state only');

      // A restored tab whose view's ready came before the panel listened: the view is loaded, gets
      // the early snapshot and beats its heartbeat; no ready follows.
      const restored = tab();
      await restored.chat.sendEarlySnapshot();
      restored.receive({ type: 'ping' });
      await drained(restored);
      // The tab hidden and shown: its new view posts ready.
      restored.receive({ type: 'ready' });
      await waitFor('an answer to the ready', () => (kinds(restored.posted).length > 1 ? true : undefined));
      await drained(restored);
      assert.deepEqual(kinds(restored.posted), ['snapshot', 'snapshot'], 'a view that spoke had the early snapshot: a later ready is a new view, which gets a snapshot');

      // Add Selection to Chat into such a tab: its view is loaded and visible (it beats its
      // heartbeat), so the attachment goes to it now, not after a ready that is not coming.
      const shown = tab();
      await shown.chat.sendEarlySnapshot();
      shown.receive({ type: 'ping' });
      await drained(shown);
      const attach: HostMessage = { type: 'attach', attachments: [{ kind: 'selection', path: 'src/a.ts', range: { startLine: 1, endLine: 3 } }], focus: true };
      await shown.chat.attachToComposer(attach as HostMessage & { type: 'attach' });
      await drained(shown);
      assert.deepEqual(kinds(shown.posted), ['snapshot', 'attach'], "the attachment is posted to the tab's loaded view");
    } finally {
      await closeWindows(window);
    }
  });
});
