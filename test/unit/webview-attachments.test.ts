/**
 * Attachments in the view, on a DOM in plain Node (happy-dom): the `@` at the caret and what picking
 * an item does to the text (webview/attachments.ts), the composer's chips, `@` list and drops
 * (webview/composerAttachments.ts: what it posts, the keys it takes, the accessible names), a
 * turn's attachments in the transcript with the cut note (render/attachmentViews.ts), and the
 * view's strict check letting a turn with attachments through (checkHostMessage.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AttachmentRef, AttachmentView } from '../../src/core/attachments';
import { MAX_ATTACHMENTS } from '../../src/core/attachments';
import { hostMessageProblem } from '../../src/protocol/checkHostMessage';
import type { CompletionItem, WebviewMessage } from '../../src/protocol/messages';
import { addAttachments, droppedUris, mentionAt, withoutMention } from '../../webview/attachments';
import { useHappyDom } from './happyDom';

const window = useHappyDom();

const file = (path: string): AttachmentRef => ({ kind: 'file', path });
const item = (path: string, matches: number[] = []): CompletionItem => ({ ref: file(path), label: path.split('/').pop()!, detail: path.split('/').slice(0, -1).join('/'), matches });

describe('the @ at the caret (pure)', () => {
  test('is found at the start or after a blank, not inside a word or an e-mail address', () => {
    assert.deepEqual(mentionAt('@', 1), { start: 0, query: '' });
    assert.deepEqual(mentionAt('look at @src/ut', 15), { start: 8, query: 'src/ut' });
    assert.deepEqual(mentionAt('look at @src/ut and more', 15), { start: 8, query: 'src/ut' });
    assert.equal(mentionAt('mail me@example.com', 19), undefined);
    assert.equal(mentionAt('@src done', 9), undefined, 'the caret is past a blank');
  });

  test('picking an item takes the @query out of the text and puts the caret there', () => {
    assert.deepEqual(withoutMention('explain @ut please', { start: 8, query: 'ut' }), { text: 'explain  please', caret: 8 });
  });

  test('a chip is added once, at most MAX_ATTACHMENTS', () => {
    const many = Array.from({ length: MAX_ATTACHMENTS + 2 }, (_, i) => file(`f${i}`));
    const { list, refused } = addAttachments([file('f0')], many);
    assert.equal(list.length, MAX_ATTACHMENTS);
    assert.equal(refused, 2);
    assert.deepEqual(addAttachments([file('a')], [file('a'), { kind: 'file', path: 'a', range: { startLine: 1, endLine: 2 } }]).list.length, 2);
  });

  test('dropped URIs come from VS Code\'s uri-list first, comments and blanks left out', () => {
    assert.deepEqual(droppedUris('file:///w/a.ts\r\n# comment\n\nfile:///w/src', 'file:///other'), ['file:///w/a.ts', 'file:///w/src']);
    assert.deepEqual(droppedUris('', 'file:///w/b.ts'), ['file:///w/b.ts']);
  });
});

/** A composer with the controller, and what it posted, announced and kept. */
async function composer(kept: AttachmentRef[] = []) {
  const globals = globalThis as unknown as Record<string, unknown>;
  globals.Event = window.Event;
  const { ComposerAttachments } = await import('../../webview/composerAttachments');
  const doc = window.document;
  const app = doc.body.appendChild(doc.createElement('div')) as unknown as HTMLElement;
  const box = app.appendChild(doc.createElement('footer') as unknown as HTMLElement);
  const area = box.appendChild(doc.createElement('textarea') as unknown as HTMLElement) as HTMLElement & { value: string };
  const posted: WebviewMessage[] = [];
  const said: string[] = [];
  const errors: string[] = [];
  let saved: readonly AttachmentRef[] = kept;
  const sent: string[] = [];
  const c = new ComposerAttachments({
    composerBox: box, composer: area, dropZone: app, post: (m) => posted.push(m), announce: (t) => said.push(t), showError: (t) => errors.push(t),
    kept, keep: (refs) => (saved = refs),
  });
  // The composer's own send key, wired after the controller as in composer.ts.
  area.addEventListener('keydown', (e) => {
    if ((e as KeyboardEvent).key === 'Enter') sent.push(area.value);
  });
  const type = (text: string) => {
    area.value = text;
    area.dispatchEvent(new window.Event('input') as unknown as Event);
  };
  const key = (k: string) => area.dispatchEvent(new window.KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }) as unknown as Event);
  const options = () => [...box.querySelectorAll<HTMLElement>('[role=option]')].map((o) => `${o.textContent}${o.getAttribute('aria-selected') === 'true' ? ' *' : ''}`);
  const chips = () => [...box.querySelectorAll<HTMLElement>('.chip')].map((ch) => ch.querySelector('button')!.getAttribute('aria-label'));
  return { c, area, box, app, posted, said, errors, saved: () => saved, sent, type, key, options, chips };
}

describe('the composer\'s attachments', () => {
  test('typing @ asks the host; its answer is a listbox; arrows move, Enter attaches without sending, the @query leaves the text', async () => {
    const v = await composer();
    v.type('explain @ut');
    assert.deepEqual(v.posted, [{ type: 'complete', requestId: 1, query: 'ut' }]);
    v.c.receive({ type: 'completions', requestId: 1, items: [item('src/util.ts', [0, 1]), item('test/util.test.ts')] });
    assert.equal(v.box.querySelector('#mention-list')?.getAttribute('role'), 'listbox');
    assert.deepEqual(v.options(), ['util.tssrc *', 'util.test.tstest']);
    assert.equal(v.box.querySelector('[role=option] mark')?.textContent, 'ut', 'the matched characters are marked');
    v.key('ArrowDown');
    assert.deepEqual(v.options(), ['util.tssrc', 'util.test.tstest *']);
    assert.match(v.said.at(-1)!, /util\.test\.ts, test \(2 of 2\)/);
    v.key('Enter');
    assert.deepEqual(v.sent, [], 'Enter attached the item; it did not send');
    assert.equal(v.area.value, 'explain ');
    assert.deepEqual(v.chips(), ['Remove File test/util.test.ts']);
    assert.deepEqual(v.saved(), [file('test/util.test.ts')], 'kept in the tab\'s state');
    assert.equal(v.box.querySelector<HTMLElement>('#mention-list')!.hidden, true);
  });

  test('a stale answer is ignored; Escape closes the list and Enter then sends', async () => {
    const v = await composer();
    v.type('@a');
    v.type('@ab');
    v.c.receive({ type: 'completions', requestId: 1, items: [item('a.ts')] });
    assert.deepEqual(v.options(), ['Searching…'], 'the answer to @a came after @ab was asked');
    v.c.receive({ type: 'completions', requestId: 2, items: [item('ab.ts')] });
    assert.deepEqual(v.options(), ['ab.ts *']);
    v.key('Escape');
    assert.equal(v.box.querySelector<HTMLElement>('#mention-list')!.hidden, true);
    v.key('Enter');
    assert.deepEqual(v.sent, ['@ab']);
  });

  test('chips: kept ones come back, a remove button removes its chip, Backspace in an empty composer the last, take() empties', async () => {
    const v = await composer([file('a.ts'), { kind: 'selection', path: 'b.ts', range: { startLine: 3, endLine: 5 } }]);
    assert.deepEqual(v.chips(), ['Remove File a.ts', 'Remove Selection b.ts:3-5']);
    v.box.querySelector<HTMLElement>('[data-chip-index="0"]')!.click();
    assert.deepEqual(v.chips(), ['Remove Selection b.ts:3-5']);
    assert.equal(v.said.at(-1), 'Removed File a.ts.');
    v.key('Backspace');
    assert.deepEqual(v.chips(), []);
    v.c.add([file('c.ts')]);
    assert.deepEqual(v.c.take(), [file('c.ts')]);
    assert.deepEqual(v.chips(), []);
    assert.deepEqual(v.saved(), []);
  });

  test('the host\'s attach message adds chips; too many are refused with a sentence', async () => {
    const v = await composer();
    v.c.receive({ type: 'attach', attachments: [file('x.ts')] });
    assert.deepEqual(v.chips(), ['Remove File x.ts']);
    v.c.receive({ type: 'attach', attachments: Array.from({ length: MAX_ATTACHMENTS }, (_, i) => file(`m${i}`)) });
    assert.equal(v.chips().length, MAX_ATTACHMENTS);
    assert.match(v.errors.at(-1)!, /at most 20 attachments: 1 more were not added/);
  });

  test('a drop of files from VS Code posts their URIs; a drop without any says what can be dropped', async () => {
    const v = await composer();
    const drop = (data: Record<string, string>, types: string[]) => {
      const event = new window.Event('drop', { cancelable: true }) as unknown as DragEvent & { dataTransfer: unknown };
      Object.defineProperty(event, 'dataTransfer', { value: { types, getData: (t: string) => data[t] ?? '' } });
      v.app.dispatchEvent(event);
      return event.defaultPrevented;
    };
    assert.ok(drop({ 'application/vnd.code.uri-list': 'file:///w/src/a.ts\nfile:///w/src' }, ['application/vnd.code.uri-list']));
    assert.deepEqual(v.posted, [{ type: 'attachUris', uris: ['file:///w/src/a.ts', 'file:///w/src'] }]);
    drop({}, ['Files']);
    assert.match(v.errors.at(-1)!, /Only files and folders from VS Code's Explorer or editor tabs/);
  });
});

describe('a message with attachments in the view\'s outbox', () => {
  test('is kept with its attachments, posted again with them by a rebuilt view, and given back whole', async () => {
    const { ViewOutbox } = await import('../../webview/outbox');
    const { PanelMemory } = await import('../../webview/panelMemory');
    let stored: unknown;
    const store = { restore: () => stored as never, persist: (s: unknown) => (stored = s) };
    const posted: WebviewMessage[] = [];
    const id = new ViewOutbox(new PanelMemory(store), (m) => posted.push(m), () => 'c1').send('explain', { attachments: [file('a.ts')] });
    const rebuilt: WebviewMessage[] = [];
    const again = new ViewOutbox(new PanelMemory(store), (m) => rebuilt.push(m));
    again.resend();
    assert.deepEqual(rebuilt, [{ type: 'send', clientId: id, text: 'explain', attachments: [file('a.ts')] }]);
    assert.deepEqual(posted, rebuilt);
    assert.deepEqual(again.answered(id), { text: 'explain', attachments: [file('a.ts')] });
  });
});

describe('attachments in the transcript', () => {
  const attached: AttachmentView = { kind: 'file', path: 'big.log', state: 'attached', hash: 'a'.repeat(64), sentSize: 262_100, originalSize: 600_000, cutNote: 'cut: only the first 262,100 of 600,000 bytes were sent' };
  const denied: AttachmentView = { kind: 'file', path: '/etc/hosts', state: 'denied', hash: null, sentSize: 0, originalSize: 0, cutNote: 'not sent: reading this file outside the workspace folder was denied' };

  test('a turn shows what was sent under its prompt, with the cut note, and what was not', async () => {
    const { renderTurn } = await import('../../webview/render/turn');
    const el = renderTurn({
      id: 't1', sessionId: 's1', prompt: 'look', origin: 'prompt', parentTurnId: null, status: 'completed', errorClass: null, seq: 1, createdAt: 1,
      attachments: [attached, denied], items: [], applied: {},
    }, { actionableIds: new Set(), busyRequestIds: new Set(), busyTurn: false, followedUp: false, running: false });
    const list = el.querySelector('ul.turn-attachments')!;
    assert.equal(list.getAttribute('aria-label'), 'Attached');
    assert.deepEqual([...list.querySelectorAll('li')].map((li) => li.textContent), [
      'big.log262,100 bytes; cut: only the first 262,100 of 600,000 bytes were sent',
      '/etc/hostsnot sent: reading this file outside the workspace folder was denied',
    ]);
  });

  test('the view\'s check lets a turn and a queued message with attachments through, and refuses a malformed one', () => {
    const turn = { id: 't1', sessionId: 's1', prompt: 'p', origin: 'prompt', parentTurnId: null, status: 'running', errorClass: null, seq: 1, createdAt: 1, attachments: [attached] };
    assert.equal(hostMessageProblem({ type: 'update', update: { type: 'turn', turn } }), null);
    assert.equal(hostMessageProblem({ type: 'queue', prompts: [{ clientId: 'c', text: 't', hold: null, sendNow: false, createdAt: 1, attachments: [denied] }] }), null);
    assert.match(hostMessageProblem({ type: 'update', update: { type: 'turn', turn: { ...turn, attachments: [{ ...attached, state: 'lost' }] } } })!, /state is not one of/);
    assert.equal(hostMessageProblem({ type: 'completions', requestId: 1, items: [item('a.ts', [0])] }), null);
    assert.equal(hostMessageProblem({ type: 'attach', attachments: [file('a.ts')], focus: true, seq: 3 }), null);
  });
});
