/**
 * Repair Journal, the evidence: what the journal says of one fenced chat at the moment it is read
 * (every row of the chat the decoders refuse, each with its original values and what depends on
 * it), and of the journal as a whole. Gathered read-only by `repairEvidence`
 * (src/journal/operations/repair.ts), and gathered again inside the transaction that releases the
 * chat, so a release acts only on evidence that still holds. Pure types and small predicates.
 */

/** One row of a chat that this build's decoders refuse. */
export interface UnreadableRowEvidence {
  /** The row's table (`turns`, `events`, `queued_prompts`). */
  readonly table: string;
  /** Its SQLite rowid when read (`events`: its id). */
  readonly rowid: number;
  /** Its own key as the decoder names it (`turns`: its id; `events`: `run#seq`; `queued_prompts`: its client id). */
  readonly rowKey: string;
  /** The decoder's reason (e.g. `its payload is not valid JSON`, `unknown status "42"`). */
  readonly reason: string;
  /** True when a newer build could have written it (an unknown lower-case name). */
  readonly newer: boolean;
  /** A JSON object of every column's value exactly as stored, or null when JSON cannot hold them exactly. */
  readonly values: string | null;
  /** Why `values` is null (a column of bytes, text that is not UTF-8, an integer past 2^53), else null. */
  readonly notExact: string | null;
  /** Rows of other tables (or other rows of its own) that name this row: setting it aside would orphan them. */
  readonly dependents: number;
  /** The run whose transcript held it (`events`: its run), else null. */
  readonly runId: string | null;
}

/** What the journal says of one fenced chat. */
export interface ChatRepairEvidence {
  readonly sessionId: string;
  /** The chat's title, when its session row exists. */
  readonly chatTitle: string | null;
  /** True when the chat's session row exists. */
  readonly chatExists: boolean;
  /** Runs of the chat still marked running (in any window). */
  readonly runsRunning: number;
  /** The run of the chat that a note for rows outside any run goes to (its latest), or null. */
  readonly latestRunId: string | null;
  /** Every row of the chat the decoders refuse now, in table then rowid order. */
  readonly rows: readonly UnreadableRowEvidence[];
}

/** What the journal as a whole says, for every chat's release. */
export interface JournalRepairContext {
  /** The journal's `user_version`. */
  readonly journalSchema: number;
  /** The schema version this build writes (`SCHEMA_VERSION`). */
  readonly buildSchema: number;
  /** Why the journal takes no changes now, or null. */
  readonly readOnlyReason: string | null;
}

/** One row as a release names it: where it is and the values the dry run saw. */
export interface PlannedRow {
  readonly table: string;
  readonly rowKey: string;
  readonly rowid: number;
  readonly reason: string;
  /** The values the dry run read (JSON); the release refuses when the row no longer holds exactly these. */
  readonly values: string;
  readonly runId: string | null;
}

/** The rows of `evidence` as a release names them (those with exact values). */
export function plannedRows(evidence: ChatRepairEvidence): PlannedRow[] {
  return evidence.rows.flatMap((r) => (r.values === null ? [] : [{ table: r.table, rowKey: r.rowKey, rowid: r.rowid, reason: r.reason, values: r.values, runId: r.runId }]));
}

/**
 * True when the chat's unreadable rows now are exactly `planned`: the same rows (table and key), each
 * holding the same values. Order does not matter.
 */
export function sameRows(evidence: ChatRepairEvidence, planned: readonly PlannedRow[]): boolean {
  if (evidence.rows.length !== planned.length) return false;
  const now = new Map(evidence.rows.map((r) => [`${r.table}\0${r.rowKey}`, r.values]));
  return planned.every((p) => now.has(`${p.table}\0${p.rowKey}`) && now.get(`${p.table}\0${p.rowKey}`) === p.values);
}
