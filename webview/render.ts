/**
 * Renders a `ViewState` into the skeleton. Turns are cached by identity (the reducer returns new
 * objects only for changed turns) plus a context key, so an update re-renders only the turns it
 * touched and leaves the others' DOM (and any text selection in them) alone. Only the turns near the
 * viewport are rendered and in the DOM (`render/virtual.ts`): an update to a turn out of sight
 * changes no DOM.
 */
import type { Transcript, TranscriptTurn } from '../src/core/transcript';
import { SANDBOXED_COMMAND_PROVIDERS } from '../src/core/vocabulary';
import { renderHeader, renderLoading, renderOrphan, renderWelcome } from './render/chrome';
import { safely, type RenderErrorSink } from './render/failed';
import { followOutputs, OutputScrollTracker } from './render/follow';
import { QueueView, type QueueMessage } from './render/queue';
import { ModelPicker } from './render/modelPicker';
import { h } from './dom';
import { renderTurn, turnKey, type TurnContext } from './render/turn';
import { turnFactsOf, type TurnFacts } from './render/turnFacts';
import { VirtualTranscript, type VirtualOptions } from './render/virtual';
import { composerPlaceholder } from './input';
import { setFlag, type Skeleton } from './layout';
import { linkSettings } from './settingLinks';
import { requestBusyKey, turnBusyKey, type ViewState } from './state';

/** Most turn elements kept rendered (mounted or not): scrolling back and forth reuses them. */
const CACHED_TURNS = 200;
const REQUEST_BUSY_PREFIX = requestBusyKey('');

interface CachedTurn {
  readonly turn: TranscriptTurn;
  readonly key: string;
  readonly el: HTMLElement;
}

/** How the renderer draws and where the user's actions in what it draws go. */
export interface RendererOptions extends VirtualOptions {
  /** A button of the queue was pressed (Edit saved, Remove, Send now…): post it to the host. */
  readonly onQueueAction?: (message: QueueMessage) => void;
  /** The focused queued message left an empty queue: where the focus goes (the composer). */
  readonly onQueueFocusLost?: () => void;
  /** A queued message left the queue with a changed text still in its editor: where that text goes (the composer). */
  readonly onQueueEditLost?: (text: string) => void;
  /** The user picked a model in the header (null: the provider's default): post it to the host. */
  readonly onModelPick?: (model: string | null) => void;
}

/** Renders view states into one skeleton, remembering what it rendered last. */
export class ChatRenderer {
  private readonly turns = new Map<string, CachedTurn>();
  private headerKey = '';
  private welcome: HTMLElement | undefined;
  private loading: HTMLElement | undefined;
  private welcomeFor: string | undefined;
  private facts: TurnFacts | undefined;
  /** The window of turns in the DOM (`render/virtual.ts`). */
  readonly virtual: VirtualTranscript;
  /** The queue under the transcript (`render/queue.ts`). */
  readonly queue: QueueView;
  /** The model picker in the header (`render/modelPicker.ts`), kept apart from the header's other parts. */
  readonly picker: ModelPicker;
  /** The header's parts other than the picker, replaced when they change. */
  private readonly headerMain: HTMLElement;

  /**
   * Creates a renderer for a skeleton built by `buildSkeleton`. `onError` is told about every part
   * that threw while rendering (that part is left out or shown as a stand-in box). `options`: how the
   * virtualized transcript measures, follows the bottom and asks for older turns (`VirtualOptions`),
   * and where the queue's actions go.
   */
  constructor(private readonly sk: Skeleton, private readonly onError?: RenderErrorSink, options: RendererOptions = {}) {
    const { onQueueAction, onQueueFocusLost, onQueueEditLost, onModelPick, ...virtual } = options;
    this.picker = new ModelPicker((model) => onModelPick?.(model));
    this.headerMain = h('span', { class: 'header-main' });
    sk.header.replaceChildren(this.headerMain, this.picker.element);
    this.queue = new QueueView(sk.queue, (message) => onQueueAction?.(message), () => onQueueFocusLost?.(), (text) => onQueueEditLost?.(text));
    this.outputs = new OutputScrollTracker(sk.content);
    this.virtual = new VirtualTranscript(sk.transcript, sk.content, {
      ...virtual,
      // Output boxes keep their scroll positions (or follow a running command's end) across every change.
      aroundWrite: (write) => {
        const stayed = new Set<Node>(sk.content.children);
        write();
        followOutputs(sk.content, this.outputs.positions, stayed);
      },
    });
  }

  /**
   * Brings the DOM in line with `state`. Never touches the composer's text or focus. Never throws:
   * each part (header, each turn, bars, composer) renders on its own, so the composer and the bars
   * follow the state even when a turn cannot be drawn.
   */
  render(state: ViewState): void {
    this.part('the frame', () => {
      const orphan = state.mode === 'orphan';
      setFlag(this.sk.header, 'hidden', orphan);
      setFlag(this.sk.transcript, 'hidden', orphan);
      setFlag(this.sk.composerBox, 'hidden', orphan);
      setFlag(this.sk.orphan, 'hidden', !orphan);
      if (orphan && !this.sk.orphan.firstChild) this.sk.orphan.appendChild(renderOrphan());
    });
    this.part('the header', () => this.renderHeader(state));
    this.part('the transcript', () => this.renderTranscript(state));
    this.part('the queue', () => this.queue.render(state.mode === 'chat' ? state.queue : [], {
      running: state.mode === 'chat' && state.live.running,
      locked: state.hostLost || (state.mode === 'chat' && !!state.live.readOnlyReason),
    }));
    this.part('the bars', () => this.renderBars(state));
    this.part('the composer', () => this.renderComposer(state));
  }

  /** Runs one part of a render; a throw is reported and the next part still renders. */
  private part(where: string, render: () => void): void {
    try {
      render();
    } catch (error) {
      try {
        this.onError?.(error, where);
      } catch {
        // A failing reporter must not stop the render.
      }
    }
  }

  private renderHeader(state: ViewState): void {
    this.picker.render(state.mode === 'chat' ? state.session : null, state.models, state.hostLost || (state.mode === 'chat' && !!state.live.readOnlyReason));
    // The local agent's verbs only make sense for the local agent.
    const local = (state.session?.provider ?? 'local') === 'local';
    const placeholder = composerPlaceholder(local, state.live.running, state.live.actionableRequestIds.length > 0);
    if (this.sk.composer.getAttribute('placeholder') !== placeholder) this.sk.composer.setAttribute('placeholder', placeholder);
    // Built again only when what it shows changed: its badges are toolkit elements, built at each connect.
    const key = JSON.stringify([state.session?.title, state.session?.provider, state.live.running]);
    if (key === this.headerKey) return;
    this.headerKey = key;
    this.headerMain.replaceChildren(...renderHeader(state.session, state.live.running));
  }

  private renderTranscript(state: ViewState): void {
    const content = this.sk.content;
    if (state.mode !== 'chat' || state.transcript.turns.length === 0) {
      this.turns.clear();
      this.outputs.retain(() => false);
      this.virtual.reset();
      this.shown = undefined;
      const shown = state.mode === 'loading' ? (this.loading ??= renderLoading()) : state.mode === 'chat' ? this.welcomeOf(state) : null;
      if (!shown) content.replaceChildren();
      else if (content.firstChild !== shown || content.childNodes.length !== 1) content.replaceChildren(shown);
      return;
    }
    const turns = state.transcript.turns;
    const facts = this.factsOf(state);
    // A render for something else (the live state, the queue, a checkpoint list) that changes no
    // turn on screen lays nothing out: a pass measures every mounted turn, a forced layout.
    const shown = this.shown;
    if (shown && shown.transcript === state.transcript && shown.hasOlder === state.hasOlder && shown.turnCount === state.turnCount
      && !this.virtual.restoring && this.virtual.mountedIds.every((id) => this.unchanged(id, state, facts))) return;
    this.shown = { transcript: state.transcript, hasOlder: state.hasOlder, turnCount: state.turnCount };
    this.virtual.show({
      ids: facts.ids,
      hasOlder: state.hasOlder,
      unloaded: state.turnCount - turns.length,
      element: (i) => this.turnElement(turns[i]!, state, facts, i === turns.length - 1),
    });
    this.prune();
  }

  /** What the transcript's last pass showed (see `renderTranscript`); reset with the turns. */
  private shown: { readonly transcript: Transcript; readonly hasOlder: boolean; readonly turnCount: number } | undefined;

  /** Whether mounted turn `id`'s cached element is what `state` would render. */
  private unchanged(id: string, state: ViewState, facts: TurnFacts): boolean {
    const cached = this.turns.get(id);
    const index = facts.index.get(id);
    const turn = index === undefined ? undefined : state.transcript.turns[index];
    return !!cached && !!turn && cached.turn === turn && cached.key === turnKey(turn, this.contextOf(turn, state, facts, index === state.transcript.turns.length - 1));
  }

  /**
   * The output boxes' scroll positions: a box out of the document and back (its turn scrolled out
   * of the window and back) is at its top again, a box rendered anew starts at its top.
   */
  private readonly outputs: OutputScrollTracker;

  /** The welcome text of an empty chat, for its agent. */
  private welcomeOf(state: ViewState): HTMLElement {
    const provider = state.session?.provider ?? 'local';
    if (this.welcomeFor !== provider || !this.welcome) {
      this.welcome = renderWelcome(provider);
      this.welcomeFor = provider;
    }
    return this.welcome;
  }

  /** The facts of the state's transcript (`render/turnFacts.ts`), reused while its turns keep their places. */
  private factsOf(state: ViewState): TurnFacts {
    this.facts = turnFactsOf(state.transcript, this.facts);
    return this.facts;
  }

  /**
   * The element of one turn (`last`: the chat's newest) — the cached one while the turn and what it
   * shows of the state are the same.
   */
  private turnElement(turn: TranscriptTurn, state: ViewState, facts: TurnFacts, last: boolean): HTMLElement {
    const ctx = this.contextOf(turn, state, facts, last);
    const key = turnKey(turn, ctx);
    const cached = this.turns.get(turn.id);
    const entry = cached && cached.turn === turn && cached.key === key
      ? cached
      : { turn, key, el: safely(() => renderTurn(turn, ctx, cached?.el), `turn ${turn.id}`, this.onError, 'section') };
    // Most recently used last, so `prune` drops the longest unused first.
    this.turns.delete(turn.id);
    this.turns.set(turn.id, entry);
    return entry.el;
  }

  /** What a turn's rendering depends on in `state` besides the turn (`last`: the chat's newest). */
  private contextOf(turn: TranscriptTurn, state: ViewState, facts: TurnFacts, last: boolean): TurnContext {
    const followedUp = facts.followedUp;
    const locked = state.hostLost || state.mode !== 'chat' || !!state.live.readOnlyReason;
    const busyRequestIds = new Set<string>();
    for (const key of state.busy) if (key.startsWith(REQUEST_BUSY_PREFIX)) busyRequestIds.add(key.slice(REQUEST_BUSY_PREFIX.length));
    return {
      actionableIds: new Set(state.live.actionableRequestIds),
      busyRequestIds,
      busyTurn: state.busy.has(turnBusyKey(turn.id)),
      followedUp: turn.errorClass ? followedUp.has(turn.id) : false,
      running: state.live.running,
      hostLost: state.hostLost,
      onError: this.onError,
      replaced: facts.replaced.has(turn.id),
      // Edit and resend: the last prompt, once its reply is over and nothing runs.
      editable: last && turn.status !== 'running' && !state.live.running && !locked,
      files: state.files.get(turn.id),
      sandboxedCommands: SANDBOXED_COMMAND_PROVIDERS.has(state.session?.provider ?? ''),
    };
  }

  /** Keeps the cache of turn elements bounded: the mounted ones and the most recently used others. */
  private prune(): void {
    if (this.turns.size <= CACHED_TURNS) return;
    const mounted = new Set(this.virtual.mountedIds);
    for (const id of this.turns.keys()) {
      if (this.turns.size <= CACHED_TURNS) break;
      if (!mounted.has(id)) this.turns.delete(id);
    }
    this.outputs.retain((turnId) => this.turns.has(turnId));
  }

  private renderBars(state: ViewState): void {
    setFlag(this.sk.errorBar, 'hidden', !state.error);
    setText(this.sk.errorMessage, state.error?.message ?? '');
    this.sk.errorBar.title = state.error?.code ?? '';
    const reason = state.mode === 'chat' ? state.live.readOnlyReason : null;
    setFlag(this.sk.readonlyBar, 'hidden', !reason);
    const fencedBy = state.mode === 'chat' ? state.live.fencedBy ?? null : null;
    const record = fencedBy ? ` The record: table ${fencedBy.table}, row ${fencedBy.row}.` : '';
    setText(this.sk.readonlyMessage, reason ? `Read-only: ${reason}${record}` : '');
    setFlag(this.sk.repairButton, 'hidden', !(reason && fencedBy?.damaged));
  }

  private renderComposer(state: ViewState): void {
    const running = state.mode === 'chat' && state.live.running;
    setFlag(this.sk.stop, 'hidden', !running);
    setFlag(this.sk.stop, 'disabled', !running);
    // While the agent works, Stop takes Send's place (as in Copilot Chat) and Queue stands beside it:
    // Enter or Queue queues the message.
    const locked = state.mode !== 'chat' || !!state.live.readOnlyReason;
    setFlag(this.sk.send, 'hidden', running);
    setFlag(this.sk.send, 'disabled', locked);
    setFlag(this.sk.queueSend, 'hidden', !running);
    setFlag(this.sk.queueSend, 'disabled', !running || locked);
  }
}

/** Sets `el`'s text (setting names in it as links), only when it changed. */
function setText(el: HTMLElement, text: string): void {
  if (el.dataset.text === text) return;
  el.dataset.text = text;
  el.textContent = text;
  linkSettings(el);
}
