/**
 * The chat view: builds the skeleton in its root element, folds every host message into its
 * `ViewState` (`state.ts`) and re-renders at most once per animation frame; user actions become
 * protocol messages (`src/protocol/messages.ts`). Everything it talks to is handed to it — where
 * messages go (`post`), where the tab's state is kept (`store`, VS Code's `setState`/`getState`),
 * the renderer, and the timers and clock (`ViewTiming`) — so it runs on happy-dom in the unit
 * tests; `main.ts` hands it the real ones. It holds no module-level state: each instance is a view.
 *
 * A host message is checked (`hostMessageProblem`), applied to the state, and then dispatched by
 * one lookup in the view's handler table (`messageEffects.ts`).
 */
import type { TurnCursor } from '../src/core/transcript';
import { hostMessageProblem } from '../src/protocol/checkHostMessage';
import { HEARTBEAT, type HostMessage, type WebviewMessage } from '../src/protocol/messages';
import { dispatchMessage } from '../src/protocol/handlerTable';
import type { HostMessageOf } from '../src/protocol/viewHandlers';
import { announcementsFor } from './announcer';
import { handleClick } from './clickActions';
import { Composer } from './composer';
import { Heartbeat } from './heartbeat';
import { buildSkeleton, setFlag, type Skeleton } from './layout';
import { VIEW_HANDLERS, type MessageEffects } from './messageEffects';
import { PanelMemory, type StateStore } from './panelMemory';
import { ReadingGoal } from './readingGoal';
import { ChatRenderer, type RendererOptions } from './render';
import type { RenderErrorSink } from './render/failed';
import { tickElapsed } from './render/items';
import { bannerToReveal } from './reveal';
import { ScrollPin } from './scroll';
import { INITIAL_VIEW_STATE, markHostLost, markOlderAsked, olderPageToAsk, reduceHostMessage, viewOf, type ViewState } from './state';
import { viewErrorReporter } from './viewErrors';

/** The view's timers, clock and User Timing (the browser's in `main.ts`; a test's own in the unit tests). */
export interface ViewTiming {
  /** The clock, ms since the epoch (the heartbeat's). */
  now(): number;
  /** Runs `run` before the next paint; returns a non-zero id. */
  requestAnimationFrame(run: () => void): number;
  /** Runs `run` once after `ms`; returns a non-zero id. */
  setTimeout(run: () => void, ms: number): number;
  /** Runs `run` every `ms`; returns a non-zero id for `clearInterval`. */
  setInterval(run: () => void, ms: number): number;
  clearInterval(id: number): void;
  /** Runs `work` and records it as a User Timing measure `name` (`timing.ts`); returns what it returns. */
  timed<T>(name: string, work: () => T): T;
  /** Sets a User Timing mark `name`. */
  mark(name: string): void;
}

/** Makes the view's renderer for its skeleton (default: a `ChatRenderer`). */
export type RendererFactory = (sk: Skeleton, onError: RenderErrorSink, options: RendererOptions) => ChatRenderer;

/** What a chat view is built with. */
export interface ChatViewDeps {
  /** The element the view fills (its skeleton replaces the children). */
  readonly app: HTMLElement;
  /** Posts a message to the extension host (VS Code's `postMessage`). */
  readonly post: (message: WebviewMessage) => void;
  /** Where the tab's state is kept across a rebuilt view (VS Code's `getState`/`setState`). */
  readonly store: StateStore;
  readonly timing: ViewTiming;
  readonly renderer?: RendererFactory;
  /** Where the view's errors go (default: `viewError` messages through `post`, `viewErrorReporter`). */
  readonly reportError?: (error: unknown, where: string) => void;
  /** Makes a sent message's client id (default: a random UUID). */
  readonly makeClientId?: () => string;
}

/** How long (ms) the transcript's scroll position waits before it is saved: each save is a `setState` the workbench handles on the view's thread. */
const SCROLL_SAVE_MS = 250;
/** How often (ms) running invocations' elapsed times advance. */
const TICK_MS = 1000;

/** One chat view (see module docstring). */
export class ChatView {
  private readonly reportError: (error: unknown, where: string) => void;
  private readonly sk: Skeleton;
  private readonly scroll: ScrollPin;
  private readonly renderer: ChatRenderer;
  private readonly memory: PanelMemory;
  private readonly composer: Composer;
  private readonly goal: ReadingGoal;
  private readonly heartbeat = new Heartbeat();
  private readonly effects: MessageEffects;
  private state: ViewState = INITIAL_VIEW_STATE;
  /** The pending animation frame's id (0: none). */
  private frame = 0;
  /** The pending scroll save's timer (0: none). */
  private scrollSave = 0;
  /** The elapsed times' interval (0: none runs). */
  private ticker = 0;
  /** A snapshot came since the last render: its render gets a User Timing mark. */
  private markRender = false;

  /** Builds the view in `deps.app` and wires its elements; `start` then asks the host for the chat. */
  constructor(private readonly deps: ChatViewDeps) {
    const { app, timing } = deps;
    this.reportError = deps.reportError ?? viewErrorReporter((message) => deps.post({ type: 'viewError', message }));
    const sk = (this.sk = buildSkeleton(app));
    this.scroll = new ScrollPin(sk.transcript, sk.content, (pinned) => setFlag(sk.jumpToLatest, 'hidden', pinned));
    const makeRenderer = deps.renderer ?? ((s, onError, options) => new ChatRenderer(s, onError, options));
    this.renderer = makeRenderer(sk, this.reportError, {
      atBottom: () => this.scroll.atBottom, onNearTop: () => this.askOlder(), onMounted: () => this.keepTicking(), onQueueAction: (m) => deps.post(m),
      onQueueFocusLost: () => this.composer.focus(),
      onQueueEditLost: (text) => this.composer.giveBack(text),
      onModelPick: (model) => deps.post({ type: 'setModel', model }),
      // The passes a scroll or a resize schedules (a turn rendered taller measures again next frame): measured as the view's work too.
      schedule: (run) => timing.requestAnimationFrame(() => timing.timed('nac:layout', run)),
    });
    this.memory = new PanelMemory(deps.store);
    this.composer = new Composer({
      sk, memory: this.memory, post: deps.post, announce: (text) => this.announce(text),
      state: () => this.state, setState: (next) => this.setState(next),
      pinToBottom: () => this.scroll.pin(),
      toEnd: () => {
        this.scroll.pin();
        this.renderer.virtual.relayout();
      },
      queue: this.renderer.queue,
      ...(deps.makeClientId ? { makeClientId: deps.makeClientId } : {}),
    });
    this.goal = new ReadingGoal({
      state: () => this.state, askOlder: (before) => this.postLoadOlder(before), scroll: this.scroll,
      restoreTo: (anchor) => this.renderer.virtual.restoreTo(anchor), content: sk.content, schedule: () => this.schedule(),
    });
    this.effects = {
      showSnapshot: (message, previous) => this.showSnapshot(message, previous),
      stepToGoal: () => this.goal.step(),
      reveal: (message) => {
        this.goal.reveal(message.at, message.terms);
        this.goal.step();
      },
      acknowledge: (message) => this.composer.acknowledge(message),
      attach: (message) => this.composer.attachments.receive(message),
      announce: (text) => this.announce(text),
    };
    sk.transcript.addEventListener('scroll', () => this.saveScrollSoon(), { passive: true });
    app.addEventListener('click', (event) => handleClick(event, {
      root: app,
      post: deps.post,
      state: () => this.state,
      setState: (next) => this.setState(next),
      focusComposer: () => this.composer.focus(),
      pinToBottom: () => this.scroll.pin(),
      startEdit: (turnId, text, refs) => this.composer.startEdit(turnId, text, refs),
      cancelEdit: () => this.composer.cancelEdit(),
      announce: (text) => this.announce(text),
    }));
  }

  /** The state the view renders from (read-only: it changes only by host messages and the user's actions). */
  get viewState(): ViewState {
    return this.state;
  }

  /**
   * Draws the empty view, asks the host for the chat (`ready`) and starts the heartbeat.
   * `focused`: the view has the focus now (the composer takes it; a tab restored in the background does not).
   */
  start(focused: boolean): void {
    const { timing } = this.deps;
    this.renderer.render(this.state);
    this.deps.post({ type: 'ready' });
    timing.mark('nac:ready');
    timing.setInterval(() => this.beat(), HEARTBEAT.intervalMs);
    if (focused) this.composer.focus();
  }

  /**
   * The view got the focus (the user opened or activated the tab): the composer takes it unless
   * something in the view has it. Not merely because the view loaded: a tab restored in the background
   * after a reload took the focus from what the user was doing there (an open quick pick closed).
   */
  focused(): void {
    const active = this.sk.app.ownerDocument.activeElement;
    if (!active || active === this.sk.app.ownerDocument.body) this.composer.focus();
  }

  /** Applies one message from the host (`data`: what `postMessage` carried), or reports why not; measured as `nac:message`. */
  receive(data: unknown): void {
    this.deps.timing.timed('nac:message', () => this.apply(data));
  }

  private apply(data: unknown): void {
    const problem = hostMessageProblem(data);
    if (problem !== null) {
      // Only the host posts to this view, so it is alive; what it sent is not applied, and its log says why.
      if (typeof (data as { type?: unknown } | null)?.type === 'string') this.heartbeat.answered();
      this.reportError(new Error(`a malformed message from the extension host was ignored: ${problem}`), 'host message');
      return;
    }
    const message = data as HostMessage;
    this.heartbeat.answered();
    const previous = this.state;
    // Back from silence: what happened meanwhile is in the journal, not in the messages missed.
    if (previous.hostLost) this.deps.post({ type: 'ready' });
    this.setState(reduceHostMessage(this.state, message));
    // A message was missed (a gap in `seq`): ask once for the whole state; the rest goes on meanwhile.
    if (this.state.seq.resyncAsked && !previous.seq.resyncAsked) this.deps.post({ type: 'resync' });
    dispatchMessage(VIEW_HANDLERS, message, { view: this.effects, previous });
  }

  /** A snapshot: a chat shown for the first time (or another chat) goes back to where the user read; the same chat again keeps the turn being read. */
  private showSnapshot(message: HostMessageOf<'snapshot'>, previous: ViewState): void {
    this.deps.timing.mark('nac:snapshot');
    this.markRender = true;
    if (this.memory.showSession(message.session.id)) this.composer.clear();
    if (previous.session?.id !== message.session.id) {
      // The header's model picker: what the chat's provider offers (the local agent offers nothing).
      if (message.session.provider !== 'local') this.deps.post({ type: 'listModels' });
      // A view rebuilt before the host answered what it posted posts it again, with the same ids.
      this.composer.resend();
      // A view rebuilt after its tab was hidden (or the window reloaded) goes back to where the user
      // read (`restore.ts`); it shows the end until that turn is loaded.
      this.goal.forNewChat(previous.session === null ? this.memory.scrollAnchor : undefined);
      this.scroll.pin();
    } else if (!this.scroll.atBottom && !this.goal.active) {
      // Another snapshot of this chat (a resync, the host back) holds only its last page: the view
      // gets back to the turn being read the same way. (The layout is still the one on screen.)
      this.goal.backTo(this.renderer.virtual.anchor());
    }
    this.goal.step();
  }

  /** Changes the state: says what changed to a screen reader and renders on the next frame. */
  private setState(next: ViewState): void {
    if (next === this.state) return;
    const said = announcementsFor(this.state, next);
    if (said.length > 0) this.announce(said.join(' '));
    this.state = next;
    this.schedule();
  }

  /** Re-renders on the next animation frame (many messages in one frame cost one render). */
  private schedule(): void {
    if (this.frame) return;
    const { timing } = this.deps;
    this.frame = timing.requestAnimationFrame(() => timing.timed('nac:render', () => {
      this.frame = 0;
      try {
        this.renderer.render(viewOf(this.state));
        if (this.markRender) timing.mark('nac:snapshot-rendered');
        this.markRender = false;
      } finally {
        // Scrolling and the elapsed times go on even if something escaped the renderer.
        this.scroll.restore();
        this.revealRestartBanner();
        this.goal.markSearch();
        this.keepTicking();
      }
    }));
  }

  /** Says `text` to a screen reader through the view's polite live region (a new text node each time: the same sentence twice in a row is said again). */
  private announce(text: string): void {
    this.sk.announcer.textContent = text;
  }

  /**
   * Asks the host for the page of turns before the oldest loaded one (the user scrolled near it), once
   * per oldest turn until the page comes.
   */
  private askOlder(): void {
    const before = olderPageToAsk(this.state);
    if (before) this.postLoadOlder(before);
  }

  /**
   * Posts `loadOlder` and records it as asked. The state changes without `setState`: the page asked
   * for changes nothing on screen yet, so no render and nothing to announce.
   */
  private postLoadOlder(before: TurnCursor): void {
    this.deps.post({ type: 'loadOlder', before });
    this.state = markOlderAsked(this.state, before);
  }

  /** Saves where the user reads, at most every `SCROLL_SAVE_MS` (not every frame). */
  private saveScrollSoon(): void {
    // The end shown while older pages load is not where the user was: the kept place stays.
    if (this.scrollSave || this.goal.active) return;
    this.scrollSave = this.deps.timing.setTimeout(() => {
      this.scrollSave = 0;
      this.memory.saveScroll(this.scroll.atBottom ? undefined : this.renderer.virtual.anchor());
    }, SCROLL_SAVE_MS);
  }

  /** Brings a restart banner the user has not been shown into sight, once per tab (`reveal.ts`). */
  private revealRestartBanner(): void {
    const banner = bannerToReveal(this.sk.content, this.memory.bannerShown);
    if (!banner || !banner.isConnected) return;
    this.scroll.reveal(banner);
    this.memory.saveBannerShown(banner.dataset.turnId ?? '');
  }

  /** Advances running invocations' elapsed times once a second, while there are any. */
  private keepTicking(): void {
    const running = tickElapsed(this.sk.content, this.state.hostClockOffsetMs);
    if (running > 0 && !this.ticker) this.ticker = this.deps.timing.setInterval(() => this.keepTicking(), TICK_MS);
    else if (running === 0 && this.ticker) {
      this.deps.timing.clearInterval(this.ticker);
      this.ticker = 0;
    }
  }

  /** One heartbeat (every `HEARTBEAT.intervalMs`): pings, and says so when the host stopped answering. */
  private beat(): void {
    const beat = this.heartbeat.tick(this.deps.timing.now());
    if (beat.lost) this.setState(markHostLost(this.state));
    if (beat.ping) this.deps.post({ type: 'ping' });
  }
}
