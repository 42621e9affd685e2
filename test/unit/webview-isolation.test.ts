/**
 * The chat view renders each part on its own (happy-dom): an item that throws while it is drawn
 * becomes a "could not be shown" box reported to the host, and the rest of the view, the bars and
 * the composer included, still follows the state.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EMPTY_TRANSCRIPT } from '../../src/core/transcript';
import { session, useHappyDom } from './happyDom';

const window = useHappyDom();


/** A turn running `touch x && echo ok`, waiting for approval. */
function waitingTurn(status: 'running' | 'completed', invocation: 'awaiting_approval' | 'stopped', request: 'pending' | 'denied') {
  return {
    id: 't1', sessionId: 's1', prompt: 'run touch x && echo ok', origin: 'prompt', parentTurnId: null, status, errorClass: null, createdAt: 1,
    items: [
      { type: 'invocation', id: 'i1', tool: 'run', summary: 'touch x && echo ok', status: invocation, output: '' },
      { type: 'boundary', id: 'r1', invocationId: 'i1', kind: 'command', subject: 'touch x && echo ok', why: 'not read-only', status: request, ...(request === 'denied' ? { closureReason: 'run_stopped' } : {}) },
      { type: 'text', text: 'after the card' },
    ],
  };
}

describe('an item that fails to render', () => {
  test('shows a stand-in box and is reported, while the rest of the turn, the bars and the composer keep working', async () => {
    // Repro of issue 9 item 3: setAttribute throwing for the boundary card's element hid the card,
    // left the invocation "Running", and after Stop the view kept Stop and never brought Send back.
    const { buildSkeleton } = await import('../../webview/layout');
    const { ChatRenderer } = await import('../../webview/render');
    const { INITIAL_VIEW_STATE } = await import('../../webview/state');
    const { RENDER_FAILED_TEXT } = await import('../../webview/render/failed');
    const sk = buildSkeleton(window.document.createElement('div') as unknown as HTMLElement);
    const errors: string[] = [];
    const renderer = new ChatRenderer(sk, (error, where) => errors.push(`${where}: ${(error as Error).message}`));
    const proto = window.Element.prototype as unknown as { setAttribute(name: string, value: string): void };
    const original = proto.setAttribute;
    proto.setAttribute = function (this: Element, name: string, value: string) {
      if (name === 'class' && String(value).startsWith('boundary-card')) throw new Error('boundary card broken');
      return original.call(this, name, value);
    };
    try {
      const chat = { ...INITIAL_VIEW_STATE, mode: 'chat' as const, session };
      renderer.render({
        ...chat,
        transcript: { ...EMPTY_TRANSCRIPT, turns: [waitingTurn('running', 'awaiting_approval', 'pending')] } as never,
        live: { running: true, actionableRequestIds: ['r1'], readOnlyReason: null },
      });
      const invocation = sk.content.querySelector('.invocation[data-invocation-id="i1"]');
      assert.ok(invocation, 'the invocation still shows');
      const failed = invocation.querySelector('.render-failed');
      assert.ok(failed, 'the card that failed is replaced by a stand-in box');
      assert.equal(failed.querySelector('span')?.textContent, RENDER_FAILED_TEXT);
      assert.match(failed.querySelector('details pre')?.textContent ?? '', /boundary card r1: Error: boundary card broken/);
      assert.equal(failed.querySelector('details summary')?.textContent, 'Details');
      assert.ok(sk.content.querySelector('.message.agent')?.textContent?.includes('after the card'), 'the item after it still shows');
      assert.deepEqual(errors, ['boundary card r1: boundary card broken']);
      assert.equal(sk.stop.hasAttribute('hidden'), false, 'Stop shows while the run is live');

      // The user presses Stop; the host ends the turn.
      renderer.render({
        ...chat,
        transcript: { ...EMPTY_TRANSCRIPT, turns: [waitingTurn('completed', 'stopped', 'denied')] } as never,
        live: { running: false, actionableRequestIds: [], readOnlyReason: null },
        error: { code: 'x', message: 'an error bar' },
      });
      assert.equal(sk.send.hasAttribute('hidden'), false, 'Send is back after Stop');
      assert.equal(sk.stop.hasAttribute('hidden'), true, 'Stop is gone');
      assert.equal(sk.errorBar.hasAttribute('hidden'), false, 'the bars follow the state');
      assert.equal(sk.content.querySelector('.invocation')?.getAttribute('data-status'), 'stopped', 'the invocation shows its new status');
    } finally {
      proto.setAttribute = original;
    }
  });

  test('a turn that fails as a whole becomes a stand-in box; the next turn still shows', async () => {
    const { buildSkeleton } = await import('../../webview/layout');
    const { ChatRenderer } = await import('../../webview/render');
    const { INITIAL_VIEW_STATE, IDLE_LIVE } = await import('../../webview/state');
    const sk = buildSkeleton(window.document.createElement('div') as unknown as HTMLElement);
    const errors: string[] = [];
    const renderer = new ChatRenderer(sk, (_error, where) => errors.push(where));
    // A prompt that is not a string makes the markdown renderer throw.
    const broken = { ...waitingTurn('completed', 'stopped', 'denied'), id: 't0', prompt: 42, items: [] };
    const fine = { ...waitingTurn('completed', 'stopped', 'denied'), id: 't2', items: [] };
    renderer.render({ ...INITIAL_VIEW_STATE, mode: 'chat', session, live: IDLE_LIVE, transcript: { ...EMPTY_TRANSCRIPT, turns: [broken, fine] } as never });
    assert.equal(sk.content.querySelector(':scope > section.turn.render-failed') !== null, true, 'the broken turn is a stand-in box');
    assert.ok(sk.content.querySelector('section.turn[data-turn-id="t2"] .message.user'), 'the next turn shows');
    assert.deepEqual(errors, ['turn t0']);
  });
});

describe('reports of the view\'s errors', () => {
  test('are cut to what the host accepts, sent once each, and capped', async () => {
    const { MAX_VIEW_ERROR_CHARS, MAX_VIEW_ERROR_REPORTS, viewErrorReporter } = await import('../../webview/viewErrors');
    const protocol = await import('../../src/protocol/messages');
    assert.equal(MAX_VIEW_ERROR_CHARS, protocol.MAX_VIEW_ERROR_CHARS, 'the view and the protocol agree on the limit');
    const posted: string[] = [];
    const report = viewErrorReporter((m) => posted.push(m));
    report(new Error('x'.repeat(5000)), 'turn t1');
    report(new Error('x'.repeat(5000)), 'turn t1');
    assert.equal(posted.length, 1, 'the same error on every frame is reported once');
    assert.equal(posted[0]!.length, MAX_VIEW_ERROR_CHARS);
    assert.ok((await import('../../src/protocol/decode')).decodeWebviewMessage({ type: 'viewError', message: posted[0] }).ok, 'the host accepts the report');
    for (let i = 0; i < 50; i++) report(new Error(`e${i}`), 'item');
    assert.equal(posted.length, MAX_VIEW_ERROR_REPORTS);
  });
});
