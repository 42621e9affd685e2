/**
 * The chat view's heartbeat (webview/heartbeat.ts) and what the view shows while its extension host
 * does not answer (webview/state.ts `markHostLost`, `viewOf`), rendered on a DOM in plain Node.
 * A tab left open across an extension-host crash kept a live-looking Stop and clickable approval
 * buttons forever, its clicks going nowhere.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EMPTY_TRANSCRIPT } from '../../src/core/transcript';
import { session, useHappyDom } from './happyDom';
import { Heartbeat } from '../../webview/heartbeat';
import {
  dismissError, HOST_LOST_CODE, HOST_LOST_MESSAGE, IDLE_LIVE, INITIAL_VIEW_STATE, markHostLost, reduceHostMessage, sendBlockedReason, viewOf, type ViewState,
} from '../../webview/state';
import { decideSend } from '../../webview/input';

const window = useHappyDom();

const waiting: ViewState = {
  ...INITIAL_VIEW_STATE,
  mode: 'chat',
  session,
  transcript: EMPTY_TRANSCRIPT,
  live: { running: true, actionableRequestIds: ['b1'], readOnlyReason: null },
};

describe('the heartbeat', () => {
  test('pings every tick and calls the host lost once a ping went unanswered for lostAfterMs', () => {
    const beat = new Heartbeat({ intervalMs: 2000, lostAfterMs: 6000 });
    assert.deepEqual(beat.tick(10_000), { ping: true, lost: false });
    beat.answered();
    assert.deepEqual(beat.tick(12_000), { ping: true, lost: false });
    assert.deepEqual(beat.tick(14_000), { ping: true, lost: false });
    assert.deepEqual(beat.tick(17_999), { ping: true, lost: false }, '5.999 s unanswered');
    assert.deepEqual(beat.tick(18_000), { ping: true, lost: true }, 'the ping of 12 000 is 6 s old');
    beat.answered();
    assert.deepEqual(beat.tick(20_000), { ping: true, lost: false }, 'an answer clears it');
  });

  test('a view that did not ask (throttled timers) does not call the host lost', () => {
    const beat = new Heartbeat({ intervalMs: 2000, lostAfterMs: 6000 });
    beat.tick(0);
    beat.answered();
    // The next tick comes a minute later (a background browser tab): nothing was unanswered.
    assert.deepEqual(beat.tick(60_000), { ping: true, lost: false });
  });
});

describe('a view whose host is lost', () => {
  test('its waiting card names the lost host, not another window, and offers its buttons once the host is back', async () => {
    const { buildSkeleton } = await import('../../webview/layout');
    const { ChatRenderer } = await import('../../webview/render');
    const { HOST_LOST_WAITING_TEXT } = await import('../../src/core/labels');
    const sk = buildSkeleton(window.document.createElement('div') as unknown as HTMLElement);
    const renderer = new ChatRenderer(sk);
    const withCard: ViewState = {
      ...waiting,
      transcript: { turns: [{ id: 't1', sessionId: session.id, prompt: 'run touch x', origin: 'prompt', parentTurnId: null, status: 'running', errorClass: null, seq: 1, createdAt: 1, applied: {},
        items: [{ type: 'boundary', id: 'b1', kind: 'command', subject: 'touch x', why: 'not read-only', status: 'pending' }] }] },
    };
    const card = () => sk.content.querySelector('[data-request-id="b1"]');
    renderer.render(viewOf(markHostLost(withCard)));
    assert.equal(card()?.querySelector('.boundary-outcome')?.textContent, HOST_LOST_WAITING_TEXT);
    assert.equal(card()?.querySelectorAll('[data-decision]').length, 0, 'no decision while nobody can take it');
    renderer.render(viewOf(withCard));
    assert.equal(card()?.querySelectorAll('[data-decision]').length, 3, 'the host answers again: the buttons are back');
  });


  test('says so, and offers neither Stop nor decisions while it lasts', async () => {
    const { buildSkeleton } = await import('../../webview/layout');
    const { ChatRenderer } = await import('../../webview/render');
    const sk = buildSkeleton(window.document.createElement('div') as unknown as HTMLElement);
    const renderer = new ChatRenderer(sk);

    const lost = markHostLost(waiting);
    assert.equal(lost.hostLost, true);
    assert.deepEqual(lost.error, { code: HOST_LOST_CODE, message: HOST_LOST_MESSAGE });
    assert.equal(lost.live, waiting.live, 'what the host last said is kept');
    assert.deepEqual(viewOf(lost).live, IDLE_LIVE, 'nothing looks live or actionable');
    renderer.render(viewOf(lost));
    assert.equal(sk.stop.hasAttribute('hidden'), true, 'no live-looking Stop');
    assert.equal(sk.errorBar.hasAttribute('hidden'), false);
    assert.equal(sk.errorMessage.textContent, "Lost connection to VS Code's extension host — waiting for it to come back.");
  });

  test('any message from the host ends it and brings back the live state', () => {
    const lost = markHostLost(waiting);
    const back = reduceHostMessage(lost, { type: 'pong' });
    assert.equal(back.hostLost, false);
    assert.equal(back.error, null, 'the lost-host notice goes');
    assert.deepEqual(viewOf(back).live, waiting.live);
    // Another error shown meanwhile stays.
    const other = reduceHostMessage({ ...lost, hostLost: true }, { type: 'error', code: 'internal', message: 'x' });
    assert.deepEqual(other.error, { code: 'internal', message: 'x' });
  });

  test('a view that is not showing a chat is left as it is', () => {
    assert.equal(viewOf(markHostLost(INITIAL_VIEW_STATE)).mode, 'loading');
  });
});

describe('sending while the host is lost', () => {
  test('is refused, also after the lost-host notice was dismissed (the text would go nowhere and the composer be cleared)', () => {
    const idle: ViewState = { ...waiting, live: { running: false, actionableRequestIds: [], readOnlyReason: null } };
    assert.equal(sendBlockedReason(idle), null, 'a live host takes the message');
    const lost = markHostLost(idle);
    assert.deepEqual(decideSend('fix the build', sendBlockedReason(lost)), { kind: 'refuse', reason: HOST_LOST_MESSAGE });
    const dismissed = dismissError(lost);
    assert.equal(dismissed.error, null);
    assert.deepEqual(decideSend('fix the build', sendBlockedReason(dismissed)), { kind: 'refuse', reason: HOST_LOST_MESSAGE });
  });
});
