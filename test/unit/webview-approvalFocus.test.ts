/**
 * Shift+Tab from the message box while an approval waits (webview/approvalFocus.ts, on happy-dom):
 * the focus goes to the newest waiting card's last decision button, the chat brought to its end first
 * when the card is not drawn; with no approval waiting, nothing is done (the browser moves the focus).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useHappyDom } from './happyDom';

const window = useHappyDom();

const card = (id: string, state: string) =>
  `<section class="turn"><div class="boundary-card" data-request-id="${id}" data-state="${state}">`
  + ['allow_once', 'allow_session', 'deny'].map((d) => `<button data-decision="${d}" data-request-id="${id}">${d}</button>`).join('') + '</div></section>';

describe('Shift+Tab from the message box while an approval waits', () => {
  test('focuses the newest waiting card\'s Deny, not a decided card\'s, nor a queued message\'s buttons', async () => {
    const { focusWaitingCard } = await import('../../webview/approvalFocus');
    const content = window.document.createElement('div');
    content.innerHTML = card('old', 'decided') + card('r1', 'actionable') + '<section class="turn"><button class="copy-code">Copy</button></section>';
    window.document.body.replaceChildren(content, Object.assign(window.document.createElement('button'), { textContent: 'queued' }));
    let toEnd = 0;
    const done = focusWaitingCard({ content: content as unknown as ParentNode, waiting: () => true, toEnd: () => toEnd++ });
    assert.equal(done, true);
    const focused = window.document.activeElement as unknown as HTMLElement;
    assert.equal(focused.dataset.requestId, 'r1');
    assert.equal(focused.dataset.decision, 'deny');
    assert.equal(toEnd, 0, 'the card was drawn: the chat stays where it is');
  });

  test('brings the chat to its end when the waiting card is not drawn (scrolled up, its turn virtualized away)', async () => {
    const { focusWaitingCard } = await import('../../webview/approvalFocus');
    const content = window.document.createElement('div');
    content.innerHTML = '<section class="turn"><button class="copy-code">Copy</button></section>';
    window.document.body.replaceChildren(content);
    const done = focusWaitingCard({ content: content as unknown as ParentNode, waiting: () => true, toEnd: () => content.insertAdjacentHTML('beforeend', card('r2', 'actionable')) });
    assert.equal(done, true);
    assert.equal((window.document.activeElement as unknown as HTMLElement).dataset.requestId, 'r2');
  });

  test('does nothing when no approval waits, or none is drawn even at the end', async () => {
    const { focusWaitingCard, isShiftTab } = await import('../../webview/approvalFocus');
    const content = window.document.createElement('div');
    content.innerHTML = card('r3', 'actionable');
    window.document.body.replaceChildren(content);
    assert.equal(focusWaitingCard({ content: content as unknown as ParentNode, waiting: () => false, toEnd: () => assert.fail('not brought to the end') }), false);
    content.innerHTML = '';
    assert.equal(focusWaitingCard({ content: content as unknown as ParentNode, waiting: () => true, toEnd: () => undefined }), false);
    assert.equal(isShiftTab(new window.KeyboardEvent('keydown', { key: 'Tab', shiftKey: true }) as unknown as KeyboardEvent), true);
    assert.equal(isShiftTab(new window.KeyboardEvent('keydown', { key: 'Tab' }) as unknown as KeyboardEvent), false);
    assert.equal(isShiftTab(new window.KeyboardEvent('keydown', { key: 'Tab', shiftKey: true, ctrlKey: true }) as unknown as KeyboardEvent), false);
  });
});
