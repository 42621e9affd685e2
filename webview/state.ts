/**
 * The chat view's state and how host messages change it. Pure and DOM-free (unit-tested): the
 * chat view (`chatView.ts`) feeds every `HostMessage` through `reduceHostMessage` and re-renders.
 */
import type { SessionRecord } from '../src/core/events';
import { compareCursors, EMPTY_TRANSCRIPT, type Transcript, type TurnCursor } from '../src/core/transcript';
import type { ChatAction, HostMessage, LiveState } from '../src/protocol/messages';
import type { QueuedPromptView } from '../src/core/outbox';
import type { TurnFilesView } from '../src/protocol/messages';
import { BUSY_CODE } from './input';
import type { ListedModels } from './render/modelPicker';
import { applyUpdates, NO_SEQ, olderToAsk, prependPage, trackSeq, type SeqTrack, type Suffix } from './paging';

/** Live facts before the host sent any: nothing running, nothing actionable, writable. */
export const IDLE_LIVE: LiveState = { running: false, actionableRequestIds: [], readOnlyReason: null };

/** Everything the chat view renders from. */
export interface ViewState {
  /** `loading` until the first snapshot; `orphan` when the host says the tab has no session. */
  readonly mode: 'loading' | 'chat' | 'orphan';
  readonly session: SessionRecord | null;
  /** The loaded turns: the chat's newest, oldest first (older ones come a page at a time, `paging.ts`). */
  readonly transcript: Transcript;
  /** Turns older than the oldest loaded one exist. */
  readonly hasOlder: boolean;
  /** Turns in the whole chat, loaded or not. */
  readonly turnCount: number;
  /** The cursor of the last `loadOlder` sent whose page has not come (null when none waits). */
  readonly olderAsked: TurnCursor | null;
  /** The host's message numbers seen, and whether a `resync` was asked (see `trackSeq`). */
  readonly seq: SeqTrack;
  readonly live: LiveState;
  /** The chat's queued messages, in the order they go out (the host's last `queue` or snapshot). */
  readonly queue: readonly QueuedPromptView[];
  /** Each turn's file changes by turn id (the host's last `checkpoints`). */
  readonly files: ReadonlyMap<string, TurnFilesView>;
  /**
   * The latest error the host reported, until dismissed or, when it refused an action (`action`),
   * until an action of the same kind succeeds (a Send after a full disk, once there is room).
   */
  readonly error: { readonly code: string; readonly message: string; readonly action?: ChatAction } | null;
  /**
   * Keys of buttons the user clicked whose answer has not arrived (`request:<id>` for a decision,
   * `turn:<id>` for Retry/Continue). Their buttons stay disabled until the next host message.
   */
  readonly busy: ReadonlySet<string>;
  /** The host's clock minus this view's (ms), from the last message that carried `hostNow`. */
  readonly hostClockOffsetMs: number;
  /** The extension host stopped answering the heartbeat (`heartbeat.ts`); any host message clears it. */
  readonly hostLost: boolean;
  /** The models the host last listed for the chat's provider (`models`), null before any. */
  readonly models: ListedModels | null;
}

/** Error code of the notice shown while the extension host does not answer. */
export const HOST_LOST_CODE = 'host_lost';
/** The sentence of that notice. */
export const HOST_LOST_MESSAGE = "Lost connection to VS Code's extension host — waiting for it to come back.";

/** The state before the host said anything. */
export const INITIAL_VIEW_STATE: ViewState = {
  mode: 'loading',
  session: null,
  transcript: EMPTY_TRANSCRIPT,
  hasOlder: false,
  turnCount: 0,
  olderAsked: null,
  seq: NO_SEQ,
  live: IDLE_LIVE,
  queue: [],
  files: new Map(),
  error: null,
  busy: new Set(),
  hostClockOffsetMs: 0,
  hostLost: false,
  models: null,
};

const NOTHING_BUSY: ReadonlySet<string> = new Set();

/** Busy key of a boundary request's decision buttons. */
export function requestBusyKey(requestId: string): string {
  return `request:${requestId}`;
}

/** Busy key of a turn's Retry/Continue button. */
export function turnBusyKey(turnId: string): string {
  return `turn:${turnId}`;
}

/**
 * Applies one host message. Unknown message types leave the state as it was. Any message proves
 * the host alive again: the lost-host notice goes. A gap in the messages' `seq` sets
 * `seq.resyncAsked` (the chat view posts `resync` when it turns true).
 */
export function reduceHostMessage(state: ViewState, message: HostMessage): ViewState {
  const next = reduceMessage(state.hostLost ? hostFound(state) : state, message);
  const seq = trackSeq(next.seq, message.seq, message.type === 'snapshot' || message.type === 'orphan');
  return seq === next.seq ? next : { ...next, seq };
}

function reduceMessage(state: ViewState, message: HostMessage): ViewState {
  switch (message.type) {
    case 'snapshot':
      return {
        ...state, mode: 'chat', session: message.session, transcript: message.transcript, hasOlder: message.hasOlder,
        turnCount: Math.max(message.turnCount, message.transcript.turns.length), olderAsked: null, live: message.live, queue: message.queue,
        busy: NOTHING_BUSY, error: errorAfter(state.error, message.live), hostClockOffsetMs: offsetFrom(state, message.hostNow),
      };
    case 'update':
      return { ...state, ...applyUpdates(suffixOf(state), [message.update]), busy: NOTHING_BUSY };
    case 'changes': {
      const changed = { ...state, session: state.mode === 'chat' ? message.session : state.session, ...applyUpdates(suffixOf(state), message.updates, message.turnCount), busy: NOTHING_BUSY };
      return message.live ? withLive(changed, message.live, message.hostNow) : changed;
    }
    case 'page': {
      const suffix = prependPage(suffixOf(state), message.before, message.turns, message.hasOlder);
      // A page that no longer fits (a snapshot came meanwhile) is dropped; the next scroll asks again.
      const answered = state.olderAsked !== null && compareCursors(state.olderAsked, message.before) === 0;
      return { ...state, ...suffix, olderAsked: answered ? null : state.olderAsked };
    }
    case 'live':
      return withLive(state, message.live, message.hostNow);
    case 'queue':
      return { ...state, queue: message.prompts };
    case 'checkpoints':
      return { ...state, files: new Map(message.turns.map((t) => [t.turnId, t])) };
    case 'orphan':
      return { ...state, mode: 'orphan', session: null, transcript: EMPTY_TRANSCRIPT, hasOlder: false, turnCount: 0, olderAsked: null, live: IDLE_LIVE, queue: [], files: new Map(), busy: NOTHING_BUSY };
    case 'error':
      return { ...state, error: { code: message.code, message: message.message, ...(message.action ? { action: message.action } : {}) }, busy: NOTHING_BUSY };
    case 'succeeded':
      return state.error?.action === message.action ? { ...state, error: null } : state;
    case 'models':
      return { ...state, models: { provider: message.provider, models: message.models, ...(message.note ? { note: message.note } : {}) } };
    default:
      return state;
  }
}

/**
 * The error bar after new live facts: a refusal because the agent works (`busy`) goes once no run is
 * live (a fresh user saw one stay up after Stop, contradicting the Send button that came back).
 */
function errorAfter(error: ViewState['error'], live: LiveState): ViewState['error'] {
  return error?.code === BUSY_CODE && !live.running ? null : error;
}

/**
 * The host's clock minus this view's, from a message's `hostNow` (the view may run on another
 * machine than the extension host: a remote window, a code-server browser). Kept when absent.
 */
function offsetFrom(state: ViewState, hostNow: number | undefined, now = Date.now()): number {
  return typeof hostNow === 'number' && Number.isFinite(hostNow) ? hostNow - now : state.hostClockOffsetMs;
}

/** `state` with the host's live facts (`hostNow`: the host's clock when sent, ms since the epoch). */
function withLive(state: ViewState, live: LiveState, hostNow: number | undefined): ViewState {
  return { ...state, live, busy: NOTHING_BUSY, error: errorAfter(state.error, live), hostClockOffsetMs: offsetFrom(state, hostNow) };
}

function suffixOf(state: ViewState): Suffix {
  return { transcript: state.transcript, hasOlder: state.hasOlder, turnCount: state.turnCount };
}

/**
 * The cursor to send in a `loadOlder` now (the view's oldest loaded turn), or null: nothing older,
 * not a chat, or that page was already asked for. The caller posts it and records it with `markOlderAsked`.
 */
export function olderPageToAsk(state: ViewState): TurnCursor | null {
  return state.mode === 'chat' ? olderToAsk(suffixOf(state), state.olderAsked) : null;
}

/** Records that the page before `cursor` was asked for (not asked again until it comes or a snapshot does). */
export function markOlderAsked(state: ViewState, cursor: TurnCursor): ViewState {
  return { ...state, olderAsked: cursor };
}

/** Marks a button as waiting for the host's answer. */
export function markBusy(state: ViewState, key: string): ViewState {
  const busy = new Set(state.busy);
  busy.add(key);
  return { ...state, busy };
}

/**
 * The extension host stopped answering: say so, and stop offering what only a live host can do
 * (Stop, decisions) — the view shows what it last knew, with no live run.
 */
export function markHostLost(state: ViewState): ViewState {
  if (state.hostLost) return state;
  return { ...state, hostLost: true, error: { code: HOST_LOST_CODE, message: HOST_LOST_MESSAGE } };
}

function hostFound(state: ViewState): ViewState {
  return { ...state, hostLost: false, error: state.error?.code === HOST_LOST_CODE ? null : state.error };
}

/**
 * The state to render: while the host is lost, no run looks live and no request actionable
 * (clicks would go nowhere); what the host last said stays in `state` for when it answers again.
 */
export function viewOf(state: ViewState): ViewState {
  return state.hostLost && state.mode === 'chat' ? { ...state, live: { ...IDLE_LIVE, readOnlyReason: state.live.readOnlyReason } } : state;
}

/**
 * Why the composer's text may not be sent now, or null when it may: while the host is lost, always
 * (a message posted then goes nowhere and the cleared composer would lose the text), also after
 * the lost-host notice was dismissed; else the chat's read-only reason, or that it is not loaded.
 */
export function sendBlockedReason(state: ViewState): string | null {
  const view = viewOf(state);
  return view.hostLost ? HOST_LOST_MESSAGE : view.mode === 'chat' ? view.live.readOnlyReason : 'The chat is not loaded yet.';
}

/** Hides the error bar. */
export function dismissError(state: ViewState): ViewState {
  return state.error ? { ...state, error: null } : state;
}

