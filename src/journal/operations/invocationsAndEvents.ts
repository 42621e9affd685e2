/** Operations on a run's ledger of events (append, Stop asked from another window) and its tool invocations. */
import type { LedgerEvent, NewLedgerEvent, ProcessGroupRecord } from '../../core/events';
import type { ErrorClass, InvocationStatus } from '../../core/vocabulary';
import { JournalRefusedError } from '../errors';
import { INDEX_PENDING_EVENTS, SEARCH_BATCH } from '../schema';
import type { InvocationRecord } from '../records';
import type { FileChangeInput } from './checkpoints';
import { parseProcessGroup, toEvent, toInvocation } from './rows';
import type { Concerns } from '../core';
import type { JournalDb } from './database';
import type { ChatFences } from './fences';

/** Input of `finishInvocation`. */
export interface FinishInvocationInput {
  readonly id: string;
  readonly status: Exclude<InvocationStatus, 'running' | 'awaiting_approval'>;
  readonly failureClass?: ErrorClass;
  readonly exitCode?: number | null;
  readonly message?: string;
  /** Recovery stopped the command's process group, still running after its host died. */
  readonly processGroupStopped?: boolean;
  /** After images (or anything else) of the invocation's file changes, recorded in the same transaction. */
  readonly fileChanges?: readonly FileChangeInput[];
  /**
   * Whether the invocation's `pending` file changes happened. Left out: `completed` says applied,
   * `denied` not applied, any other end leaves them `pending` (a Stop or a failure may have come
   * after the write).
   */
  readonly fileChangesApplied?: boolean;
  readonly at: number;
}

/**
 * Event kinds only the agent's work makes: the first of them in a run's ledger shows the agent has
 * the prompt. Not `run_finished` (a run may end before its agent ever saw the prompt), `notice` (a
 * Stop asked from another window writes one) or `boundary_decided` (written by the user or recovery).
 */
const AGENT_EVENT_KINDS: ReadonlySet<string> = new Set(['text', 'invocation_started', 'invocation_output', 'invocation_finished', 'boundary_requested']);

/**
 * The operations of this concern (see module docstring): one object of `JournalCore`'s composition
 * (../core.ts), given the database (`db`), the fences (`fences`) and the concerns it calls
 * (`peers`: checkpoints, turns).
 */
export class InvocationEventOps {
  constructor(private readonly db: JournalDb, private readonly fences: ChatFences, private readonly peers: Pick<Concerns, 'checkpoints' | 'turns'>) {}

  /**
   * Appends events to a run's ledger with the next sequence numbers; returns them as stored. The
   * first event of the agent's work (`AGENT_EVENT_KINDS`) marks the run's turn `delivered` (from
   * `sending`) in the same transaction.
   */
  appendEvents(runId: string, events: readonly NewLedgerEvent[], at: number): LedgerEvent[] {
    if (events.length === 0) return [];
    // One statement for the run and its last sequence number (this runs for every streamed delta).
    const row = this.db.one(
      'SELECT session_id, turn_id, (SELECT COALESCE(MAX(seq), 0) FROM events WHERE run_id = runs.id) AS last FROM runs WHERE id = ?',
      [runId],
    );
    if (!row) throw new JournalRefusedError('not_found', `No run with id ${runId}.`);
    const run = { sessionId: row.session_id as string, turnId: row.turn_id as string };
    this.fences.touch(run.sessionId);
    const next = (row.last as number) + 1;
    const stored: LedgerEvent[] = [];
    events.forEach((event, i) => {
      const seq = next + i;
      this.db.run('INSERT INTO events (run_id, seq, session_id, turn_id, kind, payload, at) VALUES (?, ?, ?, ?, ?, CAST(? AS TEXT), ?)', [
        runId, seq, run.sessionId, run.turnId, event.kind, JSON.stringify(event.payload), at,
      ]);
      stored.push({ runId, seq, sessionId: run.sessionId, turnId: run.turnId, kind: event.kind, payload: event.payload, at } as LedgerEvent);
    });
    // A primary-key update that changes (and logs) something once per turn.
    if (events.some((e) => AGENT_EVENT_KINDS.has(e.kind))) this.db.run("UPDATE turns SET delivery = 'delivered' WHERE id = ? AND delivery = 'sending'", [run.turnId]);
    this.indexPendingEvents();
    return stored;
  }

  /**
   * Moves the events waiting for the search index (`event_search_pending`, filled by a trigger in
   * their own transaction) into it once SEARCH_BATCH wait, in this transaction: one FTS4 segment
   * per batch instead of one per write (schema.ts, migration 4). Recorded, so every window does the same.
   */
  indexPendingEvents(): void {
    if (Number(this.db.one('SELECT COUNT(*) AS n FROM event_search_pending')?.n ?? 0) < SEARCH_BATCH) return;
    for (const sql of INDEX_PENDING_EVENTS) this.db.runRecorded(sql, []);
  }

  /**
   * Asks the window that drives a run to stop it (Stop pressed in another window): appends a
   * `notice` event naming the asking instance (`stopRequestedBy`). A notice, not a new event kind,
   * so a build that knows no such request still reads the row (an unknown kind would fence the
   * chat there) and shows the line. Only while the run is in flight: returns the stored event, or
   * [] when the run already ended. The owner learns of it through `stopRequested`.
   * @throws JournalRefusedError('not_found') for an unknown run, ('row_unreadable') for one this build cannot read.
   */
  requestStop(runId: string, instanceId: string, message: string, at: number): LedgerEvent[] {
    const run = this.peers.turns.requireRun(runId);
    if (run.status !== 'running' || this.stopRequested(runId)) return []; // a replayed Stop asks once
    return this.appendEvents(runId, [{ kind: 'notice', payload: { level: 'info', message, stopRequestedBy: instanceId } }], at);
  }

  /** True when another window asked to stop this run (`requestStop`). */
  stopRequested(runId: string): boolean {
    return (
      this.db.one("SELECT 1 AS x FROM events WHERE run_id = ? AND kind = 'notice' AND json_extract(payload, '$.stopRequestedBy') IS NOT NULL LIMIT 1", [runId]) !==
      undefined
    );
  }

  /**
   * A session's ledger: its runs in the order they were written (the runs' rowid: a run is written
   * with its turn, and a rowid table keeps the order of its rows, VACUUM or not), then each run's
   * events by `seq`. Never by a clock's times, which may step back.
   */
  listEvents(sessionId: string): LedgerEvent[] {
    return this.fences.decodeAll(
      this.db.all(
        `SELECT e.* FROM events e JOIN runs r ON r.id = e.run_id
         WHERE e.session_id = ? ORDER BY r.rowid, e.seq`,
        [sessionId],
      ),
      toEvent,
    );
  }

  /**
   * Journals a tool invocation as running and appends `invocation_started`; its file changes
   * (`fileChanges`: the before images, and after images when known ahead) in the same transaction.
   */
  startInvocation(input: { id: string; runId: string; tool: string; input: string; summary: string; diff?: string; fileChanges?: readonly FileChangeInput[]; at: number }): LedgerEvent[] {
    const run = this.peers.turns.requireRun(input.runId);
    this.fences.touch(run.sessionId);
    this.db.run(
      'INSERT INTO invocations (id, run_id, turn_id, session_id, tool, input, status, started_at) VALUES (?, ?, ?, ?, ?, CAST(? AS TEXT), ?, ?)',
      [input.id, input.runId, run.turnId, run.sessionId, input.tool, input.input, 'running', input.at],
    );
    if (input.fileChanges?.length) this.peers.checkpoints.putFileChanges({ id: input.id, runId: input.runId, turnId: run.turnId, sessionId: run.sessionId }, input.fileChanges, input.at);
    return this.appendEvents(input.runId, [
      { kind: 'invocation_started', payload: { invocationId: input.id, tool: input.tool, summary: input.summary, ...(input.diff ? { diff: input.diff } : {}) } },
    ], input.at);
  }

  /**
   * The process groups a run's `run` commands started (`invocation_output` events carrying
   * `processGroup`), in ledger order. A payload whose group is malformed is left out.
   */
  listProcessGroups(runId: string): { invocationId: string; group: ProcessGroupRecord }[] {
    const rows = this.db.all(
      "SELECT json_extract(payload, '$.invocationId') AS invocation_id, json_extract(payload, '$.processGroup') AS grp FROM events WHERE run_id = ? AND kind = 'invocation_output' AND json_extract(payload, '$.processGroup') IS NOT NULL ORDER BY seq",
      [runId],
    );
    const out: { invocationId: string; group: ProcessGroupRecord }[] = [];
    for (const row of rows) {
      const group = parseProcessGroup(row.grp);
      if (group && typeof row.invocation_id === 'string') out.push({ invocationId: row.invocation_id, group });
    }
    return out;
  }

  /** One invocation, or undefined when there is none or it cannot be read (skipped, its chat fenced). */
  getInvocation(id: string): InvocationRecord | undefined {
    const row = this.db.one('SELECT * FROM invocations WHERE id = ?', [id]);
    return row && this.fences.decodeAll([row], toInvocation)[0];
  }

  /** A run's invocations that have no terminal state yet, in the order they were written (rowid). */
  listOpenInvocations(runId: string): InvocationRecord[] {
    return this.fences.decodeAll(this.db.all(
      "SELECT * FROM invocations WHERE run_id = ? AND status IN ('running', 'awaiting_approval') ORDER BY rowid",
      [runId],
    ), toInvocation);
  }

  /** Sets an invocation's status (non-terminal changes, e.g. awaiting_approval → running). */
  setInvocationStatus(id: string, status: 'running' | 'awaiting_approval'): void {
    this.db.run("UPDATE invocations SET status = ? WHERE id = ? AND status IN ('running', 'awaiting_approval')", [status, id]);
  }

  /**
   * Ends an invocation and appends `invocation_finished`. Idempotent: an invocation already
   * terminal is left alone and `finished` is false.
   */
  finishInvocation(input: FinishInvocationInput): { finished: boolean; events: LedgerEvent[] } {
    const inv = this.fences.decodeForWrite(this.db.one('SELECT * FROM invocations WHERE id = ?', [input.id]), toInvocation, `No tool invocation with id ${input.id}.`);
    this.fences.touch(inv.sessionId);
    const changed = this.db.run(
      "UPDATE invocations SET status = ?, failure_class = ?, finished_at = ? WHERE id = ? AND status IN ('running', 'awaiting_approval')",
      [input.status, input.failureClass ?? null, input.at, input.id],
    );
    if (changed === 0) return { finished: false, events: [] };
    if (input.fileChanges?.length) this.peers.checkpoints.putFileChanges(inv, input.fileChanges, input.at);
    const applied = input.fileChangesApplied ?? (input.status === 'completed' ? true : input.status === 'denied' ? false : undefined);
    if (applied !== undefined) this.peers.checkpoints.settleFileChanges(input.id, applied, input.at);
    const events = this.appendEvents(inv.runId, [
      {
        kind: 'invocation_finished',
        payload: {
          invocationId: input.id,
          status: input.status,
          ...(input.failureClass ? { failureClass: input.failureClass } : {}),
          ...(input.exitCode !== undefined ? { exitCode: input.exitCode } : {}),
          ...(input.message ? { message: input.message } : {}),
          ...(input.processGroupStopped ? { processGroupStopped: true as const } : {}),
        },
      },
    ], input.at);
    return { finished: true, events };
  }
}
