/**
 * Check Journal's reads (read-only): every row of every table the decoders read, a chunk of rows at
 * a time by rowid, through the same decoders the reads use (rows.ts) — so a row is reported exactly
 * when the reads would skip it and fence its chat — and against the schema's rules
 * (`JOURNAL_RULES`, src/core/journalCheck.ts), one SQL query per rule over the chunk's rowid range.
 * The caller (src/runtime/journalCheck.ts) asks chunk after chunk, so other reads and writes of the
 * window run between them.
 *
 * Columns are read with `SELECT *`, never by a fixed list, so a journal of a later schema (more
 * columns) is checked the same way. Like every read, a row that cannot be decoded fences its chat.
 */
import type { SqlValue } from 'sql.js';
import type { JournalRule, RuleFinding, StructureCheck, UnreadableRowFinding } from '../../core/journalCheck';
import { MIGRATIONS, SCHEMA_VERSION } from '../schema';
import { UnreadableRowError, toBoundary, toEvent, toInvocation, toQueuedPrompt, toRun, toSession, toTurn, type Row } from './rows';
import type { JournalDb } from './database';
import type { ChatFences } from './fences';

/** The tables checked, with each one's decoder and the column holding its row's time. */
const CHECKED = {
  sessions: { decode: toSession, time: 'created_at' },
  turns: { decode: toTurn, time: 'created_at' },
  runs: { decode: toRun, time: 'started_at' },
  invocations: { decode: toInvocation, time: 'started_at' },
  boundary_requests: { decode: toBoundary, time: 'created_at' },
  events: { decode: toEvent, time: 'at' },
  queued_prompts: { decode: toQueuedPrompt, time: 'created_at' },
} as const;

/** A table Check Journal reads. */
export type CheckedTable = keyof typeof CHECKED;

/** The tables in the order they are checked. */
export const CHECKED_TABLES = Object.keys(CHECKED) as CheckedTable[];

/**
 * The rule queries per table: each selects, among the rows with rowid between ?1 and ?2, those
 * breaking the rule, as (rowid, row key, session id, time, detail). Every lookup goes through an
 * index (primary keys; a turn's runs through `runs_by_session` from the turn's creation on, since a
 * run starts when or after its turn is created: matching the turn id alone scanned every run of the
 * chat for each turn, quadratic in a long chat).
 */
const RULES: Readonly<Record<CheckedTable, readonly (readonly [JournalRule, string])[]>> = {
  sessions: [],
  turns: [
    ['turn_chat_missing', `SELECT t.rowid, t.id, t.session_id, t.created_at, 'the turn names chat ' || t.session_id || ', which does not exist' FROM turns t
      WHERE t.rowid BETWEEN ?1 AND ?2 AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = t.session_id)`],
    ['turn_without_run', `SELECT t.rowid, t.id, t.session_id, t.created_at, 'the turn has no run' FROM turns t
      WHERE t.rowid BETWEEN ?1 AND ?2 AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.session_id = t.session_id AND r.started_at >= t.created_at AND r.turn_id = t.id)`],
    ['turn_running_without_run', `SELECT t.rowid, t.id, t.session_id, t.created_at, 'the turn is running but none of its runs is' FROM turns t
      WHERE t.rowid BETWEEN ?1 AND ?2 AND t.status = 'running'
        AND EXISTS (SELECT 1 FROM runs r WHERE r.session_id = t.session_id AND r.started_at >= t.created_at AND r.turn_id = t.id)
        AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.session_id = t.session_id AND r.started_at >= t.created_at AND r.turn_id = t.id AND r.status = 'running')`],
  ],
  runs: [
    ['run_turn_missing', `SELECT r.rowid, r.id, r.session_id, r.started_at, 'the run names turn ' || r.turn_id || ', which does not exist' FROM runs r
      WHERE r.rowid BETWEEN ?1 AND ?2 AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.id = r.turn_id)`],
    ['run_running_turn_ended', `SELECT r.rowid, r.id, r.session_id, r.started_at, 'the run is running but its turn ' || t.id || ' is ' || t.status FROM runs r
      JOIN turns t ON t.id = r.turn_id WHERE r.rowid BETWEEN ?1 AND ?2 AND r.status = 'running' AND t.status <> 'running'`],
  ],
  invocations: [
    ['invocation_turn_missing', `SELECT i.rowid, i.id, i.session_id, i.started_at, 'the tool call names turn ' || i.turn_id || ', which does not exist' FROM invocations i
      WHERE i.rowid BETWEEN ?1 AND ?2 AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.id = i.turn_id)`],
    ['invocation_run_missing', `SELECT i.rowid, i.id, i.session_id, i.started_at, 'the tool call names run ' || i.run_id || ', which does not exist' FROM invocations i
      WHERE i.rowid BETWEEN ?1 AND ?2 AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = i.run_id)`],
  ],
  boundary_requests: [
    ['boundary_turn_missing', `SELECT b.rowid, b.id, b.session_id, b.created_at, 'the request names turn ' || b.turn_id || ', which does not exist' FROM boundary_requests b
      WHERE b.rowid BETWEEN ?1 AND ?2 AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.id = b.turn_id)`],
    ['boundary_run_missing', `SELECT b.rowid, b.id, b.session_id, b.created_at, 'the request names run ' || b.run_id || ', which does not exist' FROM boundary_requests b
      WHERE b.rowid BETWEEN ?1 AND ?2 AND b.run_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = b.run_id)`],
  ],
  events: [
    // Checked from each run_finished event of the chunk, looking only at its run's later events (a
    // turn has one run: startTurn writes both): reading every event of every turn cost 200 ms per
    // 500 turns of 100 events, a chunk the window's writes would wait for. So the first end is listed.
    ['turn_two_ends', `SELECT rid, run_id || '#' || seq, session_id, at, 'turn ' || turn_id || ' ends more than once: this run_finished event and ' || n || ' more' FROM (
      SELECT e.rowid AS rid, e.run_id AS run_id, e.seq AS seq, e.session_id AS session_id, e.at AS at, e.turn_id AS turn_id,
        (SELECT COUNT(*) FROM events later WHERE later.run_id = e.run_id AND later.seq > e.seq AND later.kind = 'run_finished') AS n
      FROM events e WHERE e.rowid BETWEEN ?1 AND ?2 AND e.kind = 'run_finished') WHERE n > 0`],
    ['event_run_missing', `SELECT e.rowid, e.run_id || '#' || e.seq, e.session_id, e.at, 'the event names run ' || e.run_id || ', which does not exist' FROM events e
      WHERE e.rowid BETWEEN ?1 AND ?2 AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = e.run_id)`],
  ],
  queued_prompts: [
    ['queued_prompt_turn_missing', `SELECT q.rowid, q.client_id, q.session_id, q.created_at, 'the message was sent as turn ' || COALESCE(q.turn_id, '(none)') || ', which does not exist' FROM queued_prompts q
      WHERE q.rowid BETWEEN ?1 AND ?2 AND q.state = 'sent' AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.id = q.turn_id)`],
  ],
};

/** A table's size for the check's progress. */
export interface CheckedTableSize {
  readonly table: CheckedTable;
  readonly rows: number;
}

/** What one chunk of a table's check found. */
export interface CheckChunk {
  readonly table: CheckedTable;
  /** Rows read in this chunk. */
  readonly scanned: number;
  /** The last rowid read (the next chunk starts after it); the `after` asked when none was read. */
  readonly lastRowid: number;
  /** True when the table has no rows after this chunk. */
  readonly done: boolean;
  readonly unreadable: UnreadableRowFinding[];
  readonly broken: RuleFinding[];
}

/**
 * Check Journal's read operations (see module docstring): one object of `JournalCore`'s
 * composition (../core.ts), given the database (`db`) and the fences (`fences`).
 */
export class CheckOps {
  constructor(private readonly db: JournalDb, private readonly fences: ChatFences) {}

  /**
   * The journal's structure against this build's: every table, view, index and trigger the
   * migrations up to the journal's `user_version` create, that the journal lacks (a journal whose
   * structure was changed by hand, or by an unreleased build). Not checked for a newer schema than
   * this build knows (`checked` false): a newer build may have replaced parts on purpose.
   */
  checkStructure(): StructureCheck {
    const version = this.db.userVersion();
    if (version > SCHEMA_VERSION) return { version, checked: false, missing: [] };
    const OBJECTS = "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name";
    const expected = this.db.emptyDatabase();
    try {
      for (const m of MIGRATIONS.filter((m) => m.version <= version)) expected.exec(m.sql);
      const have = new Set(this.db.all(OBJECTS).map((r) => `${String(r.type)} ${String(r.name)}`));
      const wanted = expected.exec(OBJECTS)[0]?.values ?? [];
      const missing = wanted.map(([type, name]) => ({ type: String(type), name: String(name) })).filter((o) => !have.has(`${o.type} ${o.name}`));
      return { version, checked: true, missing };
    } finally {
      expected.close();
    }
  }

  /** The checked tables present in this journal, with their row counts. */
  checkTables(): CheckedTableSize[] {
    const present = new Set(this.db.all("SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => r.name as string));
    return CHECKED_TABLES.filter((t) => present.has(t)).map((table) => ({ table, rows: Number(this.db.one(`SELECT COUNT(*) AS n FROM ${table}`)?.n ?? 0) }));
  }

  /**
   * Checks up to `limit` rows of `table` with rowid above `after`: each through its decoder (a row
   * that cannot be decoded is reported with the decoder's reason and fences its chat, as any read
   * does) and the rows of that rowid range against the table's rules.
   * @throws Error for a table that is not checked (the name goes into SQL).
   */
  checkRows(table: CheckedTable, after: number, limit: number): CheckChunk {
    const spec = CHECKED[table];
    if (!spec) throw new Error(`Check Journal does not read table ${String(table)}`);
    const rows = this.db.all(`SELECT rowid AS check_rowid, * FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT ?`, [after, limit]);
    const unreadable: UnreadableRowFinding[] = [];
    for (const row of rows) {
      const found = this.unreadable(table, row, spec.decode, row[spec.time]);
      if (found) unreadable.push(found);
    }
    const first = rows[0]?.check_rowid as number | undefined;
    const last = (rows[rows.length - 1]?.check_rowid as number | undefined) ?? after;
    const broken = first === undefined ? [] : RULES[table].flatMap(([rule, sql]) => this.db.allArrays(sql, [first, last]).map((v) => this.ruleFinding(rule, table, v)));
    return { table, scanned: rows.length, lastRowid: last, done: rows.length < limit, unreadable, broken };
  }

  /** The row's finding when its decoder cannot read it (and its chat fenced), else undefined. */
  private unreadable(table: CheckedTable, row: Row, decode: (r: Row) => unknown, time: SqlValue | undefined): UnreadableRowFinding | undefined {
    try {
      decode(row);
      return undefined;
    } catch (error) {
      if (!(error instanceof UnreadableRowError)) throw error;
      this.fences.fence(error); // fences the chat, exactly as a read meeting the row does
      return {
        table, rowid: row.check_rowid as number, rowKey: error.rowId, sessionId: error.sessionId, chatTitle: this.titleOf(error.sessionId),
        reason: error.detail, writtenBy: error.newer ? 'newer' : 'damaged', since: typeof time === 'number' ? time : null,
      };
    }
  }

  private ruleFinding(rule: JournalRule, table: CheckedTable, [rowid, key, session, time, detail]: SqlValue[]): RuleFinding {
    const sessionId = typeof session === 'string' ? session : null;
    return {
      rule, table, rowid: Number(rowid), rowKey: String(key), sessionId, chatTitle: sessionId === null ? null : this.titleOf(sessionId),
      detail: String(detail), since: typeof time === 'number' ? time : null,
    };
  }

  /** A chat's title, or null when its session row does not exist. */
  private titleOf(sessionId: string): string | null {
    const title = this.db.one('SELECT title FROM sessions WHERE id = ?', [sessionId])?.title;
    return typeof title === 'string' ? title : null;
  }
}
