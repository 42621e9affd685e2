/**
 * Output boxes across a render (webview/render/follow.ts), on happy-dom with boxes whose sizes are
 * given: a box rendered again gets its position back, a running one follows its end, and a box left
 * as it was is not read (each read after a DOM change forces a layout).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useHappyDom } from './happyDom';

const window = useHappyDom();

/** An invocation holding an output box `height` px tall in a 100 px viewport, scrolled to `top`; counts reads of its position. */
function invocation(id: string, status: string, top: number, height = 500) {
  const doc = window.document;
  const el = doc.createElement('div');
  el.className = 'invocation';
  el.dataset.invocationId = id;
  el.dataset.status = status;
  const pre = doc.createElement('pre');
  pre.className = 'output';
  let position = top;
  const reads = { n: 0 };
  Object.defineProperty(pre, 'scrollTop', { get: () => (reads.n++, position), set: (v: number) => (position = v), configurable: true });
  Object.defineProperty(pre, 'scrollHeight', { get: () => (reads.n++, height), configurable: true });
  Object.defineProperty(pre, 'clientHeight', { get: () => 100, configurable: true });
  el.appendChild(pre);
  return { el, pre: pre as unknown as HTMLElement, reads, top: () => position };
}

describe('output boxes across a render', () => {
  test('a box rendered again gets its place back, a running one follows its end, one left as it was is not touched', async () => {
    const { followOutputs, outputScrolls } = await import('../../webview/render/follow');
    const root = window.document.createElement('div');
    const kept = invocation('kept', 'completed', 40);
    const redrawn = invocation('redrawn', 'completed', 120);
    const running = invocation('running', 'running', 400);
    for (const x of [kept, redrawn, running]) root.appendChild(x.el);
    const before = outputScrolls(root as unknown as ParentNode);
    assert.deepEqual(before.get('redrawn')?.top, 120);
    // The render: `redrawn` is a new element (its item changed), the others stay.
    const again = invocation('redrawn', 'completed', 0);
    root.replaceChild(again.el, redrawn.el);
    kept.reads.n = 0;
    followOutputs(root as unknown as ParentNode, before);
    assert.equal(again.top(), 120, 'the new box is where the old one was');
    assert.equal(kept.reads.n, 0, 'the box left as it was is not read');
    assert.equal(kept.top(), 40);
    assert.equal(running.top(), 500, 'a running box that was at its end follows it');
  });
});
