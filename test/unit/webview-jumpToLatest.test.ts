/**
 * The jump-to-latest button (webview/layout.ts, webview/scroll.ts), on a DOM in plain Node
 * (happy-dom): hidden while the view follows the bottom, shown once the user scrolls up to read,
 * and a click goes back to the newest message and hides it again.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useHappyDom } from './happyDom';

const window = useHappyDom();

describe('jump to the latest message', () => {
  test('shows while the user reads above the bottom; a click scrolls to the bottom and hides it', async () => {
    const { buildSkeleton, setFlag } = await import('../../webview/layout');
    const { ScrollPin } = await import('../../webview/scroll');
    const sk = buildSkeleton(window.document.body.appendChild(window.document.createElement('div')) as unknown as HTMLElement);
    // happy-dom lays nothing out: give the scroller a 1,000 px transcript in a 300 px box.
    Object.defineProperty(sk.transcript, 'scrollHeight', { configurable: true, get: () => 1000 });
    Object.defineProperty(sk.transcript, 'clientHeight', { configurable: true, get: () => 300 });
    const changes: boolean[] = [];
    const scroll = new ScrollPin(sk.transcript, sk.content, (pinned) => {
      changes.push(pinned);
      setFlag(sk.jumpToLatest, 'hidden', pinned);
    });
    sk.jumpToLatest.addEventListener('click', () => scroll.pin());
    const scrollTo = (top: number) => {
      sk.transcript.scrollTop = top;
      sk.transcript.dispatchEvent(new window.Event('scroll') as unknown as Event);
    };
    assert.equal(sk.jumpToLatest.hidden, true, 'hidden at first: the view follows the bottom');
    assert.equal(sk.jumpToLatest.textContent, 'Latest ↓');
    assert.equal(sk.jumpToLatest.getAttribute('title'), 'Jump to the latest message');
    scrollTo(700);
    assert.equal(sk.jumpToLatest.hidden, true, 'still at the bottom (1000 - 700 - 300 = 0)');
    scrollTo(200);
    assert.equal(sk.jumpToLatest.hidden, false, 'shown once the user scrolled up');
    assert.equal(scroll.atBottom, false);
    scrollTo(250);
    assert.deepEqual(changes, [false], 'told once per change, not per scroll event');
    sk.jumpToLatest.click();
    assert.equal(sk.transcript.scrollTop, 1000, 'scrolled to the bottom');
    assert.equal(scroll.atBottom, true);
    assert.equal(sk.jumpToLatest.hidden, true);
    assert.deepEqual(changes, [false, true]);
    assert.equal(sk.jumpToLatest.parentElement?.className, 'jump-latest-dock', 'in the zero-height dock inside the scroller');
    assert.equal(sk.jumpToLatest.parentElement?.parentElement, sk.transcript);
  });
});
