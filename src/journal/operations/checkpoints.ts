/**
 * Checkpoints in the journal (schema: `file_changes`, `file_undos`, `file_undo_items`): the files a
 * tool invocation changed, with their content before and after in the content store, and the undos
 * and redos of them. The rules of what an undo does are pure (`core/checkpoints.ts`); here is only
 * what is kept, and the one conditional transaction that decides which of two windows undoing the
 * same turn at once applies it (`recordUndo`), and likewise for a redo (`recordRedo`).
 */
import {
  FILE_CHANGE_STATES, isRestoreOutcome, type FileChangeRecord, type FileImage, type RestoreOutcome,
} from '../../core/checkpoints';
import { isOneOf } from '../../core/vocabulary';
import { JournalRefusedError } from '../errors';
import { UnreadableRowError, type Row } from './rows';
import type { Concerns } from '../core';
import type { JournalDb } from './database';
import type { ChatFences } from './fences';

/**
 * A file image as a writer hands it over: absent, present with its bytes, or present but too large
 * to keep (over `MAX_CHECKPOINT_BYTES`: `size` bytes whose SHA-256 is `hash`; the bytes are not stored).
 */
export type ImageInput =
  | { readonly exists: false }
  | { readonly exists: true; readonly bytes: Uint8Array }
  | { readonly exists: true; readonly tooLarge: true; readonly size: number; readonly hash: string };

/** A change to one file of an invocation; fields left out keep what an earlier write recorded. */
export interface FileChangeInput {
  /** Workspace-relative with `/` separators (absolute outside the workspace). */
  readonly path: string;
  /** Required the first time a path is recorded for an invocation. */
  readonly before?: ImageInput;
  readonly after?: ImageInput;
  readonly added?: number | null;
  readonly removed?: number | null;
}

/** An undo as it is journaled (`recordUndo`). */
export interface RecordUndoInput {
  readonly id: string;
  readonly sessionId: string;
  /** The turn the user chose. */
  readonly turnId: string;
  /** `turn`: that turn's changes; `from_turn`: that turn's and every later turn's. */
  readonly scope: 'turn' | 'from_turn';
  /** The turns taken back, newest first. */
  readonly turnIds: readonly string[];
  readonly instanceId: string;
  /** Each file: its outcome, what the undo found (bytes kept for a redo) and what it left. */
  readonly items: readonly { readonly path: string; readonly outcome: RestoreOutcome; readonly found: ImageInput; readonly wrote: FileImage }[];
  readonly at: number;
}

/** A journaled undo with what it did to each file. */
export interface UndoRecord {
  readonly id: string;
  readonly sessionId: string;
  readonly turnId: string;
  readonly scope: 'turn' | 'from_turn';
  readonly turnIds: readonly string[];
  readonly state: 'undone' | 'redone';
  readonly createdAt: number;
  readonly redoneAt: number | null;
  readonly items: readonly { readonly path: string; readonly outcome: RestoreOutcome; readonly found: FileImage; readonly wrote: FileImage; readonly redoOutcome: RestoreOutcome | null }[];
}

/** The answer of `recordUndo` / `recordRedo`: applied, or refused because another did it first (`by`). */
export type RestoreDecision = { readonly applied: true } | { readonly applied: false; readonly by: string };

/**
 * The operations of this concern (see module docstring): one object of `JournalCore`'s composition
 * (../core.ts), given the database (`db`), the fences (`fences`) and the concerns it calls
 * (`peers`: contents).
 */
export class CheckpointOps {
  constructor(private readonly db: JournalDb, private readonly fences: ChatFences, private readonly peers: Pick<Concerns, 'contents'>) {}

  /** Stores an image's bytes (if kept) and gives its columns: exists, hash, size, kept. */
  private imageColumns(image: ImageInput, at: number): { exists: number; hash: string | null; size: number; kept: boolean } {
    if (!image.exists) return { exists: 0, hash: null, size: 0, kept: true };
    if ('tooLarge' in image) return { exists: 1, hash: image.hash, size: image.size, kept: false };
    const stored = this.peers.contents.storeContent(image.bytes, at);
    return { exists: 1, hash: stored.hash, size: stored.size, kept: true };
  }

  /**
   * Records changes of invocation `inv` (its ids from the invocation row), inserting or updating
   * one row per path (state `pending` when inserted). Content goes to the content store in the
   * same transaction. @throws Error for a new path without a before image (a caller's mistake).
   */
  putFileChanges(inv: { id: string; runId: string; turnId: string; sessionId: string }, changes: readonly FileChangeInput[], at: number): void {
    for (const change of changes) {
      const existing = this.db.one('SELECT id FROM file_changes WHERE invocation_id = ? AND path = ?', [inv.id, change.path]);
      const id = (existing?.id as string | undefined) ?? `${inv.id}:${change.path}`;
      if (!existing) {
        if (!change.before) throw new Error(`The first record of ${change.path} needs its content before the change.`);
        this.db.run(
          `INSERT INTO file_changes (id, session_id, turn_id, run_id, invocation_id, path, before_exists, before_size, state, checkpointed, created_at)
           VALUES (?, ?, ?, ?, ?, ?, 0, 0, 'pending', 1, ?)`,
          [id, inv.sessionId, inv.turnId, inv.runId, inv.id, change.path, at],
        );
      }
      if (change.before) {
        const b = this.imageColumns(change.before, at);
        this.db.run('UPDATE file_changes SET before_exists = ?, before_hash = ?, before_size = ? WHERE id = ?', [b.exists, b.hash, b.size, id]);
        if (!b.kept) this.db.run("UPDATE file_changes SET checkpointed = 0, reason = 'too_large' WHERE id = ?", [id]);
      }
      if (change.after) {
        const a = this.imageColumns(change.after, at);
        this.db.run('UPDATE file_changes SET after_exists = ?, after_hash = ?, after_size = ? WHERE id = ?', [a.exists, a.hash, a.size, id]);
        if (!a.kept) this.db.run("UPDATE file_changes SET checkpointed = 0, reason = 'too_large' WHERE id = ?", [id]);
      }
      if (change.added !== undefined || change.removed !== undefined) {
        this.db.run('UPDATE file_changes SET added = ?, removed = ? WHERE id = ?', [change.added ?? null, change.removed ?? null, id]);
      }
    }
  }

  /**
   * Ends an invocation's `pending` changes: `applied` (the tool finished) or `not_applied` (it never
   * wrote). Called in the transaction that finishes the invocation.
   */
  settleFileChanges(invocationId: string, applied: boolean, at: number): void {
    this.db.run("UPDATE file_changes SET state = ?, settled_at = ? WHERE invocation_id = ? AND state = 'pending'", [applied ? 'applied' : 'not_applied', at, invocationId]);
  }

  /**
   * Records file changes of a running invocation (an agent's own tool: its before image when the
   * tool is allowed, its after image when it reports). Returns the chat's id, to notify views.
   * @throws JournalRefusedError('not_found') for an unknown invocation.
   */
  recordFileChanges(invocationId: string, changes: readonly FileChangeInput[], at: number): { sessionId: string; turnId: string } {
    const row = this.db.one('SELECT id, run_id, turn_id, session_id FROM invocations WHERE id = ?', [invocationId]);
    if (!row) throw new JournalRefusedError('not_found', `No tool invocation with id ${invocationId}.`);
    const inv = { id: invocationId, runId: row.run_id as string, turnId: row.turn_id as string, sessionId: row.session_id as string };
    this.fences.touch(inv.sessionId);
    this.putFileChanges(inv, changes, at);
    return { sessionId: inv.sessionId, turnId: inv.turnId };
  }

  /** A chat's file changes in the order they were recorded (of the given turns only, if `turnIds`). */
  listFileChanges(sessionId: string, turnIds?: readonly string[]): FileChangeRecord[] {
    const rows = turnIds
      ? this.db.all(`SELECT * FROM file_changes WHERE session_id = ? AND turn_id IN (SELECT value FROM json_each(?)) ORDER BY rowid`, [sessionId, JSON.stringify(turnIds)])
      : this.db.all('SELECT * FROM file_changes WHERE session_id = ? ORDER BY rowid', [sessionId]);
    return this.fences.decodeAll(rows, toFileChange);
  }

  /**
   * Journals an undo, only if none of its turns is undone already (by an undo not redone since):
   * the one transaction that decides which of two windows undoing at once applies it. The file
   * the undo found is stored (a redo puts it back). Refused (`applied: false`, `by` the undo that
   * came first) without writing anything.
   * @throws JournalRefusedError('not_found') when a turn is not one of the chat's.
   */
  recordUndo(input: RecordUndoInput): RestoreDecision {
    this.fences.touch(input.sessionId);
    const turns = JSON.stringify(input.turnIds);
    const known = Number(this.db.one('SELECT COUNT(*) AS n FROM turns WHERE session_id = ? AND id IN (SELECT value FROM json_each(?))', [input.sessionId, turns])?.n ?? 0);
    if (known !== new Set(input.turnIds).size) throw new JournalRefusedError('not_found', 'A turn of that undo is not part of this chat.');
    const first = this.db.one(
      `SELECT u.id FROM file_undos u, json_each(u.turn_ids) t WHERE u.session_id = ? AND u.state = 'undone' AND t.value IN (SELECT value FROM json_each(?)) LIMIT 1`,
      [input.sessionId, turns],
    );
    if (first) return { applied: false, by: first.id as string };
    this.db.run(
      "INSERT INTO file_undos (id, session_id, turn_id, scope, turn_ids, instance_id, state, created_at) VALUES (?, ?, ?, ?, ?, ?, 'undone', ?)",
      [input.id, input.sessionId, input.turnId, input.scope, turns, input.instanceId, input.at],
    );
    for (const item of input.items) {
      const found = this.imageColumns(item.found, input.at);
      this.db.run(
        `INSERT INTO file_undo_items (undo_id, session_id, path, outcome, found_exists, found_hash, found_size, wrote_exists, wrote_hash, wrote_size)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [input.id, input.sessionId, item.path, item.outcome, found.exists, found.hash, found.size, item.wrote.exists ? 1 : 0, item.wrote.hash, item.wrote.size],
      );
    }
    return { applied: true };
  }

  /**
   * Journals the redo of undo `undoId`, only while it is still `undone` (two windows redoing at
   * once: one applies). `outcomes`: what the redo did to each file, by path.
   * @throws JournalRefusedError('not_found') for an unknown undo.
   */
  recordRedo(undoId: string, outcomes: readonly { path: string; outcome: RestoreOutcome }[], at: number): RestoreDecision {
    const row = this.db.one('SELECT session_id, state FROM file_undos WHERE id = ?', [undoId]);
    if (!row) throw new JournalRefusedError('not_found', `No undo with id ${undoId}.`);
    this.fences.touch(row.session_id as string);
    if (row.state !== 'undone') return { applied: false, by: undoId };
    this.db.run("UPDATE file_undos SET state = 'redone', redone_at = ? WHERE id = ? AND state = 'undone'", [at, undoId]);
    for (const o of outcomes) this.db.run('UPDATE file_undo_items SET redo_outcome = ? WHERE undo_id = ? AND path = ?', [o.outcome, undoId, o.path]);
    return { applied: true };
  }

  /** A chat's undos, in the order they were made (rowid, never a clock's time), with their files. */
  listUndos(sessionId: string): UndoRecord[] {
    const undos = this.db.all('SELECT * FROM file_undos WHERE session_id = ? ORDER BY rowid', [sessionId]);
    const items = this.db.all('SELECT * FROM file_undo_items WHERE session_id = ? ORDER BY rowid', [sessionId]);
    return this.fences.decodeAll(undos, (u) => toUndo(u, items.filter((i) => i.undo_id === u.id)));
  }
}

/** An image from its columns (`prefix` before_, after_, found_ or wrote_); null when not known. */
function imageOf(r: Row, prefix: string): FileImage | null {
  const exists = r[`${prefix}exists`];
  if (exists === null || exists === undefined) return null;
  return { exists: exists === 1, hash: (r[`${prefix}hash`] as string | null) ?? null, size: Number(r[`${prefix}size`] ?? 0) };
}

/** Decodes a `file_changes` row. @throws UnreadableRowError for an unknown state. */
function toFileChange(r: Row): FileChangeRecord {
  if (!isOneOf(FILE_CHANGE_STATES, r.state)) throw new UnreadableRowError(r.session_id as string, 'file_changes', r.id as string, `unknown state "${String(r.state)}"`, true);
  return {
    id: r.id as string, sessionId: r.session_id as string, turnId: r.turn_id as string, runId: r.run_id as string, invocationId: r.invocation_id as string,
    path: r.path as string, before: imageOf(r, 'before_')!, after: imageOf(r, 'after_'), state: r.state,
    checkpointed: r.checkpointed === 1, reason: r.reason === 'too_large' ? 'too_large' : null,
    added: (r.added as number | null) ?? null, removed: (r.removed as number | null) ?? null, createdAt: r.created_at as number,
  };
}

/** Decodes a `file_undos` row with its items. @throws UnreadableRowError for unknown names. */
function toUndo(u: Row, items: Row[]): UndoRecord {
  const bad = (detail: string) => new UnreadableRowError(u.session_id as string, 'file_undos', u.id as string, detail, true);
  if (!isOneOf(['undone', 'redone'] as const, u.state)) throw bad(`unknown state "${String(u.state)}"`);
  if (!isOneOf(['turn', 'from_turn'] as const, u.scope)) throw bad(`unknown scope "${String(u.scope)}"`);
  return {
    id: u.id as string, sessionId: u.session_id as string, turnId: u.turn_id as string, scope: u.scope,
    turnIds: JSON.parse(u.turn_ids as string) as string[], state: u.state, createdAt: u.created_at as number, redoneAt: (u.redone_at as number | null) ?? null,
    items: items.map((i) => {
      if (!isRestoreOutcome(i.outcome)) throw bad(`unknown outcome "${String(i.outcome)}"`);
      const redo = i.redo_outcome ?? null;
      if (redo !== null && !isRestoreOutcome(redo)) throw bad(`unknown outcome "${String(redo)}"`);
      return { path: i.path as string, outcome: i.outcome, found: imageOf(i, 'found_')!, wrote: imageOf(i, 'wrote_')!, redoOutcome: redo };
    }),
  };
}
