/**
 * The rows that can fence a chat, found again by their key: the tables whose decoders refuse rows
 * (rows.ts: `turns`, `runs`, `invocations`, `boundary_requests`, `events`, `queued_prompts`; the
 * decoders of sessions, instances and attachments read any row whose shape is right), the
 * statement that reads one such row by the key `UnreadableRowError.rowId` names, and its decoder.
 *
 * A fence remembers the rows that raised it; before the fence is consulted, each is read again
 * (fences.ts `fenceHolds`): a row that is gone (Repair Journal set it aside, in this window or in
 * another one whose transaction this window replayed) or that reads now no longer holds the chat.
 */
import type { SqlValue } from 'sql.js';
import { toBoundary, toEvent, toInvocation, toQueuedPrompt, toRun, toTurn, type Row } from './rows';

/** A table whose decoder can refuse a row, with how to find a row by its key and decode it. */
export interface FencingTable {
  /** Selects the row (`SELECT *`: a schema-1 `events` table has no rowid) by the parameters `keyParams` makes of its key. */
  readonly byKey: string;
  /** The key as `UnreadableRowError.rowId` names it, to the statement's parameters. */
  readonly keyParams: (key: string) => SqlValue[];
  /** The read path's decoder (throws `UnreadableRowError`). */
  readonly decode: (row: Row) => unknown;
  /** The statement deleting the row by its key (a stable key: never an implicit rowid, which VACUUM renumbers). */
  readonly deleteByKey: string;
}

/** An event's key `run#seq` as (run id, seq); the run id may itself hold '#'. */
function eventKey(key: string): SqlValue[] {
  const at = key.lastIndexOf('#');
  return [key.slice(0, at), Number(key.slice(at + 1))];
}

/** A table whose rows are keyed by their `id` column, decoded by `decode`. */
function keyedById(table: string, decode: FencingTable['decode']): FencingTable {
  return { byKey: `SELECT * FROM ${table} WHERE id = ?`, keyParams: (key) => [key], decode, deleteByKey: `DELETE FROM ${table} WHERE id = ?` };
}

/** Every table whose rows can fence a chat (see module docstring). */
export const FENCING_TABLES: Readonly<Record<string, FencingTable>> = {
  turns: keyedById('turns', toTurn),
  runs: keyedById('runs', toRun),
  invocations: keyedById('invocations', toInvocation),
  boundary_requests: keyedById('boundary_requests', toBoundary),
  events: {
    byKey: 'SELECT * FROM events WHERE run_id = ? AND seq = ?',
    keyParams: eventKey,
    decode: toEvent,
    deleteByKey: 'DELETE FROM events WHERE run_id = ? AND seq = ?',
  },
  queued_prompts: {
    byKey: 'SELECT * FROM queued_prompts WHERE client_id = ?',
    keyParams: (key) => [key],
    decode: toQueuedPrompt,
    deleteByKey: 'DELETE FROM queued_prompts WHERE client_id = ?',
  },
};

/** The names of `FENCING_TABLES`, in the order a chat's rows are read. */
export const FENCING_TABLE_NAMES = Object.keys(FENCING_TABLES);
