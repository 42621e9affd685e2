/**
 * Chat names and tab records against concurrent changes: a rename
 * racing the automatic naming from the first prompt, the automatic title of a prompt with an emoji
 * where the title is cut, and a tab recorded for a chat another window deleted.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { closeWindows, openWindow } from './harness';
import { tempDir } from './helpers';

describe('chat runtime: naming a chat from its first prompt', () => {
  it('does not overwrite a title the user gave while the first prompt was being sent', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const a = await openWindow(file, tempDir('nac-ws-'), 'window-a');
    try {
      const s = await a.runtime.createSession('local');
      assert.ok(s.ok);
      // The user renames the chat (here, or in another window) just as its first prompt goes out.
      const [sent, renamed] = await Promise.all([a.runtime.send(s.value.id, 'first prompt of this chat'), a.runtime.renameSession(s.value.id, 'Release checklist')]);
      assert.ok(sent.ok && renamed.ok);
      a.complete.get('first prompt of this chat')!();
      await a.runtime.whenIdle(s.value.id);
      assert.equal((await a.runtime.getSession(s.value.id))!.title, 'Release checklist', "the automatic name must not replace the user's title");
    } finally {
      await closeWindows(a);
    }
  });

  it('cuts a long first line without splitting an emoji (no replacement characters in the title)', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const a = await openWindow(file, tempDir('nac-ws-'), 'window-a');
    try {
      const s = await a.runtime.createSession('local');
      assert.ok(s.ok);
      // The 47th UTF-16 unit is the first half of 😀.
      const prompt = `${'a'.repeat(46)}😀 and some more words after it`;
      assert.ok((await a.runtime.send(s.value.id, prompt)).ok);
      a.complete.get(prompt)!();
      await a.runtime.whenIdle(s.value.id);
      const title = (await a.runtime.getSession(s.value.id))!.title;
      assert.ok(!title.includes('\uFFFD'), `garbled title: ${JSON.stringify(title)}`);
      assert.ok(title === `${'a'.repeat(46)}…` || title === `${'a'.repeat(46)}😀…`, `unexpected title: ${JSON.stringify(title)}`);
    } finally {
      await closeWindows(a);
    }
  });
});

describe('chat runtime: a tab recorded for a deleted chat', () => {
  it('leaves no tab record behind (a restored panel would adopt it and show "no longer in the journal")', async () => {
    // Window B opens chat X from a quick pick listed before window A deleted X (or restores X's tab
    // while A deletes it): B records X's tab after the delete.
    const file = path.join(tempDir(), 'journal.sqlite');
    const ws = tempDir('nac-ws-');
    const a = await openWindow(file, ws, 'window-a');
    const b = await openWindow(file, ws, 'window-b');
    try {
      const x = await a.runtime.createSession('local');
      assert.ok(x.ok);
      assert.deepEqual(await a.runtime.deleteSession(x.value.id), { ok: true, value: undefined });
      await b.runtime.recordTab(x.value.id);
      assert.deepEqual((await b.runtime.listTabs()).map((t) => t.sessionId), [], 'a tab record of a chat that no longer exists');
    } finally {
      await closeWindows(a, b);
    }
  });
});
