/**
 * Entry point of the chat webview (bundled to `dist/webview.js`). Registers the toolkit
 * components, builds the skeleton, asks the host for a snapshot (`ready`), folds every host message
 * into the view state (`state.ts`) and re-renders at most once per animation frame. User actions
 * become protocol messages (`src/protocol/messages.ts`).
 */
import {
  provideVSCodeDesignSystem, vsCodeButton, vsCodeCheckbox, vsCodeDivider, vsCodeProgressRing, vsCodeTextArea,
} from '@vscode/webview-ui-toolkit';
import type { AttachmentRef } from '../src/core/attachments';
import { composerRows, decideSend, isSelectAllKey, isSendKey } from './input';
import { announcementsFor } from './announcer';
import { focusWaitingCard, isShiftTab } from './approvalFocus';
import { buildSkeleton, setFlag } from './layout';
import { ViewOutbox } from './outbox';
import { PromptEdit } from './promptEdit';
import { ComposerAttachments } from './composerAttachments';
import { PanelMemory, type ScrollAnchor } from './panelMemory';
import { ChatRenderer } from './render';
import { tickElapsed } from './render/items';
import { bannerToReveal } from './reveal';
import { MAX_RESTORE_PAGES, restoreStep } from './restore';
import { markRanges, openAround, termRanges } from './highlight';
import { ScrollPin } from './scroll';
import { handleClick } from './clickActions';
import {
  INITIAL_VIEW_STATE, markHostLost, markOlderAsked, olderPageToAsk, reduceHostMessage, sendBlockedReason, viewOf, type ViewState,
} from './state';
import { viewErrorReporter } from './viewErrors';
import { hostMessageProblem } from '../src/protocol/checkHostMessage';
import type { HostMessage } from '../src/protocol/messages';
import { Heartbeat } from './heartbeat';
import { HEARTBEAT } from '../src/protocol/messages';
import { connectHost } from './vscodeApi';
import { timed } from './timing';

// User Timing marks (timing.ts): where a view's start goes.
performance.mark('nac:main');
provideVSCodeDesignSystem().register(vsCodeButton(), vsCodeTextArea(), vsCodeProgressRing(), vsCodeDivider(), vsCodeCheckbox());
performance.mark('nac:toolkit');

const host = connectHost();
const reportError = viewErrorReporter((message) => host.post({ type: 'viewError', message }));
// Whatever escapes the renderer's own isolation goes to the host's log too, not only to a console nobody opens.
window.addEventListener('error', (event) => reportError(event.error ?? event.message, 'uncaught error'));
window.addEventListener('unhandledrejection', (event) => reportError(event.reason, 'unhandled rejection'));
const app = document.getElementById('app') ?? document.body.appendChild(document.createElement('div'));
const sk = buildSkeleton(app);
const scroll = new ScrollPin(sk.transcript, sk.content, (pinned) => setFlag(sk.jumpToLatest, 'hidden', pinned));
const renderer = new ChatRenderer(sk, reportError, {
  atBottom: () => scroll.atBottom, onNearTop: askOlder, onMounted: () => keepTicking(), onQueueAction: (m) => host.post(m),
  onQueueFocusLost: () => sk.composer.focus(),
  onQueueEditLost: (text) => giveBack(text),
  onModelPick: (model) => host.post({ type: 'setModel', model }),
  // The passes a scroll or a resize schedules (a turn rendered taller measures again next frame): measured as the view's work too.
  schedule: (run) => requestAnimationFrame(() => timed('nac:layout', run)),
});
const memory = new PanelMemory(host);
/** Says `text` to a screen reader through the view's polite live region (a new text node each time: the same sentence twice in a row is said again). */
const announce = (text: string): void => void (sk.announcer.textContent = text);
const outbox = new ViewOutbox(memory, (m) => host.post(m));
sk.composer.value = memory.draft;
// Before the composer's send key is wired: the `@` list takes Enter, Tab, arrows and Escape first.
const attachments = new ComposerAttachments({
  composerBox: sk.composerBox, composer: sk.composer, dropZone: app, post: (m) => host.post(m),
  announce,
  showError: (message) => setState({ ...state, error: { code: 'not_attached', message } }),
  kept: memory.draftAttachments, keep: (refs) => memory.saveDraftAttachments(refs),
});
const promptEdit = new PromptEdit(sk.composer, (text) => (memory.saveDraft(text), fitComposer()), attachments);
sk.composerBox.prepend(promptEdit.bar);
// 'input' as the user types; 'change' also after a paste or a programmatic edit is committed.
for (const kind of ['input', 'change']) sk.composer.addEventListener(kind, () => (memory.saveDraft(sk.composer.value ?? ''), fitComposer()));

/** Grows the composer with its text (up to `COMPOSER_ROWS.max` rows) and shrinks it back when it empties. */
function fitComposer(): void {
  const rows = composerRows(sk.composer.value ?? '');
  const el = sk.composer as unknown as { rows: number };
  if (el.rows !== rows) el.rows = rows;
}
fitComposer(); // a draft kept from before the view was rebuilt
/**
 * A turn the view is getting to (`restore.ts`): the kept place of a rebuilt view, the place read before
 * a resync, or a search result (`terms`: the words to mark); `pages`: older pages asked for so far.
 */
interface Goal {
  readonly anchor: ScrollAnchor;
  pages: number;
  readonly maxPages: number;
  readonly terms?: readonly string[];
}
let goal: Goal | undefined;
/** A search result's turn and words, marked after the render that draws it. */
let toMark: { readonly turnId: string; readonly terms: readonly string[] } | undefined;
/** How far (px) below the top of the view a revealed search result's turn starts. */
const REVEAL_MARGIN_PX = 40;
let scrollSave = 0;
sk.transcript.addEventListener('scroll', () => {
  // The end shown while older pages load is not where the user was: the kept place stays.
  if (scrollSave || goal) return;
  // At most every 250 ms, not every frame: each save is a `setState` message to the workbench,
  // which shares the view's thread while the user scrolls.
  scrollSave = window.setTimeout(() => {
    scrollSave = 0;
    memory.saveScroll(scroll.atBottom ? undefined : renderer.virtual.anchor());
  }, 250);
}, { passive: true });

let state: ViewState = INITIAL_VIEW_STATE;
let frame = 0;
/** A snapshot came since the last render: its render gets a User Timing mark. */
let markRender = false;
const heartbeat = new Heartbeat();

/** Re-renders on the next animation frame (many messages in one frame cost one render). */
function schedule(): void {
  if (frame) return;
  frame = requestAnimationFrame(() => timed('nac:render', () => {
    frame = 0;
    try {
      renderer.render(viewOf(state));
      if (markRender) performance.mark('nac:snapshot-rendered');
      markRender = false;
    } finally {
      // Scrolling and the elapsed times go on even if something escaped the renderer.
      scroll.restore();
      revealRestartBanner();
      markSearch();
      keepTicking();
    }
  }));
}

/**
 * Asks the host for the page of turns before the oldest loaded one (the user scrolled near it), once
 * per oldest turn until the page comes. The page changes nothing on screen yet, so no render.
 */
function askOlder(): void {
  const before = olderPageToAsk(state);
  if (!before) return;
  host.post({ type: 'loadOlder', before });
  state = markOlderAsked(state, before);
}

/** Marks a revealed search result's words once its turn is drawn, and brings the first into sight. */
function markSearch(): void {
  if (!toMark) return;
  const el = sk.content.querySelector(`section.turn[data-turn-id="${CSS.escape(toMark.turnId)}"]`);
  if (!el) return;
  const ranges = termRanges(el, toMark.terms);
  toMark = undefined;
  openAround(el, ranges);
  markRanges(window, ranges);
  if (ranges[0]) scroll.reveal(ranges[0]);
}

/** Brings a restart banner the user has not been shown into sight, once per tab (`reveal.ts`). */
function revealRestartBanner(): void {
  const banner = bannerToReveal(sk.content, memory.bannerShown);
  if (!banner || !banner.isConnected) return;
  scroll.reveal(banner);
  memory.saveBannerShown(banner.dataset.turnId ?? '');
}

/** Advances running invocations' elapsed times once a second, while there are any. */
let ticker = 0;
function keepTicking(): void {
  const running = tickElapsed(sk.content, state.hostClockOffsetMs);
  if (running > 0 && !ticker) ticker = window.setInterval(keepTicking, 1000);
  else if (running === 0 && ticker) {
    window.clearInterval(ticker);
    ticker = 0;
  }
}

function setState(next: ViewState): void {
  if (next === state) return;
  const said = announcementsFor(state, next);
  if (said.length > 0) announce(said.join(' '));
  state = next;
  schedule();
}

window.addEventListener('message', (event: MessageEvent<unknown>) => timed('nac:message', () => receive(event)));

/** Applies one message from the host (or reports why not). */
function receive(event: MessageEvent<unknown>): void {
  const problem = hostMessageProblem(event.data);
  const message = event.data as HostMessage;
  if (problem !== null) {
    // Only the host posts to this view, so it is alive; what it sent is not applied, and its log says why.
    if (typeof (event.data as { type?: unknown } | null)?.type === 'string') heartbeat.answered();
    reportError(new Error(`a malformed message from the extension host was ignored: ${problem}`), 'host message');
    return;
  }
  heartbeat.answered();
  const previous = state;
  // Back from silence: what happened meanwhile is in the journal, not in the messages missed.
  if (previous.hostLost) host.post({ type: 'ready' });
  setState(reduceHostMessage(state, message));
  // A message was missed (a gap in `seq`): ask once for the whole state; the rest goes on meanwhile.
  if (state.seq.resyncAsked && !previous.seq.resyncAsked) host.post({ type: 'resync' });
  if ((message.type === 'succeeded' || message.type === 'error') && message.clientId) acknowledge(message);
  if (message.type === 'completions' || message.type === 'attach') attachments.receive(message);
  if (message.type === 'announce') announce(message.text);
  if (message.type === 'snapshot') {
    performance.mark('nac:snapshot');
    markRender = true;
    if (memory.showSession(message.session.id)) {
      sk.composer.value = '';
      fitComposer();
      attachments.take();
    }
    if (previous.session?.id !== message.session.id) {
      // The header's model picker: what the chat's provider offers (the local agent offers nothing).
      if (message.session.provider !== 'local') host.post({ type: 'listModels' });
      // A view rebuilt before the host answered what it posted posts it again, with the same ids.
      outbox.resend();
      // A view rebuilt after its tab was hidden (or the window reloaded) goes back to where the user
      // read (`restore.ts`); it shows the end until that turn is loaded.
      const kept = previous.session === null ? memory.scrollAnchor : undefined;
      // (A search result asked for before the chat came goes first.)
      if (!goal?.terms) goal = kept ? { anchor: kept, pages: 0, maxPages: MAX_RESTORE_PAGES } : undefined;
      scroll.pin();
    } else if (!scroll.atBottom && !goal) {
      // Another snapshot of this chat (a resync, the host back) holds only its last page: the view
      // gets back to the turn being read the same way. (The layout is still the one on screen.)
      const reading = renderer.virtual.anchor();
      goal = reading ? { anchor: reading, pages: 0, maxPages: MAX_RESTORE_PAGES } : undefined;
    }
  }
  if (message.type === 'reveal') {
    // A search result: however far up, a page at a time.
    goal = { anchor: { turnId: message.at.id, offset: -REVEAL_MARGIN_PX }, pages: 0, maxPages: Number.POSITIVE_INFINITY, terms: message.terms };
  }
  if (goal && (message.type === 'snapshot' || message.type === 'page' || message.type === 'reveal')) continueToGoal(goal);
}

/**
 * The host answered a message of the outbox or an action on a queued one: it is no longer kept. A
 * refused one (a send, an edit) gives its text back in the composer — after what is there, if
 * anything — so that nothing typed is lost; the error bar says why.
 */
function acknowledge(message: Extract<HostMessage, { type: 'succeeded' | 'error' }>): void {
  const clientId = message.clientId!;
  const posted = outbox.answered(clientId);
  const edited = message.type === 'error' && message.action === 'editQueued' ? renderer.queue.takeRefusedEdit(clientId) : undefined;
  renderer.queue.answered(clientId);
  // A refused edit and resend goes back into the edit mode, so that Send replaces the request again.
  if (message.type === 'error' && posted?.replacesTurnId && resumeEdit(posted.replacesTurnId, posted.text, posted.attachments)) return;
  const back = message.type === 'error' ? posted?.text ?? edited : undefined;
  if (back !== undefined) giveBack(back);
  // A refused message's attachments go back to the composer too.
  if (message.type === 'error' && posted?.attachments.length) attachments.add(posted.attachments);
}

/**
 * Puts a refused edit of `turnId` back in the edit mode (text, chips, the offer to undo its files)
 * when the composer is empty and that request is still the chat's last; else false (the text is
 * given back as any refused message's).
 */
function resumeEdit(turnId: string, text: string, refs: readonly AttachmentRef[]): boolean {
  if ((sk.composer.value ?? '').trim() || attachments.attachments.length || state.transcript.turns.at(-1)?.id !== turnId) return false;
  startEdit(turnId, text, refs);
  return true;
}

/** Starts editing request `turnId` with `text` and `refs` in the composer (see PromptEdit). */
function startEdit(turnId: string, text: string, refs: readonly AttachmentRef[]): void {
  const files = state.files.get(turnId);
  promptEdit.start(turnId, text, { attachments: refs, changedFiles: files && files.undoneBy === null ? files.files.length : 0 });
}

/** Gives text the user typed back in the composer, after what is there (the draft is saved). */
function giveBack(text: string): void {
  const now = sk.composer.value ?? '';
  sk.composer.value = now.trim() ? `${now}\n\n${text}` : text;
  memory.saveDraft(sk.composer.value);
  fitComposer();
}

/** Takes the next step to the goal: scroll there (and mark a search's words), ask for an older page, or give up. */
function continueToGoal(g: Goal): void {
  const step = restoreStep(state, g.anchor, g.pages, g.maxPages);
  if (step.kind === 'wait') return;
  if (step.kind === 'load') {
    host.post({ type: 'loadOlder', before: step.before });
    state = markOlderAsked(state, step.before);
    g.pages++;
    return;
  }
  goal = undefined;
  if (step.kind !== 'restore') return;
  scroll.release();
  renderer.virtual.restoreTo(step.anchor);
  if (g.terms) toMark = { turnId: step.anchor.turnId, terms: g.terms };
  schedule();
}

/** Sends the composer's text if it may be sent (the host queues it while the agent works), then clears it. */
function send(): void {
  const decision = decideSend(sk.composer.value ?? '', sendBlockedReason(state));
  if (decision.kind === 'ignore') return;
  if (decision.kind === 'refuse') {
    setState({ ...state, error: { code: decision.code ?? 'not_sent', message: decision.reason } });
    return;
  }
  const edit = promptEdit.finish();
  outbox.send(decision.text, { replacesTurnId: edit?.turnId, undoReplacedFiles: edit?.undoFiles, attachments: attachments.take() });
  sk.composer.value = '';
  memory.saveDraft('');
  fitComposer();
  scroll.pin();
  sk.composer.focus();
}

sk.composer.addEventListener('keydown', (event: KeyboardEvent) => {
  // The browser selects all in the text box at once; not forwarded, VS Code does not do it again later.
  if (isSelectAllKey(event)) return event.stopPropagation();
  if (event.key === 'Escape' && promptEdit.turnId) {
    event.preventDefault();
    return promptEdit.cancel();
  }
  if (isShiftTab(event) && focusWaitingCard({
    content: sk.content,
    waiting: () => state.mode === 'chat' && state.live.actionableRequestIds.length > 0,
    toEnd: () => {
      scroll.pin();
      renderer.virtual.relayout();
    },
  })) return event.preventDefault();
  if (!isSendKey(event)) return;
  event.preventDefault();
  if (!sk.send.hasAttribute('disabled')) send();
});
sk.jumpToLatest.addEventListener('click', () => {
  scroll.pin();
  // The button hides once at the bottom: focus goes where the user most likely continues.
  sk.composer.focus();
});
sk.send.addEventListener('click', () => {
  if (!sk.send.hasAttribute('disabled')) send();
});
sk.queueSend.addEventListener('click', () => {
  if (sk.queueSend.hasAttribute('disabled')) return;
  send();
  sk.composer.focus();
});
sk.stop.addEventListener('click', () => {
  if (sk.stop.hasAttribute('disabled')) return;
  host.post({ type: 'stop' });
  // Stop is hidden once the run ends, which dropped the focus: Enter then did nothing.
  sk.composer.focus();
});

app.addEventListener('click', (event) => handleClick(event, {
  root: app,
  post: (m) => host.post(m),
  state: () => state,
  setState,
  focusComposer: () => sk.composer.focus(),
  pinToBottom: () => scroll.pin(),
  startEdit,
  cancelEdit: () => promptEdit.cancel(),
  announce,
}));

renderer.render(state);
host.post({ type: 'ready' });
performance.mark('nac:ready');
window.setInterval(() => {
  const beat = heartbeat.tick(Date.now());
  if (beat.lost) setState(markHostLost(state));
  if (beat.ping) host.post({ type: 'ping' });
}, HEARTBEAT.intervalMs);
// The composer takes the focus when the view has it (the user opened or activated the tab), not
// merely because the view loaded: a tab restored in the background after a reload took the focus
// from what the user was doing there (an open quick pick closed).
window.addEventListener('focus', () => {
  if (!document.activeElement || document.activeElement === document.body) sk.composer.focus();
});
if (document.hasFocus()) sk.composer.focus();
