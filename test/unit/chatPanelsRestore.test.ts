/**
 * A chat tab VS Code restored without its state (a tab reopened but never drawn before a reload)
 * gets the journaled tab whose chat has its title, not the oldest one: a fresh user's tabs showed
 * each other's chats after a restart and a reload.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
// Before anything that loads `vscode`: it installs the stand-in.
import { ChatPanels, fakePanel } from './fakePanels';
import { closeWindows, openWindow } from './harness';
import { tempDir } from './helpers';

describe('a chat tab restored without its state', () => {
  it("shows the journaled tab whose chat has the tab's title; without one, the oldest unclaimed", async () => {
    const window = await openWindow(path.join(tempDir(), 'journal.sqlite'), undefined, 'window-a');
    try {
      const make = async (title: string) => {
        const s = await window.runtime.createSession('local');
        assert.ok(s.ok);
        await window.runtime.renameSession(s.value.id, title);
        await window.runtime.recordTab(s.value.id);
        return s.value.id;
      };
      const older = await make('run ls');
      const newer = await make('run printf quokkabanana');
      const panels = new ChatPanels(Promise.resolve(window.runtime), {} as never, () => undefined, {} as never);
      panels.bind(window.runtime);
      const restore = async (title: string) => {
        const fake = fakePanel();
        (fake.panel as { title: string }).title = title;
        await panels.deserializeWebviewPanel(fake.panel as never, undefined);
        return panels.openSessionIds().at(-1);
      };
      assert.equal(await restore('run printf quokkabanana'), newer, 'the tab titled as the newer chat shows it');
      assert.equal(await restore('Agent chat'), older, 'a title no chat has: the oldest unclaimed tab');
    } finally {
      await closeWindows(window);
    }
  });
});
