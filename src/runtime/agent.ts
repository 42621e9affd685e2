/**
 * The agent interface every provider implements (the offline local agent now; Claude, Codex,
 * OpenAI-compatible servers and VS Code language models later), so the runtime has no special cases.
 *
 * The runtime owns the journal, the run, Stop and the boundary prompts; an agent only turns a prompt
 * into streamed text and tool activity through `AgentTurnContext`:
 * - agents whose tools this product runs (local, OpenAI-compatible, vscode.lm) call `ctx.tools.run`,
 *   which applies the sandbox policy and raises boundary requests itself;
 * - agents that run their own tools (Claude's `canUseTool`, Codex approval requests) call
 *   `ctx.startInvocation` and `ctx.requestBoundary` and pass the decision back to their client.
 */
import type { AgentAttachment } from '../core/attachments';
import { fileNote } from '../core/checkpoints';
import type { FileNews } from '../core/fileNews';
import type { ProcessGroupRecord } from '../core/events';
import type { FileChangeInput } from '../journal/operations/checkpoints';
import type { BoundaryDecision, BoundaryKind, ErrorClass, ProviderId } from '../core/vocabulary';

/** One earlier exchange, for agents without their own session history. */
export interface HistoryEntry {
  readonly role: 'user' | 'assistant';
  readonly text: string;
}

/** What the agent is asked to do in one run. */
export interface AgentTurnRequest {
  readonly sessionId: string;
  readonly turnId: string;
  /** The prompt of this turn (for `retry`, the failed turn's prompt again). */
  readonly prompt: string;
  /** `retry`: ask again after a failure; `continue`: carry on after a plain restart. */
  readonly origin: 'prompt' | 'retry' | 'continue';
  /** Earlier turns of the session, oldest first (user prompts and the agent's text). */
  readonly history: readonly HistoryEntry[];
  /** What the provider stored with `setProviderState` in earlier runs (JSON text), or null. */
  readonly providerState: string | null;
  /** Absolute path of the workspace folder the agent works in. */
  readonly cwd: string;
  /**
   * The model to run with, as the turn recorded it (the chat's choice, else the provider's setting
   * when the turn started); unset: the agent's own configuration decides.
   */
  readonly model?: string;
  /**
   * Edit and resend: this turn's prompt replaces the prompt of the chat's previous turn, which the
   * user edited. `history` already leaves that turn out; an agent that keeps its own session
   * (Claude, Codex) has it there and says so to its model (`replacedPromptNote`).
   */
  readonly replaces?: { readonly prompt: string };
  /**
   * What the user attached to the prompt, as journaled with it (Retry and Continue: the same), in
   * order. Each agent hands them to its provider in its own way (docs/ARCHITECTURE.md, "Attachments").
   */
  readonly attachments?: readonly AgentAttachment[];
  /**
   * After undos or redos of the chat's file changes since the agent's last turn: the files they left
   * changed (`fileNewsFor`; absent when nothing is, an undo and its redo cancelling out). Kept apart
   * from `prompt`, which is the user's words only (the local agent parses them); agents that talk to
   * a model put its note before their message (`withFileNote`), the local agent says it in its words.
   */
  readonly fileNews?: FileNews;
}

/** `text` (the message an agent sends its model) with the note of the request's file news (`fileNote`) before it, if any. */
export function withFileNote(request: Pick<AgentTurnRequest, 'fileNews'>, text: string): string {
  const note = request.fileNews ? fileNote(request.fileNews) : '';
  return note ? `${note}\n\n${text}` : text;
}

/** A tool call this product executes: `run` a shell command, `read` or `write` a file. */
export type ToolCall = (
  | { readonly name: 'run'; readonly input: { readonly command: string } }
  | { readonly name: 'read'; readonly input: { readonly path: string } }
  | { readonly name: 'write'; readonly input: { readonly path: string; readonly content: string } }
) & {
  /**
   * The call repeats one a restart interrupted (Continue): if the policy asks for it, it asks again
   * even when "Allow for this session" covers it, since it may already have run, in part.
   */
  readonly rerun?: boolean;
};

/** What a tool call produced. `denied`: the user (or a restart, or Stop) refused the boundary request. */
export type ToolResult =
  | { readonly status: 'completed'; readonly output: string; readonly exitCode?: number | null }
  | { readonly status: 'failed'; readonly output: string; readonly message: string; readonly exitCode?: number | null }
  | { readonly status: 'denied'; readonly message: string };

/** Runs tools under the sandbox policy (see `toolRuntime.ts`). */
export interface ToolRunner {
  run(call: ToolCall): Promise<ToolResult>;
}

/** The decision a boundary request got, as the agent needs it. */
export interface BoundaryOutcome {
  readonly approved: boolean;
  readonly decision: BoundaryDecision;
  readonly requestId: string;
}

/** A journaled tool invocation that the agent's own client executes. */
export interface InvocationHandle {
  readonly id: string;
  output(chunk: string): void;
  /** Journals the process group a `run` command started, so recovery can end it if this host dies. */
  processStarted?(group: ProcessGroupRecord): void;
  /**
   * Journals file changes of this invocation (checkpoints): the before image of a file its tool is
   * about to change, an after image it reported. Resolves once durable; a refusal stops the run.
   */
  recordFileChanges?(changes: readonly FileChangeInput[]): Promise<void>;
  /**
   * Ends the invocation; `fileChanges` (after images) and `fileChangesApplied` are journaled in the
   * same transaction (see `FinishInvocationInput`).
   */
  finish(result: {
    status: 'completed' | 'failed' | 'denied' | 'stopped';
    exitCode?: number | null;
    message?: string;
    fileChanges?: readonly FileChangeInput[];
    fileChangesApplied?: boolean;
  }): Promise<void>;
}

/** What the runtime gives an agent for one run. */
export interface AgentTurnContext {
  /** Aborted when the user presses Stop (or the host shuts down). */
  readonly signal: AbortSignal;
  /** Streams a chunk of the reply (markdown). Cheap: batched before it reaches the journal. */
  text(delta: string): void;
  /** Tools executed by this product under the sandbox policy. */
  readonly tools: ToolRunner;
  /**
   * Journals an invocation that the agent's own client runs; `fileChanges` (checkpoints: before
   * images, and after images known ahead) in the same transaction.
   */
  startInvocation(tool: string, input: unknown, summary: string, diff?: string, fileChanges?: readonly FileChangeInput[]): Promise<InvocationHandle>;
  /** Journals a boundary request (before it is shown) and waits for its decision. */
  requestBoundary(request: {
    readonly invocationId?: string;
    readonly kind: BoundaryKind;
    readonly subject: string;
    readonly why: string;
    readonly scopeKey: string;
    readonly detail?: string;
    /** What "Allow for this session" would also approve, in words (shown on the card). */
    readonly grants?: string;
    /** Ask even when a session grant covers `scopeKey` (a re-run after a restart). */
    readonly ignoreSessionGrant?: boolean;
  }): Promise<BoundaryOutcome>;
  /** Stores provider state (e.g. a session or thread id) so a later run can resume. */
  setProviderState(state: string): Promise<void>;
  /**
   * The agent acknowledged the prompt, by its provider's own acknowledgement (docs/ARCHITECTURE.md,
   * "Prompts: the outbox"): the turn's delivery becomes `delivered`. Idempotent; resolves once
   * durable, never rejects. The run's first journaled event marks it too, so an agent whose provider
   * has no earlier acknowledgement need not call it.
   */
  promptDelivered(): Promise<void>;
}

/** How a run ended, from the agent's side. Stop is decided by the runtime, not reported here. */
export type AgentTurnOutcome =
  | { readonly status: 'completed' }
  | { readonly status: 'failed'; readonly errorClass: Extract<ErrorClass, 'agent_error' | 'agent_unavailable'>; readonly message: string };

/** A provider's agent. One instance may serve many sessions; state lives in the journal. */
export interface Agent {
  readonly provider: ProviderId;
  /** Name shown on the tab (e.g. "Local agent"). */
  readonly label: string;
  /** Runs one turn. Must settle soon after `ctx.signal` aborts. Should not throw; a throw is `agent_error`. */
  runTurn(request: AgentTurnRequest, ctx: AgentTurnContext): Promise<AgentTurnOutcome>;
}
