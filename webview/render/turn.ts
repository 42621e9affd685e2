/**
 * Renders one turn: an origin label for retries/continues, the user's prompt, the turn's items in
 * ledger order, and the banner of a failed turn. `turnKey` tells the renderer when a cached turn
 * element is still valid.
 */
import type { TranscriptTurn } from '../../src/core/transcript';
import { append, h, reconcileChildren } from '../dom';
import { describeErrorClass } from '../errorClassView';
import { turnOriginLabel } from '../labels';
import { userMarkdownFragment } from '../markdown';
import { renderErrorBanner } from './banner';
import type { RenderErrorSink } from './failed';
import { filesKey, ranCommands, renderFilesChanged } from './filesChanged';
import { renderTurnAttachments } from './attachmentViews';
import { renderItems, type RenderedItems } from './items';
import type { TurnFilesView } from '../../src/protocol/messages';
import { button } from './button';

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
  /** A later turn is this one's prompt edited and sent again: shown collapsed as edited. */
  readonly replaced?: boolean;
  /** The chat's last turn, its reply over: its prompt offers Edit (edit and resend). */
  readonly editable?: boolean;
  /** The files the turn changed (checkpoints), if any. */
  readonly files?: TurnFilesView;
  /** The chat's agent asks before commands that are not read-only (`SANDBOXED_COMMAND_PROVIDERS`). */
  readonly sandboxedCommands?: boolean;
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
  return `${pending.join(',')}|${banner}|${working}|${pending.length > 0 && ctx.hostLost ? 'lost' : ''}|${ctx.replaced ? 'x' : ''}${ctx.editable ? 'e' : ''}|${filesKey(ctx.files, ranCommands(turn, ctx.sandboxedCommands), ctx.running)}`;
}

/** A part of a turn element and what it was built from (`key`); null: the turn has no such part. */
interface Part {
  readonly key: string;
  readonly el: HTMLElement | null;
}

/** What a turn element was built from, for the turn's next rendering to patch it (see `renderTurn`). */
interface TurnParts {
  readonly replaced: boolean;
  /** Where the parts are: the section, or a replaced turn's box inside it. */
  readonly body: HTMLElement;
  readonly prompt: string;
  readonly promptEl: HTMLElement;
  readonly attachments: TranscriptTurn['attachments'];
  readonly attachmentsEl: HTMLElement | null;
  readonly edit: Part;
  readonly items: RenderedItems;
  readonly files: Part;
  readonly banner: Part;
}

/** The parts of each turn element rendered (weak: an element dropped from the renderer's cache goes). */
const partsOf = new WeakMap<HTMLElement, TurnParts>();

/** Focuses the first enabled button of `el` (a part built again that replaced the focused one), else its first link. */
function focusReplacement(el: HTMLElement | null): void {
  (el?.querySelector<HTMLElement>('button:not([disabled])') ?? el?.querySelector<HTMLElement>('a[href]'))?.focus();
}

/** `previous` when its key is `key`, else a part built now. */
function part(previous: Part | undefined, key: string, build: () => HTMLElement | null): Part {
  return previous && previous.key === key ? previous : { key, el: build() };
}

/**
 * Renders a turn as `section.turn[data-turn-id]`. A replaced turn (`ctx.replaced`) is the same
 * content inside a collapsed `details.replaced-turn` whose summary says it was edited; the last
 * turn's prompt offers Edit (`[data-action="edit-prompt"]`) when `ctx.editable`. `previous`: the
 * element this turn had. It is patched in place and returned (when it was built for the same prompt
 * and the same replaced state): each part built from what has not changed (the prompt, each item
 * still valid: `renderItems`, the Edit button, the files changed, the banner) stays as it is, in
 * the document, so a decision or one more line neither renders again nor reconnects the markdown
 * and the toolkit's buttons around it.
 */
export function renderTurn(turn: TranscriptTurn, ctx: TurnContext, previous?: HTMLElement): HTMLElement {
  const was = previous ? partsOf.get(previous) : undefined;
  const parts = was && was.replaced === !!ctx.replaced && was.prompt === turn.prompt ? was : undefined;
  const section = parts ? previous! : h('section', { 'data-turn-id': turn.id });
  section.className = ctx.replaced ? 'turn turn-replaced' : 'turn';
  section.dataset.status = turn.status;
  // A replaced turn's parts sit in a box laid out as a turn is (a `details` is no flex container).
  const body = parts ? parts.body
    : ctx.replaced ? section.appendChild(h('details', { class: 'replaced-turn' }, h('summary', {}, replacedSummary(turn.prompt)))).appendChild(h('div', { class: 'replaced-body' }))
    : section;
  const promptEl = parts?.promptEl ?? h('div', { class: 'message user markdown' }, userMarkdownFragment(turn.prompt));
  const attachmentsEl = parts && parts.attachments === turn.attachments ? parts.attachmentsEl : renderTurnAttachments(turn.attachments);
  const edit = part(parts?.edit, ctx.editable ? 'e' : '', () => (ctx.editable ? editButton(turn.id) : null));
  const origin = turnOriginLabel(turn);
  const view = turn.errorClass ? describeErrorClass(turn.errorClass, turn, { followedUp: ctx.followedUp, running: ctx.running }) : null;
  // The banner is the one place that says a reload or restart ended the turn.
  const itemCtx = { actionableIds: ctx.actionableIds, busyRequestIds: ctx.busyRequestIds, hostLost: ctx.hostLost, onError: ctx.onError, restartTold: view?.tone === 'restart' };
  const items: RenderedItems = new Map();
  const itemEls = renderItems(turn.items, itemCtx, parts?.items, items);
  const files = part(parts?.files, `${filesKey(ctx.files, ranCommands(turn, ctx.sandboxedCommands), ctx.running)}|${ctx.replaced ? 'x' : ''}`, () => renderFilesChanged(turn, ctx.files, ctx.running, ctx.replaced, ctx.sandboxedCommands));
  const banner = part(parts?.banner, view ? `${JSON.stringify(view)}|${ctx.busyTurn ? 'b' : ''}` : '', () => (view ? renderErrorBanner(view, turn.id, ctx.busyTurn) : null));
  const children = [
    origin ? h('div', { class: 'turn-origin' }, origin) : null,
    turn.model ? h('div', { class: 'turn-model', title: 'The model this turn ran with' }, `Model: ${turn.model}`) : null,
    promptEl, attachmentsEl, edit.el, ...itemEls,
    turn.status === 'running' && turn.items.length === 0 ? h('div', { class: 'agent-working' }, h('vscode-progress-ring', { class: 'inline-ring' }), 'Working…') : null,
    files.el, banner.el,
  ].filter((el): el is HTMLElement => el !== null);
  // A keyboard user's focus on a part built again (Undo became Redo) goes to its replacement, not the page.
  const focusedPart = parts && [parts.files, parts.banner].find((p) => p !== files && p !== banner && p.el?.contains(section.ownerDocument.activeElement));
  if (parts) reconcileChildren(body, children);
  else append(body, children);
  if (focusedPart) focusReplacement(focusedPart === parts?.files ? files.el : banner.el);
  partsOf.set(section, { replaced: !!ctx.replaced, body, prompt: turn.prompt, promptEl, attachments: turn.attachments, attachmentsEl, edit, items, files, banner });
  return section;
}

/** The last prompt's Edit button (edit and resend). */
function editButton(turnId: string): HTMLElement {
  return h('div', { class: 'prompt-actions' }, button('secondary', {
    class: 'edit-prompt', 'data-action': 'edit-prompt', 'data-turn-id': turnId,
    'aria-label': 'Edit this request and send it again', title: 'Edit this request and send it again (the original stays, collapsed)',
  }, 'Edit'));
}

/** Most characters of a replaced prompt shown in its summary line. */
const SUMMARY_CHARS = 80;

/** The summary of a replaced turn: that it was edited, and the start of its prompt's first line. */
export function replacedSummary(prompt: string): string {
  const line = prompt.trim().split('\n')[0] ?? '';
  return `Edited — original request: ${line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS)}…` : line}`;
}
