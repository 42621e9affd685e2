/**
 * How attachments look: the composer's chips (removable, each a list item whose remove button is
 * named with what it removes), the `@` list (a listbox whose options are named by label and
 * detail, the query's characters marked), and a turn's attachments in the transcript (what was
 * sent, its cut note, or why it was not sent).
 */
import { attachmentLabel, attachmentStatus, type AttachmentRef, type AttachmentView } from '../../src/core/attachments';
import type { CompletionItem } from '../../src/protocol/messages';
import { chipName, type MentionList } from '../attachments';
import { h } from '../dom';

/** The id of the `@` list's option `index` (the composer's `aria-activedescendant`). */
export function mentionOptionId(index: number): string {
  return `mention-option-${index}`;
}

/** Replaces `box`'s children with a chip per attachment (hidden when there are none). */
export function renderChips(box: HTMLElement, refs: readonly AttachmentRef[]): void {
  box.hidden = refs.length === 0;
  box.replaceChildren(
    ...refs.map((ref, index) =>
      h('li', { class: 'chip', 'data-kind': ref.kind, title: chipName(ref) },
        h('span', { class: 'chip-label' }, attachmentLabel(ref)),
        h('button', { class: 'chip-remove', type: 'button', 'data-chip-index': index, 'aria-label': `Remove ${chipName(ref)}` }, '×'),
      ),
    ),
  );
}

/** A label with the characters at `matches` marked. */
function marked(label: string, matches: readonly number[]): HTMLElement {
  const span = h('span', { class: 'mention-label' });
  const at = new Set(matches);
  let run = '';
  let runMarked = false;
  const flush = () => {
    if (run) span.appendChild(runMarked ? h('mark', {}, run) : document.createTextNode(run));
    run = '';
  };
  [...label].forEach((ch, i) => {
    if (at.has(i) !== runMarked) {
      flush();
      runMarked = at.has(i);
    }
    run += ch;
  });
  flush();
  return span;
}

/** Renders the `@` list into `box` (hidden when closed or empty: `list` undefined). */
export function renderMentionList(box: HTMLElement, list: MentionList | undefined, onPick: (item: CompletionItem) => void): void {
  box.hidden = !list;
  if (!list) return box.replaceChildren();
  if (list.items.length === 0) {
    return box.replaceChildren(h('div', { class: 'mention-empty', role: 'option', 'aria-disabled': 'true' }, list.searching ? 'Searching…' : 'No matching files'));
  }
  box.replaceChildren(
    ...list.items.map((item, i) => {
      const option = h('div', {
        id: mentionOptionId(i), class: 'mention-option', role: 'option', 'aria-selected': i === list.active ? 'true' : 'false', 'data-kind': item.ref.kind,
      }, marked(item.label, item.matches), item.detail ? h('span', { class: 'mention-detail' }, item.detail) : null);
      // mousedown, not click: the composer keeps the focus (a click would blur it first).
      option.addEventListener('mousedown', (event) => {
        event.preventDefault();
        onPick(item);
      });
      return option;
    }),
  );
  box.querySelector(`#${mentionOptionId(list.active)}`)?.scrollIntoView?.({ block: 'nearest' });
}

/** A turn's (or queued message's) attachments as a list under its prompt, or null when none. */
export function renderTurnAttachments(attachments: readonly AttachmentView[] | undefined): HTMLElement | null {
  if (!attachments?.length) return null;
  return h('ul', { class: 'turn-attachments', 'aria-label': 'Attached' },
    ...attachments.map((a) =>
      h('li', { class: 'turn-attachment', 'data-state': a.state, 'data-kind': a.kind },
        h('span', { class: 'chip-label' }, attachmentLabel(a)),
        h('span', { class: 'attachment-status' }, attachmentStatus(a)),
      ),
    ),
  );
}
