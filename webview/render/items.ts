/**
 * Renders one transcript item: agent text (markdown), a tool invocation, a sandbox boundary card,
 * or a notice. Agent and tool text is set as text (never HTML) except markdown, which is sanitized.
 */
import type { TranscriptItem } from '../../src/core/transcript';
import { errorClassShortLabel } from '../errorClassView';
import { h } from '../dom';
import type { BoundaryDecision } from '../../src/core/vocabulary';
import { boundaryKindLabel, DECISION_LABELS, describeBoundary, elapsedLabel, invocationBadgeStatus, invocationDetail, invocationStatusLabel, PROCESS_GROUP_STOPPED_TEXT, requestsByInvocation, type BoundaryItem, type InvocationItem } from '../labels';
import { markdownFragment } from '../markdown';
import { linkSettings } from '../settingLinks';
import { fileLink, linkFiles } from '../fileLinks';
import { parseFileReference } from '../../src/core/fileLinks';
import { renderDiff } from './diff';
import { safely, type RenderErrorSink } from './failed';
import { button } from './button';

/** What item rendering needs beyond the item. */
export interface ItemContext {
  /** Pending request ids this window may decide. */
  readonly actionableIds: ReadonlySet<string>;
  /** Request ids whose decision buttons wait for the host's answer (disabled). */
  readonly busyRequestIds: ReadonlySet<string>;
  /** VS Code's extension host does not answer the view: pending cards say so. */
  readonly hostLost?: boolean;
  /** Told about an item or card that failed to render (it is shown as a stand-in box). */
  readonly onError?: RenderErrorSink;
  /**
   * The turn's banner already says that a window reload or restart ended it: items then do not say
   * it again (a fresh user counted it four times on one turn: badge, line, card and banner); their
   * own words stay in a tooltip.
   */
  readonly restartTold?: boolean;
}

/**
 * Renders an agent's markdown reply as `.message.agent`. Each code block sits in a `.code-block`
 * with a Copy button (`data-action="copy-code"`), as in Copilot Chat.
 */
export function renderText(text: string): HTMLElement {
  const el = h('div', { class: 'message agent markdown' });
  el.appendChild(markdownFragment(text));
  el.querySelectorAll('pre').forEach((pre) => {
    // Copy copies the block's text: only for a block as markdown writes one (text in one plain
    // <code>). Raw HTML (shown as text, but this does not rest on it) may hide text in a block
    // (`hidden`, a class) that Copy would put on the clipboard unseen, e.g. a `; curl … | sh` after
    // the command shown.
    if (!isPlainCodeBlock(pre)) return;
    const { parentNode, nextSibling } = pre;
    parentNode?.insertBefore(copyable(pre as HTMLElement, codeBlockCopyLabel(pre)), nextSibling);
  });
  // Paths open the file; setting names open the Settings editor.
  linkFiles(el);
  linkSettings(el);
  return el;
}

/** A `<pre>` holding only text, directly or in one `<code>` whose only attribute is a language class. */
function isPlainCodeBlock(pre: Element): boolean {
  if (pre.attributes.length > 0) return false;
  const textOnly = (node: Node) => [...node.childNodes].every((c) => c.nodeType === 3);
  if (textOnly(pre)) return true;
  const elements = [...pre.childNodes].filter((c) => c.nodeType !== 3);
  const code = elements[0] as Element;
  return (
    elements.length === 1 &&
    code.tagName === 'CODE' &&
    [...code.attributes].every((a) => a.name === 'class' && /^(language-[\w+#.-]+)?$/.test(a.value)) &&
    textOnly(code)
  );
}

/**
 * Renders a tool invocation as `.invocation[data-invocation-id]`: its head, the line under it, its
 * diff, the boundary cards of the requests it made (`requests`: the card sits where the user reads
 * what is asked, above the output, and repeats neither the invocation's subject nor its diff), then
 * its output.
 */
export function renderInvocation(item: InvocationItem, requests: readonly BoundaryItem[] = [], ctx: ItemContext = NO_ACTIONS): HTMLElement {
  // A denied invocation's card already says it was denied, and by whom: its own "The request was
  // denied" would be the third time (a fresh user counted four).
  const shown = item.status === 'denied' && requests.some((r) => r.status !== 'pending') ? { ...item, message: undefined } : item;
  const detail = invocationDetail(shown, errorClassShortLabel);
  const interrupted = invocationBadgeStatus(item) === 'interrupted';
  const quiet = interrupted && ctx.restartTold === true;
  return h(
    'div',
    { class: 'invocation', 'data-invocation-id': item.id, 'data-status': item.status },
    h(
      'div',
      { class: 'invocation-head' },
      h('span', { class: 'tool' }, item.tool),
      summaryOf(item),
      h('span', { class: `badge status-badge status-${invocationBadgeStatus(item)}`, title: quiet && detail ? detail : undefined }, invocationStatusLabel(item)),
      // Filled and advanced every second by the chat view (`tickElapsed`), by the host's clock.
      item.status === 'running' && item.runningSince !== undefined ? h('span', { class: 'elapsed', 'data-running-since': String(item.runningSince) }) : null,
    ),
    // Under a restart banner the line would repeat it, but that recovery stopped a command still
    // running is news the banner does not tell.
    detail && !quiet ? withSettingLinks(h('div', { class: 'invocation-message' }, detail))
    : quiet && item.processGroupStopped ? h('div', { class: 'invocation-message' }, PROCESS_GROUP_STOPPED_TEXT) : null,
    item.diff ? renderDiff(item.diff) : null,
    ...requests.map((r) => safely(() => renderBoundary(r, ctx, { subject: r.subject !== item.summary, diff: r.diff !== item.diff }), `boundary card ${r.id}`, ctx.onError)),
    item.output ? copyable(h('pre', { class: 'output' }, item.output), outputCopyLabel(item)) : null,
  );
}

/** The tools whose whole summary is the path of the file they read or change. */
const FILE_TOOLS: ReadonlySet<string> = new Set(['read', 'write', 'Read', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

/** An invocation's `code.summary`: a link to the file for a file tool, else its text with the paths in it linked. */
function summaryOf(item: InvocationItem): HTMLElement {
  const code = h('code', { class: 'summary' }, item.summary);
  const whole = FILE_TOOLS.has(item.tool) ? parseFileReference(item.summary) ?? (item.summary.trim() ? { path: item.summary.trim() } : null) : null;
  if (whole) code.replaceChildren(fileLink(whole, item.summary));
  else linkFiles(code);
  return code;
}

/**
 * Puts a block of plain text in a `.code-block` with a Copy button (`data-action="copy-code"`).
 * The button shows "Copy" but its accessible name (`label`) says what it copies: a screen reader
 * user listing the buttons heard a row of identical "Copy" buttons.
 */
function copyable(pre: HTMLElement, label: string): HTMLElement {
  return h('div', { class: 'code-block' }, pre, button('secondary', { class: 'copy-code', 'data-action': 'copy-code', 'aria-label': label, title: label }, 'Copy'));
}

/** Most characters of a block's first line or a command quoted in a Copy button's accessible name. */
const COPY_LABEL_CHARS = 60;

/** The first non-blank line of `text`, trimmed, cut to `COPY_LABEL_CHARS` with an ellipsis. */
function firstLine(text: string): string {
  const line = text.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  return line.length > COPY_LABEL_CHARS ? `${line.slice(0, COPY_LABEL_CHARS)}…` : line;
}

/** "Copy sh code: npm test": a reply's code block, by its language (when marked) and first line. */
function codeBlockCopyLabel(pre: Element): string {
  const language = /(?:^|\s)language-([\w+#.-]+)/.exec(pre.querySelector('code')?.className ?? '')?.[1];
  const line = firstLine(pre.textContent ?? '');
  return `Copy ${language ? `${language} ` : ''}code${line ? `: ${line}` : ''}`;
}

/** "Copy output of run: ls -la": an invocation's output, by its tool and what it ran or read. */
function outputCopyLabel(item: Pick<InvocationItem, 'tool' | 'summary'>): string {
  const subject = firstLine(item.summary);
  return `Copy output of ${item.tool}${subject ? `: ${subject}` : ''}`;
}

/**
 * Sets the text of every `.elapsed[data-running-since]` under `root` to how long it has run, by the
 * host's clock (`hostClockOffsetMs`: host minus view, ms). Returns how many it found.
 */
export function tickElapsed(root: ParentNode, hostClockOffsetMs: number, now = Date.now()): number {
  const els = root.querySelectorAll<HTMLElement>('.elapsed[data-running-since]');
  els.forEach((el) => {
    const text = elapsedLabel(now + hostClockOffsetMs - Number(el.dataset.runningSince));
    if (el.textContent !== text) el.textContent = text;
  });
  return els.length;
}

/** No request is actionable or busy (an invocation rendered on its own). */
const NO_ACTIONS: ItemContext = { actionableIds: new Set(), busyRequestIds: new Set() };

/** The three decision buttons of an actionable request. */
function decisionButtons(requestId: string, busy: boolean, grants: string | undefined): HTMLElement {
  const decisionButton = (decision: BoundaryDecision, appearance: 'primary' | 'secondary', title?: string) =>
    button(appearance, { 'data-decision': decision, 'data-request-id': requestId, disabled: busy, ...(title ? { title } : {}) }, DECISION_LABELS[decision]);
  return h(
    'div',
    { class: 'boundary-actions' },
    decisionButton('allow_once', 'primary'),
    decisionButton('allow_session', 'secondary', grants ? `Also approves ${grants}` : undefined),
    decisionButton('deny', 'secondary'),
    grants ? h('div', { class: 'grant-scope' }, `“Allow for this session” also approves ${grants.replace(/`/g, '')}.`) : null,
  );
}

/** A card's outcome when the turn's banner tells that a reload or restart closed the request. */
export const RESTART_CLOSED_OUTCOME = 'Closed without an answer';

/**
 * Renders a sandbox boundary request as `.boundary-card[data-request-id]`. `show` leaves out the
 * subject or the diff when the invocation the card sits in already shows them.
 */
export function renderBoundary(item: BoundaryItem, ctx: ItemContext, show: { subject: boolean; diff: boolean } = { subject: true, diff: true }): HTMLElement {
  const state = describeBoundary(item, ctx.actionableIds, ctx.hostLost);
  return h(
    'div',
    { class: `boundary-card boundary-${state.state}`, 'data-request-id': item.id, 'data-state': state.state },
    h('div', { class: 'boundary-head' }, h('span', { class: 'boundary-kind' }, boundaryKindLabel(item.kind))),
    show.subject ? h('div', { class: 'subject' }, h('code', {}, item.subject)) : null,
    item.why ? h('div', { class: 'why' }, item.why) : null,
    item.diff && show.diff ? renderDiff(item.diff) : null,
    state.state === 'actionable'
      ? decisionButtons(item.id, ctx.busyRequestIds.has(item.id), item.grants)
      : ctx.restartTold && item.closureReason === 'host_restarted'
        ? h('div', { class: 'boundary-outcome', title: state.text }, RESTART_CLOSED_OUTCOME)
        : h('div', { class: 'boundary-outcome' }, state.text),
  );
}

/**
 * Renders a notice as `.notice.notice-{level}`. Its text is shown as written except `code spans`
 * (error messages quote commands that way, e.g. `ollama serve`); no other markdown, so a path such
 * as `__init__.py` written without backticks is not turned into bold text.
 */
export function renderNotice(level: 'info' | 'warning' | 'error', message: string): HTMLElement {
  const parts = message.split(/`([^`\n]+)`/).map((part, i) => (i % 2 === 1 ? h('code', {}, part) : part));
  return withSettingLinks(h('div', { class: `notice notice-${level}`, role: level === 'error' ? 'alert' : 'note' }, ...parts));
}

/** `el` with the setting names in its text made links to the Settings editor (`settingLinks.ts`). */
export function withSettingLinks(el: HTMLElement): HTMLElement {
  linkSettings(el);
  return el;
}

/**
 * An item's element as rendered, with what it was rendered from besides the item: the boundary
 * requests drawn inside it (by identity) and the context it showed (`itemKey`).
 */
export interface RenderedItem {
  readonly requests: readonly BoundaryItem[];
  readonly key: string;
  readonly el: HTMLElement;
}

/** Rendered items by item object: a turn rendered again takes back those of its unchanged items (`renderItems`). */
export type RenderedItems = Map<TranscriptItem, RenderedItem>;

/** What of `ctx` an item's element shows: the state of each request card in it, a lost host, a restart banner above. */
function itemKey(item: TranscriptItem, requests: readonly BoundaryItem[], ctx: ItemContext): string {
  const cards = item.type === 'boundary' ? [item, ...requests] : requests;
  const states = cards.map((r) => `${ctx.actionableIds.has(r.id) ? 'a' : '-'}${ctx.busyRequestIds.has(r.id) ? 'b' : '-'}`).join('');
  return `${states}|${ctx.hostLost ? 'l' : ''}${ctx.restartTold ? 'r' : ''}`;
}

/**
 * Renders a turn's items in ledger order. A boundary request made by an invocation of the same turn
 * is drawn inside that invocation (see `renderInvocation`), not as a separate card below its output.
 * `previous`: the items of the turn's element rendered before; an item that is the same object, with
 * the same requests and context, takes its element back instead of being rendered again (the
 * transcript's fold keeps unchanged items' objects): a decision or one more line re-renders that
 * item only. `rendered` gets every item's element.
 */
export function renderItems(items: readonly TranscriptItem[], ctx: ItemContext, previous?: RenderedItems, rendered?: RenderedItems): HTMLElement[] {
  const { invocationIds, requestsOf } = requestsByInvocation(items);
  return items.flatMap((item) => {
    if (item.type === 'boundary' && item.invocationId && invocationIds.has(item.invocationId)) return [];
    const requests = item.type === 'invocation' ? requestsOf.get(item.id) ?? [] : [];
    const key = itemKey(item, requests, ctx);
    const before = previous?.get(item);
    const same = before && before.key === key && before.requests.length === requests.length && before.requests.every((r, i) => r === requests[i]);
    // Each item on its own: one that throws becomes a stand-in box; the others still show.
    const where = `${item.type} item${'id' in item ? ` ${item.id}` : ''}`;
    const el = same ? before.el
      : item.type === 'invocation' ? safely(() => renderInvocation(item, requests, ctx), where, ctx.onError)
      : safely(() => renderItem(item, ctx), where, ctx.onError);
    rendered?.set(item, { requests, key, el });
    return [el];
  });
}

/** Renders any transcript item on its own. */
export function renderItem(item: TranscriptItem, ctx: ItemContext): HTMLElement {
  switch (item.type) {
    case 'text':
      return renderText(item.text);
    case 'invocation':
      return renderInvocation(item, [], ctx);
    case 'boundary':
      return renderBoundary(item, ctx);
    case 'notice':
      return renderNotice(item.level, item.message);
  }
}
