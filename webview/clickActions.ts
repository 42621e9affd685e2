/**
 * What a click in the chat view does (one listener on `#app`, so turns mounted later need none):
 * a decision button (`data-decision`) decides its boundary request; an element with `data-action`
 * retries or continues a turn, copies a code block, opens a setting, a file or a diff, edits the
 * last request, undoes or redoes a turn's files, or acts on the chat (pick, check, repair, dismiss).
 * Each becomes a protocol message through `deps.post`; buttons of a request or turn are disabled at
 * once and marked busy in the state until the host answers.
 */
import type { AttachmentRef } from '../src/core/attachments';
import { BOUNDARY_DECISIONS, isOneOf, type BoundaryDecision } from '../src/core/vocabulary';
import type { WebviewMessage } from '../src/protocol/messages';
import { fileToOpen } from './fileLinks';
import { settingToOpen } from './settingLinks';
import { dismissError, markBusy, requestBusyKey, turnBusyKey, type ViewState } from './state';

/** What the click handler works with (`ChatView` wires these to the view). */
export interface ClickDeps {
  /** The view's root: the buttons of one request are disabled under it. */
  readonly root: ParentNode;
  readonly post: (message: WebviewMessage) => void;
  readonly state: () => ViewState;
  readonly setState: (next: ViewState) => void;
  readonly focusComposer: () => void;
  /** Keeps the view at the bottom (a Retry or Continue's reply follows). */
  readonly pinToBottom: () => void;
  /** Starts editing request `turnId` with its text and attachments in the composer. */
  readonly startEdit: (turnId: string, text: string, refs: readonly AttachmentRef[]) => void;
  readonly cancelEdit: () => void;
  /** Says `text` through the view's polite status region (a Copy button's name is what it copies, not "Copied"). */
  readonly announce: (text: string) => void;
}

/** How long (ms) a Copy button says "Copied". */
const COPIED_MS = 1500;

/** Handles one click anywhere in the view (see module docstring). */
export function handleClick(event: MouseEvent, deps: ClickDeps): void {
  const target = event.target instanceof Element ? event.target : null;
  const decisionEl = target?.closest<HTMLElement>('[data-decision]');
  if (decisionEl) return decide(decisionEl, deps);
  const actionEl = target?.closest<HTMLElement>('[data-action]');
  if (!actionEl || actionEl.hasAttribute('disabled')) return;
  // Links carry an href only to be focusable: the view acts, the webview does not navigate.
  if (actionEl instanceof HTMLAnchorElement) event.preventDefault();
  act(actionEl, deps);
}

/** A decision button: posts `decide` once, disables the request's three buttons at once. */
function decide(decisionEl: HTMLElement, deps: ClickDeps): void {
  const requestId = decisionEl.dataset.requestId;
  const decision = decisionEl.dataset.decision;
  if (!requestId || !isOneOf<BoundaryDecision>(BOUNDARY_DECISIONS, decision) || decisionEl.hasAttribute('disabled')) return;
  const state = deps.state();
  if (state.busy.has(requestBusyKey(requestId))) return;
  deps.post({ type: 'decide', requestId, decision });
  deps.root.querySelectorAll(`[data-decision][data-request-id="${CSS.escape(requestId)}"]`).forEach((el) => el.setAttribute('disabled', ''));
  deps.setState(markBusy(state, requestBusyKey(requestId)));
  // The clicked button is disabled at once, which dropped the focus: typing went nowhere.
  deps.focusComposer();
}

/** An element with `data-action` (enabled). */
function act(actionEl: HTMLElement, deps: ClickDeps): void {
  const { post } = deps;
  const action = actionEl.dataset.action;
  const turnId = actionEl.dataset.turnId;
  if ((action === 'retry' || action === 'continue') && turnId) {
    const state = deps.state();
    if (state.busy.has(turnBusyKey(turnId))) return;
    post({ type: action, turnId });
    actionEl.setAttribute('disabled', '');
    deps.setState(markBusy(state, turnBusyKey(turnId)));
    deps.pinToBottom();
    // The banner goes with its button: the focus went to the page, and Shift+Tab from there to an old turn.
    deps.focusComposer();
  } else if (action === 'copy-code') {
    copyBlock(actionEl, deps);
  } else if (action === 'open-setting') {
    const id = settingToOpen(actionEl);
    if (id) post({ type: 'openSetting', id });
  } else if (action === 'open-file') {
    const ref = fileToOpen(actionEl);
    if (ref) post({ type: 'openFile', ...ref });
  } else if (action === 'edit-prompt' && turnId) {
    const turn = deps.state().transcript.turns.find((t) => t.id === turnId);
    if (turn) deps.startEdit(turnId, turn.prompt, (turn.attachments ?? []).map(({ kind, path, range }) => ({ kind, path, ...(range ? { range } : {}) })));
  } else if (action === 'cancel-edit') {
    deps.cancelEdit();
  } else if (action === 'open-diff' && turnId && actionEl.dataset.path) {
    post({ type: 'openFileDiff', turnId, path: actionEl.dataset.path });
  } else if ((action === 'undo-files' || action === 'restore-files') && turnId) {
    post({ type: 'undoFiles', turnId, scope: action === 'undo-files' ? 'turn' : 'from_turn' });
  } else if (action === 'redo-files' && actionEl.dataset.undoId) {
    post({ type: 'redoFiles', undoId: actionEl.dataset.undoId });
  } else if (action === 'pick-session') {
    post({ type: 'pickSession' });
  } else if (action === 'check-journal') {
    post({ type: 'checkJournal' });
  } else if (action === 'repair-journal') {
    post({ type: 'repairJournal' });
  } else if (action === 'dismiss-error') {
    deps.setState(dismissError(deps.state()));
  }
}

/** Copies the text of the button's code block (blocks get a Copy button only when their text is all they show: render/items.ts). */
function copyBlock(button: HTMLElement, deps: ClickDeps): void {
  const code = button.closest('.code-block')?.querySelector('pre')?.textContent ?? '';
  navigator.clipboard.writeText(code).then(
    () => {
      button.textContent = 'Copied';
      deps.announce('Copied');
      setTimeout(() => (button.textContent = 'Copy'), COPIED_MS);
    },
    (error: unknown) => deps.setState({ ...deps.state(), error: { code: 'copy_failed', message: `The code could not be copied: ${(error as Error).message}` } }),
  );
}
