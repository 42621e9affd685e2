/**
 * Renders a `ViewState` into the skeleton. Turns are cached by identity (the reducer returns new
 * objects only for changed turns) plus a context key, so an update re-renders only the turns it
 * touched and leaves the others' DOM (and any text selection in them) alone.
 */
import type { TranscriptTurn } from '../src/core/transcript';
import { isFollowedUp } from '../src/core/transcript';
import { renderHeader, renderLoading, renderOrphan, renderWelcome } from './render/chrome';
import { safely, type RenderErrorSink } from './render/failed';
import { followOutputs, outputScrolls } from './render/follow';
import { renderTurn, turnKey, type TurnContext } from './render/turn';
import { setFlag, type Skeleton } from './layout';
import { linkSettings } from './settingLinks';
import { requestBusyKey, turnBusyKey, type ViewState } from './state';

interface CachedTurn {
  readonly turn: TranscriptTurn;
  readonly key: string;
  readonly el: HTMLElement;
}

/** Renders view states into one skeleton, remembering what it rendered last. */
export class ChatRenderer {
  private readonly turns = new Map<string, CachedTurn>();
  private headerKey = '';
  private welcome: HTMLElement | undefined;
  private loading: HTMLElement | undefined;
  private welcomeFor: string | undefined;

  /**
   * Creates a renderer for a skeleton built by `buildSkeleton`. `onError` is told about every part
   * that threw while rendering (that part is left out or shown as a stand-in box).
   */
  constructor(private readonly sk: Skeleton, private readonly onError?: RenderErrorSink) {}

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
    const key = JSON.stringify([state.session?.title, state.session?.provider, state.live.running]);
    if (key === this.headerKey) return;
    this.headerKey = key;
    this.sk.header.replaceChildren(...renderHeader(state.session, state.live.running));
    // The local agent's verbs only make sense for the local agent.
    const local = (state.session?.provider ?? 'local') === 'local';
    this.sk.composer.setAttribute('placeholder', local ? 'Ask the agent… (try: help, run ls, read README.md)' : 'Ask the agent…');
  }

  private renderTranscript(state: ViewState): void {
    const content = this.sk.content;
    if (state.mode === 'loading') {
      this.turns.clear();
      this.loading ??= renderLoading();
      if (content.firstChild !== this.loading || content.childNodes.length !== 1) content.replaceChildren(this.loading);
      return;
    }
    if (state.mode !== 'chat') {
      this.turns.clear();
      content.replaceChildren();
      return;
    }
    const turns = state.transcript.turns;
    if (turns.length === 0) {
      this.turns.clear();
      const provider = state.session?.provider ?? 'local';
      if (this.welcomeFor !== provider) {
        this.welcome = renderWelcome(provider);
        this.welcomeFor = provider;
      }
      this.welcome ??= renderWelcome(provider);
      if (content.firstChild !== this.welcome || content.childNodes.length !== 1) content.replaceChildren(this.welcome);
      return;
    }
    const actionableIds = new Set(state.live.actionableRequestIds);
    const busyRequestIds = new Set<string>();
    for (const item of turns.flatMap((t) => t.items)) {
      if (item.type === 'boundary' && state.busy.has(requestBusyKey(item.id))) busyRequestIds.add(item.id);
    }
    const outputs = outputScrolls(content);
    const wanted: HTMLElement[] = [];
    const next = new Map<string, CachedTurn>();
    for (const turn of turns) {
      const ctx: TurnContext = {
        actionableIds,
        busyRequestIds,
        busyTurn: state.busy.has(turnBusyKey(turn.id)),
        followedUp: turn.errorClass ? isFollowedUp(state.transcript, turn.id) : false,
        running: state.live.running,
        onError: this.onError,
      };
      const key = turnKey(turn, ctx);
      const cached = this.turns.get(turn.id);
      const entry = cached && cached.turn === turn && cached.key === key
        ? cached
        : { turn, key, el: safely(() => renderTurn(turn, ctx), `turn ${turn.id}`, this.onError, 'section') };
      next.set(turn.id, entry);
      wanted.push(entry.el);
    }
    this.turns.clear();
    for (const [id, entry] of next) this.turns.set(id, entry);
    reconcileChildren(content, wanted);
    followOutputs(content, outputs);
  }

  private renderBars(state: ViewState): void {
    setFlag(this.sk.errorBar, 'hidden', !state.error);
    setText(this.sk.errorMessage, state.error?.message ?? '');
    this.sk.errorBar.title = state.error?.code ?? '';
    const reason = state.mode === 'chat' ? state.live.readOnlyReason : null;
    setFlag(this.sk.readonlyBar, 'hidden', !reason);
    setText(this.sk.readonlyBar, reason ? `Read-only: ${reason}` : '');
  }

  private renderComposer(state: ViewState): void {
    const running = state.mode === 'chat' && state.live.running;
    setFlag(this.sk.stop, 'hidden', !running);
    setFlag(this.sk.stop, 'disabled', !running);
    // While the agent works, Stop takes Send's place (as in Copilot Chat); Enter still explains why
    // nothing is sent, and the typed text stays.
    setFlag(this.sk.send, 'hidden', running);
    setFlag(this.sk.send, 'disabled', state.mode !== 'chat' || !!state.live.readOnlyReason);
  }
}

/** Sets `el`'s text (setting names in it as links), only when it changed. */
function setText(el: HTMLElement, text: string): void {
  if (el.dataset.text === text) return;
  el.dataset.text = text;
  el.textContent = text;
  linkSettings(el);
}

/** Makes `parent`'s children exactly `wanted`, in order, moving only what is out of place. */
function reconcileChildren(parent: HTMLElement, wanted: readonly HTMLElement[]): void {
  wanted.forEach((el, i) => {
    const current = parent.children[i];
    if (current !== el) parent.insertBefore(el, current ?? null);
  });
  while (parent.children.length > wanted.length) parent.lastElementChild!.remove();
}
