/**
 * The one typed protocol between a chat webview and the extension host. Both sides import this
 * module; every message is a member of a discriminated union on `type`.
 *
 * Webview → host messages are untrusted input: the host decodes each with `decodeWebviewMessage`,
 * which rejects unknown types, missing or mistyped fields and unexpected keys (zod `strictObject`),
 * and answers a rejected one with an `error` message instead of acting on it.
 * Idea from microsoft/vscode-pull-request-github `webviews/common/message.ts`, typed and validated.
 */
import { z } from 'zod';
import type { SessionRecord } from '../core/events';
import type { Transcript, TranscriptUpdate } from '../core/transcript';
import { SETTING_ID_SHAPE } from '../core/settingIds';
import { BOUNDARY_DECISIONS } from '../core/vocabulary';

/** Longest prompt the host accepts, in characters. */
export const MAX_PROMPT_CHARS = 100_000;

/**
 * Longest error report (`viewError`) the host accepts, in characters: a message and a short stack.
 * The view cuts its reports to this length; a longer one is a malformed message.
 */
export const MAX_VIEW_ERROR_CHARS = 2_000;

// No generated code: keeps zod from probing `new Function` (and `navigator`, which VS Code's
// extension host reports as an error) — a strict-CSP-friendly validator.
z.config({ jitless: true });

const id = z.string().min(1).max(200);

/** Schemas of the messages a webview may send. */
export const webviewMessageSchema = z.discriminatedUnion('type', [
  /** The webview's script loaded and wants a snapshot. */
  z.strictObject({ type: z.literal('ready') }),
  /** The user sent a prompt. */
  z.strictObject({ type: z.literal('send'), text: z.string().trim().min(1).max(MAX_PROMPT_CHARS) }),
  /** The user pressed Stop. */
  z.strictObject({ type: z.literal('stop') }),
  /** The user decided a boundary request. */
  z.strictObject({ type: z.literal('decide'), requestId: id, decision: z.enum(BOUNDARY_DECISIONS) }),
  /** Retry a turn closed by a restart (or failed): a new turn with the same prompt. */
  z.strictObject({ type: z.literal('retry'), turnId: id }),
  /** Continue a turn interrupted by a plain restart. */
  z.strictObject({ type: z.literal('continue'), turnId: id }),
  /** An orphan panel asks to pick which chat to show. */
  z.strictObject({ type: z.literal('pickSession') }),
  /** Something in the view failed (an item that could not be rendered, an uncaught error): for the host's log. */
  z.strictObject({ type: z.literal('viewError'), message: z.string().min(1).max(MAX_VIEW_ERROR_CHARS) }),
  /**
   * The user clicked a setting's name in a message: open the Settings editor at it. The shape is
   * checked here; the host also checks that this extension contributes the setting.
   */
  z.strictObject({ type: z.literal('openSetting'), id: z.string().max(200).regex(SETTING_ID_SHAPE) }),
  /** Heartbeat: the view asks whether the extension host still answers (see `HEARTBEAT`). */
  z.strictObject({ type: z.literal('ping') }),
]);

/** A message from the webview, after validation. */
export type WebviewMessage = z.infer<typeof webviewMessageSchema>;

/** The user's actions on a chat that can fail with a refusal (the webview messages that carry them). */
export type ChatAction = Extract<WebviewMessage['type'], 'send' | 'stop' | 'decide' | 'retry' | 'continue'>;

/** Live facts the journal alone cannot tell (owned by this host's runtime). */
export interface LiveState {
  /** A run of this session is in flight in some live host. */
  readonly running: boolean;
  /** Pending boundary requests that a live run owns and this window may decide. */
  readonly actionableRequestIds: readonly string[];
  /** The journal refuses writes (e.g. written by a newer version); the UI shows why. */
  readonly readOnlyReason: string | null;
}

/** Messages the host sends to a webview. */
export type HostMessage =
  /** Full state: sent after `ready` and whenever the host re-reads the journal. */
  /** `hostNow`: the host's clock (ms since the epoch) when sent, so the view can show elapsed times by the host's clock. */
  | { readonly type: 'snapshot'; readonly session: SessionRecord; readonly transcript: Transcript; readonly live: LiveState; readonly hostNow?: number }
  /** One incremental change, applied with `applyUpdate`. */
  | { readonly type: 'update'; readonly update: TranscriptUpdate }
  /** Live facts changed. */
  | { readonly type: 'live'; readonly live: LiveState; readonly hostNow?: number }
  /** The panel has no session (orphan after a restore with no state and no unclaimed tab). */
  | { readonly type: 'orphan' }
  /** A request was refused or invalid; `code` is stable, `message` is for people; `action`: the user's action it refused. */
  | { readonly type: 'error'; readonly code: string; readonly message: string; readonly action?: ChatAction }
  /** The user's action of this kind succeeded (a refusal of the same kind shown before is over). */
  | { readonly type: 'succeeded'; readonly action: ChatAction }
  /** The answer to a `ping`: the extension host is alive. */
  | { readonly type: 'pong' };

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
 * `sessionId`: the chat the panel shows. `draft`: the composer's unsent text, if any. `scrollTop`:
 * where the user had scrolled the transcript to (px), absent while they follow its bottom.
 * `bannerShown`: the turn whose restart banner the view last scrolled into view, so a view rebuilt
 * later (a switch of tabs) goes back to where the user read instead of to that banner again.
 */
export interface WebviewPersistedState {
  readonly sessionId?: string;
  readonly draft?: string;
  readonly scrollTop?: number;
  readonly bannerShown?: string;
}

/** Decodes an untrusted message. Returns the message or a sentence naming what was wrong. */
export function decodeWebviewMessage(raw: unknown): { ok: true; value: WebviewMessage } | { ok: false; message: string } {
  const parsed = webviewMessageSchema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length ? ` at "${issue.path.join('.')}"` : '';
  return { ok: false, message: `Malformed message from the chat view${where}: ${issue?.message ?? 'invalid'}` };
}

/** Reads a session id out of a webview's persisted state, or undefined if absent or malformed. */
export function sessionIdFromState(state: unknown): string | undefined {
  const parsed = z.object({ sessionId: id }).safeParse(state);
  return parsed.success ? parsed.data.sessionId : undefined;
}
