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

/** A chat view's renderer on a skeleton in the document, turns 100 px tall in a 600 px view; `atBottom`: whether it follows the bottom. */
async function chatView(atBottom: boolean) {
  const { buildSkeleton } = await import('../../webview/layout');
  const { ChatRenderer } = await import('../../webview/render');
  const { INITIAL_VIEW_STATE, IDLE_LIVE } = await import('../../webview/state');
  const { session } = await import('./happyDom');
  const sk = buildSkeleton(window.document.createElement('div') as unknown as HTMLElement);
  window.document.body.replaceChildren(sk.app as never);
  const renderer = new ChatRenderer(sk, undefined, { geometry: { height: () => 100, viewportHeight: () => 600, contentTop: () => 0 }, atBottom: () => atBottom });
  return { sk, renderer, INITIAL_VIEW_STATE, IDLE_LIVE, session };
}

describe('output boxes across a render', () => {
  test('a box rendered again gets its place back, a running one follows its end, one left as it was is not touched', async () => {
    const { followOutputs, OutputScrollTracker } = await import('../../webview/render/follow');
    const root = window.document.createElement('div');
    window.document.body.replaceChildren(root);
    const tracker = new OutputScrollTracker(root as unknown as HTMLElement);
    const kept = invocation('kept', 'completed', 40);
    const redrawn = invocation('redrawn', 'completed', 120);
    const running = invocation('running', 'running', 400);
    for (const x of [kept, redrawn, running]) root.appendChild(x.el);
    // The user scrolled each box: the browser fires a scroll event at it (it does not bubble).
    for (const x of [kept, redrawn, running]) x.pre.dispatchEvent(new window.Event('scroll') as never);
    assert.deepEqual(tracker.positions.get('redrawn')?.top, 120);
    assert.equal(tracker.positions.get('running')?.atEnd, true);
    // The render: `redrawn` is a new element (its item changed), the others stay.
    const again = invocation('redrawn', 'completed', 0);
    root.replaceChild(again.el, redrawn.el);
    kept.reads.n = 0;
    followOutputs(root as unknown as ParentNode, tracker.positions);
    assert.equal(again.top(), 120, 'the new box is where the old one was');
    assert.equal(kept.reads.n, 0, 'the box left as it was is not read');
    assert.equal(kept.top(), 40);
    assert.equal(running.top(), 500, 'a running box that was at its end follows it');
  });

  test('a render reads no box\'s position before it writes: only scroll events are read', async () => {
    // Reading every output box's position before each render forced a layout of the whole view at every update.
    const { sk, renderer, INITIAL_VIEW_STATE, IDLE_LIVE, session } = await chatView(true);
    // The fold keeps an unchanged item's object: the renderer keeps its element.
    const ran = { type: 'invocation' as const, id: 'i1', tool: 'run', summary: 'ls', status: 'completed' as const, output: 'a\nb', exitCode: 0 };
    const turn = (status: 'completed' | 'running', text: string) => ({
      id: 't1', sessionId: session.id, prompt: 'run ls', origin: 'prompt' as const, parentTurnId: null, status, errorClass: null, seq: 1, createdAt: 1, applied: {},
      items: [ran, { type: 'text' as const, text }],
    });
    const state = { ...INITIAL_VIEW_STATE, mode: 'chat' as const, session, live: IDLE_LIVE, turnCount: 1 };
    renderer.render({ ...state, transcript: { turns: [turn('completed', 'one')] } });
    const pre = sk.content.querySelector<HTMLElement>('pre.output')!;
    let reads = 0;
    for (const key of ['scrollTop', 'scrollHeight', 'clientHeight'] as const) {
      Object.defineProperty(pre, key, { get: () => (reads++, 0), set: () => undefined, configurable: true });
    }
    renderer.render({ ...state, transcript: { turns: [turn('completed', 'two')] } });
    assert.equal(sk.content.querySelector('pre.output'), pre, 'precondition: the box stayed');
    assert.equal(reads, 0, 'the render read nothing of the box');
  });

  test('a box whose turn was scrolled out of the DOM and back gets its place back', async () => {
    // Chromium puts a box removed from the document and inserted again at its top, with no scroll
    // event (measured in Chromium 156): a finished command's output the user had scrolled in was back
    // at its first lines once its turn had been scrolled out of the virtualized window and back.
    const { sk, renderer, INITIAL_VIEW_STATE, IDLE_LIVE, session } = await chatView(false);
    const ran = { type: 'invocation' as const, id: 'i0', tool: 'run', summary: 'ls', status: 'completed' as const, output: 'a\nb', exitCode: 0 };
    const turns = Array.from({ length: 40 }, (_, i) => ({
      id: `t${i}`, sessionId: session.id, prompt: `p${i}`, origin: 'prompt' as const, parentTurnId: null, status: 'completed' as const, errorClass: null, seq: i + 1, createdAt: 1, applied: {},
      items: i === 0 ? [ran] : [{ type: 'text' as const, text: `reply ${i}` }],
    }));
    const state = { ...INITIAL_VIEW_STATE, mode: 'chat' as const, session, live: IDLE_LIVE, turnCount: turns.length };
    const showAt = (turnId: string) => {
      renderer.virtual.restoreTo({ turnId, offset: 0 });
      renderer.render({ ...state, transcript: { turns: [...turns] } });
    };
    showAt('t0');
    const pre = sk.content.querySelector<HTMLElement>('pre.output')!;
    let position = 0;
    Object.defineProperty(pre, 'scrollTop', { get: () => position, set: (v: number) => (position = v), configurable: true });
    Object.defineProperty(pre, 'scrollHeight', { get: () => 500, configurable: true });
    Object.defineProperty(pre, 'clientHeight', { get: () => 100, configurable: true });
    position = 120;
    pre.dispatchEvent(new window.Event('scroll') as never);
    showAt('t39');
    assert.equal(pre.isConnected, false, 'precondition: the turn left the DOM');
    position = 0; // As Chromium does to a box out of the document.
    showAt('t0');
    assert.equal(sk.content.querySelector('pre.output'), pre, 'precondition: the same box, back');
    assert.equal(position, 120, 'the box is where the user had scrolled it');
  });

  test('the position of a box whose turn left the renderer\'s cache is forgotten with it', async () => {
    // Each noted box holds its element, and its turn's whole tree: a long chat's every followed command kept its turn alive.
    const { sk, renderer, INITIAL_VIEW_STATE, IDLE_LIVE, session } = await chatView(false);
    const turns = Array.from({ length: 300 }, (_, i) => ({
      id: `t${i}`, sessionId: session.id, prompt: `p${i}`, origin: 'prompt' as const, parentTurnId: null, status: 'completed' as const, errorClass: null, seq: i + 1, createdAt: 1, applied: {},
      items: [{ type: 'invocation' as const, id: `i${i}`, tool: 'run', summary: 'ls', status: 'completed' as const, output: 'a\nb', exitCode: 0 }],
    }));
    const state = { ...INITIAL_VIEW_STATE, mode: 'chat' as const, session, live: IDLE_LIVE, turnCount: turns.length };
    const positions = (renderer as unknown as { outputs: { positions: ReadonlyMap<string, unknown> } }).outputs.positions;
    for (let at = 0; at < turns.length; at += 10) {
      renderer.virtual.restoreTo({ turnId: `t${at}`, offset: 0 });
      renderer.render({ ...state, transcript: { turns: [...turns] } });
      // The user (or the follow of a running command) scrolled the boxes on screen.
      sk.content.querySelectorAll('pre.output').forEach((pre) => pre.dispatchEvent(new window.Event('scroll') as never));
    }
    assert.ok(positions.has('i290'), 'a box of a turn on screen is known');
    assert.equal(positions.has('i0'), false, 'the first turn left the cache: its box is forgotten');
    assert.ok(positions.size <= 200, `at most the cached turns' boxes: ${positions.size}`);
  });
});
