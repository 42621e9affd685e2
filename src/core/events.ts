/**
 * The runtime-event ledger's record shapes. Each run has an ordered ledger (`seq` 1, 2, …); the
 * transcript a user sees is rebuilt from turns plus these events, in the journal and in the webview
 * alike (see `transcript.ts`). Pure types, no I/O.
 */
import type {
  BoundaryDecision, BoundaryKind, BoundaryStatus, ClosureReason, DeliveryState, ErrorClass, HoldReason, InvocationStatus,
  QueuedPromptState, RunStatus, SentFrom, TurnStatus,
} from './vocabulary';
import type { AttachmentView } from './attachments';

/**
 * A `run` command's process group as journaled when it started: the group leader's pid (which is the
 * group id: the command runs in a group of its own), the leader's start time (`/proc/<pid>/stat`,
 * opaque) so that a reused pid is never taken for it, and the machine it runs on.
 */
export interface ProcessGroupRecord {
  readonly pid: number;
  readonly startTime: string;
  readonly hostname: string;
  /**
   * A value set in the command's environment (`COMMAND_MARK_ENV`) that every process of the group
   * inherits: tells the group ours once its leader has exited (absent in records of older builds).
   */
  readonly marker?: string;
}

/** Payload of each event kind. */
export interface EventPayloads {
  /** A chunk of the agent's streamed reply (markdown). */
  text: { readonly text: string };
  /** A tool invocation began. `summary` is one line for people (e.g. the command). */
  invocation_started: { readonly invocationId: string; readonly tool: string; readonly summary: string; readonly diff?: string };
  /**
   * Output of a running invocation (stdout/stderr interleaved, UTF-8). `processGroup`: set on the
   * event (chunk possibly empty) written right after a `run` command's process started, so that
   * recovery can end the command if its host dies; a field, not a new kind, so an older build still
   * reads the row.
   */
  invocation_output: { readonly invocationId: string; readonly chunk: string; readonly processGroup?: ProcessGroupRecord };
  /** Terminal event of an invocation. `failureClass` is set when recovery or an error ended it. */
  invocation_finished: {
    readonly invocationId: string;
    readonly status: InvocationStatus;
    readonly failureClass?: ErrorClass;
    readonly exitCode?: number | null;
    readonly message?: string;
    /** True when recovery found the command still running after its host died and stopped it. */
    readonly processGroupStopped?: true;
  };
  /** A sandbox boundary request was journaled and is (or was) waiting for a decision. */
  boundary_requested: {
    readonly requestId: string;
    readonly invocationId?: string;
    readonly kind: BoundaryKind;
    readonly subject: string;
    readonly why: string;
    readonly diff?: string;
    /** What "Allow for this session" would also approve, in words. */
    readonly grants?: string;
  };
  /** A boundary request was settled. */
  boundary_decided: {
    readonly requestId: string;
    readonly status: Exclude<BoundaryStatus, 'pending'>;
    readonly decision: BoundaryDecision;
    readonly closureReason: ClosureReason;
  };
  /** Terminal event of a run; also carries the turn's resulting status. */
  run_finished: {
    readonly status: RunStatus;
    readonly turnStatus: TurnStatus;
    readonly errorClass?: ErrorClass;
    readonly message?: string;
  };
  /**
   * Something the user should read that is not the agent's reply (e.g. a refused write).
   * `stopRequestedBy`: the instance (window) that pressed Stop for a run another window drives.
   */
  notice: { readonly level: 'info' | 'warning' | 'error'; readonly message: string; readonly stopRequestedBy?: string };
}

/** One ledger row, typed by its kind. `at` is ms since the epoch. */
export type LedgerEvent = {
  [K in keyof EventPayloads]: {
    readonly runId: string;
    readonly seq: number;
    readonly sessionId: string;
    readonly turnId: string;
    readonly kind: K;
    readonly payload: EventPayloads[K];
    readonly at: number;
  };
}[keyof EventPayloads];

/** An event before the journal assigned its `seq`. */
export type NewLedgerEvent = {
  [K in keyof EventPayloads]: { readonly kind: K; readonly payload: EventPayloads[K] };
}[keyof EventPayloads];

/** Turn as the transcript needs it (a projection of the `turns` row). `createdAt` in ms. */
export interface TurnRecord {
  readonly id: string;
  readonly sessionId: string;
  /**
   * The turn's place in the journal's sequence (`turns.search_doc`: 1, 2, 3… in the order turns were
   * written, the same in every window, kept by VACUUM). A chat's turns are ordered by it, never by
   * `createdAt`, which is the host's clock and may step back; `createdAt` is for display only.
   */
  readonly seq: number;
  readonly prompt: string;
  /** `prompt`: typed by the user; `retry`: Retry of a failed turn; `continue`: Continue after a restart. */
  readonly origin: 'prompt' | 'retry' | 'continue';
  /** The failed turn this one retries or continues, if any. */
  readonly parentTurnId: string | null;
  readonly status: TurnStatus;
  readonly errorClass: ErrorClass | null;
  readonly createdAt: number;
  /** The id the webview gave the message (`send`'s `clientId`); null for Retry, Continue and turns before schema 5. */
  readonly clientId?: string | null;
  /** Whether the agent acknowledged the prompt (see `DELIVERY_STATES`); null before schema 5. */
  readonly delivery?: DeliveryState | null;
  /** How the message was sent (see `SENT_FROM`); null for Retry, Continue and turns before schema 5. */
  readonly sentFrom?: SentFrom | null;
  /**
   * The model the turn was run with (schema 9): the chat's choice, else the provider's setting of the
   * window that started it; null when neither named one, and for turns before schema 9.
   */
  readonly model?: string | null;
  /**
   * The turn whose prompt the user edited and sent again as this one (schema 10): that turn is
   * shown collapsed as edited and left out of the history agents get. Null for every other turn.
   */
  readonly replacesTurnId?: string | null;
  /** What the user attached to the prompt, in order (absent: nothing; see `src/core/attachments.ts`). */
  readonly attachments?: readonly AttachmentView[];
}

/**
 * A message in a chat's queue (`queued_prompts`), as the journal has it. `position` orders the queue
 * (lowest first); `sendNow`: the user pressed Send now, so it goes next even after a Stop; `hold`:
 * why it waits for the user (null: it goes out when the reply ends normally). Times in ms.
 */
export interface QueuedPromptRecord {
  readonly clientId: string;
  readonly sessionId: string;
  readonly text: string;
  readonly state: QueuedPromptState;
  readonly position: number;
  readonly hold: HoldReason | null;
  readonly sendNow: boolean;
  /** The turn it became once `sent`. */
  readonly turnId: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** What the user attached to the message, in order (absent: nothing). */
  readonly attachments?: readonly AttachmentView[];
}

/** Session as lists and tabs need it. Times in ms since the epoch. */
export interface SessionRecord {
  readonly id: string;
  readonly title: string;
  readonly provider: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  /**
   * The workspace folder the chat was created in: the creating window's folder key (its first
   * folder's path, as tab records carry), '' for a window with no folder, null when unknown (a chat
   * created before the journal recorded it, until `assignWorkspace`). Unset when creating: unknown.
   */
  readonly workspace?: string | null;
  /** The model picked in the chat's header (schema 9); null or unset: the provider's setting. */
  readonly model?: string | null;
}
