/**
 * Builds the chat view's fixed skeleton once: header, scrolling transcript, the queue, error and
 * read-only bars, and the composer. Rendering later fills the header and transcript but never rebuilds the
 * composer, so its text, caret and focus survive every update.
 */
import { h } from './dom';

/** The composer's accessible name. */
export const COMPOSER_LABEL = 'Message to the agent';

/** A toolkit element with a `value` (vscode-text-area). */
export interface ValueElement extends HTMLElement {
  value: string;
}

/** Handles to the skeleton's parts. */
export interface Skeleton {
  readonly app: HTMLElement;
  readonly header: HTMLElement;
  /** The scrolling box (`#transcript`). */
  readonly transcript: HTMLElement;
  /** The box inside it holding the welcome text or the turns (`.transcript-content`). */
  readonly content: HTMLElement;
  /** Scrolls back to the newest message; shown only while the user reads above the bottom. */
  readonly jumpToLatest: HTMLElement;
  readonly orphan: HTMLElement;
  /** The chat's queued messages, under the transcript (`render/queue.ts`; hidden when none). */
  readonly queue: HTMLElement;
  readonly errorBar: HTMLElement;
  readonly errorMessage: HTMLElement;
  readonly readonlyBar: HTMLElement;
  /** The read-only reason's text inside `readonlyBar` (beside its Check Journal button). */
  readonly readonlyMessage: HTMLElement;
  /** The Repair Journal… button inside `readonlyBar`, shown only for a chat fenced by a damaged record. */
  readonly repairButton: HTMLElement;
  readonly composerBox: HTMLElement;
  readonly composer: ValueElement;
  readonly send: HTMLElement;
  /** Beside Stop while the agent works: queues the composer's message (what Enter does then). */
  readonly queueSend: HTMLElement;
  readonly stop: HTMLElement;
  /** The polite live region the view's announcements go to (see `announcer.ts`). */
  readonly announcer: HTMLElement;
}

/** Replaces `app`'s children with the skeleton and returns handles to its parts. */
export function buildSkeleton(app: HTMLElement): Skeleton {
  const header = h('header', { class: 'chat-header' });
  const content = h('div', { class: 'transcript-content' });
  // Not a live region: turns are drawn as the user scrolls (render/virtual.ts); `announcer` says what happens.
  // Shown while the user reads above the bottom; a zero-height sticky dock keeps it in the scroller's
  // lower corner without adding to the transcript's height (which the scroll pin measures).
  const jumpToLatest = h('vscode-button', { class: 'jump-latest', appearance: 'secondary', hidden: true, title: 'Jump to the latest message', 'aria-label': 'Jump to the latest message' }, 'Latest ↓');
  const transcript = h('main', { id: 'transcript', class: 'transcript', 'aria-label': 'Conversation' }, content, h('div', { class: 'jump-latest-dock' }, jumpToLatest));
  const announcer = h('div', { class: 'sr-only', role: 'status', 'aria-live': 'polite' });
  const orphan = h('div', { class: 'orphan-box', hidden: true });
  const queue = h('section', { class: 'queue', hidden: true });
  const errorMessage = h('span', { class: 'error-message' });
  const errorBar = h(
    'div',
    { class: 'error-bar', role: 'alert', hidden: true },
    errorMessage,
    h('vscode-button', { 'data-action': 'dismiss-error', appearance: 'secondary', 'aria-label': 'Dismiss error' }, 'Dismiss'),
  );
  const readonlyMessage = h('span', { class: 'readonly-message' });
  // Why the chat takes no changes (a fenced chat, a read-only journal) always comes with the check that explains it,
  // and for a chat held by a damaged record, the repair that may set it aside.
  const repairButton = h('vscode-button', { 'data-action': 'repair-journal', appearance: 'secondary', hidden: true }, 'Repair Journal…');
  const readonlyBar = h(
    'div',
    { class: 'readonly-bar', role: 'status', hidden: true },
    readonlyMessage,
    h('vscode-button', { 'data-action': 'check-journal', appearance: 'secondary' }, 'Check Journal'),
    repairButton,
  );
  const composer = h('vscode-text-area', {
    id: 'composer',
    placeholder: 'Ask the agent… (try: help, run ls, read README.md)',
    resize: 'vertical',
    rows: 3,
    'aria-label': COMPOSER_LABEL,
  }) as ValueElement;
  const stop = h('vscode-button', { id: 'stop', appearance: 'secondary', hidden: true, disabled: true }, 'Stop');
  const send = h('vscode-button', { id: 'send', appearance: 'primary', disabled: true }, 'Send');
  const queueSend = h('vscode-button', {
    id: 'queue-send', appearance: 'primary', hidden: true, disabled: true, 'aria-label': 'Queue the message: it is sent when the agent is done',
  }, 'Queue');
  const composerBox = h('footer', { class: 'composer' }, composer, h('div', { class: 'composer-actions' }, stop, queueSend, send));
  app.replaceChildren(header, transcript, queue, orphan, errorBar, readonlyBar, composerBox, announcer);
  // The toolkit's text area names itself "Text area" when it is connected (it has no text content),
  // replacing the label given above: a screen reader announced the composer as "Text area".
  composer.setAttribute('aria-label', COMPOSER_LABEL);
  app.classList.add('chat');
  return { app, header, transcript, content, jumpToLatest, orphan, queue, errorBar, errorMessage, readonlyBar, readonlyMessage, repairButton, composerBox, composer, send, queueSend, stop, announcer };
}

/** Sets or removes a boolean attribute (e.g. `disabled`, `hidden`) only when it changes. */
export function setFlag(el: Element, name: string, on: boolean): void {
  if (el.hasAttribute(name) !== on) el.toggleAttribute(name, on);
}
