/**
 * Row decoding: journal rows into the records callers get. A row this build cannot decode (an
 * unknown status, kind or error class, malformed JSON) throws `UnreadableRowError`; the reads skip
 * it and fence its chat (fences.ts). Every column of a chat's row whose values are one of the
 * `as const` tuples of src/core/vocabulary.ts is checked against its tuple (turns, queued prompts,
 * runs, tool calls, approval requests, events). A session row is not: it is the chat itself (there
 * is no chat left to fence), and its one such column, the agent, is already shown as a generic chat
 * when unknown (chatStatus.ts `agentIcon`; a prompt to it is refused, runtime/turns.ts `no_agent`).
 */
import type { SqlValue } from 'sql.js';
import type { LedgerEvent, ProcessGroupRecord, QueuedPromptRecord, SessionRecord, TurnRecord } from '../../core/events';
import {
  BOUNDARY_DECISIONS, BOUNDARY_KINDS, BOUNDARY_STATUSES, CLOSURE_REASONS, DELIVERY_STATES, ERROR_CLASSES, EVENT_KINDS, HOLD_REASONS,
  INVOCATION_STATUSES, PROVIDER_IDS, QUEUED_PROMPT_STATES, RUN_STATUSES, SENT_FROM, TURN_STATUSES, isOneOf,
  type BoundaryDecision, type ClosureReason, type DeliveryState, type ErrorClass, type HoldReason,
  type QueuedPromptState, type SentFrom, type TurnStatus,
} from '../../core/vocabulary';
import type { BoundaryRequestRecord, InstanceRecord, InvocationRecord, RunRecord } from '../records';

/** A row as sql.js returns it: column name to value. */
export type Row = Record<string, SqlValue>;

/**
 * A row this build cannot decode (unknown status, malformed JSON…). Reads skip it and fence its
 * chat; writes to a fenced chat are refused, every other chat keeps working. `newer`: the row holds
 * an unknown name where a newer build could have written one (see `unknownValue`); else it is damaged.
 * `detail`: why it cannot be read, in the decoder's words (Check Journal reports it).
 */
export class UnreadableRowError extends Error {
  constructor(readonly sessionId: string, readonly table: string, readonly rowId: string, readonly detail: string, readonly newer = false) {
    super(`A ${table} row (${rowId}) of this chat cannot be read by this version: ${detail}`);
    this.name = 'UnreadableRowError';
  }
}

/**
 * The detail for an unknown value of a named column, and whether a newer build could have written it:
 * a lower-case name (`hibernating`, `tool_progress`) could be; NULL, a number or other bytes are damage.
 */
function unknownValue(what: string, value: unknown): [detail: string, newer: boolean] {
  return [`unknown ${what} "${String(value)}"`, typeof value === 'string' && /^[a-z][a-z0-9_]*$/.test(value)];
}

/**
 * The error for row `r` of `table` (key `key`), made from `unknownValue`'s detail and whether the
 * value looks like a newer build's.
 */
function unreadable(r: Row, table: string, key: string): (what: [detail: string, newer: boolean]) => UnreadableRowError {
  return ([detail, newer]) => new UnreadableRowError(r.session_id as string, table, key, detail, newer);
}

/** Decodes a row of `sessions` (reads any row: see the module docstring). */
export function toSession(r: Row): SessionRecord {
  return {
    id: r.id as string, title: r.title as string, provider: r.provider as string, createdAt: r.created_at as number, updatedAt: r.updated_at as number,
    workspace: (r.workspace as string | null | undefined) ?? null,
    model: (r.model as string | null | undefined) ?? null,
  };
}

/** Decodes a row of its table. @throws UnreadableRowError when the row cannot be read. */
export function toTurn(r: Row): TurnRecord {
  const bad = unreadable(r, 'turns', r.id as string);
  if (!isOneOf(TURN_STATUSES, r.status)) throw bad(unknownValue('status', r.status));
  if (!isOneOf(['prompt', 'retry', 'continue'] as const, r.origin)) throw bad(unknownValue('origin', r.origin));
  if (r.error_class !== null && !isOneOf(ERROR_CLASSES, r.error_class)) throw bad(unknownValue('error class', r.error_class));
  // Columns of schema 5: undefined in a journal still at an older version (read-only), NULL in older rows.
  const delivery = r.delivery ?? null;
  const sentFrom = r.sent_from ?? null;
  if (delivery !== null && !isOneOf(DELIVERY_STATES, delivery)) throw bad(unknownValue('delivery state', delivery));
  if (sentFrom !== null && !isOneOf(SENT_FROM, sentFrom)) throw bad(unknownValue('sent from', sentFrom));
  return {
    id: r.id as string,
    sessionId: r.session_id as string,
    // The journal's sequence (see TurnRecord.seq); NULL only in a damaged row, which sorts first.
    seq: Number(r.search_doc ?? 0),
    prompt: r.prompt as string,
    origin: r.origin as TurnRecord['origin'],
    parentTurnId: (r.parent_turn_id as string | null) ?? null,
    status: r.status as TurnStatus,
    errorClass: (r.error_class as ErrorClass | null) ?? null,
    createdAt: r.created_at as number,
    clientId: (r.client_id as string | null | undefined) ?? null,
    delivery: delivery as DeliveryState | null,
    sentFrom: sentFrom as SentFrom | null,
    model: (r.model as string | null | undefined) ?? null,
    replacesTurnId: (r.replaces_turn_id as string | null | undefined) ?? null,
  };
}

/** Decodes a row of `queued_prompts`. @throws UnreadableRowError when the row cannot be read. */
export function toQueuedPrompt(r: Row): QueuedPromptRecord {
  const bad = unreadable(r, 'queued_prompts', r.client_id as string);
  if (!isOneOf(QUEUED_PROMPT_STATES, r.state)) throw bad(unknownValue('state', r.state));
  if (r.hold !== null && !isOneOf(HOLD_REASONS, r.hold)) throw bad(unknownValue('hold reason', r.hold));
  return {
    clientId: r.client_id as string,
    sessionId: r.session_id as string,
    text: r.text as string,
    state: r.state as QueuedPromptState,
    position: r.position as number,
    hold: (r.hold as HoldReason | null) ?? null,
    sendNow: r.send_now === 1,
    turnId: (r.turn_id as string | null) ?? null,
    createdAt: r.created_at as number,
    updatedAt: r.updated_at as number,
  };
}

/**
 * Decodes a row of `runs`. @throws UnreadableRowError when its status, error class or agent is not
 * one this build knows.
 */
export function toRun(r: Row): RunRecord {
  const bad = unreadable(r, 'runs', r.id as string);
  if (!isOneOf(RUN_STATUSES, r.status)) throw bad(unknownValue('status', r.status));
  if (r.error_class !== null && !isOneOf(ERROR_CLASSES, r.error_class)) throw bad(unknownValue('error class', r.error_class));
  if (!isOneOf(PROVIDER_IDS, r.provider)) throw bad(unknownValue('agent', r.provider));
  return {
    id: r.id as string,
    turnId: r.turn_id as string,
    sessionId: r.session_id as string,
    instanceId: r.instance_id as string,
    provider: r.provider,
    status: r.status,
    errorClass: (r.error_class as ErrorClass | null) ?? null,
    startedAt: r.started_at as number,
    finishedAt: (r.finished_at as number | null) ?? null,
  };
}

/**
 * Decodes a row of `invocations` (a tool call; its tool is the agent's own name, not a vocabulary
 * value). @throws UnreadableRowError when its status or failure class is not one this build knows.
 */
export function toInvocation(r: Row): InvocationRecord {
  const bad = unreadable(r, 'invocations', r.id as string);
  if (!isOneOf(INVOCATION_STATUSES, r.status)) throw bad(unknownValue('status', r.status));
  if (r.failure_class !== null && !isOneOf(ERROR_CLASSES, r.failure_class)) throw bad(unknownValue('error class', r.failure_class));
  return {
    id: r.id as string,
    runId: r.run_id as string,
    turnId: r.turn_id as string,
    sessionId: r.session_id as string,
    tool: r.tool as string,
    input: r.input as string,
    status: r.status,
    failureClass: (r.failure_class as ErrorClass | null) ?? null,
    startedAt: r.started_at as number,
    finishedAt: (r.finished_at as number | null) ?? null,
  };
}

/**
 * Decodes a row of `boundary_requests` (an approval request; its scope key is free text).
 * @throws UnreadableRowError when its kind, status, decision or closure reason is not one this build knows.
 */
export function toBoundary(r: Row): BoundaryRequestRecord {
  const bad = unreadable(r, 'boundary_requests', r.id as string);
  if (!isOneOf(BOUNDARY_KINDS, r.kind)) throw bad(unknownValue('request kind', r.kind));
  if (!isOneOf(BOUNDARY_STATUSES, r.status)) throw bad(unknownValue('status', r.status));
  if (r.decision !== null && !isOneOf(BOUNDARY_DECISIONS, r.decision)) throw bad(unknownValue('decision', r.decision));
  if (r.closure_reason !== null && !isOneOf(CLOSURE_REASONS, r.closure_reason)) throw bad(unknownValue('closure reason', r.closure_reason));
  return {
    id: r.id as string,
    sessionId: r.session_id as string,
    turnId: r.turn_id as string,
    runId: (r.run_id as string | null) ?? null,
    invocationId: (r.invocation_id as string | null) ?? null,
    kind: r.kind,
    subject: r.subject as string,
    why: r.why as string,
    detail: (r.detail as string | null) ?? null,
    scopeKey: r.scope_key as string,
    status: r.status,
    decision: (r.decision as BoundaryDecision | null) ?? null,
    closureReason: (r.closure_reason as ClosureReason | null) ?? null,
    createdAt: r.created_at as number,
    decidedAt: (r.decided_at as number | null) ?? null,
  };
}

/** Decodes a row of its table. */
export function toInstance(r: Row): InstanceRecord {
  return {
    id: r.id as string,
    pid: r.pid as number,
    processStart: (r.process_start as string | null) ?? null,
    hostname: r.hostname as string,
    startedAt: r.started_at as number,
    lastSeenAt: r.last_seen_at as number,
  };
}

/** A journaled `processGroup` (JSON text) if it has the expected shape, else undefined. */
export function parseProcessGroup(text: SqlValue | undefined): ProcessGroupRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(String(text));
  } catch {
    return undefined;
  }
  const g = value as Partial<ProcessGroupRecord> | null;
  if (!g || !Number.isSafeInteger(g.pid) || (g.pid as number) <= 1 || typeof g.startTime !== 'string' || typeof g.hostname !== 'string') return undefined;
  return { pid: g.pid as number, startTime: g.startTime, hostname: g.hostname, ...(typeof g.marker === 'string' ? { marker: g.marker } : {}) };
}

/** Decodes a row of its table. @throws UnreadableRowError when the row cannot be read. */
export function toEvent(r: Row): LedgerEvent {
  const bad = (detail: string, newer = false) => new UnreadableRowError(r.session_id as string, 'events', `${String(r.run_id)}#${String(r.seq)}`, detail, newer);
  if (!isOneOf(EVENT_KINDS, r.kind)) throw bad(...unknownValue('event kind', r.kind));
  let payload: unknown;
  try {
    payload = JSON.parse(r.payload as string);
  } catch {
    throw bad('its payload is not valid JSON');
  }
  if (typeof payload !== 'object' || payload === null) throw bad('its payload is not an object');
  return {
    runId: r.run_id as string,
    seq: r.seq as number,
    sessionId: r.session_id as string,
    turnId: r.turn_id as string,
    kind: r.kind,
    payload,
    at: r.at as number,
  } as LedgerEvent;
}
