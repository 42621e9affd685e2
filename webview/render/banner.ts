/**
 * Renders a failed turn's banner from `describeErrorClass` (the only place that picks words):
 * `.restart-banner` for restarts, `.error-banner` for failures, with a Retry/Continue button.
 */
import { h } from '../dom';
import { actionLabel, type ErrorClassView } from '../errorClassView';
import { inlineMarkdownFragment } from '../markdown';
import { linkSettings } from '../settingLinks';
import { button } from './button';

/** Renders the banner of turn `turnId`; `busy` disables its button while the host answers. */
export function renderErrorBanner(view: ErrorClassView, turnId: string, busy: boolean): HTMLElement {
  const body = h('div', { class: 'banner-body' });
  body.appendChild(inlineMarkdownFragment(view.body));
  linkSettings(body);
  return h(
    'div',
    { class: view.tone === 'restart' ? 'restart-banner banner' : 'error-banner banner', 'data-turn-id': turnId, role: 'status' },
    h('div', { class: 'banner-title' }, view.title),
    body,
    view.action
      ? h('div', { class: 'banner-actions' },
          button('primary', { 'data-action': view.action, 'data-turn-id': turnId, disabled: busy }, actionLabel(view.action, view.actionText)))
      : null,
    view.note ? h('div', { class: 'banner-note' }, view.note) : null,
  );
}
