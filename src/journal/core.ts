/**
 * `JournalCore`: every read and write of the journal as synchronous operations on one open sql.js
 * database. It knows SQL and row shapes, nothing about files, processes or threads: `journal.ts`
 * wraps it with persistence and the async interface callers use.
 *
 * Each write method runs inside a transaction opened by the caller (`Journal.write`); write methods
 * are idempotent where recovery needs them to be: a settle of a request that is no longer pending,
 * or the finish of a run or invocation that is already terminal, changes nothing and says so.
 */
import type { Database, SqlValue } from 'sql.js';
import type { LedgerEvent, NewLedgerEvent, ProcessGroupRecord, SessionRecord, TurnRecord } from '../core/events';
import {
  ERROR_CLASSES, EVENT_KINDS, TURN_STATUSES, isOneOf,
  type BoundaryDecision, type BoundaryKind, type BoundaryStatus, type ClosureReason, type ErrorClass, type InvocationStatus,
  type RunStatus, type TurnStatus,
} from '../core/vocabulary';
import { fenceMessage } from './plainErrors';
import { JournalRefusedError } from './errors';
import { StatementCache } from './statementCache';
import type { BoundaryRequestRecord, InstanceRecord, InvocationRecord, RunRecord, TabRecord } from './records';

type Row = Record<string, SqlValue>;

/** Input of `startTurn`: a turn and its first run, created together. */
export interface StartTurnInput {
  readonly turn: Omit<TurnRecord, 'status' | 'errorClass'>;
  readonly run: { readonly id: string; readonly instanceId: string; readonly provider: string };
}

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

/** Input of `finishRun`: the run's and its turn's terminal state. */
export interface FinishRunInput {
  readonly runId: string;
  readonly status: Exclude<RunStatus, 'running'>;
  readonly turnStatus: Exclude<TurnStatus, 'running'>;
  readonly errorClass?: ErrorClass;
  readonly message?: string;
  readonly at: number;
}

/** Input of `finishInvocation`. */
export interface FinishInvocationInput {
  readonly id: string;
  readonly status: Exclude<InvocationStatus, 'running' | 'awaiting_approval'>;
  readonly failureClass?: ErrorClass;
  readonly exitCode?: number | null;
  readonly message?: string;
  /** Recovery stopped the command's process group, still running after its host died. */
  readonly processGroupStopped?: boolean;
  readonly at: number;
}

/** Receives every write statement (SQL and parameters) a transaction runs, for the redo log. */
export type StatementRecorder = (sql: string, params: readonly (string | number | null)[]) => void;

/**
 * A row this build cannot decode (unknown status, malformed JSON…). Reads skip it and fence its
 * chat; writes to a fenced chat are refused, every other chat keeps working. `newer`: the row holds
 * an unknown name where a newer build could have written one (see `unknownValue`); else it is damaged.
 */
export class UnreadableRowError extends Error {
  constructor(readonly sessionId: string, readonly table: string, readonly rowId: string, detail: string, readonly newer = false) {
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

/** Synchronous journal operations over one sql.js database (see module docstring). */
export class JournalCore {
  private touchedSessions = new Set<string>();
  private readonly fences = new Map<string, string>();

  private readonly statements: StatementCache;

  /** @param record called with every write statement (the redo log's source). */
  constructor(private readonly db: Database, private readonly record: StatementRecorder = () => undefined) {
    this.statements = new StatementCache(db);
  }

  /** Sessions the current write touched; clears the set. */
  takeTouched(): string[] {
    const list = [...this.touchedSessions];
    this.touchedSessions.clear();
    return list;
  }

  /** Why writes to a chat are refused (it has a row this build cannot read), or null. */
  getFence(sessionId: string): string | null {
    return this.fences.get(sessionId) ?? null;
  }

  /** Marks a session as changed by this write; refuses if the chat is fenced. */
  private touch(sessionId: string): void {
    const fence = this.fences.get(sessionId);
    if (fence) throw new JournalRefusedError('row_unreadable', fence);
    this.touchedSessions.add(sessionId);
  }

  /** Decodes rows, skipping (and fencing the chat of) rows this build cannot read. */
  private decodeAll<T>(rows: Row[], decode: (r: Row) => T): T[] {
    const out: T[] = [];
    for (const row of rows) {
      try {
        out.push(decode(row));
      } catch (error) {
        if (!(error instanceof UnreadableRowError)) throw error;
        this.fences.set(error.sessionId, fenceMessage(error.table, error.newer));
      }
    }
    return out;
  }

  /**
   * Runs the migrations above the database's `user_version` up to `target`, one per call:
   * returns the version reached, or undefined when there is nothing to do. Statements are recorded,
   * so other processes replay the migration from the log.
   */
  migrateOne(migrations: readonly { version: number; sql: string }[]): number | undefined {
    const current = this.userVersion();
    const next = migrations.find((m) => m.version === current + 1);
    if (!next) return undefined;
    this.exec(next.sql);
    this.exec(`PRAGMA user_version = ${next.version}`);
    return next.version;
  }

  /** The database's `user_version`. */
  userVersion(): number {
    // Checked before every write: a prepared statement, not a fresh parse each time.
    return Number(this.one('PRAGMA user_version')?.user_version ?? 0);
  }

  private exec(sql: string): void {
    this.db.exec(sql);
    this.record(sql, []);
  }

  // ---------------------------------------------------------------- low level

  private all(sql: string, params: SqlValue[] = []): Row[] {
    const stmt = this.statements.get(sql);
    try {
      stmt.bind(params);
      const rows: Row[] = [];
      while (stmt.step()) rows.push(stmt.getAsObject() as Row);
      return rows;
    } finally {
      stmt.reset();
    }
  }

  private one(sql: string, params: SqlValue[] = []): Row | undefined {
    return this.all(sql, params)[0];
  }

  private run(sql: string, params: (string | number | null)[] = []): number {
    const changed = this.statements.run(sql, params);
    if (changed > 0) this.record(sql, params);
    return changed;
  }

  // ---------------------------------------------------------------- sessions

  /** Creates a session. Throws a `not_found`-free constraint error if the id exists. */
  createSession(session: SessionRecord): SessionRecord {
    this.touch(session.id);
    this.run('INSERT INTO sessions (id, title, provider, created_at, updated_at) VALUES (?, ?, ?, ?, ?)', [
      session.id, session.title, session.provider, session.createdAt, session.updatedAt,
    ]);
    return session;
  }

  /**
   * Renames a session. With `onlyIfTitle`, only while its title is still that (the automatic name
   * from the first prompt must not replace a title the user gave meanwhile, in any window): checked
   * inside the transaction. Returns the session, renamed or not.
   * @throws JournalRefusedError('not_found') for an unknown id.
   */
  renameSession(id: string, title: string, at: number, onlyIfTitle?: string): { renamed: boolean; session: SessionRecord } {
    this.touch(id);
    if (!this.getSession(id)) throw new JournalRefusedError('not_found', `No chat with id ${id}.`);
    const renamed =
      onlyIfTitle === undefined
        ? this.run('UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?', [title, at, id]) > 0
        : this.run('UPDATE sessions SET title = ?, updated_at = ? WHERE id = ? AND title = ?', [title, at, id, onlyIfTitle]) > 0;
    return { renamed, session: this.getSession(id)! };
  }

  /**
   * Deletes a chat and everything recorded under it (turns, runs, invocations, events, boundary
   * requests, its tab record) in this one transaction, unless one of its runs is still in flight in
   * some window: then nothing changes and `deleted` is false. A chat fenced for a row this build
   * cannot read is refused (`row_unreadable`) like any other write to it.
   * @throws JournalRefusedError('not_found') for an unknown id.
   */
  deleteSession(id: string): { deleted: boolean } {
    this.touch(id);
    if (!this.getSession(id)) throw new JournalRefusedError('not_found', `No chat with id ${id}.`);
    if (this.all("SELECT 1 FROM runs WHERE session_id = ? AND status = 'running' LIMIT 1", [id]).length > 0) return { deleted: false };
    for (const table of ['events', 'boundary_requests', 'invocations', 'runs', 'turns', 'tabs']) {
      this.run(`DELETE FROM ${table} WHERE session_id = ?`, [id]);
    }
    this.run('DELETE FROM sessions WHERE id = ?', [id]);
    return { deleted: true };
  }

  /** Stores the provider's own state for a session (e.g. its session or thread id), JSON text. */
  setProviderState(id: string, state: string | null, at: number): void {
    this.touch(id);
    this.run('UPDATE sessions SET provider_state = ?, updated_at = ? WHERE id = ?', [state, at, id]);
  }

  /** The provider state set by `setProviderState`, or null. */
  getProviderState(id: string): string | null {
    const row = this.one('SELECT provider_state FROM sessions WHERE id = ?', [id]);
    return (row?.provider_state as string | null | undefined) ?? null;
  }

  /** One session or undefined. */
  getSession(id: string): SessionRecord | undefined {
    const row = this.one('SELECT * FROM sessions WHERE id = ?', [id]);
    return row && toSession(row);
  }

  /** Every session, most recently updated first. */
  listSessions(): SessionRecord[] {
    return this.all('SELECT * FROM sessions ORDER BY updated_at DESC, id').map(toSession);
  }

  // ---------------------------------------------------------------- turns and runs

  /** Creates a turn (status running) and its run (status running) in the caller's transaction. */
  startTurn(input: StartTurnInput): { turn: TurnRecord; run: RunRecord } {
    const t = input.turn;
    if (!this.getSession(t.sessionId)) throw new JournalRefusedError('not_found', `No chat with id ${t.sessionId}.`);
    this.touch(t.sessionId);
    this.run(
      'INSERT INTO turns (id, session_id, prompt, origin, parent_turn_id, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [t.id, t.sessionId, t.prompt, t.origin, t.parentTurnId, 'running', t.createdAt],
    );
    this.run(
      'INSERT INTO runs (id, turn_id, session_id, instance_id, provider, status, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [input.run.id, t.id, t.sessionId, input.run.instanceId, input.run.provider, 'running', t.createdAt],
    );
    this.run('UPDATE sessions SET updated_at = ? WHERE id = ?', [t.createdAt, t.sessionId]);
    return { turn: this.getTurn(t.id)!, run: this.getRun(input.run.id)! };
  }

  /** One turn or undefined. */
  getTurn(id: string): TurnRecord | undefined {
    const row = this.one('SELECT * FROM turns WHERE id = ?', [id]);
    return row && this.decodeAll([row], toTurn)[0];
  }

  /** A session's turns, oldest first. */
  listTurns(sessionId: string): TurnRecord[] {
    return this.decodeAll(this.all('SELECT * FROM turns WHERE session_id = ? ORDER BY created_at, id', [sessionId]), toTurn);
  }

  /** One run or undefined. */
  getRun(id: string): RunRecord | undefined {
    const row = this.one('SELECT * FROM runs WHERE id = ?', [id]);
    return row && toRun(row);
  }

  /** Runs still marked running (in flight in some host, or orphaned by a dead one). */
  listRunsInFlight(): RunRecord[] {
    return this.all("SELECT * FROM runs WHERE status = 'running' ORDER BY started_at, id").map(toRun);
  }

  /**
   * Ends a run and its turn, appending the `run_finished` event. Idempotent: a run that is no longer
   * running is left as it is and `finished` is false (no second terminal state).
   */
  finishRun(input: FinishRunInput): { finished: boolean; events: LedgerEvent[] } {
    const run = this.getRun(input.runId);
    if (!run) throw new JournalRefusedError('not_found', `No run with id ${input.runId}.`);
    this.touch(run.sessionId);
    const changed = this.run(
      "UPDATE runs SET status = ?, error_class = ?, finished_at = ? WHERE id = ? AND status = 'running'",
      [input.status, input.errorClass ?? null, input.at, input.runId],
    );
    if (changed === 0) return { finished: false, events: [] };
    this.run("UPDATE turns SET status = ?, error_class = ?, finished_at = ? WHERE id = ? AND status = 'running'", [
      input.turnStatus, input.errorClass ?? null, input.at, run.turnId,
    ]);
    this.run('UPDATE sessions SET updated_at = ? WHERE id = ?', [input.at, run.sessionId]);
    const events = this.appendEvents(input.runId, [
      {
        kind: 'run_finished',
        payload: {
          status: input.status,
          turnStatus: input.turnStatus,
          ...(input.errorClass ? { errorClass: input.errorClass } : {}),
          ...(input.message ? { message: input.message } : {}),
        },
      },
    ], input.at);
    return { finished: true, events };
  }

  // ---------------------------------------------------------------- events

  /** Appends events to a run's ledger with the next sequence numbers; returns them as stored. */
  appendEvents(runId: string, events: readonly NewLedgerEvent[], at: number): LedgerEvent[] {
    if (events.length === 0) return [];
    // One statement for the run and its last sequence number (this runs for every streamed delta).
    const row = this.one(
      'SELECT session_id, turn_id, (SELECT COALESCE(MAX(seq), 0) FROM events WHERE run_id = runs.id) AS last FROM runs WHERE id = ?',
      [runId],
    );
    if (!row) throw new JournalRefusedError('not_found', `No run with id ${runId}.`);
    const run = { sessionId: row.session_id as string, turnId: row.turn_id as string };
    this.touch(run.sessionId);
    const next = (row.last as number) + 1;
    const stored: LedgerEvent[] = [];
    events.forEach((event, i) => {
      const seq = next + i;
      this.run('INSERT INTO events (run_id, seq, session_id, turn_id, kind, payload, at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
        runId, seq, run.sessionId, run.turnId, event.kind, JSON.stringify(event.payload), at,
      ]);
      stored.push({ runId, seq, sessionId: run.sessionId, turnId: run.turnId, kind: event.kind, payload: event.payload, at } as LedgerEvent);
    });
    return stored;
  }

  /**
   * Asks the window that drives a run to stop it (Stop pressed in another window): appends a
   * `notice` event naming the asking instance (`stopRequestedBy`). A notice, not a new event kind,
   * so a build that knows no such request still reads the row (an unknown kind would fence the
   * chat there) and shows the line. Only while the run is in flight: returns the stored event, or
   * [] when the run already ended. The owner learns of it through `stopRequested`.
   * @throws JournalRefusedError('not_found') for an unknown run.
   */
  requestStop(runId: string, instanceId: string, message: string, at: number): LedgerEvent[] {
    const run = this.getRun(runId);
    if (!run) throw new JournalRefusedError('not_found', `No run with id ${runId}.`);
    if (run.status !== 'running' || this.stopRequested(runId)) return []; // a replayed Stop asks once
    return this.appendEvents(runId, [{ kind: 'notice', payload: { level: 'info', message, stopRequestedBy: instanceId } }], at);
  }

  /** True when another window asked to stop this run (`requestStop`). */
  stopRequested(runId: string): boolean {
    return (
      this.one("SELECT 1 AS x FROM events WHERE run_id = ? AND kind = 'notice' AND json_extract(payload, '$.stopRequestedBy') IS NOT NULL LIMIT 1", [runId]) !==
      undefined
    );
  }

  /** A session's ledger, in run start order then sequence order. */
  listEvents(sessionId: string): LedgerEvent[] {
    return this.decodeAll(
      this.all(
        `SELECT e.* FROM events e JOIN runs r ON r.id = e.run_id
         WHERE e.session_id = ? ORDER BY r.started_at, e.run_id, e.seq`,
        [sessionId],
      ),
      toEvent,
    );
  }

  // ---------------------------------------------------------------- invocations

  /** Journals a tool invocation as running and appends `invocation_started`. */
  startInvocation(input: { id: string; runId: string; tool: string; input: string; summary: string; diff?: string; at: number }): LedgerEvent[] {
    const run = this.getRun(input.runId);
    if (!run) throw new JournalRefusedError('not_found', `No run with id ${input.runId}.`);
    this.touch(run.sessionId);
    this.run(
      'INSERT INTO invocations (id, run_id, turn_id, session_id, tool, input, status, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      [input.id, input.runId, run.turnId, run.sessionId, input.tool, input.input, 'running', input.at],
    );
    return this.appendEvents(input.runId, [
      { kind: 'invocation_started', payload: { invocationId: input.id, tool: input.tool, summary: input.summary, ...(input.diff ? { diff: input.diff } : {}) } },
    ], input.at);
  }

  /**
   * The process groups a run's `run` commands started (`invocation_output` events carrying
   * `processGroup`), in ledger order. A payload whose group is malformed is left out.
   */
  listProcessGroups(runId: string): { invocationId: string; group: ProcessGroupRecord }[] {
    const rows = this.all(
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

  /** One invocation or undefined. */
  getInvocation(id: string): InvocationRecord | undefined {
    const row = this.one('SELECT * FROM invocations WHERE id = ?', [id]);
    return row && toInvocation(row);
  }

  /** A run's invocations that have no terminal state yet. */
  listOpenInvocations(runId: string): InvocationRecord[] {
    return this.all(
      "SELECT * FROM invocations WHERE run_id = ? AND status IN ('running', 'awaiting_approval') ORDER BY started_at, id",
      [runId],
    ).map(toInvocation);
  }

  /** Sets an invocation's status (non-terminal changes, e.g. awaiting_approval → running). */
  setInvocationStatus(id: string, status: 'running' | 'awaiting_approval'): void {
    this.run("UPDATE invocations SET status = ? WHERE id = ? AND status IN ('running', 'awaiting_approval')", [status, id]);
  }

  /**
   * Ends an invocation and appends `invocation_finished`. Idempotent: an invocation already
   * terminal is left alone and `finished` is false.
   */
  finishInvocation(input: FinishInvocationInput): { finished: boolean; events: LedgerEvent[] } {
    const inv = this.getInvocation(input.id);
    if (!inv) throw new JournalRefusedError('not_found', `No tool invocation with id ${input.id}.`);
    this.touch(inv.sessionId);
    const changed = this.run(
      "UPDATE invocations SET status = ?, failure_class = ?, finished_at = ? WHERE id = ? AND status IN ('running', 'awaiting_approval')",
      [input.status, input.failureClass ?? null, input.at, input.id],
    );
    if (changed === 0) return { finished: false, events: [] };
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

  // ---------------------------------------------------------------- boundary requests

  /**
   * Creates a boundary request with its provenance (session, turn, run, invocation) in one INSERT,
   * and appends `boundary_requested` (plus `boundary_decided` when `autoApproved` by a session grant).
   */
  createBoundaryRequest(input: CreateBoundaryRequestInput): { request: BoundaryRequestRecord; events: LedgerEvent[] } {
    const run = this.getRun(input.runId);
    if (!run) throw new JournalRefusedError('not_found', `No run with id ${input.runId}.`);
    this.touch(run.sessionId);
    const approved = input.autoApproved === true;
    this.run(
      `INSERT INTO boundary_requests (id, session_id, turn_id, run_id, invocation_id, kind, subject, why, detail, scope_key,
         status, decision, closure_reason, created_at, decided_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        input.id, run.sessionId, run.turnId, run.id, input.invocationId, input.kind, input.subject, input.why, input.detail, input.scopeKey,
        approved ? 'approved' : 'pending', approved ? 'allow_session' : null, approved ? 'session_grant' : null, input.at, approved ? input.at : null,
      ],
    );
    if (input.invocationId && !approved) this.setInvocationStatus(input.invocationId, 'awaiting_approval');
    const events = this.appendEvents(run.id, [
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

  /** One boundary request or undefined. */
  getBoundaryRequest(id: string): BoundaryRequestRecord | undefined {
    const row = this.one('SELECT * FROM boundary_requests WHERE id = ?', [id]);
    return row && toBoundary(row);
  }

  /** A run's requests still pending. */
  listPendingBoundaryRequests(runId: string): BoundaryRequestRecord[] {
    return this.all("SELECT * FROM boundary_requests WHERE run_id = ? AND status = 'pending' ORDER BY created_at, id", [runId]).map(toBoundary);
  }

  /** Every pending request of a session (any run). */
  listSessionPendingBoundaryRequests(sessionId: string): BoundaryRequestRecord[] {
    return this.all("SELECT * FROM boundary_requests WHERE session_id = ? AND status = 'pending' ORDER BY created_at, id", [sessionId]).map(toBoundary);
  }

  /**
   * Requests a restart closed: settled as denied with closure reason `host_restarted`. Because the
   * query filters on the settled outcome, a request answered before the restart (or denied for any
   * other reason) can never be read as a restart closure.
   */
  listRestartClosures(sessionId: string): BoundaryRequestRecord[] {
    return this.all(
      "SELECT * FROM boundary_requests WHERE session_id = ? AND status = 'denied' AND closure_reason = 'host_restarted' ORDER BY created_at, id",
      [sessionId],
    ).map(toBoundary);
  }

  /**
   * Settles a pending request and appends `boundary_decided`. Idempotent: a request that is no longer
   * pending is left as it is and `settled` is false (its current row is returned).
   */
  settleBoundaryRequest(input: SettleBoundaryRequestInput): { settled: boolean; request: BoundaryRequestRecord; events: LedgerEvent[] } {
    const existing = this.getBoundaryRequest(input.id);
    if (!existing) throw new JournalRefusedError('not_found', `No boundary request with id ${input.id}.`);
    this.touch(existing.sessionId);
    const changed = this.run(
      "UPDATE boundary_requests SET status = ?, decision = ?, closure_reason = ?, decided_at = ? WHERE id = ? AND status = 'pending'",
      [input.status, input.decision, input.closureReason, input.at, input.id],
    );
    if (changed === 0) return { settled: false, request: existing, events: [] };
    if (existing.invocationId && input.status === 'approved') this.setInvocationStatus(existing.invocationId, 'running');
    const events = existing.runId
      ? this.appendEvents(existing.runId, [
          { kind: 'boundary_decided', payload: { requestId: input.id, status: input.status, decision: input.decision, closureReason: input.closureReason } },
        ], input.at)
      : [];
    return { settled: true, request: this.getBoundaryRequest(input.id)!, events };
  }

  /** True when an earlier "Allow for this session" in this session covers `scopeKey`. */
  hasSessionGrant(sessionId: string, scopeKey: string): boolean {
    return this.one(
      "SELECT 1 AS x FROM boundary_requests WHERE session_id = ? AND scope_key = ? AND decision = 'allow_session' AND status = 'approved' LIMIT 1",
      [sessionId, scopeKey],
    ) !== undefined;
  }

  // ---------------------------------------------------------------- tabs

  /**
   * Records that a chat has an open tab in a window on `workspace` (a folder path; '': no folder;
   * null: not known, as an older build records it).
   * Idempotent; a chat shown last in another folder's window moves its record there. Nothing for a
   * chat that is not in the journal (deleted in another window meanwhile): a restored panel would
   * adopt that record.
   */
  recordTab(sessionId: string, at: number, workspace: string | null = null): void {
    this.touchedSessions.add(sessionId);
    this.run(
      `INSERT INTO tabs (session_id, opened_at, workspace) SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?)
       ON CONFLICT(session_id) DO UPDATE SET workspace = excluded.workspace WHERE tabs.workspace IS NOT excluded.workspace`,
      [sessionId, at, workspace, sessionId],
    );
  }

  /** Forgets a chat's tab (the user closed it). */
  removeTab(sessionId: string): void {
    this.touchedSessions.add(sessionId);
    this.run('DELETE FROM tabs WHERE session_id = ?', [sessionId]);
  }

  /** Chats that had open tabs, oldest first. */
  listTabs(): TabRecord[] {
    return this.all('SELECT * FROM tabs ORDER BY opened_at, session_id')
      .map((r) => ({ sessionId: r.session_id as string, openedAt: r.opened_at as number, workspace: (r.workspace as string | null) ?? null }));
  }

  // ---------------------------------------------------------------- instances

  /** Registers (or refreshes) an extension-host instance. */
  registerInstance(instance: InstanceRecord): void {
    this.run(
      `INSERT INTO instances (id, pid, process_start, hostname, started_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET last_seen_at = excluded.last_seen_at`,
      [instance.id, instance.pid, instance.processStart, instance.hostname, instance.startedAt, instance.lastSeenAt],
    );
  }

  /** Removes an instance row (its process is gone and nothing it owned is still in flight). */
  removeInstance(id: string): void {
    this.run('DELETE FROM instances WHERE id = ?', [id]);
  }

  /** One instance or undefined. */
  getInstance(id: string): InstanceRecord | undefined {
    const row = this.one('SELECT * FROM instances WHERE id = ?', [id]);
    return row && toInstance(row);
  }

  /** Every registered instance. */
  listInstances(): InstanceRecord[] {
    return this.all('SELECT * FROM instances ORDER BY started_at, id').map(toInstance);
  }
}

// -------------------------------------------------------------------- row decoding

function toSession(r: Row): SessionRecord {
  return { id: r.id as string, title: r.title as string, provider: r.provider as string, createdAt: r.created_at as number, updatedAt: r.updated_at as number };
}

function toTurn(r: Row): TurnRecord {
  const bad = ([detail, newer]: [string, boolean]) => new UnreadableRowError(r.session_id as string, 'turns', r.id as string, detail, newer);
  if (!isOneOf(TURN_STATUSES, r.status)) throw bad(unknownValue('status', r.status));
  if (!isOneOf(['prompt', 'retry', 'continue'] as const, r.origin)) throw bad(unknownValue('origin', r.origin));
  if (r.error_class !== null && !isOneOf(ERROR_CLASSES, r.error_class)) throw bad(unknownValue('error class', r.error_class));
  return {
    id: r.id as string,
    sessionId: r.session_id as string,
    prompt: r.prompt as string,
    origin: r.origin as TurnRecord['origin'],
    parentTurnId: (r.parent_turn_id as string | null) ?? null,
    status: r.status as TurnStatus,
    errorClass: (r.error_class as ErrorClass | null) ?? null,
    createdAt: r.created_at as number,
  };
}

function toRun(r: Row): RunRecord {
  return {
    id: r.id as string,
    turnId: r.turn_id as string,
    sessionId: r.session_id as string,
    instanceId: r.instance_id as string,
    provider: r.provider as string,
    status: r.status as RunStatus,
    errorClass: (r.error_class as ErrorClass | null) ?? null,
    startedAt: r.started_at as number,
    finishedAt: (r.finished_at as number | null) ?? null,
  };
}

function toInvocation(r: Row): InvocationRecord {
  return {
    id: r.id as string,
    runId: r.run_id as string,
    turnId: r.turn_id as string,
    sessionId: r.session_id as string,
    tool: r.tool as string,
    input: r.input as string,
    status: r.status as InvocationStatus,
    failureClass: (r.failure_class as ErrorClass | null) ?? null,
    startedAt: r.started_at as number,
    finishedAt: (r.finished_at as number | null) ?? null,
  };
}

function toBoundary(r: Row): BoundaryRequestRecord {
  return {
    id: r.id as string,
    sessionId: r.session_id as string,
    turnId: r.turn_id as string,
    runId: (r.run_id as string | null) ?? null,
    invocationId: (r.invocation_id as string | null) ?? null,
    kind: r.kind as BoundaryKind,
    subject: r.subject as string,
    why: r.why as string,
    detail: (r.detail as string | null) ?? null,
    scopeKey: r.scope_key as string,
    status: r.status as BoundaryStatus,
    decision: (r.decision as BoundaryDecision | null) ?? null,
    closureReason: (r.closure_reason as ClosureReason | null) ?? null,
    createdAt: r.created_at as number,
    decidedAt: (r.decided_at as number | null) ?? null,
  };
}

function toInstance(r: Row): InstanceRecord {
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
function parseProcessGroup(text: SqlValue | undefined): ProcessGroupRecord | undefined {
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

function toEvent(r: Row): LedgerEvent {
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
