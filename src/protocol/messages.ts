/**
 * The one typed protocol between a chat webview and the extension host: the message types, their
 * constants and the error codes. Both sides import this module, so it carries no validator library:
 * the host decodes webview messages with `decode.ts` (zod, host-only), the webview checks host
 * messages with `hostMessageProblem` (`checkHostMessage.ts`, no dependency).
 *
 * Every message is a member of a discriminated union on `type`.
 */
import type { AttachmentRef } from '../core/attachments';
import type { SessionRecord } from '../core/events';
import type { Transcript, TranscriptTurn, TranscriptUpdate, TurnCursor } from '../core/transcript';
import type { QueuedPromptView } from '../core/outbox';
import type { BoundaryDecision } from '../core/vocabulary';

/** Longest prompt the host accepts, in characters. */
export const MAX_PROMPT_CHARS = 100_000;

/**
 * Longest error report (`viewError`) the host accepts, in characters: a message and a short stack.
 * The view cuts its reports to this length; a longer one is a malformed message.
 */
export const MAX_VIEW_ERROR_CHARS = 2_000;

/** Longest text after `@` the host completes, in characters. */
export const MAX_COMPLETION_QUERY_CHARS = 200;

/** Most items one `completions` answer carries. */
export const MAX_COMPLETION_ITEMS = 50;

/** Longest URI a dropped file may have, in characters. */
export const MAX_URI_CHARS = 4096;

/**
 * One item of the `@` list: what it attaches (`ref`), the words shown (`label`: a file's name, or
 * "problems"/"selection"; `detail`: its folder or what it is) and where the query's characters
 * matched `label` (`matches`: indexes, for the highlight).
 */
export interface CompletionItem {
  readonly ref: AttachmentRef;
  readonly label: string;
  readonly detail: string;
  readonly matches: readonly number[];
}

/** Longest id (session, turn, request) a message may carry, in characters. */
export const MAX_ID_CHARS = 200;

/** A message the webview sends (what `decodeWebviewMessage` lets through). */
export type WebviewMessage =
  /** The webview's script loaded and wants a snapshot. */
  | { readonly type: 'ready' }
  /**
   * The user sent a message (1..MAX_PROMPT_CHARS characters). `clientId`: made by the view when the
   * user pressed Enter and kept with the message until the host answers (`succeeded` or `error`
   * carrying it), so a view reloaded meanwhile posts it again with the same id: the journal never
   * makes a second turn of it, and refuses the same id with another text (`conflict`). While the
   * agent works the message is queued (a `queue` message shows it), otherwise it starts a turn.
   * `replacesTurnId`: edit and resend — the message replaces that turn's prompt (the chat's last,
   * whose reply has ended; refused otherwise with `not_actionable`, never queued).
   * `attachments`: what the user attached (at most MAX_ATTACHMENTS); the host reads them, and
   * refuses the message (giving it back) when one cannot be read.
   * `undoReplacedFiles` (with `replacesTurnId`): first undo the file changes of the turn replaced
   * (conflicts asked per file as for Undo); cancelled there, the message is refused and given back.
   */
  | {
    readonly type: 'send'; readonly text: string; readonly clientId: string; readonly replacesTurnId?: string;
    readonly attachments?: readonly AttachmentRef[]; readonly undoReplacedFiles?: true;
  }
  /** The user edited a queued message (1..MAX_PROMPT_CHARS characters); refused once it was sent. */
  | { readonly type: 'editQueued'; readonly clientId: string; readonly text: string }
  /** The user removed a queued message (Discard). */
  | { readonly type: 'discardQueued'; readonly clientId: string }
  /**
   * The user pressed Send on a held message, or Send now on a queued one while the agent works: it
   * goes next, and a running reply is stopped first.
   */
  | { readonly type: 'sendQueued'; readonly clientId: string }
  /** The user pressed Stop. */
  | { readonly type: 'stop' }
  /** The user decided a boundary request. */
  | { readonly type: 'decide'; readonly requestId: string; readonly decision: BoundaryDecision }
  /** Retry a turn closed by a restart (or failed): a new turn with the same prompt. */
  | { readonly type: 'retry'; readonly turnId: string }
  /** Continue a turn interrupted by a plain restart. */
  | { readonly type: 'continue'; readonly turnId: string }
  /** An orphan panel asks to pick which chat to show. */
  | { readonly type: 'pickSession' }
  /** Something in the view failed (an item that could not be rendered, an uncaught error): for the host's log. */
  | { readonly type: 'viewError'; readonly message: string }
  /** The user clicked a setting's name in a message: open the Settings editor at it (this extension's settings only). */
  | { readonly type: 'openSetting'; readonly id: string }
  /** Heartbeat: the view asks whether the extension host still answers (see `HEARTBEAT`). */
  | { readonly type: 'ping' }
  /** The user scrolled near the oldest turn the view holds: send the page of turns before `before` (a `page`). */
  | { readonly type: 'loadOlder'; readonly before: TurnCursor }
  /** The view found a gap in the messages' `seq`: send a full snapshot. */
  | { readonly type: 'resync' }
  /** The user clicked Check Journal on the read-only notice: run Agent Chats: Check Journal. */
  | { readonly type: 'checkJournal' }
  /** The user clicked Repair Journal… on a fenced chat's notice: run Agent Chats: Repair Journal… (its dry run first). */
  | { readonly type: 'repairJournal' }

  /** The chat's header wants the models its provider offers (answered with `models`). */
  | { readonly type: 'listModels' }
  /**
   * The user clicked a file link (a path in a reply, a tool's header, a diff): open it at `line`
   * (and `column`) when given. The host opens it only inside the workspace folders (an outside path
   * or a symlink leading out is refused with `outside_workspace`, a missing file with `not_found`).
   */
  | { readonly type: 'openFile'; readonly path: string; readonly line?: number; readonly column?: number }
  /**
   * The user picked a model in the chat's header (1..MAX_MODEL_NAME_CHARS characters, no control
   * characters), or `null` for the provider's setting: the chat's next turns run with it.
   */
  | { readonly type: 'setModel'; readonly model: string | null }
  /** Open VS Code's diff of a file a turn changed (before and after the turn, from the journal). */
  | { readonly type: 'openFileDiff'; readonly turnId: string; readonly path: string }
  /** Undo the files a turn changed (`turn`), or restore them to before it (`from_turn`: it and every later turn). */
  | { readonly type: 'undoFiles'; readonly turnId: string; readonly scope: 'turn' | 'from_turn' }
  /** Redo an undo (put back what it took back). */
  | { readonly type: 'redoFiles'; readonly undoId: string }
  /**
   * The user typed `@` and `query` after it (0..MAX_COMPLETION_QUERY_CHARS characters): the host
   * answers `completions` with the same `requestId` (a later request makes an earlier answer stale).
   */
  | { readonly type: 'complete'; readonly requestId: number; readonly query: string }
  /**
   * The user dropped files or folders on the chat (the URIs of `application/vnd.code.uri-list` or
   * `text/uri-list`, at most MAX_ATTACHMENTS): the host answers `attach` with what they are.
   */
  | { readonly type: 'attachUris'; readonly uris: readonly string[] };

/** The user's actions on a chat that can fail with a refusal (the webview messages that carry them). */
export type ChatAction = Extract<WebviewMessage['type'], 'send' | 'stop' | 'decide' | 'retry' | 'continue' | 'editQueued' | 'discardQueued' | 'sendQueued' | 'setModel'>;

/** Every `ChatAction`, for checks at run time. */
export const CHAT_ACTIONS = ['send', 'stop', 'decide', 'retry', 'continue', 'editQueued', 'discardQueued', 'sendQueued', 'setModel'] as const satisfies readonly ChatAction[];

/** Longest model name a `setModel` may carry, in characters. */
export const MAX_MODEL_NAME_CHARS = 200;

/** One model a chat's header offers: the id the provider is asked for, and a label for people. */
export interface ModelOption {
  readonly id: string;
  readonly label: string;
}

/**
 * Stable codes of `error` messages: the journal's refusals, the runtime's, and the panel's own.
 * The host's code that sends an error names one of these (checked by the compiler).
 */
export const ERROR_CODES = [
  // the journal refused (src/journal/errors.ts)
  'read_only', 'storage_failed', 'not_found', 'row_unreadable', 'closed',
  // the runtime refused
  'busy', 'already_decided', 'not_actionable', 'not_retryable', 'no_agent', 'invalid', 'conflict',
  // the panel
  'malformed_message', 'internal', 'orphan', 'unknown_setting', 'outside_workspace',
] as const;

/** A stable error code (see `ERROR_CODES`). */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Live facts the journal alone cannot tell (owned by this host's runtime). */
export interface LiveState {
  /** A run of this session is in flight in some live host. */
  readonly running: boolean;
  /** Pending boundary requests that a live run owns and this window may decide. */
  readonly actionableRequestIds: readonly string[];
  /** The journal refuses writes (e.g. written by a newer version); the UI shows why. */
  readonly readOnlyReason: string | null;
  /**
   * The record that fences the chat, when that is why it is read-only: its table and its own key
   * (what Check Journal lists), and whether it is damaged (Repair Journal may set it aside) rather
   * than a newer version's. Absent or null otherwise.
   */
  readonly fencedBy?: { readonly table: string; readonly row: string; readonly damaged: boolean } | null;
}

/**
 * Most turns in one page: the last page a snapshot carries, and each older page. A page is what fits
 * a tall view many times over (a turn is rarely under 60 px), so the first paint needs no second page.
 */
export const PAGE_TURNS = 30;

/**
 * Every message a panel sends through its ordered outbox carries `seq`: 1, 2, 3… per panel. A view
 * that sees a number other than the one after the last it saw missed a message and asks for a
 * snapshot (`resync`). Messages sent outside the outbox (`pong`, a restoring panel's error) carry none.
 */
interface Sequenced {
  readonly seq?: number;
}

/** One file a turn changed, as the "Files changed" list shows it (see core/checkpoints.ts). */
export interface FileChangeView {
  readonly path: string;
  readonly kind: 'created' | 'modified' | 'deleted';
  /** Lines added and removed (null: not counted: binary, too large, or not known). */
  readonly added: number | null;
  readonly removed: number | null;
  /** False: "changed, not checkpointed" (over the size cap). */
  readonly checkpointed: boolean;
  /** The write's end is not known (a crash or Stop cut it): the file may or may not hold it. */
  readonly pending: boolean;
}

/** A turn's checkpoint: the files it changed and the undo standing for it (null: none). */
export interface TurnFilesView {
  readonly turnId: string;
  readonly files: readonly FileChangeView[];
  readonly undoneBy: string | null;
}

/** Messages the host sends to a webview. */
export type HostMessage = Sequenced & (
  /**
   * Full state, sent after `ready` or `resync` and after the journal was reloaded: the session, the
   * last page of its transcript (`PAGE_TURNS` turns at most, oldest first), whether older turns exist
   * (`hasOlder`; `loadOlder` fetches them) and how many turns the chat has (`turnCount`).
   * `hostNow`: the host's clock (ms since the epoch) when sent, so the view can show elapsed times by the host's clock.
   */
  | {
      readonly type: 'snapshot'; readonly session: SessionRecord; readonly transcript: Transcript; readonly hasOlder: boolean;
      readonly turnCount: number; readonly live: LiveState; readonly queue: readonly QueuedPromptView[]; readonly hostNow?: number;
    }
  /**
   * The chat's queue changed (here or in another window): every message still queued, in the order
   * they go out (`compareQueued`). Held ones (`hold`) wait for the user's Send or Discard.
   */
  | { readonly type: 'queue'; readonly prompts: readonly QueuedPromptView[] }
  /** The chat's checkpoints (every turn with file changes), after a snapshot and whenever they changed. */
  | { readonly type: 'checkpoints'; readonly turns: readonly TurnFilesView[] }
  /**
   * The page of turns just before `before` (the view's oldest turn when it asked), oldest first.
   * A view whose oldest turn is no longer `before` (a snapshot came meanwhile) drops it.
   */
  | { readonly type: 'page'; readonly before: TurnCursor; readonly turns: readonly TranscriptTurn[]; readonly hasOlder: boolean }
  /** One incremental change made in this window, applied with `applyUpdate`. */
  | { readonly type: 'update'; readonly update: TranscriptUpdate }
  /**
   * What another window changed since the panel's last read: the session record (a rename), then the
   * changed turns' records and the new ledger events, in journal order. A view applies only those of
   * turns it holds or that are newer than its newest (older ones come with their page). `live`
   * (with `hostNow`) is the chat's live state read with them, so one change costs the view one
   * render, not one for the turns and another for the live state.
   */
  | { readonly type: 'changes'; readonly session: SessionRecord; readonly updates: readonly TranscriptUpdate[]; readonly turnCount: number; readonly live?: LiveState; readonly hostNow?: number }
  /** Live facts changed. */
  | { readonly type: 'live'; readonly live: LiveState; readonly hostNow?: number }
  /**
   * Show the turn at `at` (a search result): load older pages until it is loaded, scroll it into view
   * and mark the words of `terms` in it (as found: case-insensitive, whole text).
   */
  | { readonly type: 'reveal'; readonly at: TurnCursor; readonly terms: readonly string[] }
  /** The panel has no session (orphan after a restore with no state and no unclaimed tab). */
  | { readonly type: 'orphan' }
  /** A request was refused or invalid; `code` is stable, `message` is for people; `action`: the user's action it refused. */
  /** `clientId`: the message of a refused `send` (or queue action), which the view keeps for the user. */
  | { readonly type: 'error'; readonly code: ErrorCode; readonly message: string; readonly action?: ChatAction; readonly clientId?: string }
  /**
   * The user's action of this kind succeeded (a refusal of the same kind shown before is over).
   * For `send`: `clientId` is the message now durable, and `queued` whether it waits in the queue.
   */
  | { readonly type: 'succeeded'; readonly action: ChatAction; readonly clientId?: string; readonly queued?: boolean }
  /** The answer to a `ping`: the extension host is alive. */
  | { readonly type: 'pong' }
  /** Words for a screen reader: what the user's action did (an undo's outcome), said once by the view's live region. */
  | { readonly type: 'announce'; readonly text: string }
  /**
   * The models the chat's provider offers (the answer to `listModels`), the provider's setting
   * first when it names one; `note`: why the list may be short (a server that did not answer).
   * An empty list: the provider offers no choice (the header shows no picker).
   */
  | { readonly type: 'models'; readonly provider: string; readonly models: readonly ModelOption[]; readonly note?: string }
  /** The answer to `complete` `requestId`: the items of the `@` list, best first (open editors before other files). */
  | { readonly type: 'completions'; readonly requestId: number; readonly items: readonly CompletionItem[] }
  /**
   * Attach these to the message being written (chips above the text): dropped files, Add Selection
   * to Chat, Add File to Chat, Ask About Selection…. `focus`: put the focus in the composer.
   */
  | { readonly type: 'attach'; readonly attachments: readonly AttachmentRef[]; readonly focus?: boolean }
);

/**
 * The view's heartbeat (ms): it pings the host every `intervalMs` while it is shown and takes the
 * host for lost when a ping has gone unanswered for `lostAfterMs`. The host answers at once, outside
 * the queue of journal-backed messages, so a busy journal never reads as a dead host; an extension
 * host blocked for seconds by another extension can (the view then says so until it answers again).
 */
export const HEARTBEAT = { intervalMs: 2000, lostAfterMs: 6000 } as const;

/**
 * State the webview persists with `setState`: VS Code keeps it while the tab is hidden (its view is
 * destroyed then) and across a window reload, and hands it to the serializer on restore.
 * `sessionId`: the chat the panel shows. `draft`: the composer's unsent text, if any. `scrollAnchor`:
 * where the user had scrolled the transcript to (the turn at the top of the view and how many px into
 * it the view started; a turn, not a px offset, since the view holds only some turns of a long chat),
 * absent while they follow its bottom.
 * `bannerShown`: the turn whose restart banner the view last scrolled into view, so a view rebuilt
 * later (a switch of tabs) goes back to where the user read instead of to that banner again.
 * `unacknowledged`: messages the view posted (`send`) that the host has not answered yet; a view
 * rebuilt from this state posts them again with the same ids (the journal makes one turn of each),
 * an edit and resend with the turn it replaces.
 */
export interface WebviewPersistedState {
  readonly sessionId?: string;
  readonly draft?: string;
  /** The composer's attachments not sent yet (chips), in order. */
  readonly draftAttachments?: readonly AttachmentRef[];
  readonly unacknowledged?: readonly {
    readonly clientId: string; readonly text: string; readonly replacesTurnId?: string; readonly attachments?: readonly AttachmentRef[];
    readonly undoReplacedFiles?: true;
  }[];
  readonly scrollAnchor?: { readonly turnId: string; readonly offset: number };
  readonly bannerShown?: string;
}
