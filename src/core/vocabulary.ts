/**
 * The product's fixed vocabulary: statuses, closure reasons, error classes and decisions.
 *
 * Every enumeration is an `as const` tuple with its union type derived from it, so the list and the
 * type never drift. Other layers
 * (journal, runtime, webview) use these types: a literal elsewhere is checked against them, so a
 * misspelt one fails to compile. SQL text is the exception (docs/ARCHITECTURE.md, Layers). The
 * view and the export word error classes and closure reasons in `src/core/errorClassWords.ts` only.
 * Pure module: no I/O, no `vscode`.
 */

/** Lifecycle of a turn (one user prompt and the agent's answer to it). */
export const TURN_STATUSES = ['running', 'completed', 'failed', 'stopped'] as const;
export type TurnStatus = (typeof TURN_STATUSES)[number];

/** Lifecycle of a run (one execution attempt of a turn by an agent in one extension host). */
export const RUN_STATUSES = ['running', 'completed', 'failed', 'stopped', 'interrupted'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * Lifecycle of a tool invocation. `denied`: a boundary request for it was denied. `stopped`: the
 * user pressed Stop while it ran or waited.
 */
export const INVOCATION_STATUSES = ['running', 'awaiting_approval', 'completed', 'failed', 'denied', 'stopped'] as const;
export type InvocationStatus = (typeof INVOCATION_STATUSES)[number];

/** Status of a sandbox boundary request row. */
export const BOUNDARY_STATUSES = ['pending', 'approved', 'denied'] as const;
export type BoundaryStatus = (typeof BOUNDARY_STATUSES)[number];

/** What the user (or a rule) decided for a boundary request. */
export const BOUNDARY_DECISIONS = ['allow_once', 'allow_session', 'deny'] as const;
export type BoundaryDecision = (typeof BOUNDARY_DECISIONS)[number];

/** What crossing the sandbox a boundary request asks for. */
export const BOUNDARY_KINDS = ['command', 'read_outside_workspace', 'write_outside_workspace', 'network', 'file_change'] as const;
export type BoundaryKind = (typeof BOUNDARY_KINDS)[number];

/**
 * Why a boundary request stopped being pending.
 * - `user_decision`: the user clicked Allow once / Allow for this session / Deny.
 * - `session_grant`: approved without asking, by an earlier "Allow for this session" of the same scope.
 * - `host_restarted`: the extension host that owned the request died; recovery settled it fail-closed.
 * - `run_stopped`: the user pressed Stop while the request was waiting.
 * - `run_ended`: the agent's run ended (e.g. the agent process died) while the request was waiting.
 */
export const CLOSURE_REASONS = ['user_decision', 'session_grant', 'host_restarted', 'run_stopped', 'run_ended'] as const;
export type ClosureReason = (typeof CLOSURE_REASONS)[number];

/** The closure reason recovery writes on a pending request whose owning host died. */
export const HOST_RESTART_CLOSURE_REASON: ClosureReason = 'host_restarted';

/**
 * Why a turn (and its interrupted invocation) failed. Stable machine codes; the webview maps them to
 * words in one module (`src/core/errorClassWords.ts`).
 * - `app_restarted`: the host died while the turn ran; nothing was waiting on the user. Offer Continue.
 * - `sandbox_boundary_closed_by_restart`: the host died while a boundary request of this run waited on
 *   the user; recovery denied it (`host_restarted`). Offer Retry.
 * - `agent_error`: the agent (or its process, or its model server) failed.
 * - `agent_unavailable`: the agent could not be started (missing CLI, bad configuration).
 * - `journal_refused`: the journal refused a write (read-only, full disk, unreadable row).
 * - `prompt_delivery_unknown`: the host died after the turn's prompt was journaled as `sending` and
 *   before the agent acknowledged it (`DELIVERY_STATES`): the agent may or may not have it. Offer
 *   Send again, never send it again on its own.
 */
export const ERROR_CLASSES = [
  'app_restarted',
  'sandbox_boundary_closed_by_restart',
  'agent_error',
  'agent_unavailable',
  'journal_refused',
  'prompt_delivery_unknown',
] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

/** The error class a turn gets when a `host_restarted` closure belongs to its run. */
export const RESTART_CLOSURE_ERROR_CLASS: ErrorClass = 'sandbox_boundary_closed_by_restart';

/**
 * Delivery of a turn's prompt to its agent (the durable outbox, docs/ARCHITECTURE.md "Prompts"):
 * `sending` is journaled with the turn, before the prompt is handed to the agent; `delivered` once
 * the agent acknowledged it (its provider's own acknowledgement, or the first event of the run).
 * A turn journaled before schema 5 has no delivery state.
 */
export const DELIVERY_STATES = ['sending', 'delivered'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/**
 * States of a message in a chat's queue: `queued` until it goes out (`sent`, with the turn it
 * became) or the user removes it (`discarded`). Rows are kept after both, so a client id posted
 * again is recognized.
 */
export const QUEUED_PROMPT_STATES = ['queued', 'sent', 'discarded'] as const;
export type QueuedPromptState = (typeof QUEUED_PROMPT_STATES)[number];

/**
 * Why a queued message waits for the user instead of going out when the reply ends: the reply was
 * stopped, it failed, or VS Code restarted (its run was recovered). A held message goes out only
 * when the user presses Send.
 */
export const HOLD_REASONS = ['stopped', 'failed', 'restarted'] as const;
export type HoldReason = (typeof HOLD_REASONS)[number];

/**
 * How a prompt turn's message left the composer: at once (`composer`), from the queue when the
 * reply before it ended (`queue`), or by the user's Send / Send now on a queued message (`send_now`).
 */
export const SENT_FROM = ['composer', 'queue', 'send_now'] as const;
export type SentFrom = (typeof SENT_FROM)[number];

/** The agents a chat can use. `local` is the built-in offline agent. */
export const PROVIDER_IDS = ['local', 'claude', 'codex', 'openai-compatible', 'vscode-lm'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

/**
 * The agents whose shell commands go through this product's sandbox policy (sandboxPolicy.ts): a
 * command not on the read-only allowlist raises a boundary request first, so one that ran without a
 * request was read-only. Claude Code and Codex decide themselves which commands run without asking.
 */
export const SANDBOXED_COMMAND_PROVIDERS: ReadonlySet<string> = new Set<ProviderId>(['local', 'openai-compatible', 'vscode-lm']);

/** Kinds of runtime events in a run's ordered ledger. The transcript is rebuilt from these. */
export const EVENT_KINDS = [
  'text',
  'invocation_started',
  'invocation_output',
  'invocation_finished',
  'boundary_requested',
  'boundary_decided',
  'run_finished',
  'notice',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** True when `value` is one of `list` (narrowing helper for the tuples above). */
export function isOneOf<T extends string>(list: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (list as readonly string[]).includes(value);
}
