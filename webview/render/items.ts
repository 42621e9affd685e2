/**
 * Renders one transcript item: agent text (markdown), a tool invocation, a sandbox boundary card,
 * or a notice. Agent and tool text is set as text (never HTML) except markdown, which is sanitized.
 */
import type { TranscriptItem } from '../../src/core/transcript';
import { errorClassShortLabel } from '../errorClassView';
import { h } from '../dom';
import { boundaryKindLabel, describeBoundary, invocationDetail, invocationStatusLabel, type BoundaryItem, type InvocationItem } from '../labels';
import { markdownFragment } from '../markdown';
import { renderDiff } from './diff';

/** What item rendering needs beyond the item. */
export interface ItemContext {
  /** Pending request ids this window may decide. */
  readonly actionableIds: ReadonlySet<string>;
  /** Request ids whose decision buttons wait for the host's answer (disabled). */
  readonly busyRequestIds: ReadonlySet<string>;
}

/** Renders an agent's markdown reply as `.message.agent`. */
export function renderText(text: string): HTMLElement {
  const el = h('div', { class: 'message agent markdown' });
  el.appendChild(markdownFragment(text));
  return el;
}

/** Renders a tool invocation as `.invocation[data-invocation-id]`. */
export function renderInvocation(item: InvocationItem): HTMLElement {
  const detail = invocationDetail(item, errorClassShortLabel);
  return h(
    'div',
    { class: 'invocation', 'data-invocation-id': item.id, 'data-status': item.status },
    h(
      'div',
      { class: 'invocation-head' },
      h('span', { class: 'tool' }, item.tool),
      h('code', { class: 'summary' }, item.summary),
      h('span', { class: `badge status-badge status-${item.status}` }, invocationStatusLabel(item)),
    ),
    detail ? h('div', { class: 'invocation-message' }, detail) : null,
    item.output ? h('pre', { class: 'output' }, item.output) : null,
    item.diff ? renderDiff(item.diff) : null,
  );
}

/** The three decision buttons of an actionable request. */
function decisionButtons(requestId: string, busy: boolean, grants: string | undefined): HTMLElement {
  const button = (decision: string, label: string, appearance: 'primary' | 'secondary', title?: string) =>
    h('vscode-button', { 'data-decision': decision, 'data-request-id': requestId, appearance, disabled: busy, ...(title ? { title } : {}) }, label);
  return h(
    'div',
    { class: 'boundary-actions' },
    button('allow_once', 'Allow once', 'primary'),
    button('allow_session', 'Allow for this session', 'secondary', grants ? `Also approves ${grants}` : undefined),
    button('deny', 'Deny', 'secondary'),
    grants ? h('div', { class: 'grant-scope' }, `“Allow for this session” also approves ${grants.replace(/`/g, '')}.`) : null,
  );
}

/** Renders a sandbox boundary request as `.boundary-card[data-request-id]`. */
export function renderBoundary(item: BoundaryItem, ctx: ItemContext): HTMLElement {
  const state = describeBoundary(item, ctx.actionableIds);
  return h(
    'div',
    { class: `boundary-card boundary-${state.state}`, 'data-request-id': item.id, 'data-state': state.state },
    h('div', { class: 'boundary-head' }, h('span', { class: 'boundary-kind' }, boundaryKindLabel(item.kind))),
    h('div', { class: 'subject' }, h('code', {}, item.subject)),
    item.why ? h('div', { class: 'why' }, item.why) : null,
    item.diff ? renderDiff(item.diff) : null,
    state.state === 'actionable'
      ? decisionButtons(item.id, ctx.busyRequestIds.has(item.id), item.grants)
      : h('div', { class: 'boundary-outcome' }, state.text),
  );
}

/** Renders a notice as `.notice.notice-{level}`. */
export function renderNotice(level: 'info' | 'warning' | 'error', message: string): HTMLElement {
  return h('div', { class: `notice notice-${level}`, role: level === 'error' ? 'alert' : 'note' }, message);
}

/** Renders any transcript item. */
export function renderItem(item: TranscriptItem, ctx: ItemContext): HTMLElement {
  switch (item.type) {
    case 'text':
      return renderText(item.text);
    case 'invocation':
      return renderInvocation(item);
    case 'boundary':
      return renderBoundary(item, ctx);
    case 'notice':
      return renderNotice(item.level, item.message);
  }
}
