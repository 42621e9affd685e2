/**
 * The webview's check of host messages on arrival, without a validator library (the view bundles
 * no zod): `hostMessageProblem(raw)` answers null for a well-formed `HostMessage`, else a sentence
 * naming the first problem. As strict as the host's decoder is with the view's messages: an unknown
 * `type`, a missing or mistyped field, or an unexpected key at the message's level, in a session,
 * live state, turn record or ledger event is a problem. A transcript's items are checked by shape
 * only (an array of objects with a string `type`); a malformed item is drawn by the view's per-item
 * isolation as one that could not be shown.
 */
import { ATTACHMENT_KINDS, ATTACHMENT_STATES } from '../core/attachments';
import { DELIVERY_STATES, ERROR_CLASSES, EVENT_KINDS, HOLD_REASONS, SENT_FROM, TURN_STATUSES } from '../core/vocabulary';
import { CHAT_ACTIONS, ERROR_CODES, MAX_ID_CHARS, MAX_PROMPT_CHARS, type HostMessage } from './messages';

type Check = (value: unknown, where: string) => string | null;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str: Check = (v, w) => (typeof v === 'string' ? null : `${w} is not a string`);
const id: Check = (v, w) => (typeof v === 'string' && v.length > 0 && v.length <= MAX_ID_CHARS ? null : `${w} is not an id`);
const num: Check = (v, w) => (typeof v === 'number' && Number.isFinite(v) ? null : `${w} is not a number`);
const bool: Check = (v, w) => (typeof v === 'boolean' ? null : `${w} is not a boolean`);
const oneOf = (values: readonly string[]): Check => (v, w) => (typeof v === 'string' && values.includes(v) ? null : `${w} is not one of ${values.join(', ')}`);
const nullable = (check: Check): Check => (v, w) => (v === null ? null : check(v, w));
const optional = (check: Check): Check & { optional: true } => Object.assign((v: unknown, w: string) => (v === undefined ? null : check(v, w)), { optional: true as const });
const arrayOf = (check: Check): Check => (v, w) => {
  if (!Array.isArray(v)) return `${w} is not a list`;
  for (let i = 0; i < v.length; i++) {
    const problem = check(v[i], `${w}[${i}]`);
    if (problem) return problem;
  }
  return null;
};
const anyObject: Check = (v, w) => (isObject(v) ? null : `${w} is not an object`);

/** An object with exactly these keys (those whose check is `optional` may be absent), each checked. */
function strict(fields: Record<string, Check>): Check {
  return (v, w) => {
    if (!isObject(v)) return `${w} is not an object`;
    for (const key of Object.keys(v)) if (!(key in fields)) return `${w} has an unexpected key "${key}"`;
    for (const [key, check] of Object.entries(fields)) {
      if (!(key in v) && !('optional' in check)) return `${w}.${key} is missing`;
      const problem = check(v[key], `${w}.${key}`);
      if (problem) return problem;
    }
    return null;
  };
}

const range = strict({ startLine: num, endLine: num });
const refFields = { kind: oneOf(ATTACHMENT_KINDS), path: str, range: optional(range) };
const attachmentRef = strict(refFields);
// Journaled attachments (schema 12): absent on turns and queued messages without any.
const attachmentView = strict({
  ...refFields, state: oneOf(ATTACHMENT_STATES), hash: nullable(str), sentSize: num, originalSize: num, cutNote: nullable(str),
});
const completionItem = strict({ ref: attachmentRef, label: str, detail: str, matches: arrayOf(num) });

// Schema 9: `model` (the chat's picked model), absent or null when none.
const session = strict({ id, title: str, provider: str, createdAt: num, updatedAt: num, workspace: optional(nullable(str)), model: optional(nullable(str)) });
const live = strict({
  running: bool, actionableRequestIds: arrayOf(id), readOnlyReason: nullable(str),
  fencedBy: optional(nullable(strict({ table: str, row: str, damaged: bool }))),
});
const turnFields = {
  id, sessionId: id, seq: num, prompt: str, origin: oneOf(['prompt', 'retry', 'continue']), parentTurnId: nullable(id),
  status: oneOf(TURN_STATUSES), errorClass: nullable(oneOf(ERROR_CLASSES)), createdAt: num,
  // Schema 5 (the outbox): absent or null for turns before it.
  clientId: optional(nullable(id)), delivery: optional(nullable(oneOf(DELIVERY_STATES))), sentFrom: optional(nullable(oneOf(SENT_FROM))),
  // Schema 9: the model the turn ran with.
  model: optional(nullable(str)),
  // Schema 10: the turn an edited and resent prompt replaces.
  replacesTurnId: optional(nullable(id)),
  // Schema 12: absent on turns without attachments.
  attachments: optional(arrayOf(attachmentView)),
};
const turn = strict(turnFields);
const item: Check = (v, w) => (isObject(v) && typeof v.type === 'string' ? null : `${w} is not a transcript item`);
const transcriptTurn = strict({ ...turnFields, items: arrayOf(item), applied: anyObject });
const event = strict({ runId: id, seq: num, sessionId: id, turnId: id, kind: oneOf(EVENT_KINDS), payload: anyObject, at: num });
const update: Check = (v, w) => {
  if (!isObject(v)) return `${w} is not an object`;
  if (v.type === 'turn') return strict({ type: str, turn })(v, w);
  if (v.type === 'event') return strict({ type: str, event })(v, w);
  return `${w}.type is not turn or event`;
};

/** A queued message's text: what the host accepts from the composer (1..MAX_PROMPT_CHARS characters). */
const promptText: Check = (v, w) => (typeof v === 'string' && v.length > 0 && v.length <= MAX_PROMPT_CHARS ? null : `${w} is not a message's text`);
const queuedPrompt = strict({
  clientId: id, text: promptText, hold: nullable(oneOf(HOLD_REASONS)), sendNow: bool, createdAt: num, attachments: optional(arrayOf(attachmentView)),
});

const count = nullable(num);
const fileChange = strict({ path: str, kind: oneOf(['created', 'modified', 'deleted']), added: count, removed: count, checkpointed: bool, pending: bool });
const turnFiles = strict({ turnId: id, files: arrayOf(fileChange), undoneBy: nullable(id) });

const cursor = strict({ seq: num, id });
const seq = optional(num);

/** The fields of each host message type (besides `type`): keyed by the union's types, so the compiler checks none is missing or extra. */
const MESSAGES: Record<HostMessage['type'], Record<string, Check>> = {
  snapshot: { session, transcript: strict({ turns: arrayOf(transcriptTurn) }), hasOlder: bool, turnCount: num, live, queue: arrayOf(queuedPrompt), hostNow: optional(num), seq },
  queue: { prompts: arrayOf(queuedPrompt), seq },
  checkpoints: { turns: arrayOf(turnFiles), seq },
  page: { before: cursor, turns: arrayOf(transcriptTurn), hasOlder: bool, seq },
  update: { update, seq },
  changes: { session, updates: arrayOf(update), turnCount: num, live: optional(live), hostNow: optional(num), seq },
  live: { live, hostNow: optional(num), seq },
  reveal: { at: cursor, terms: arrayOf(str), seq },
  orphan: { seq },
  error: { code: oneOf(ERROR_CODES), message: str, action: optional(oneOf(CHAT_ACTIONS)), clientId: optional(id), seq },
  succeeded: { action: oneOf(CHAT_ACTIONS), clientId: optional(id), queued: optional(bool), seq },
  pong: {},
  announce: { text: str, seq },
  models: { provider: str, models: arrayOf(strict({ id: str, label: str })), note: optional(str), seq },
  completions: { requestId: num, items: arrayOf(completionItem) },
  attach: { attachments: arrayOf(attachmentRef), focus: optional(bool), seq },
};

/** Every host message type (`MESSAGES`' keys), in the order it lists them, for checks at run time (the view's handler table covers each). */
export const HOST_MESSAGE_TYPES = Object.keys(MESSAGES) as readonly HostMessage['type'][];

/** Null when `raw` is a well-formed `HostMessage`; else a sentence naming the first problem. */
export function hostMessageProblem(raw: unknown): string | null {
  if (!isObject(raw) || typeof raw.type !== 'string') return 'a message without a type';
  const fields = Object.hasOwn(MESSAGES, raw.type) ? MESSAGES[raw.type as HostMessage['type']] : undefined;
  if (!fields) return `an unknown message type "${raw.type.slice(0, 40)}"`;
  return strict({ type: str, ...fields })(raw, raw.type);
}
