/**
 * The host's decoder of webview messages (zod; host-only: the webview never bundles it).
 *
 * Webview → host messages are untrusted input: the host decodes each with `decodeWebviewMessage`,
 * which rejects unknown types, missing or mistyped fields and unexpected keys (zod `strictObject`),
 * and answers a rejected one with an `error` message instead of acting on it. The schema's inferred
 * type must equal `WebviewMessage` of `messages.ts` (checked by the compiler below).
 */
import { z } from 'zod';
import { MAX_FILE_LINE, MAX_FILE_PATH_CHARS } from '../core/fileLinks';
import { ATTACHMENT_KINDS, MAX_ATTACHMENT_PATH_CHARS, MAX_ATTACHMENTS } from '../core/attachments';
import { SETTING_ID_SHAPE } from '../core/settingIds';
import { BOUNDARY_DECISIONS } from '../core/vocabulary';
import {
  MAX_COMPLETION_QUERY_CHARS, MAX_ID_CHARS, MAX_MODEL_NAME_CHARS, MAX_PROMPT_CHARS, MAX_URI_CHARS, MAX_VIEW_ERROR_CHARS, type WebviewMessage,
} from './messages';

// No generated code: keeps zod from probing `new Function` (and `navigator`, which VS Code's
// extension host reports as an error) — a strict-CSP-friendly validator.
z.config({ jitless: true });

const id = z.string().min(1).max(MAX_ID_CHARS);
// Trimmed: a message of blanks is no message (the view ignores it too), and edges of blanks are not part of it.
// Its length is checked before the trim, as the view checks it: trimming a 10 MB blank text costs
// about 0.1 s and would only find it too long.
const prompt = z.string().max(MAX_PROMPT_CHARS).trim().min(1);

const line = z.number().int().min(1).max(10_000_000);
// A file's lines (first ≤ last), a path ('' only for the problems of the whole workspace).
const attachmentRef = z
  .strictObject({
    kind: z.enum(ATTACHMENT_KINDS),
    path: z.string().max(MAX_ATTACHMENT_PATH_CHARS),
    range: z.strictObject({ startLine: line, endLine: line }).refine((r) => r.startLine <= r.endLine, 'the range ends before it starts').optional(),
  })
  .refine((a) => a.path.length > 0 || a.kind === 'problems', 'an attachment needs a path');
const attachments = z.array(attachmentRef).max(MAX_ATTACHMENTS).readonly().optional();

/** Schemas of the messages a webview may send (see `WebviewMessage` for what each means). */
export const webviewMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('ready') }),
  z.strictObject({ type: z.literal('send'), text: prompt, clientId: id, replacesTurnId: id.optional(), attachments, undoReplacedFiles: z.literal(true).optional() }),
  z.strictObject({ type: z.literal('editQueued'), clientId: id, text: prompt }),
  z.strictObject({ type: z.literal('discardQueued'), clientId: id }),
  z.strictObject({ type: z.literal('sendQueued'), clientId: id }),
  z.strictObject({ type: z.literal('stop') }),
  z.strictObject({ type: z.literal('decide'), requestId: id, decision: z.enum(BOUNDARY_DECISIONS) }),
  z.strictObject({ type: z.literal('retry'), turnId: id }),
  z.strictObject({ type: z.literal('continue'), turnId: id }),
  z.strictObject({ type: z.literal('pickSession') }),
  z.strictObject({ type: z.literal('viewError'), message: z.string().min(1).max(MAX_VIEW_ERROR_CHARS) }),
  // The shape is checked here; the host also checks that this extension contributes the setting.
  z.strictObject({ type: z.literal('openSetting'), id: z.string().max(MAX_ID_CHARS).regex(SETTING_ID_SHAPE) }),
  z.strictObject({ type: z.literal('ping') }),
  z.strictObject({ type: z.literal('loadOlder'), before: z.strictObject({ seq: z.number().int().nonnegative(), id }) }),
  z.strictObject({ type: z.literal('resync') }),
  z.strictObject({ type: z.literal('checkJournal') }),
  z.strictObject({ type: z.literal('repairJournal') }),
  z.strictObject({ type: z.literal('listModels') }),
  // A path as the view found it in the chat; the host resolves it inside the workspace only.
  z.strictObject({
    type: z.literal('openFile'),
    path: z.string().min(1).max(MAX_FILE_PATH_CHARS).refine((p) => !p.includes('\0'), 'a path holds no NUL character'),
    line: z.number().int().min(1).max(MAX_FILE_LINE).optional(),
    column: z.number().int().min(1).max(MAX_FILE_LINE).optional(),
  }),
  // No control characters: a model name is shown in the header and sent to the provider as is.
  // eslint-disable-next-line no-control-regex
  z.strictObject({ type: z.literal('setModel'), model: z.string().trim().min(1).max(MAX_MODEL_NAME_CHARS).regex(/^[^\u0000-\u001f\u007f]+$/).nullable() }),
  z.strictObject({ type: z.literal('openFileDiff'), turnId: id, path: z.string().min(1).max(4096) }),
  z.strictObject({ type: z.literal('undoFiles'), turnId: id, scope: z.enum(['turn', 'from_turn']) }),
  z.strictObject({ type: z.literal('redoFiles'), undoId: id }),
  z.strictObject({ type: z.literal('complete'), requestId: z.number().int().nonnegative(), query: z.string().max(MAX_COMPLETION_QUERY_CHARS) }),
  z.strictObject({ type: z.literal('attachUris'), uris: z.array(z.string().min(1).max(MAX_URI_CHARS)).min(1).max(MAX_ATTACHMENTS).readonly() }),
]);

type Decoded = z.infer<typeof webviewMessageSchema>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Compile-time check: the schema lets through exactly the `WebviewMessage` union. */
export const SCHEMA_MATCHES_TYPES: Same<Decoded, WebviewMessage> = true;

/** How many of a message's unexpected keys a refusal names (the rest are counted). */
const NAMED_UNEXPECTED_KEYS = 3;
/** The longest unexpected key a refusal names in full (characters). */
const MAX_NAMED_KEY_CHARS = 40;

/**
 * The sentence for unexpected keys, bounded whatever their number: zod's own names them all, which
 * for a junk message of 500,000 keys is a 5 MB sentence, about 0.15 s to build, then logged and
 * posted to the view. Undefined for any other issue (zod's sentence, of bounded length).
 */
function boundedIssueText(issue: { readonly code?: string; readonly keys?: readonly string[] }): string | undefined {
  if (issue.code !== 'unrecognized_keys' || !issue.keys) return undefined;
  const named = issue.keys.slice(0, NAMED_UNEXPECTED_KEYS)
    .map((k) => JSON.stringify(k.length > MAX_NAMED_KEY_CHARS ? `${k.slice(0, MAX_NAMED_KEY_CHARS)}…` : k));
  const more = issue.keys.length - named.length;
  return `Unrecognized key${issue.keys.length > 1 ? 's' : ''}: ${named.join(', ')}${more > 0 ? ` and ${more.toLocaleString('en-US')} more` : ''}`;
}

/**
 * Decodes an untrusted message. Returns the message or a sentence naming what was wrong (its first
 * issue; a few hundred characters at most). The cost is linear in the message's size and small
 * beside the JSON parse that brought it (arrays and strings over their limit are refused on their
 * length, before their items or characters are read).
 */
export function decodeWebviewMessage(raw: unknown): { ok: true; value: WebviewMessage } | { ok: false; message: string } {
  const parsed = webviewMessageSchema.safeParse(raw, { error: boundedIssueText });
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length ? ` at "${issue.path.join('.')}"` : '';
  return { ok: false, message: `Malformed message from the chat view${where}: ${issue?.message ?? 'invalid'}` };
}

/** True when `value` has the shape of a session id (a non-empty string of at most MAX_ID_CHARS). */
export function isSessionId(value: unknown): value is string {
  return id.safeParse(value).success;
}

/** Reads a session id out of a webview's persisted state, or undefined if absent or malformed. */
export function sessionIdFromState(state: unknown): string | undefined {
  const parsed = z.object({ sessionId: id }).safeParse(state);
  return parsed.success ? parsed.data.sessionId : undefined;
}
