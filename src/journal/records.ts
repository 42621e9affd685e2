/**
 * Row shapes the journal returns, beyond the transcript's own (`core/events.ts`).
 * Times are ms since the epoch.
 */
import type {
  BoundaryDecision, BoundaryKind, BoundaryStatus, ClosureReason, ErrorClass, InvocationStatus, RunStatus,
} from '../core/vocabulary';

/** A run row. `instanceId` names the extension host that drives (or drove) it. */
export interface RunRecord {
  readonly id: string;
  readonly turnId: string;
  readonly sessionId: string;
  readonly instanceId: string;
  readonly provider: string;
  readonly status: RunStatus;
  readonly errorClass: ErrorClass | null;
  readonly startedAt: number;
  readonly finishedAt: number | null;
}

/** A tool invocation row. `input` is the tool's JSON input. */
export interface InvocationRecord {
  readonly id: string;
  readonly runId: string;
  readonly turnId: string;
  readonly sessionId: string;
  readonly tool: string;
  readonly input: string;
  readonly status: InvocationStatus;
  readonly failureClass: ErrorClass | null;
  readonly startedAt: number;
  readonly finishedAt: number | null;
}

/**
 * A sandbox boundary request row. Provenance (`turnId`, `runId`, `invocationId`) is written in the
 * same INSERT that creates the row; `runId` is null only for rows written without run identity.
 */
export interface BoundaryRequestRecord {
  readonly id: string;
  readonly sessionId: string;
  readonly turnId: string;
  readonly runId: string | null;
  readonly invocationId: string | null;
  readonly kind: BoundaryKind;
  readonly subject: string;
  readonly why: string;
  readonly detail: string | null;
  readonly scopeKey: string;
  readonly status: BoundaryStatus;
  readonly decision: BoundaryDecision | null;
  readonly closureReason: ClosureReason | null;
  readonly createdAt: number;
  readonly decidedAt: number | null;
}

/** An extension-host instance. `processStart` tells a live process from a reused pid. */
export interface InstanceRecord {
  readonly id: string;
  readonly pid: number;
  readonly processStart: string | null;
  readonly hostname: string;
  readonly startedAt: number;
  readonly lastSeenAt: number;
}

/** A journaled open chat tab. */
export interface TabRecord {
  readonly sessionId: string;
  readonly openedAt: number;
  /** The workspace folder (path) of the window that last showed the tab; null: unknown (recorded before schema 3) or no folder. */
  readonly workspace: string | null;
}
