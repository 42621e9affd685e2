/**
 * The chat view's read-only notice (a fenced chat, a read-only journal) carries a Check Journal
 * button next to the reason (happy-dom), and the host lets its message through and nothing more.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EMPTY_TRANSCRIPT } from '../../src/core/transcript';
import { decodeWebviewMessage } from '../../src/protocol/decode';
import { session, useHappyDom } from './happyDom';

const window = useHappyDom();

describe('the read-only notice', () => {
  test('shows the reason and a Check Journal button; hidden with both when the chat takes changes', async () => {
    const { buildSkeleton } = await import('../../webview/layout');
    const { ChatRenderer } = await import('../../webview/render');
    const { INITIAL_VIEW_STATE, IDLE_LIVE } = await import('../../webview/state');
    const sk = buildSkeleton(window.document.createElement('div') as unknown as HTMLElement);
    const renderer = new ChatRenderer(sk);
    const reason = 'This chat holds part of a reply that could not be read (it is damaged), so it is left out and the chat cannot be changed. Other chats are not affected.';
    renderer.render({ ...INITIAL_VIEW_STATE, mode: 'chat', session, transcript: EMPTY_TRANSCRIPT, live: { ...IDLE_LIVE, readOnlyReason: reason } });
    assert.equal(sk.readonlyBar.hasAttribute('hidden'), false);
    assert.equal(sk.readonlyMessage.textContent, `Read-only: ${reason}`);
    const shown = () => [...sk.readonlyBar.querySelectorAll('[data-action]')].filter((b) => !b.hasAttribute('hidden')).map((b) => [b.getAttribute('data-action'), b.textContent]);
    assert.deepEqual(shown(), [['check-journal', 'Check Journal']]);
    renderer.render({ ...INITIAL_VIEW_STATE, mode: 'chat', session, transcript: EMPTY_TRANSCRIPT, live: IDLE_LIVE });
    assert.equal(sk.readonlyBar.hasAttribute('hidden'), true);
    assert.equal(sk.readonlyMessage.textContent, '');
  });

  test('a chat fenced by a damaged record names the record and offers Repair Journal…; one a newer version wrote offers no repair', async () => {
    const { buildSkeleton } = await import('../../webview/layout');
    const { ChatRenderer } = await import('../../webview/render');
    const { INITIAL_VIEW_STATE, IDLE_LIVE } = await import('../../webview/state');
    const sk = buildSkeleton(window.document.createElement('div') as unknown as HTMLElement);
    const renderer = new ChatRenderer(sk);
    const reason = 'This chat holds part of a reply that could not be read (it is damaged), so it is left out and the chat cannot be changed. Other chats are not affected.';
    const shown = () => [...sk.readonlyBar.querySelectorAll('[data-action]')].filter((b) => !b.hasAttribute('hidden')).map((b) => b.getAttribute('data-action'));
    renderer.render({ ...INITIAL_VIEW_STATE, mode: 'chat', session, transcript: EMPTY_TRANSCRIPT, live: { ...IDLE_LIVE, readOnlyReason: reason, fencedBy: { table: 'events', row: 'r1#2', damaged: true } } });
    assert.equal(sk.readonlyMessage.textContent, `Read-only: ${reason} The record: table events, row r1#2.`);
    assert.deepEqual(shown(), ['check-journal', 'repair-journal']);
    renderer.render({ ...INITIAL_VIEW_STATE, mode: 'chat', session, transcript: EMPTY_TRANSCRIPT, live: { ...IDLE_LIVE, readOnlyReason: 'newer', fencedBy: { table: 'turns', row: 't1', damaged: false } } });
    assert.equal(sk.readonlyMessage.textContent, 'Read-only: newer The record: table turns, row t1.');
    assert.deepEqual(shown(), ['check-journal']);
    renderer.render({ ...INITIAL_VIEW_STATE, mode: 'chat', session, transcript: EMPTY_TRANSCRIPT, live: IDLE_LIVE });
    assert.equal(sk.readonlyBar.hasAttribute('hidden'), true);
  });

  test('the Repair Journal… message is decoded exactly as sent, with no extra field', () => {
    assert.deepEqual(decodeWebviewMessage({ type: 'repairJournal' }), { ok: true, value: { type: 'repairJournal' } });
    assert.equal(decodeWebviewMessage({ type: 'repairJournal', sessionId: 's1' }).ok, false);
  });

  test('its message is decoded by the host exactly as sent, with no extra field', () => {
    assert.deepEqual(decodeWebviewMessage({ type: 'checkJournal' }), { ok: true, value: { type: 'checkJournal' } });
    assert.equal(decodeWebviewMessage({ type: 'checkJournal', file: '/etc/passwd' }).ok, false);
  });
});
