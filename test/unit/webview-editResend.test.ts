/**
 * Edit and resend as the user sees and uses it, on a DOM in plain Node (happy-dom): the last
 * prompt offers Edit once its reply is over (not while the agent works, not on earlier turns, not
 * in a read-only chat); a replaced turn is shown collapsed as edited and opens on a click; the edit
 * mode in the composer (webview/promptEdit.ts) and the view's outbox keeping the replaced turn with
 * the message (webview/outbox.ts, panelMemory.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TranscriptTurn } from '../../src/core/transcript';
import type { AttachmentRef } from '../../src/core/attachments';
import type { WebviewMessage, WebviewPersistedState } from '../../src/protocol/messages';
import { session, useHappyDom } from './happyDom';

const window = useHappyDom();

const turn = (id: string, prompt: string, over: Partial<TranscriptTurn> = {}): TranscriptTurn => ({
  id, sessionId: 's1', prompt, origin: 'prompt', parentTurnId: null, status: 'completed', errorClass: null, seq: Number(id.slice(1)), createdAt: Number(id.slice(1)),
  items: [{ type: 'text', text: `reply to ${prompt}` }], applied: {}, ...over,
});

async function view() {
  const { buildSkeleton } = await import('../../webview/layout');
  const { ChatRenderer } = await import('../../webview/render');
  const { INITIAL_VIEW_STATE, IDLE_LIVE } = await import('../../webview/state');
  const sk = buildSkeleton(window.document.body.appendChild(window.document.createElement('div')) as unknown as HTMLElement);
  const renderer = new ChatRenderer(sk);
  const render = (turns: TranscriptTurn[], live = IDLE_LIVE) =>
    renderer.render({ ...INITIAL_VIEW_STATE, mode: 'chat', session, transcript: { turns }, turnCount: turns.length, live });
  const turnEl = (id: string) => sk.content.querySelector<HTMLElement>(`section.turn[data-turn-id="${id}"]`)!;
  const editButtons = () => [...sk.content.querySelectorAll<HTMLElement>('[data-action="edit-prompt"]')].map((b) => b.dataset.turnId);
  return { sk, render, turnEl, editButtons, IDLE_LIVE };
}

describe('edit and resend in the transcript', () => {
  test('offers Edit on the last prompt only, once its reply is over and nothing runs', async () => {
    const { render, editButtons, IDLE_LIVE } = await view();
    render([turn('t1', 'one'), turn('t2', 'two')]);
    assert.deepEqual(editButtons(), ['t2']);
    render([turn('t1', 'one'), turn('t2', 'two', { status: 'running', items: [] })], { ...IDLE_LIVE, running: true });
    assert.deepEqual(editButtons(), [], 'not while the agent works');
    render([turn('t1', 'one'), turn('t2', 'two', { status: 'failed', errorClass: 'agent_error' })], { ...IDLE_LIVE, readOnlyReason: 'newer version' });
    assert.deepEqual(editButtons(), [], 'not in a read-only chat');
    render([turn('t1', 'one'), turn('t2', 'two', { status: 'stopped' })]);
    assert.deepEqual(editButtons(), ['t2'], 'a stopped reply is over');
  });

  test('shows the replaced turn collapsed as edited, expandable, and the new one labelled', async () => {
    const { render, turnEl, editButtons } = await view();
    render([turn('t1', 'list the files\nall of them'), turn('t2', 'list the files, sorted', { replacesTurnId: 't1' })]);
    const old = turnEl('t1');
    assert.ok(old.classList.contains('turn-replaced'));
    const details = old.querySelector('details.replaced-turn')!;
    assert.equal(details.hasAttribute('open'), false, 'collapsed');
    assert.equal(details.querySelector('summary')!.textContent, 'Edited — original request: list the files');
    assert.equal(details.querySelector('.message.user')!.textContent!.includes('all of them'), true, 'its content is inside, to expand');
    assert.equal(details.querySelector('.message.agent')!.textContent!.trim(), 'reply to list the files\nall of them');
    assert.equal(turnEl('t2').querySelector('.turn-origin')!.textContent, 'Edited and sent again');
    assert.equal(turnEl('t2').classList.contains('turn-replaced'), false);
    assert.deepEqual(editButtons(), ['t2'], 'the new prompt can be edited again');
  });
});

/** Chips as `ComposerAttachments` keeps them (take empties, add appends). */
function chipsOf(initial: readonly AttachmentRef[]) {
  return {
    refs: [...initial] as AttachmentRef[],
    take() {
      const taken = this.refs;
      this.refs = [];
      return taken;
    },
    add(more: readonly AttachmentRef[]) {
      this.refs = [...this.refs, ...more];
    },
  };
}

describe('the edit mode in the composer', () => {
  test('puts the prompt in the composer, shows the bar, and Cancel gives back what was there', async () => {
    const { PromptEdit } = await import('../../webview/promptEdit');
    const composer = { value: 'half-typed draft' as string | undefined, focused: 0, focus() { this.focused++; } };
    const saved: string[] = [];
    const edit = new PromptEdit(composer, (t) => saved.push(t), chipsOf([]));
    assert.equal(edit.bar.hidden, true);
    edit.start('t2', 'list the files');
    assert.equal(composer.value, 'list the files');
    assert.equal(edit.turnId, 't2');
    assert.equal(edit.bar.hidden, false);
    assert.match(edit.bar.textContent!, /Send replaces it/);
    edit.cancel();
    assert.equal(composer.value, 'half-typed draft');
    assert.equal(edit.turnId, null);
    assert.equal(edit.bar.hidden, true);
    assert.deepEqual(saved, ['list the files', 'half-typed draft'], 'the draft is saved each time');
    edit.start('t2', 'list the files');
    assert.deepEqual(edit.finish(), { turnId: 't2', undoFiles: false }, 'a send takes the turn it replaces (it changed no file)');
    assert.equal(edit.finish(), undefined, 'once');
  });

  test('brings back the request\'s attachments as chips, and Cancel gives back the draft\'s own', async () => {
    const { PromptEdit } = await import('../../webview/promptEdit');
    const composer = { value: 'draft' as string | undefined, focus() {} };
    const draftChip = { kind: 'file', path: 'draft.md' } as const;
    const chips = chipsOf([draftChip]);
    const edit = new PromptEdit(composer, () => undefined, chips);
    const sent = [{ kind: 'file', path: 'src/a.ts' }, { kind: 'selection', path: 'src/b.ts', range: { startLine: 2, endLine: 4 } }] as const;
    edit.start('t2', 'explain', { attachments: sent });
    assert.deepEqual(chips.refs, sent);
    edit.start('t2', 'explain', { attachments: sent });
    assert.deepEqual(chips.refs, sent, 'Edit twice: the chips once');
    edit.cancel();
    assert.deepEqual(chips.refs, [draftChip]);
    assert.equal(composer.value, 'draft');
  });

  test('offers, checked, to undo the files the request changed first; unchecked, the edit goes without it', async () => {
    const { PromptEdit } = await import('../../webview/promptEdit');
    const edit = new PromptEdit({ value: '', focus() {} }, () => undefined, chipsOf([]));
    const offer = edit.bar.querySelector('.edit-undo-files') as HTMLElement & { checked?: boolean };
    edit.start('t2', 'write it again', { changedFiles: 2 });
    assert.equal(offer.hidden, false);
    assert.equal(offer.textContent, 'Undo the changes it made to 2 files first');
    assert.deepEqual(edit.finish(), { turnId: 't2', undoFiles: true });
    edit.start('t2', 'write it again', { changedFiles: 1 });
    assert.equal(offer.textContent, 'Undo the changes it made to 1 file first');
    offer.checked = false;
    offer.dispatchEvent(new window.Event('change') as unknown as Event);
    assert.deepEqual(edit.finish(), { turnId: 't2', undoFiles: false });
    edit.start('t2', 'again', { changedFiles: 1 });
    assert.deepEqual(edit.finish(), { turnId: 't2', undoFiles: true }, 'checked again on the next edit');
    edit.start('t2', 'again', { changedFiles: 0 });
    assert.equal(offer.hidden, true, 'no files: no offer');
    assert.deepEqual(edit.finish(), { turnId: 't2', undoFiles: false });
  });

  test('the outbox posts the replaced turn with the message and posts it again after a rebuild', async () => {
    const { ViewOutbox } = await import('../../webview/outbox');
    const { PanelMemory } = await import('../../webview/panelMemory');
    let persisted: WebviewPersistedState | undefined;
    const store = { restore: () => persisted, persist: (s: WebviewPersistedState) => (persisted = s) };
    const posted: WebviewMessage[] = [];
    const outbox = new ViewOutbox(new PanelMemory(store), (m) => posted.push(m), () => 'c1');
    outbox.send('list the files, sorted', { replacesTurnId: 't1' });
    assert.deepEqual(posted, [{ type: 'send', clientId: 'c1', text: 'list the files, sorted', replacesTurnId: 't1' }]);
    assert.deepEqual(persisted!.unacknowledged, [{ clientId: 'c1', text: 'list the files, sorted', replacesTurnId: 't1' }]);
    const rebuilt = new ViewOutbox(new PanelMemory(store), (m) => posted.push(m));
    rebuilt.resend();
    assert.deepEqual(posted[1], posted[0], 'the same id and the same replaced turn');
    outbox.send('write it again', { replacesTurnId: 't1', undoReplacedFiles: true });
    assert.deepEqual(posted[2], { type: 'send', clientId: 'c1', text: 'write it again', replacesTurnId: 't1', undoReplacedFiles: true });
    new ViewOutbox(new PanelMemory(store), (m) => posted.push(m)).resend();
    assert.deepEqual(posted.slice(-2), [posted[0], posted[2]], 'the undo asked for is kept for a rebuilt view too');
    outbox.send('plain', { undoReplacedFiles: true });
    assert.equal('undoReplacedFiles' in posted.at(-1)!, false, 'no undo without a replaced turn');
  });
});
