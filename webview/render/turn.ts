/**
 * Renders one turn: an origin label for retries/continues, the user's prompt, the turn's items in
 * ledger order, and the banner of a failed turn. `turnKey` tells the renderer when a cached turn
 * element is still valid.
 */
import type { TranscriptTurn } from '../../src/core/transcript';
import { h } from '../dom';
import { describeErrorClass } from '../errorClassView';
import { turnOriginLabel } from '../labels';
import { userMarkdownFragment } from '../markdown';
import { renderErrorBanner } from './banner';
import type { RenderErrorSink } from './failed';
import { renderTurnAttachments } from './attachmentViews';
import { renderItems } from './items';

/** What a turn's rendering depends on besides the turn object itself. */
export interface TurnContext {
  readonly actionableIds: ReadonlySet<string>;
  readonly busyRequestIds: ReadonlySet<string>;
  /** The turn's Retry/Continue waits for the host's answer. */
  readonly busyTurn: boolean;
  /** A later turn already retries or continues this one. */
  readonly followedUp: boolean;
  /** A run of the session is live. */
  readonly running: boolean;
  /** VS Code's extension host does not answer the view. */
  readonly hostLost?: boolean;
  /** Told about a part of the turn that failed to render. */
  readonly onError?: RenderErrorSink;
}

/**
 * A string that changes whenever the context changes in a way this turn shows (pending requests'
 * actionability and busy state, the banner's action), so unchanged turns keep their DOM.
 */
export function turnKey(turn: TranscriptTurn, ctx: TurnContext): string {
  const pending = turn.items
    .filter((i) => i.type === 'boundary' && i.status === 'pending')
    .map((i) => ('id' in i ? `${i.id}:${ctx.actionableIds.has(i.id) ? 'a' : '-'}${ctx.busyRequestIds.has(i.id) ? 'b' : '-'}` : ''));
  const banner = turn.errorClass ? `${ctx.followedUp ? 'f' : '-'}${ctx.running ? 'r' : '-'}${ctx.busyTurn ? 'b' : '-'}` : '';
  const working = turn.status === 'running' && turn.items.length === 0 ? 'w' : '';
  return `${pending.join(',')}|${banner}|${working}|${pending.length > 0 && ctx.hostLost ? 'lost' : ''}`;
}

/** Renders a turn as `section.turn[data-turn-id]`. */
export function renderTurn(turn: TranscriptTurn, ctx: TurnContext): HTMLElement {
  const origin = turnOriginLabel(turn);
  const section = h(
    'section',
    { class: 'turn', 'data-turn-id': turn.id, 'data-status': turn.status },
    origin ? h('div', { class: 'turn-origin' }, origin) : null,
    h('div', { class: 'message user markdown' }, userMarkdownFragment(turn.prompt)),
    renderTurnAttachments(turn.attachments),
  );
  const view = turn.errorClass ? describeErrorClass(turn.errorClass, turn, { followedUp: ctx.followedUp, running: ctx.running }) : null;
  // The banner is the one place that says a reload or restart ended the turn.
  const itemCtx = { actionableIds: ctx.actionableIds, busyRequestIds: ctx.busyRequestIds, hostLost: ctx.hostLost, onError: ctx.onError, restartTold: view?.tone === 'restart' };
  for (const el of renderItems(turn.items, itemCtx)) section.appendChild(el);
  if (turn.status === 'running' && turn.items.length === 0) {
    section.appendChild(h('div', { class: 'agent-working' }, h('vscode-progress-ring', { class: 'inline-ring' }), 'Working…'));
  }
  if (view) section.appendChild(renderErrorBanner(view, turn.id, ctx.busyTurn));
  return section;
}
