/**
 * `ChatRuntime.turnCursor` (src/runtime/pages.ts `turnCursorOf`): where a turn sits in its chat, for
 * a search result a tab reveals; undefined for a turn of another chat or one the journal no longer
 * holds, so a tab never scrolls to a turn it cannot show.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { cursorOf } from '../../src/core/transcript';
import { closeWindows, openWindow } from './harness';
import { tempDir } from './helpers';

describe("the runtime's cursor of a turn", () => {
  it("is the turn's cursor in its own chat only", async () => {
    const window = await openWindow(path.join(tempDir(), 'journal.sqlite'), undefined, 'window-a');
    try {
      const a = await window.runtime.createSession('local');
      const b = await window.runtime.createSession('local');
      assert.ok(a.ok && b.ok);
      const at = 1_700_000_000_000;
      assert.ok((await window.journal.write('startTurn', { turn: { id: 't1', sessionId: a.value.id, prompt: 'run ls', origin: 'prompt', parentTurnId: null, createdAt: at }, run: { id: 'run-t1', instanceId: 'x', provider: 'local' } })).ok);
      const turn = await window.journal.read('getTurn', 't1');
      assert.ok(turn);
      assert.deepEqual(await window.runtime.turnCursor(a.value.id, 't1'), cursorOf(turn));
      assert.equal(await window.runtime.turnCursor(b.value.id, 't1'), undefined, "another chat's turn");
      assert.equal(await window.runtime.turnCursor(a.value.id, 'no-such-turn'), undefined, 'no such turn');
    } finally {
      await closeWindows(window);
    }
  });
});
