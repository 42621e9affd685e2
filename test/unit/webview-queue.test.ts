/**
 * The queue as the user sees and uses it, on a DOM in plain Node (happy-dom): the queued messages
 * under the transcript with their states and buttons (webview/render/queue.ts), what the buttons
 * post, the view's outbox that keeps a posted message until the host answers it (webview/outbox.ts,
 * panelMemory.ts), the queue in the view's state and what the announcer says of it, a turn sent from
 * the queue, and the Send again banner of a message whose delivery is unknown.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { QueuedPromptView } from '../../src/core/outbox';
import type { TranscriptTurn } from '../../src/core/transcript';
import type { LiveState, WebviewMessage, WebviewPersistedState } from '../../src/protocol/messages';
import { MAX_PROMPT_CHARS } from '../../src/protocol/messages';
import { session, useHappyDom } from './happyDom';

const window = useHappyDom();

const idle: LiveState = { running: false, actionableRequestIds: [], readOnlyReason: null };
const running: LiveState = { ...idle, running: true };
const queued = (clientId: string, text: string, over: Partial<QueuedPromptView> = {}): QueuedPromptView =>
  ({ clientId, text, hold: null, sendNow: false, createdAt: 10, ...over });

/** A queue view in a connected box, and what its buttons posted. */
async function queueView() {
  const { QueueView } = await import('../../webview/render/queue');
  const box = window.document.body.appendChild(window.document.createElement('section')) as unknown as HTMLElement;
  const posted: WebviewMessage[] = [];
  const view = new QueueView(box, (m) => posted.push(m));
  const item = (id: string) => box.querySelector<HTMLElement>(`[data-client-id="${id}"]`)!;
  const buttons = (id: string) => [...item(id).querySelectorAll<HTMLElement>('.queued-actions [data-queue-action]')]
    .map((b) => `${b.dataset.queueAction}:${b.textContent}${b.hasAttribute('disabled') ? ' (disabled)' : ''}`);
  const click = (id: string, action: string) => item(id).querySelector<HTMLElement>(`[data-queue-action="${action}"]`)!.click();
  const key = (id: string, k: string, shiftKey = false) => item(id).querySelector('.queued-editor')!
    .dispatchEvent(new window.KeyboardEvent('keydown', { key: k, shiftKey, bubbles: true, cancelable: true }) as unknown as Event);
  const type = (id: string, text: string) => {
    const area = item(id).querySelector('.queued-editor') as unknown as { value: string; dispatchEvent(e: unknown): boolean };
    area.value = text;
    area.dispatchEvent(new window.Event('input', { bubbles: true }));
  };
  return { view, box, posted, item, buttons, click, key, type };
}

describe('the queue under the transcript', () => {
  test('shows each message with its state and the buttons that state offers', async () => {
    const { view, box, item, buttons } = await queueView();
    view.render([], { running: true, locked: false });
    assert.equal(box.hasAttribute('hidden'), true, 'no queue, no box');

    view.render([
      queued('a', 'first question'),
      queued('b', 'second', { hold: 'stopped' }),
      queued('c', 'third', { sendNow: true }),
    ], { running: true, locked: false });
    assert.equal(box.hasAttribute('hidden'), false);
    assert.deepEqual([...box.querySelectorAll<HTMLElement>('.queued-prompt')].map((el) => el.dataset.clientId), ['a', 'b', 'c'], 'in the order given');
    assert.equal(item('a').querySelector('.queued-state')!.textContent, 'Queued');
    assert.equal(item('a').querySelector('.queued-text')!.textContent, 'first question');
    assert.deepEqual(buttons('a'), ['edit:Edit', 'discard:Remove', 'send:Send now']);
    assert.equal(item('b').querySelector('.queued-state')!.textContent, 'Not sent: the reply was stopped');
    // (The host's Send of any queued message while a reply runs stops that reply: the button says so.)
    assert.deepEqual(buttons('b'), ['edit:Edit', 'discard:Discard', 'send:Send now'], 'a held message is sent or discarded; while a reply runs, sending it stops the reply');
    assert.equal(item('b').querySelector('[data-queue-action="send"]')!.getAttribute('aria-label'), 'Stop the reply and send now: second');
    assert.equal(item('c').querySelector('.queued-state')!.textContent, 'Goes next');
    assert.deepEqual(buttons('c'), ['edit:Edit', 'discard:Remove'], 'already going next: no Send now');

    view.render([queued('a', 'first question'), queued('r', 'after reload', { hold: 'restarted' })], { running: false, locked: false });
    assert.deepEqual(buttons('a'), ['edit:Edit', 'discard:Remove', 'send:Send'], 'idle: Send, not Send now');
    assert.equal(item('r').querySelector('.queued-state')!.textContent, 'Not sent: the window reloaded or restarted');
    assert.equal(box.querySelector('[data-client-id="b"]'), null, 'a message gone from the queue is gone from the view');

    view.render([queued('a', 'first question')], { running: false, locked: true });
    assert.deepEqual(buttons('a'), ['edit:Edit (disabled)', 'discard:Remove (disabled)', 'send:Send (disabled)'], 'a read-only chat changes nothing');
  });

  test('names the message in every button for a screen reader, and labels the list', async () => {
    const { view, box, item } = await queueView();
    view.render([queued('a', 'deploy the\nstaging build')], { running: true, locked: false });
    const labels = [...item('a').querySelectorAll('[data-queue-action]')].map((b) => b.getAttribute('aria-label'));
    assert.deepEqual(labels, [
      'Edit the queued message: deploy the staging build',
      'Remove the queued message: deploy the staging build',
      'Stop the reply and send now: deploy the staging build',
    ]);
    assert.equal(box.getAttribute('aria-labelledby'), 'queue-title');
    assert.equal(box.querySelector('#queue-title')!.textContent, 'Queued messages');
  });

  test('Edit opens an editor with the text; Enter saves it as editQueued with the new text', async () => {
    const { view, posted, item, buttons, click, key, type } = await queueView();
    const queue = [queued('a', 'fix the test')];
    view.render(queue, { running: true, locked: false });
    click('a', 'edit');
    const area = item('a').querySelector('.queued-editor') as unknown as { value: string };
    assert.equal(area.value, 'fix the test');
    assert.equal(window.document.activeElement, area, 'the editor takes the focus');
    type('a', 'fix the flaky test');
    key('a', 'Enter', true);
    assert.deepEqual(posted, [], 'Shift+Enter is a new line, not Save');
    // A streamed reply re-renders the view meanwhile: the editor and its text stay.
    view.render([...queue], { running: true, locked: false });
    assert.equal((item('a').querySelector('.queued-editor') as unknown as { value: string }).value, 'fix the flaky test');
    key('a', 'Enter');
    assert.deepEqual(posted, [{ type: 'editQueued', clientId: 'a', text: 'fix the flaky test' }]);
    assert.equal(item('a').querySelector('.queued-editor'), null, 'the editor closed');
    assert.deepEqual(buttons('a'), ['edit:Edit (disabled)', 'discard:Remove (disabled)', 'send:Send now (disabled)'], 'until the host answers');
    view.answered('a');
    assert.deepEqual(buttons('a'), ['edit:Edit', 'discard:Remove', 'send:Send now']);
  });

  test('an editor open when the chat becomes read-only (or the host is lost) keeps its text; Enter saves nothing until it is writable again', async () => {
    const { view, posted, item, key, type, click } = await queueView();
    view.render([queued('a', 'one')], { running: true, locked: false });
    click('a', 'edit');
    type('a', 'one, changed');
    view.render([queued('a', 'one')], { running: true, locked: true });
    assert.equal(item('a').querySelector('[data-queue-action="save"]')!.hasAttribute('disabled'), true);
    key('a', 'Enter');
    assert.deepEqual(posted, [], 'Enter does not do what the disabled Save does not');
    assert.equal((item('a').querySelector('.queued-editor') as unknown as { value: string }).value, 'one, changed', 'the editor stays open with the text');
    view.render([queued('a', 'one')], { running: true, locked: false });
    key('a', 'Enter');
    assert.deepEqual(posted, [{ type: 'editQueued', clientId: 'a', text: 'one, changed' }]);
  });

  test('Escape and Cancel leave the editor without posting; Save posts only a change', async () => {
    const { view, posted, item, click, key, type } = await queueView();
    view.render([queued('a', 'fix the test')], { running: true, locked: false });
    click('a', 'edit');
    type('a', 'something else');
    key('a', 'Escape');
    assert.equal(item('a').querySelector('.queued-editor'), null);
    assert.equal(item('a').querySelector('.queued-text')!.textContent, 'fix the test');
    assert.equal(window.document.activeElement, item('a').querySelector('[data-queue-action="edit"]'), 'the focus goes back to Edit');
    click('a', 'edit');
    assert.equal((item('a').querySelector('.queued-editor') as unknown as { value: string }).value, 'fix the test', 'a cancelled edit is not kept');
    type('a', 'other');
    click('a', 'cancel');
    click('a', 'edit');
    click('a', 'save');
    assert.deepEqual(posted, [], 'nothing changed, nothing posted');
    click('a', 'edit');
    type('a', '   ');
    click('a', 'save');
    assert.ok(item('a').querySelector('.queued-editor'), 'an empty text is not saved (Remove removes)');
    type('a', 'x'.repeat(MAX_PROMPT_CHARS + 1));
    key('a', 'Enter');
    assert.match(item('a').querySelector('.queued-problem')!.textContent ?? '', /^The message is too long/);
    assert.deepEqual(posted, []);
  });

  test('Remove, Discard and Send post the action once and wait for the answer', async () => {
    const { view, posted, buttons, click } = await queueView();
    view.render([queued('a', 'one'), queued('b', 'two', { hold: 'failed' })], { running: true, locked: false });
    click('a', 'send');
    click('a', 'send');
    click('b', 'discard');
    assert.deepEqual(posted, [{ type: 'sendQueued', clientId: 'a' }, { type: 'discardQueued', clientId: 'b' }]);
    assert.deepEqual(buttons('a'), ['edit:Edit (disabled)', 'discard:Remove (disabled)', 'send:Send now (disabled)']);
    view.answered('a');
    assert.deepEqual(buttons('a'), ['edit:Edit', 'discard:Remove', 'send:Send now'], 'a refusal leaves it usable');
  });

  test('a long message is clipped, with Show all and Show less', async () => {
    const { view, item, click } = await queueView();
    view.render([queued('a', 'short'), queued('b', 'word '.repeat(100)), queued('c', '1\n2\n3\n4\n5')], { running: true, locked: false });
    assert.equal(item('a').querySelector('[data-queue-action="expand"]'), null);
    assert.equal(item('b').querySelector('.queued-text')!.className, 'queued-text clipped');
    assert.equal(item('c').querySelector('.queued-text')!.className, 'queued-text clipped', 'more than four lines');
    const more = item('b').querySelector('[data-queue-action="expand"]')!;
    assert.equal(more.textContent, 'Show all');
    assert.equal(more.getAttribute('aria-expanded'), 'false');
    click('b', 'expand');
    assert.equal(item('b').querySelector('.queued-text')!.className, 'queued-text');
    assert.equal(item('b').querySelector('[data-queue-action="expand"]')!.getAttribute('aria-expanded'), 'true');
    assert.equal(item('b').querySelector('[data-queue-action="expand"]')!.textContent, 'Show less');
  });

  test('a message that did not change keeps its element (and the focus on its button)', async () => {
    const { view, item } = await queueView();
    view.render([queued('a', 'one'), queued('b', 'two')], { running: true, locked: false });
    const a = item('a');
    const send = a.querySelector<HTMLElement>('[data-queue-action="send"]')!;
    send.focus();
    view.render([queued('a', 'one'), queued('b', 'two edited')], { running: true, locked: false });
    assert.equal(item('a'), a, 'the same element');
    assert.equal(window.document.activeElement, send);
    view.render([queued('a', 'one', { hold: 'stopped' }), queued('b', 'two edited')], { running: false, locked: false });
    assert.notEqual(item('a'), a, 'drawn anew: its state changed');
    assert.equal(window.document.activeElement, item('a').querySelector('[data-queue-action="send"]'), 'the focus moved to the same button');
    // The focused message is removed: the focus goes to the one that took its place.
    item('a').querySelector<HTMLElement>('[data-queue-action="discard"]')!.focus();
    view.render([queued('b', 'two edited')], { running: false, locked: false });
    assert.equal(window.document.activeElement, item('b').querySelector('[data-queue-action="edit"]'));
  });

  test('when the focused message leaves an empty queue, the focus goes where the caller says', async () => {
    const { QueueView } = await import('../../webview/render/queue');
    const box = window.document.body.appendChild(window.document.createElement('section')) as unknown as HTMLElement;
    let lost = 0;
    const view = new QueueView(box, () => undefined, () => lost++);
    view.render([queued('a', 'one')], { running: true, locked: false });
    view.render([queued('a', 'one')], { running: false, locked: false });
    assert.equal(lost, 0, 'nothing was focused');
    box.querySelector<HTMLElement>('[data-queue-action="send"]')!.focus();
    view.render([], { running: false, locked: false });
    assert.equal(lost, 1);
  });

  test('an edit still open when its message leaves the queue (sent as it was, or discarded elsewhere) gives its typed text back', async () => {
    const { QueueView } = await import('../../webview/render/queue');
    const box = window.document.body.appendChild(window.document.createElement('section')) as unknown as HTMLElement;
    const back: string[] = [];
    const view = new QueueView(box, () => undefined, () => undefined, (text) => back.push(text));
    const item = (id: string) => box.querySelector<HTMLElement>(`[data-client-id="${id}"]`)!;
    view.render([queued('a', 'one'), queued('b', 'two')], { running: true, locked: false });
    item('a').querySelector<HTMLElement>('[data-queue-action="edit"]')!.click();
    const area = item('a').querySelector('.queued-editor') as unknown as { value: string; dispatchEvent(e: unknown): boolean };
    area.value = 'one, half rewritten';
    area.dispatchEvent(new window.Event('input', { bubbles: true }));
    item('b').querySelector<HTMLElement>('[data-queue-action="edit"]')!.click(); // opened, nothing typed
    view.render([], { running: true, locked: false }); // the reply ended: both went out as they were
    assert.deepEqual(back, ['one, half rewritten'], 'only a changed text is given back, once');
    view.render([], { running: false, locked: false });
    assert.deepEqual(back, ['one, half rewritten']);
  });
});

describe('the view keeps what it posted until the host answers', () => {
  /** A persisted state like VS Code's: it outlives the view. */
  function vscodeState() {
    let kept: WebviewPersistedState | undefined;
    return { restore: () => kept, persist: (s: WebviewPersistedState) => void (kept = JSON.parse(JSON.stringify(s)) as WebviewPersistedState) };
  }

  test('a message posted gets a fresh id; a rebuilt view posts it again with the SAME id; an answer forgets it', async () => {
    const { PanelMemory } = await import('../../webview/panelMemory');
    const { ViewOutbox } = await import('../../webview/outbox');
    const store = vscodeState();
    const posted: WebviewMessage[] = [];
    const memory = new PanelMemory(store);
    memory.saveDraft('half typed');
    const outbox = new ViewOutbox(memory, (m) => posted.push(m));
    const first = outbox.send('run the tests');
    const second = outbox.send('then lint');
    assert.match(first, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.notEqual(first, second);
    assert.deepEqual(posted, [{ type: 'send', clientId: first, text: 'run the tests' }, { type: 'send', clientId: second, text: 'then lint' }]);
    assert.deepEqual(store.restore()?.unacknowledged, [{ clientId: first, text: 'run the tests' }, { clientId: second, text: 'then lint' }]);

    assert.deepEqual(outbox.answered(first), { text: 'run the tests', attachments: [] });
    assert.equal(outbox.answered(first), undefined, 'a second answer finds nothing');

    // The tab was hidden (its view destroyed) before the host answered the second: a new view from the same state.
    const rebuilt: WebviewMessage[] = [];
    const memory2 = new PanelMemory(store);
    new ViewOutbox(memory2, (m) => rebuilt.push(m)).resend();
    assert.deepEqual(rebuilt, [{ type: 'send', clientId: second, text: 'then lint' }]);
    assert.equal(memory2.draft, 'half typed', 'the draft is kept beside it');

    new ViewOutbox(memory2, () => undefined).answered(second);
    assert.equal(store.restore()?.unacknowledged, undefined, 'nothing kept once all are answered');
    const after: WebviewMessage[] = [];
    new ViewOutbox(new PanelMemory(store), (m) => after.push(m)).resend();
    assert.deepEqual(after, []);
  });

  test('a damaged kept list is read as far as it holds messages', async () => {
    const { PanelMemory } = await import('../../webview/panelMemory');
    const memory = new PanelMemory({ restore: () => ({ unacknowledged: [{ clientId: 'a', text: 'x' }, { clientId: 3 }, null, 'b'] }) as never, persist: () => undefined });
    assert.deepEqual(memory.unacknowledged, [{ clientId: 'a', text: 'x' }]);
    assert.deepEqual(new PanelMemory({ restore: () => ({ unacknowledged: 'x' }) as never, persist: () => undefined }).unacknowledged, []);
  });

  test('ids are version 4 UUIDs from the random bytes given', async () => {
    const { newClientId } = await import('../../webview/outbox');
    assert.equal(newClientId((b) => b.fill(0xff)), 'ffffffff-ffff-4fff-bfff-ffffffffffff');
    assert.equal(newClientId((b) => b.fill(0)), '00000000-0000-4000-8000-000000000000');
  });
});

describe('the composer while the agent works', () => {
  test('stays usable, says that Enter queues, and a message is sent (not refused)', async () => {
    const { buildSkeleton } = await import('../../webview/layout');
    const { ChatRenderer } = await import('../../webview/render');
    const { INITIAL_VIEW_STATE } = await import('../../webview/state');
    const { decideSend } = await import('../../webview/input');
    const sk = buildSkeleton(window.document.createElement('div') as unknown as HTMLElement);
    new ChatRenderer(sk).render({ ...INITIAL_VIEW_STATE, mode: 'chat', session, live: running });
    assert.equal(sk.composer.hasAttribute('disabled'), false);
    assert.equal(sk.composer.getAttribute('placeholder'), 'Enter queues your message: it is sent when the agent is done (Shift+Enter: new line)');
    assert.deepEqual(decideSend('and then the docs', null), { kind: 'send', text: 'and then the docs' });
    assert.deepEqual(decideSend('and then the docs', 'Written by a newer version'), { kind: 'refuse', reason: 'Written by a newer version' });
  });

  test('a Queue button stands beside Stop while the agent works (for those who queue with the mouse), only then, and not in a read-only chat', async () => {
    const { buildSkeleton } = await import('../../webview/layout');
    const { ChatRenderer } = await import('../../webview/render');
    const { INITIAL_VIEW_STATE } = await import('../../webview/state');
    const sk = buildSkeleton(window.document.createElement('div') as unknown as HTMLElement);
    const renderer = new ChatRenderer(sk);
    const shown = () => [sk.send, sk.queueSend, sk.stop].map((b) => `${b.id}:${b.hasAttribute('hidden') ? 'hidden' : b.hasAttribute('disabled') ? 'disabled' : 'on'}`);
    renderer.render({ ...INITIAL_VIEW_STATE, mode: 'chat', session, live: running });
    assert.deepEqual(shown(), ['send:hidden', 'queue-send:on', 'stop:on']);
    assert.equal(sk.queueSend.getAttribute('aria-label'), 'Queue the message: it is sent when the agent is done');
    renderer.render({ ...INITIAL_VIEW_STATE, mode: 'chat', session, live: idle });
    assert.deepEqual(shown(), ['send:on', 'queue-send:hidden', 'stop:hidden']);
    renderer.render({ ...INITIAL_VIEW_STATE, mode: 'chat', session, live: { ...running, readOnlyReason: 'Written by a newer version' } });
    assert.deepEqual(shown(), ['send:hidden', 'queue-send:disabled', 'stop:on']);
  });

  test('the renderer draws the state\'s queue between the transcript and the composer; its buttons reach the host', async () => {
    const { buildSkeleton } = await import('../../webview/layout');
    const { ChatRenderer } = await import('../../webview/render');
    const { INITIAL_VIEW_STATE, reduceHostMessage } = await import('../../webview/state');
    const app = window.document.createElement('div') as unknown as HTMLElement;
    const sk = buildSkeleton(app);
    const posted: WebviewMessage[] = [];
    const renderer = new ChatRenderer(sk, undefined, { onQueueAction: (m) => posted.push(m) });
    let state = reduceHostMessage(INITIAL_VIEW_STATE, { type: 'snapshot', session, transcript: { turns: [] }, hasOlder: false, turnCount: 0, live: running, queue: [queued('a', 'one')] });
    renderer.render(state);
    const order = [...app.children];
    assert.ok(order.indexOf(sk.transcript) < order.indexOf(sk.queue) && order.indexOf(sk.queue) < order.indexOf(sk.composerBox));
    assert.equal(sk.queue.querySelectorAll('.queued-prompt').length, 1);
    sk.queue.querySelector<HTMLElement>('[data-queue-action="send"]')!.click();
    assert.deepEqual(posted, [{ type: 'sendQueued', clientId: 'a' }]);
    state = reduceHostMessage(state, { type: 'queue', prompts: [] });
    renderer.render(state);
    assert.equal(sk.queue.hasAttribute('hidden'), true);
    state = reduceHostMessage(state, { type: 'queue', prompts: [queued('b', 'two')] });
    assert.deepEqual(reduceHostMessage(state, { type: 'orphan' }).queue, []);
  });
});

describe('what is said and shown of the queue', () => {
  const turn = (id: string, createdAt: number, over: Partial<TranscriptTurn> = {}): TranscriptTurn =>
    ({ id, sessionId: 's1', prompt: 'p', origin: 'prompt', parentTurnId: null, status: 'completed', errorClass: null, seq: createdAt, createdAt, items: [], applied: {}, ...over });

  test('the announcer says a message was queued, held, and sent', async () => {
    const { announcementsFor } = await import('../../webview/announcer');
    const { INITIAL_VIEW_STATE, reduceHostMessage } = await import('../../webview/state');
    const base = reduceHostMessage(INITIAL_VIEW_STATE, { type: 'snapshot', session, transcript: { turns: [turn('t1', 1, { status: 'running' })] }, hasOlder: true, turnCount: 5, live: running, queue: [] });
    const one = reduceHostMessage(base, { type: 'queue', prompts: [queued('a', 'one')] });
    assert.deepEqual(announcementsFor(base, one), ['Message queued: it is sent when the agent is done.']);
    const two = reduceHostMessage(one, { type: 'queue', prompts: [queued('a', 'one', { hold: 'stopped' }), queued('b', 'two'), queued('c', 'three')] });
    assert.deepEqual(announcementsFor(one, two), ['2 messages queued.', 'A queued message waiting. Not sent: the reply was stopped.']);
    const sent = reduceHostMessage(one, { type: 'update', update: { type: 'turn', turn: { id: 't2', sessionId: 's1', prompt: 'one', origin: 'prompt', parentTurnId: null, status: 'running', errorClass: null, seq: 2, createdAt: 2, sentFrom: 'queue' } } });
    const left = reduceHostMessage(sent, { type: 'queue', prompts: [] });
    assert.deepEqual(announcementsFor(one, left), ['Queued message sent.']);
    // An older page brings turns sent from the queue long ago: not news.
    const older = reduceHostMessage(base, { type: 'page', before: { seq: 1, id: 't1' }, turns: [turn('t0', 0, { sentFrom: 'queue' })], hasOlder: false });
    assert.equal(older.transcript.turns.length, 2, 'precondition: the page was applied');
    assert.deepEqual(announcementsFor(base, older), []);
  });

  test('a turn sent from the queue says so; a composer turn says nothing', async () => {
    const { renderTurn } = await import('../../webview/render/turn');
    const ctx = { actionableIds: new Set<string>(), busyRequestIds: new Set<string>(), busyTurn: false, followedUp: false, running: false };
    assert.equal(renderTurn(turn('t1', 1, { sentFrom: 'queue' }), ctx).querySelector('.turn-origin')?.textContent, 'Sent from the queue');
    assert.equal(renderTurn(turn('t1', 1, { sentFrom: 'send_now' }), ctx).querySelector('.turn-origin')?.textContent, 'Sent from the queue at your request');
    assert.equal(renderTurn(turn('t1', 1, { sentFrom: 'composer' }), ctx).querySelector('.turn-origin'), null);
  });

  test('a message whose delivery is unknown offers Send again, which posts retry', async () => {
    const { renderTurn } = await import('../../webview/render/turn');
    const ctx = { actionableIds: new Set<string>(), busyRequestIds: new Set<string>(), busyTurn: false, followedUp: false, running: false };
    const el = renderTurn(turn('t1', 1, { status: 'failed', errorClass: 'prompt_delivery_unknown' }), ctx);
    const button = el.querySelector<HTMLElement>('.banner [data-action]')!;
    assert.equal(button.textContent, 'Send again');
    assert.equal(button.dataset.action, 'retry', 'clickActions.ts posts {type: retry, turnId} for it');
    assert.equal(button.dataset.turnId, 't1');
    assert.equal(el.querySelector('.banner-title')!.textContent, 'Your message may not have reached the agent');
  });
});
