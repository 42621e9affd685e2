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
import { BOUNDARY_DECISIONS } from '../core/vocabulary';

/** Longest prompt the host accepts, in characters. */
export const MAX_PROMPT_CHARS = 100_000;

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
  /** Heartbeat: the view asks whether the extension host still answers (see `HEARTBEAT`). */
  z.strictObject({ type: z.literal('ping') }),
]);

/** A message from the webview, after validation. */
export type WebviewMessage = z.infer<typeof webviewMessageSchema>;

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
  /** A request was refused or invalid; `code` is stable, `message` is for people. */
  | { readonly type: 'error'; readonly code: string; readonly message: string }
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
 */
export interface WebviewPersistedState {
  readonly sessionId?: string;
  readonly draft?: string;
  readonly scrollTop?: number;
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
