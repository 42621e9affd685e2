/** Operations on boundary requests: create with provenance, settle once, pending lists, restart closures, session grants. */
import type { LedgerEvent } from '../../core/events';
import type { BoundaryDecision, BoundaryStatus, ClosureReason } from '../../core/vocabulary';
import type { BoundaryRequestRecord } from '../records';
import { toBoundary } from './rows';
import type { Concerns } from '../core';
import type { JournalDb } from './database';
import type { ChatFences } from './fences';

/**
 * Input of `createBoundaryRequest`: the request row's own fields (session and turn come from the
 * run), what a session grant would cover (`grants`, shown, not stored), the time, and
 * `autoApproved` for a request approved by a session grant.
 */
export type CreateBoundaryRequestInput = Pick<BoundaryRequestRecord, 'id' | 'invocationId' | 'kind' | 'subject' | 'why' | 'detail' | 'scopeKey'> & {
  readonly runId: string;
  readonly grants?: string;
  readonly at: number;
  readonly autoApproved?: boolean;
};

/** Input of `settleBoundaryRequest`. */
export interface SettleBoundaryRequestInput {
  readonly id: string;
  readonly status: Exclude<BoundaryStatus, 'pending'>;
  readonly decision: BoundaryDecision;
  readonly closureReason: ClosureReason;
  readonly at: number;
}

/**
 * The operations of this concern (see module docstring): one object of `JournalCore`'s composition
 * (../core.ts), given the database (`db`), the fences (`fences`) and the concerns it calls
 * (`peers`: events, turns).
 */
export class BoundaryRequestOps {
  constructor(private readonly db: JournalDb, private readonly fences: ChatFences, private readonly peers: Pick<Concerns, 'events' | 'turns'>) {}

  /**
   * Creates a boundary request with its provenance (session, turn, run, invocation) in one INSERT,
   * and appends `boundary_requested` (plus `boundary_decided` when `autoApproved` by a session grant).
   */
  createBoundaryRequest(input: CreateBoundaryRequestInput): { request: BoundaryRequestRecord; events: LedgerEvent[] } {
    const run = this.peers.turns.requireRun(input.runId);
    this.fences.touch(run.sessionId);
    const approved = input.autoApproved === true;
    this.db.run(
      `INSERT INTO boundary_requests (id, session_id, turn_id, run_id, invocation_id, kind, subject, why, detail, scope_key,
         status, decision, closure_reason, created_at, decided_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        input.id, run.sessionId, run.turnId, run.id, input.invocationId, input.kind, input.subject, input.why, input.detail, input.scopeKey,
        approved ? 'approved' : 'pending', approved ? 'allow_session' : null, approved ? 'session_grant' : null, input.at, approved ? input.at : null,
      ],
    );
    if (input.invocationId && !approved) this.peers.events.setInvocationStatus(input.invocationId, 'awaiting_approval');
    const events = this.peers.events.appendEvents(run.id, [
      {
        kind: 'boundary_requested',
        payload: {
          requestId: input.id,
          ...(input.invocationId ? { invocationId: input.invocationId } : {}),
          kind: input.kind,
          subject: input.subject,
          why: input.why,
          ...(input.detail ? { diff: input.detail } : {}),
          ...(input.grants ? { grants: input.grants } : {}),
        },
      },
      ...(approved
        ? [{ kind: 'boundary_decided' as const, payload: { requestId: input.id, status: 'approved' as const, decision: 'allow_session' as const, closureReason: 'session_grant' as const } }]
        : []),
    ], input.at);
    return { request: this.getBoundaryRequest(input.id)!, events };
  }

  /** One boundary request, or undefined when there is none or it cannot be read (skipped, its chat fenced). */
  getBoundaryRequest(id: string): BoundaryRequestRecord | undefined {
    const row = this.db.one('SELECT * FROM boundary_requests WHERE id = ?', [id]);
    return row && this.fences.decodeAll([row], toBoundary)[0];
  }

  /** A run's requests still pending, in the order they were asked (rowid: never a clock's time, which may step back). */
  listPendingBoundaryRequests(runId: string): BoundaryRequestRecord[] {
    return this.fences.decodeAll(this.db.all("SELECT * FROM boundary_requests WHERE run_id = ? AND status = 'pending' ORDER BY rowid", [runId]), toBoundary);
  }

  /** Every pending request of a session (any run), in the order they were asked (rowid). */
  listSessionPendingBoundaryRequests(sessionId: string): BoundaryRequestRecord[] {
    return this.fences.decodeAll(this.db.all("SELECT * FROM boundary_requests WHERE session_id = ? AND status = 'pending' ORDER BY rowid", [sessionId]), toBoundary);
  }

  /**
   * Requests a restart closed: settled as denied with closure reason `host_restarted`. Because the
   * query filters on the settled outcome, a request answered before the restart (or denied for any
   * other reason) can never be read as a restart closure.
   */
  listRestartClosures(sessionId: string): BoundaryRequestRecord[] {
    return this.fences.decodeAll(this.db.all(
      "SELECT * FROM boundary_requests WHERE session_id = ? AND status = 'denied' AND closure_reason = 'host_restarted' ORDER BY rowid",
      [sessionId],
    ), toBoundary);
  }

  /**
   * Settles a pending request and appends `boundary_decided`. Idempotent: a request that is no longer
   * pending is left as it is and `settled` is false (its current row is returned).
   */
  settleBoundaryRequest(input: SettleBoundaryRequestInput): { settled: boolean; request: BoundaryRequestRecord; events: LedgerEvent[] } {
    const existing = this.fences.decodeForWrite(this.db.one('SELECT * FROM boundary_requests WHERE id = ?', [input.id]), toBoundary, `No boundary request with id ${input.id}.`);
    this.fences.touch(existing.sessionId);
    const changed = this.db.run(
      "UPDATE boundary_requests SET status = ?, decision = ?, closure_reason = ?, decided_at = ? WHERE id = ? AND status = 'pending'",
      [input.status, input.decision, input.closureReason, input.at, input.id],
    );
    if (changed === 0) return { settled: false, request: existing, events: [] };
    if (existing.invocationId && input.status === 'approved') this.peers.events.setInvocationStatus(existing.invocationId, 'running');
    const events = existing.runId
      ? this.peers.events.appendEvents(existing.runId, [
          { kind: 'boundary_decided', payload: { requestId: input.id, status: input.status, decision: input.decision, closureReason: input.closureReason } },
        ], input.at)
      : [];
    return { settled: true, request: this.getBoundaryRequest(input.id)!, events };
  }

  /** True when an earlier "Allow for this session" in this session covers `scopeKey`. */
  hasSessionGrant(sessionId: string, scopeKey: string): boolean {
    return this.db.one(
      "SELECT 1 AS x FROM boundary_requests WHERE session_id = ? AND scope_key = ? AND decision = 'allow_session' AND status = 'approved' LIMIT 1",
      [sessionId, scopeKey],
    ) !== undefined;
  }
}
