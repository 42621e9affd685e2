/**
 * The chat view's renderer (webview/render.ts) on a DOM in plain Node (happy-dom): what a chat tab
 * shows before and after the host sends its chat.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Window } from 'happy-dom';
import type { SessionRecord } from '../../src/core/events';
import { EMPTY_TRANSCRIPT } from '../../src/core/transcript';

const window = new Window();
const globals = globalThis as unknown as Record<string, unknown>;

before(() => {
  globals.document = window.document;
  globals.Node = window.Node;
  globals.HTMLElement = window.HTMLElement;
});
after(async () => {
  delete globals.document;
  delete globals.Node;
  delete globals.HTMLElement;
  await window.happyDOM.close();
});

const session: SessionRecord = { id: 's1', title: 'A chat', provider: 'local', createdAt: 1, updatedAt: 1 };

describe('chat view renderer', () => {
  test('says it is loading until the host sends the chat, then shows the chat', async () => {
    // After a window reload a fresh user saw 2-5 s of an empty tab while the extension opened the journal.
    const { buildSkeleton } = await import('../../webview/layout');
    const { ChatRenderer } = await import('../../webview/render');
    const { INITIAL_VIEW_STATE, IDLE_LIVE } = await import('../../webview/state');
    const app = window.document.createElement('div') as unknown as HTMLElement;
    const sk = buildSkeleton(app);
    const renderer = new ChatRenderer(sk);

    renderer.render(INITIAL_VIEW_STATE);
    const loading = sk.content.querySelector('.loading[role="status"]');
    assert.ok(loading, 'a loading status is shown');
    assert.equal(loading.textContent, 'Loading the chat…');
    assert.equal(sk.content.childNodes.length, 1);

    renderer.render({ ...INITIAL_VIEW_STATE, mode: 'chat', session, transcript: EMPTY_TRANSCRIPT, live: IDLE_LIVE });
    assert.equal(sk.content.querySelector('.loading'), null, 'the loading status is gone once the chat is there');
    assert.ok(sk.content.querySelector('.welcome'), 'an empty chat shows its welcome');
  });
});
