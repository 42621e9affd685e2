/**
 * The model picker in the chat's header as the user sees and uses it, on a DOM in plain Node
 * (happy-dom): what it offers (webview/render/modelPicker.ts), its label and keyboard-reachable
 * select, what a pick posts, that a re-render keeps its element (and so the focus), that a
 * read-only chat locks it, the `models` message in the view's state, and the model on a turn.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SessionRecord } from '../../src/core/events';
import type { HostMessage } from '../../src/protocol/messages';
import { session, useHappyDom } from './happyDom';

const window = useHappyDom();

const chat: SessionRecord = { ...session, provider: 'openai-compatible' };
const listed = { provider: 'openai-compatible', models: [{ id: 'llama3.2', label: 'llama3.2 (setting)' }, { id: 'mistral', label: 'mistral' }] };

async function picker() {
  const { ModelPicker } = await import('../../webview/render/modelPicker');
  const picked: (string | null)[] = [];
  const p = new ModelPicker((m) => picked.push(m));
  window.document.body.appendChild(p.element as never);
  const select = p.element.querySelector('select')!;
  const options = () => [...select.querySelectorAll('option')].map((o) => `${o.getAttribute('value')}=${o.textContent}`);
  const choose = (value: string) => {
    select.value = value;
    select.dispatchEvent(new window.Event('change', { bubbles: true }) as never);
  };
  return { p, picked, select, options, choose };
}

describe('the model picker', () => {
  test('offers the provider default and the listed models, keeps a chosen model the list lacks, and is labelled', async () => {
    const { p, select, options } = await picker();
    p.render(chat, null, false);
    assert.equal(p.element.hidden, true, 'nothing listed and no choice: no picker');
    p.render(chat, listed, false);
    assert.equal(p.element.hidden, false);
    assert.deepEqual(options(), ['=Provider default (settings)', 'llama3.2=llama3.2 (setting)', 'mistral=mistral']);
    assert.equal(select.value, '', 'a chat without a model of its own shows the default');
    const label = p.element.querySelector('label')!;
    assert.equal(label.textContent, 'Model');
    assert.equal(label.getAttribute('for'), select.id, 'the label names the select for screen readers');
    p.render({ ...chat, model: 'gone-model' }, listed, false);
    assert.deepEqual(options().at(-1), 'gone-model=gone-model (chosen for this chat)');
    assert.equal(select.value, 'gone-model');
  });

  test('posts the model picked, and null for the default', async () => {
    const { p, picked, choose } = await picker();
    p.render(chat, listed, false);
    choose('mistral');
    choose('');
    assert.deepEqual(picked, ['mistral', null]);
  });

  test('keeps its element across renders, so the focus stays on it; a read-only chat locks it', async () => {
    const { p, select } = await picker();
    p.render(chat, listed, false);
    select.focus();
    p.render({ ...chat, model: 'mistral' }, listed, false);
    assert.equal(p.element.querySelector('select'), select, 'the same select');
    assert.equal(window.document.activeElement, select as never);
    assert.equal(select.value, 'mistral', 'another window\'s pick shows');
    p.render({ ...chat, model: 'mistral' }, listed, true);
    assert.equal(select.disabled, true);
  });

  test('lists nothing for another provider\'s models (a chat switched under the view)', async () => {
    const { pickerOptions } = await import('../../webview/render/modelPicker');
    assert.deepEqual(pickerOptions({ ...chat, provider: 'claude' }, listed), []);
    assert.deepEqual(pickerOptions(session, null), [], 'the local agent offers no choice');
  });

  test('the view keeps what the host listed; a turn shows the model it ran with', async () => {
    const { INITIAL_VIEW_STATE, reduceHostMessage } = await import('../../webview/state');
    const message: HostMessage = { type: 'models', provider: 'claude', models: [{ id: 'opus', label: 'Opus' }], note: 'slow', seq: 1 };
    const state = reduceHostMessage(INITIAL_VIEW_STATE, message);
    assert.deepEqual(state.models, { provider: 'claude', models: [{ id: 'opus', label: 'Opus' }], note: 'slow' });
    const { hostMessageProblem } = await import('../../src/protocol/checkHostMessage');
    assert.equal(hostMessageProblem(message), null);
    assert.match(hostMessageProblem({ type: 'models', provider: 'claude', models: [{ id: 1 }] }) ?? '', /models\[0\]/);
    const { renderTurn } = await import('../../webview/render/turn');
    const ctx = { actionableIds: new Set<string>(), busyRequestIds: new Set<string>(), busyTurn: false, followedUp: false, running: false };
    const turn = { id: 't1', prompt: 'hi', origin: 'prompt', parentTurnId: null, status: 'completed', errorClass: null, items: [], applied: {}, createdAt: 1, sessionId: 's1' };
    assert.equal(renderTurn({ ...turn, model: 'opus' } as never, ctx).querySelector('.turn-model')?.textContent, 'Model: opus');
    assert.equal(renderTurn(turn as never, ctx).querySelector('.turn-model'), null, 'no model recorded: nothing said');
  });
});
