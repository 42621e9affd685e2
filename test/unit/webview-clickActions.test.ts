/**
 * What a click in the chat view posts and changes (webview/clickActions.ts, on happy-dom): a
 * decision decided once with its request's buttons disabled at once, disabled and busy controls
 * ignored, action links kept from navigating, Undo/Restore/Redo and Edit.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { WebviewMessage } from '../../src/protocol/messages';
import type { ViewState } from '../../webview/state';
import { useHappyDom } from './happyDom';

useHappyDom();

async function harness() {
  const { handleClick } = await import('../../webview/clickActions');
  const { INITIAL_VIEW_STATE } = await import('../../webview/state');
  const root = window.document.createElement('div');
  window.document.body.replaceChildren(root);
  const posted: WebviewMessage[] = [];
  let state: ViewState = INITIAL_VIEW_STATE;
  const edits: string[] = [];
  let focused = 0;
  const said: string[] = [];
  const deps = {
    root, post: (m: WebviewMessage) => posted.push(m), state: () => state, setState: (s: ViewState) => (state = s),
    focusComposer: () => focused++, pinToBottom: () => undefined, startEdit: (turnId: string) => edits.push(turnId), cancelEdit: () => undefined,
    announce: (text: string) => said.push(text),
  };
  const click = (el: Element) => {
    const event = new window.MouseEvent('click', { bubbles: true, cancelable: true });
    root.addEventListener('click', (e) => handleClick(e as MouseEvent, deps), { once: true });
    el.dispatchEvent(event);
    return event;
  };
  return { root, posted, click, edits, said, state: () => state, focused: () => focused };
}

describe('a click in the chat view', () => {
  test('a decision is posted once; the three buttons of its request are disabled at once and the composer takes the focus', async () => {
    const h = await harness();
    h.root.innerHTML = ['allow_once', 'allow_session', 'deny'].map((d) => `<button data-decision="${d}" data-request-id="r1">${d}</button>`).join('')
      + '<button data-decision="deny" data-request-id="r2">other</button>';
    const [allow, , , other] = [...h.root.querySelectorAll('button')];
    h.click(allow!);
    assert.deepEqual(h.posted, [{ type: 'decide', requestId: 'r1', decision: 'allow_once' }]);
    assert.deepEqual([...h.root.querySelectorAll('[data-request-id="r1"]')].map((b) => b.hasAttribute('disabled')), [true, true, true]);
    assert.equal(other!.hasAttribute('disabled'), false, "another request's buttons stay");
    const { requestBusyKey } = await import('../../webview/state');
    assert.ok(h.state().busy.has(requestBusyKey('r1')), 'the request is busy until the host answers');
    assert.equal(h.focused(), 1);
    allow!.removeAttribute('disabled');
    h.click(allow!);
    assert.equal(h.posted.length, 1, 'a second click while busy posts nothing');
  });

  test('Copy puts the block\'s text on the clipboard, shows "Copied" and says it (its accessible name is what it copies)', async (t) => {
    const h = await harness();
    const copied: string[] = [];
    const clipboard = { writeText: async (text: string) => void copied.push(text) };
    // The view's `navigator` (Node 20 has no global one: the window's, with a clipboard that records).
    const had = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
    Object.defineProperty(globalThis, 'navigator', { configurable: true, value: { clipboard } });
    t.after(() => (had ? Object.defineProperty(globalThis, 'navigator', had) : delete (globalThis as { navigator?: unknown }).navigator));
    h.root.innerHTML = '<div class="code-block"><pre class="output">a.txt\nb.txt</pre><button data-action="copy-code" aria-label="Copy output of run: ls">Copy</button></div>';
    const button = h.root.querySelector('button')!;
    h.click(button);
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(copied, ['a.txt\nb.txt']);
    assert.equal(button.textContent, 'Copied');
    assert.deepEqual(h.said, ['Copied'], 'a screen reader hears it: the button\'s name stays what it copies');
  });

  test('Retry is posted once, its button disabled, and the composer takes the focus (the banner goes with its button)', async () => {
    // A fresh user pressed Retry from the keyboard: the focus went to the page, and Shift+Tab to an old turn.
    const h = await harness();
    h.root.innerHTML = '<button data-action="retry" data-turn-id="t1">Retry</button>';
    const retry = h.root.querySelector('button')!;
    h.click(retry);
    assert.deepEqual(h.posted, [{ type: 'retry', turnId: 't1' }]);
    assert.equal(retry.hasAttribute('disabled'), true);
    assert.equal(h.focused(), 1);
  });

  test('a decision that is not one of the three, or a disabled action, posts nothing', async () => {
    const h = await harness();
    h.root.innerHTML = '<button data-decision="allow_forever" data-request-id="r1">x</button><button data-action="undo-files" data-turn-id="t1" disabled>Undo</button>';
    for (const b of h.root.querySelectorAll('button')) h.click(b);
    assert.deepEqual(h.posted, []);
  });

  test("an action link does not navigate; Undo, Restore, Redo and a file's diff are posted", async () => {
    const h = await harness();
    h.root.innerHTML = '<a href="#" data-action="open-diff" data-turn-id="t1" data-path="a.ts">a.ts</a>'
      + '<button data-action="undo-files" data-turn-id="t1">Undo</button><button data-action="restore-files" data-turn-id="t1">Restore</button>'
      + '<button data-action="redo-files" data-undo-id="u1">Redo</button>';
    const [link] = [...h.root.querySelectorAll('a')];
    assert.equal(h.click(link!).defaultPrevented, true, 'the href is only there to make the link focusable');
    for (const b of h.root.querySelectorAll('button')) h.click(b);
    assert.deepEqual(h.posted, [
      { type: 'openFileDiff', turnId: 't1', path: 'a.ts' },
      { type: 'undoFiles', turnId: 't1', scope: 'turn' },
      { type: 'undoFiles', turnId: 't1', scope: 'from_turn' },
      { type: 'redoFiles', undoId: 'u1' },
    ]);
  });
});
