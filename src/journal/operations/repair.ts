/**
 * Repair Journal's operations: the evidence of a fenced chat (`repairEvidence`, a read), the
 * release of a fenced chat (`releaseFencedChat`, a write: its unreadable rows move into
 * `quarantined_rows` with their original values, a note goes into the transcript, the fence lifts),
 * and the rows set aside so far (`listQuarantinedRows`, for Check Journal's report).
 *
 * The release gathers the evidence again inside its own transaction and applies the release rule
 * (src/core/repairRelease.ts) to it: it acts only when the chat's unreadable rows are exactly those
 * the dry run showed, holding the same values, and every clause still holds; otherwise it changes
 * nothing and says why. Rows are deleted by their own stable key (fenceRows.ts), so every window
 * replaying the logged transaction deletes the same row.
 */
import { Buffer } from 'node:buffer';
import type { SqlValue } from 'sql.js';
import type { SetAsideFinding } from '../../core/journalCheck';
import type { ChatRepairEvidence, JournalRepairContext, PlannedRow, UnreadableRowEvidence } from '../../core/repairEvidence';
import { sameRows } from '../../core/repairEvidence';
import { setAsideNote } from '../../core/repairPlan';
import { releaseFailures } from '../../core/repairRelease';
import { SCHEMA_VERSION } from '../schema';
import { FENCING_TABLES, FENCING_TABLE_NAMES } from './fenceRows';
import { UnreadableRowError, type Row } from './rows';
import type { Concerns } from '../core';
import type { JournalDb } from './database';
import type { ChatFences } from './fences';

/** The table of rows set aside (looked up by name, not by schema version: migrations may be renumbered). */
const QUARANTINE_TABLE = 'quarantined_rows';

/** Input of `releaseFencedChat`. Times in ms since the epoch. */
export interface ReleaseChatInput {
  readonly sessionId: string;
  /** The rows the dry run showed, with the values it read. */
  readonly rows: readonly PlannedRow[];
  readonly at: number;
  /** The version of Agent Chats that moves the rows (the extension's version). */
  readonly build: string;
  /** The window (instance) that moves them. */
  readonly instanceId: string;
}

/** What `releaseFencedChat` did: released, or nothing changed and why. */
export type ReleaseChatResult = { readonly released: true; readonly setAside: number } | { readonly released: false; readonly why: string };

/** A row set aside by a repair, as Check Journal lists it. */
export type QuarantinedRowRecord = SetAsideFinding;

/**
 * What depends on a row of each fencing table: statements counting the rows that name it (`?` = its
 * key). A statement whose table this journal does not have yet (an older format) counts none.
 */
const DEPENDENTS: Readonly<Record<string, readonly string[]>> = {
  turns: [
    'SELECT COUNT(*) AS n FROM runs WHERE turn_id = ?', 'SELECT COUNT(*) AS n FROM invocations WHERE turn_id = ?',
    'SELECT COUNT(*) AS n FROM boundary_requests WHERE turn_id = ?', 'SELECT COUNT(*) AS n FROM events WHERE turn_id = ?',
    'SELECT COUNT(*) AS n FROM turns WHERE parent_turn_id = ?', "SELECT COUNT(*) AS n FROM queued_prompts WHERE turn_id = ?",
  ],
  runs: [
    'SELECT COUNT(*) AS n FROM invocations WHERE run_id = ?', 'SELECT COUNT(*) AS n FROM boundary_requests WHERE run_id = ?',
    'SELECT COUNT(*) AS n FROM events WHERE run_id = ?', 'SELECT COUNT(*) AS n FROM file_changes WHERE run_id = ?',
  ],
  invocations: ['SELECT COUNT(*) AS n FROM boundary_requests WHERE invocation_id = ?', 'SELECT COUNT(*) AS n FROM file_changes WHERE invocation_id = ?'],
  boundary_requests: [],
  events: [],
  queued_prompts: [],
};

/**
 * Repair Journal's operations (see module docstring): one object of `JournalCore`'s composition
 * (../core.ts), given the database (`db`), the fences (`fences`) and the concerns it calls
 * (`peers`: events).
 */
export class RepairOps {
  constructor(private readonly db: JournalDb, private readonly fences: ChatFences, private readonly peers: Pick<Concerns, 'events'>) {}

  /** The journal-wide evidence: its schema against this build's (`readOnlyReason` is the door's to add). */
  repairContext(): JournalRepairContext {
    return { journalSchema: this.db.userVersion(), buildSchema: SCHEMA_VERSION, readOnlyReason: null };
  }

  /** Every row of chat `sessionId` the decoders refuse now, with its values and dependents, and the chat's state (read-only). */
  repairEvidence(sessionId: string): ChatRepairEvidence {
    const session = this.db.one('SELECT title FROM sessions WHERE id = ?', [sessionId]);
    const rows: UnreadableRowEvidence[] = [];
    const present = this.tablesPresent();
    for (const table of FENCING_TABLE_NAMES.filter((t) => present.has(t))) {
      // A schema-1 `events` table has no rowid (WITHOUT ROWID): its rows read as rowid -1, their values not exact.
      const rowid = this.hasRowid(table) ? 'rowid' : '-1';
      for (const row of this.db.all(`SELECT ${rowid} AS repair_rowid, * FROM ${table} WHERE session_id = ? ORDER BY ${rowid}`, [sessionId])) {
        const found = this.unreadableEvidence(table, row);
        if (found) rows.push(found);
      }
    }
    const latest = this.db.one('SELECT id FROM runs WHERE session_id = ? ORDER BY rowid DESC LIMIT 1', [sessionId]);
    return {
      sessionId, chatTitle: typeof session?.title === 'string' ? session.title : null, chatExists: session !== undefined,
      runsRunning: Number(this.db.one("SELECT COUNT(*) AS n FROM runs WHERE session_id = ? AND status = 'running'", [sessionId])?.n ?? 0),
      latestRunId: typeof latest?.id === 'string' ? latest.id : null, rows,
    };
  }

  /**
   * Releases chat `input.sessionId` (see module docstring): inside this transaction, a note per run
   * (`setAsideNote`), then each row copied into `quarantined_rows` and deleted from its table; the
   * fence lifts at its next consult, once the rows are gone (fences.ts `whileReleasing`). Changes nothing and answers why when the evidence differs from the dry run's
   * or a release clause fails. @throws JournalRefusedError('read_only') never: the door refuses
   * writes to a read-only journal before this runs.
   */
  releaseFencedChat(input: ReleaseChatInput): ReleaseChatResult {
    if (!this.tablesPresent().has(QUARANTINE_TABLE)) return { released: false, why: 'the journal has no table for rows set aside (its format is older than this version\'s)' };
    const evidence = this.repairEvidence(input.sessionId);
    if (!sameRows(evidence, input.rows)) return { released: false, why: 'the chat changed since the dry run; run Repair Journal again' };
    const failures = releaseFailures(this.repairContext(), evidence);
    if (failures.length > 0) return { released: false, why: failures.map((f) => f.why).join('; ') };
    this.fences.whileReleasing(input.sessionId, () => {
      this.fences.touch(input.sessionId);
      const perRun = new Map<string, number>();
      // A run set aside itself takes no note (its row is about to go; a note would name no run).
      const runsSetAside = new Set(evidence.rows.filter((r) => r.table === 'runs').map((r) => r.rowKey));
      for (const row of evidence.rows) {
        const runId = row.runId ?? evidence.latestRunId;
        if (runId !== null && !runsSetAside.has(runId)) perRun.set(runId, (perRun.get(runId) ?? 0) + 1);
      }
      // The notes first: a note appended after its run's last row was deleted would reuse that row's seq.
      for (const [runId, count] of perRun) this.peers.events.appendEvents(runId, [{ kind: 'notice', payload: { level: 'warning', message: setAsideNote(count) } }], input.at);
      for (const row of evidence.rows) {
        this.db.run(
          'INSERT INTO quarantined_rows (table_name, row_id, row_key, session_id, row_values, reason, quarantined_at, build, instance_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
          [row.table, row.rowid, row.rowKey, input.sessionId, row.values!, row.reason, input.at, input.build, input.instanceId],
        );
        const table = FENCING_TABLES[row.table]!;
        this.db.run(table.deleteByKey, table.keyParams(row.rowKey) as (string | number)[]);
      }
    });
    return { released: true, setAside: evidence.rows.length };
  }

  /** Every row set aside by a repair, oldest first (none in a journal without the table). */
  listQuarantinedRows(): QuarantinedRowRecord[] {
    if (!this.tablesPresent().has(QUARANTINE_TABLE)) return [];
    return this.db.all('SELECT table_name, row_id, row_key, session_id, reason, quarantined_at, build FROM quarantined_rows ORDER BY id').map((r) => ({
      table: r.table_name as string, rowid: r.row_id as number, rowKey: r.row_key as string, sessionId: r.session_id as string,
      reason: r.reason as string, at: r.quarantined_at as number, build: r.build as string,
    }));
  }

  /** True when `table` has a rowid (every table but version 1's `events`). */
  private hasRowid(table: string): boolean {
    try {
      this.db.all(`SELECT rowid FROM ${table} LIMIT 0`);
      return true;
    } catch {
      return false;
    }
  }

  /** The tables of this journal. */
  private tablesPresent(): Set<string> {
    return new Set(this.db.all("SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => r.name as string));
  }

  /** The row's evidence when its decoder refuses it, else undefined. */
  private unreadableEvidence(table: string, row: Row): UnreadableRowEvidence | undefined {
    try {
      FENCING_TABLES[table]!.decode(row);
      return undefined;
    } catch (error) {
      if (!(error instanceof UnreadableRowError)) throw error;
      const rowid = row.repair_rowid as number;
      const exact = this.exactValues(table, rowid, row);
      const present = this.tablesPresent();
      const counts = (DEPENDENTS[table] ?? []).filter((sql) => present.has(/ FROM (\w+)/.exec(sql)?.[1] ?? ''));
      const dependents = counts.reduce((n, sql) => n + Number(this.db.one(sql, [error.rowId])?.n ?? 0), 0);
      return {
        table, rowid, rowKey: error.rowId, reason: error.detail, newer: error.newer, values: exact.values, notExact: exact.notExact, dependents,
        runId: table === 'events' && typeof row.run_id === 'string' ? row.run_id : null,
      };
    }
  }

  /**
   * The row's column values as a JSON object, when JSON holds each exactly: NULL, a number (an
   * integer within 2^53), or text whose stored bytes are the UTF-8 of the string read (SQLite's
   * `hex` of the column compared). Else null values and why.
   */
  private exactValues(table: string, rowid: number, row: Row): { values: string | null; notExact: string | null } {
    const columns = this.db.all(`PRAGMA table_info(${table})`).map((c) => c.name as string);
    if (rowid < 0) return { values: null, notExact: 'its table has no rowid (a journal of format 1)' };
    const stored = this.db.one(`SELECT ${columns.map((c, i) => `typeof("${c}") AS t${i}, hex("${c}") AS h${i}`).join(', ')} FROM ${table} WHERE rowid = ?`, [rowid]);
    if (!stored) return { values: null, notExact: 'the row cannot be found again by its rowid' };
    const values: Record<string, SqlValue> = {};
    for (const [i, column] of columns.entries()) {
      const type = stored[`t${i}`];
      const value = row[column] ?? null;
      if (type === 'blob') return { values: null, notExact: `column ${column} holds bytes, not text` };
      if (type === 'integer' && !Number.isSafeInteger(value)) return { values: null, notExact: `column ${column} holds an integer past 2^53` };
      if (type === 'text' && Buffer.from(String(value), 'utf8').toString('hex').toUpperCase() !== stored[`h${i}`]) {
        return { values: null, notExact: `column ${column} holds bytes that are not UTF-8 text` };
      }
      values[column] = value;
    }
    return { values: JSON.stringify(values), notExact: null };
  }
}
