/**
 * The chat's queue under the transcript, above the composer (docs/ARCHITECTURE.md, "Prompts"):
 * each queued message with its text (a long one clipped, with Show all), its state ("Queued", "Goes
 * next", or why it waits: `heldWords`) and its buttons — Edit (an inline editor: Save / Cancel, Enter
 * saves, Escape cancels), Remove (Discard for a held one) and Send now (while the agent works) or
 * Send. The buttons post `editQueued`, `discardQueued` and `sendQueued`; the host's next `queue`
 * message shows the result.
 *
 * `QueueView` owns its element and keeps, across renders, what only the view knows: which message is
 * being edited (with the text typed so far), which are shown whole, and which wait for the host's
 * answer (their buttons disabled). A message whose text, state and buttons did not change keeps its
 * element, so a streamed reply re-rendering the view does not take the focus from a button.
 */
import { renderTurnAttachments } from './attachmentViews';
import { heldWords, type QueuedPromptView } from '../../src/core/outbox';
import type { WebviewMessage } from '../../src/protocol/messages';
import { h } from '../dom';
import { decideSend, isSendKey } from '../input';
import { setFlag, type ValueElement } from '../layout';

/** A message the queue's buttons post. */
export type QueueMessage = Extract<WebviewMessage, { type: 'editQueued' | 'discardQueued' | 'sendQueued' }>;

/** Longest text (characters) or most lines shown before a queued message is clipped (Show all shows the rest). */
export const CLIP_CHARS = 280;
export const CLIP_LINES = 4;

/** A message's words in its buttons' names (what a screen reader says): one line, at most `max` characters. */
export function spokenName(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The element an event happened on (`instanceof Element` does not hold across documents). */
function elementOf(target: EventTarget | null): Element | null {
  return target !== null && typeof (target as Element).closest === 'function' ? (target as Element) : null;
}

/** The facts of the chat a queued message's buttons depend on. */
export interface QueueFacts {
  readonly running: boolean;
  /** The chat is read-only (or the host is lost): nothing can be changed. */
  readonly locked: boolean;
}

/** The words of a queued message's state. */
export function queuedStateWords(p: Pick<QueuedPromptView, 'hold' | 'sendNow'>): string {
  if (p.sendNow) return 'Goes next';
  return p.hold ? heldWords(p.hold) : 'Queued';
}

/**
 * The label of a queued message's send button, or null when it has none (it already goes next).
 * While a reply runs it is Send now for a held message too: the host's Send stops the running reply
 * for any queued message (a held one waits for no reply to end), and the button says so.
 */
export function sendButtonLabel(p: Pick<QueuedPromptView, 'hold' | 'sendNow'>, running: boolean): string | null {
  if (p.sendNow) return null;
  return running ? 'Send now' : 'Send';
}

/** The queue's element and its state between renders (see module docstring). */
export class QueueView {
  private prompts: readonly QueuedPromptView[] = [];
  private facts: QueueFacts = { running: false, locked: false };
  private readonly items = new Map<string, { readonly key: string; readonly el: HTMLElement }>();
  /** Message being edited → the text in its editor. */
  private readonly editing = new Map<string, string>();
  /** The last text saved per message, until the host answers (given back if the edit is refused). */
  private readonly saved = new Map<string, string>();
  private readonly expanded = new Set<string>();
  private readonly busy = new Set<string>();
  private readonly list: HTMLOListElement;

  /**
   * `el`: the skeleton's queue box; `post`: sends a message to the host; `focusLost`: the message
   * holding the focus left an empty queue (the caller gives the focus to the composer); `editLost`:
   * a message left the queue (sent as it was, discarded) while its editor held a changed text, which
   * is not sent anywhere (the caller gives it back in the composer, so nothing typed is lost).
   */
  constructor(
    readonly el: HTMLElement,
    private readonly post: (message: QueueMessage) => void,
    private readonly focusLost: () => void = () => undefined,
    private readonly editLost: (text: string) => void = () => undefined,
  ) {
    this.list = h('ol', { class: 'queue-list' });
    el.replaceChildren(h('div', { class: 'queue-title', id: 'queue-title' }, 'Queued messages'), this.list);
    el.setAttribute('aria-labelledby', 'queue-title');
    el.addEventListener('click', (event) => this.onClick(event));
    el.addEventListener('keydown', (event) => this.onKey(event as KeyboardEvent));
    el.addEventListener('input', (event) => this.onInput(event));
  }

  /** Shows `prompts` (in the order they go out). Hidden when there are none. */
  render(prompts: readonly QueuedPromptView[], facts: QueueFacts): void {
    // (Before the new queue replaces the old one: where the focused message was.)
    const focused = this.focusedAction();
    const ids = new Set(prompts.map((p) => p.clientId));
    // (Read against the queue shown until now: the text the message had when the editor was open.)
    for (const [id, text] of this.editing) if (!ids.has(id) && text !== this.prompts.find((p) => p.clientId === id)?.text) this.editLost(text);
    this.prompts = prompts;
    this.facts = facts;
    // (A saved edit is kept until its answer: a refusal may come after the message left the queue.)
    for (const set of [this.editing, this.expanded, this.busy]) for (const id of set.keys()) if (!ids.has(id)) set.delete(id);
    setFlag(this.el, 'hidden', prompts.length === 0);
    const els = prompts.map((p) => this.itemElement(p));
    // In place, one element at a time: an element taken out of the document loses the focus.
    els.forEach((el, i) => {
      const at = this.list.children[i];
      if (at !== el) this.list.insertBefore(el, at ?? null);
    });
    while (this.list.children.length > els.length) this.list.lastElementChild!.remove();
    for (const id of this.items.keys()) if (!ids.has(id)) this.items.delete(id);
    // A message drawn anew (its text or buttons changed) keeps the focus on the same button; when it
    // left the queue (sent, removed), the focus goes to the message that took its place.
    if (focused && !focused.el.isConnected) {
      const index = Math.min(focused.index, prompts.length - 1);
      if (ids.has(focused.clientId)) this.focus(focused.clientId, focused.action);
      else if (index >= 0) this.focus(prompts[index]!.clientId, 'edit');
      else this.focusLost();
    }
  }

  /** The host answered an action on message `clientId`: its buttons work again (take a refused edit's text first). */
  answered(clientId: string): void {
    this.saved.delete(clientId);
    if (this.busy.delete(clientId)) this.redraw();
  }

  /** The text of a refused edit of `clientId`, to give back to the user (once), or undefined. */
  takeRefusedEdit(clientId: string): string | undefined {
    const text = this.saved.get(clientId);
    this.saved.delete(clientId);
    return text;
  }

  private redraw(): void {
    this.render(this.prompts, this.facts);
  }

  private itemElement(p: QueuedPromptView): HTMLElement {
    const editing = this.editing.get(p.clientId);
    const key = JSON.stringify([p.text, p.attachments ?? null, p.hold, p.sendNow, this.facts, editing !== undefined, this.expanded.has(p.clientId), this.busy.has(p.clientId)]);
    const cached = this.items.get(p.clientId);
    if (cached?.key === key) return cached.el;
    const el = editing !== undefined ? this.editorElement(p, editing) : this.shownElement(p);
    this.items.set(p.clientId, { key, el });
    return el;
  }

  private shownElement(p: QueuedPromptView): HTMLElement {
    const name = spokenName(p.text);
    const disabled = this.facts.locked || this.busy.has(p.clientId);
    const long = p.text.length > CLIP_CHARS || p.text.split('\n').length > CLIP_LINES;
    const whole = this.expanded.has(p.clientId);
    const send = sendButtonLabel(p, this.facts.running);
    const button = (action: string, label: string, aria: string, appearance = 'secondary') =>
      h('vscode-button', { 'data-queue-action': action, appearance, disabled, 'aria-label': `${aria}: ${name}` }, label);
    return h(
      'li',
      { class: `queued-prompt${p.hold ? ' held' : ''}`, 'data-client-id': p.clientId, 'data-state': p.sendNow ? 'next' : p.hold ?? 'queued' },
      h('div', { class: 'queued-state' }, queuedStateWords(p)),
      h('div', { class: `queued-text${long && !whole ? ' clipped' : ''}` }, p.text),
      renderTurnAttachments(p.attachments),
      long
        ? h('vscode-button', {
            'data-queue-action': 'expand', appearance: 'icon', 'aria-expanded': String(whole),
            'aria-label': `${whole ? 'Show less of' : 'Show all of'} the queued message: ${name}`,
          }, whole ? 'Show less' : 'Show all')
        : null,
      h(
        'div',
        { class: 'queued-actions' },
        button('edit', 'Edit', 'Edit the queued message'),
        p.hold ? button('discard', 'Discard', 'Discard the message') : button('discard', 'Remove', 'Remove the queued message'),
        send ? button('send', send, send === 'Send now' ? 'Stop the reply and send now' : 'Send the message', 'primary') : null,
      ),
    );
  }

  private editorElement(p: QueuedPromptView, text: string): HTMLElement {
    const area = h('vscode-text-area', { class: 'queued-editor', resize: 'vertical', rows: 3, 'aria-label': `Edit the queued message: ${spokenName(p.text)}` }) as ValueElement;
    area.value = text;
    return h(
      'li',
      { class: 'queued-prompt editing', 'data-client-id': p.clientId },
      h('div', { class: 'queued-state' }, `${queuedStateWords(p)} — editing (Enter saves, Escape cancels)`),
      area,
      h('div', { class: 'queued-problem', role: 'alert', hidden: true }),
      h(
        'div',
        { class: 'queued-actions' },
        h('vscode-button', { 'data-queue-action': 'save', appearance: 'primary', disabled: this.facts.locked }, 'Save'),
        h('vscode-button', { 'data-queue-action': 'cancel', appearance: 'secondary' }, 'Cancel'),
      ),
    );
  }

  private onClick(event: Event): void {
    const button = elementOf(event.target)?.closest<HTMLElement>('[data-queue-action]');
    const clientId = button?.closest<HTMLElement>('[data-client-id]')?.dataset.clientId;
    if (!button || !clientId || button.hasAttribute('disabled')) return;
    const action = button.dataset.queueAction;
    if (action === 'edit') return this.startEdit(clientId);
    if (action === 'save') return this.save(clientId);
    if (action === 'cancel') return this.cancel(clientId);
    if (action === 'expand') {
      if (!this.expanded.delete(clientId)) this.expanded.add(clientId);
      this.redraw();
      return this.focus(clientId, 'expand');
    }
    if (action === 'discard' || action === 'send') {
      this.busy.add(clientId);
      this.post({ type: action === 'send' ? 'sendQueued' : 'discardQueued', clientId });
      this.redraw();
    }
  }

  private onKey(event: KeyboardEvent): void {
    const clientId = this.editorOf(event.target)?.closest<HTMLElement>('[data-client-id]')?.dataset.clientId;
    if (!clientId) return;
    if (event.key === 'Escape') {
      event.preventDefault();
      // Not on to VS Code: Escape here only leaves the editor.
      event.stopPropagation();
      this.cancel(clientId);
    } else if (isSendKey(event)) {
      event.preventDefault();
      this.save(clientId);
    }
  }

  private onInput(event: Event): void {
    const editor = this.editorOf(event.target);
    const clientId = editor?.closest<HTMLElement>('[data-client-id]')?.dataset.clientId;
    if (editor && clientId && this.editing.has(clientId)) this.editing.set(clientId, editor.value ?? '');
  }

  private editorOf(target: EventTarget | null): ValueElement | null {
    return (elementOf(target)?.closest('.queued-editor') as ValueElement | null | undefined) ?? null;
  }

  private startEdit(clientId: string): void {
    const p = this.prompts.find((q) => q.clientId === clientId);
    if (!p) return;
    this.editing.set(clientId, p.text);
    this.redraw();
    this.focus(clientId, 'editor');
  }

  private cancel(clientId: string): void {
    this.editing.delete(clientId);
    this.redraw();
    this.focus(clientId, 'edit');
  }

  private save(clientId: string): void {
    // Enter as the disabled Save: a read-only chat or a lost host keeps the editor and its text.
    if (this.facts.locked) return;
    const item = this.items.get(clientId)?.el;
    const area = item?.querySelector<ValueElement>('.queued-editor');
    const p = this.prompts.find((q) => q.clientId === clientId);
    if (!item || !area || !p) return;
    const text = area.value ?? '';
    const decision = decideSend(text, null);
    if (decision.kind === 'ignore') return; // an empty message is removed with Remove, not saved
    if (decision.kind === 'refuse') {
      const problem = item.querySelector<HTMLElement>('.queued-problem');
      if (problem) {
        problem.textContent = decision.reason;
        problem.removeAttribute('hidden');
      }
      return;
    }
    this.editing.delete(clientId);
    if (text !== p.text) {
      this.saved.set(clientId, text);
      this.busy.add(clientId);
      this.post({ type: 'editQueued', clientId, text });
    }
    this.redraw();
    this.focus(clientId, 'edit');
  }

  /** The message and button that hold the focus, if it is in the queue. */
  private focusedAction(): { clientId: string; action: string; el: Element; index: number } | undefined {
    const active = this.el.ownerDocument.activeElement;
    if (!active || !this.el.contains(active)) return undefined;
    const clientId = active.closest<HTMLElement>('[data-client-id]')?.dataset.clientId;
    const action = active.closest<HTMLElement>('[data-queue-action]')?.dataset.queueAction ?? (active.closest('.queued-editor') ? 'editor' : undefined);
    const index = this.prompts.findIndex((p) => p.clientId === clientId);
    return clientId && action ? { clientId, action, el: active, index } : undefined;
  }

  private focus(clientId: string, action: string): void {
    const item = this.items.get(clientId)?.el;
    const target = action === 'editor' ? item?.querySelector<HTMLElement>('.queued-editor') : item?.querySelector<HTMLElement>(`[data-queue-action="${action}"]`);
    target?.focus();
  }
}
