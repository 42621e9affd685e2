/**
 * Undo and redo of the file changes agents made (checkpoints), across windows: "Undo changes of
 * this turn" (`scope` 'turn'), "Restore to before this turn" (`from_turn`: this turn and every later
 * one, newest first) and Redo of an undo. The rules of what happens to each file are pure
 * (`core/checkpoints.ts`: a file is put back only if it holds what the agent left; otherwise it is a
 * conflict the user decides per file); this module reads the files, asks for the choices, journals
 * the undo in one conditional transaction (`recordUndo`: of two windows undoing the same turn at
 * once, one applies, the other writes nothing) and then writes the files.
 *
 * The journal record comes first: a window that dies while writing the files leaves an undo whose
 * files are partly back; its Redo puts back only what the undo changed (the same rule, reversed), and
 * Undo again is refused while it stands. Right before each file is written it is read again; one that
 * changed since the plan is left as it is (reported `changedMeanwhile`).
 */
import { randomUUID } from 'node:crypto';
import {
  conflictKey, filesOfTurn, planRestore, redoSteps, sameImage, undoSteps,
  type ConflictChoice, type FileImage, type PlannedFile, type RestoreConflict, type RestorePlan, type RestoreStep, type TurnFileChange,
} from '../core/checkpoints';
import { fail, ok, type Result } from '../core/result';
import type { UndoRecord } from '../journal/operations/checkpoints';
import type { RuntimeRefusal } from './refusals';
import { readImage, removeFoldersMadeSince, writeImage, type DiskImage } from './fileImages';
import type { RuntimeScope } from './scope';

/**
 * Asks the user what to do with each conflict (a file changed since the agent, or the undo, left
 * it); resolves the choices by `conflictKey`, or undefined to cancel the whole undo or redo.
 */
export type ChooseConflicts = (conflicts: readonly RestoreConflict[]) => Promise<ReadonlyMap<string, ConflictChoice> | undefined>;

/** What an undo or redo did. */
export type RestoreResult =
  | { readonly kind: 'applied'; readonly id: string; readonly files: readonly PlannedFile[]; readonly changedMeanwhile: readonly string[] }
  /** Another window's undo (or redo) of the same turn came first (`by`): nothing was written here. */
  | { readonly kind: 'already'; readonly by: string }
  /** The user cancelled at the conflicts: nothing was written. */
  | { readonly kind: 'cancelled' }
  /** No file to put back. */
  | { readonly kind: 'nothing' };

/** A chat's checkpoints as views show them: each turn's files, and its undo if it stands. */
export interface TurnCheckpoints {
  readonly turnId: string;
  readonly files: readonly TurnFileChange[];
  /** The undo that took this turn back and was not redone, if any. */
  readonly undoneBy: string | null;
}

/** Undo and redo against one scope and workspace (see module docstring). */
export class FileUndo {
  constructor(private readonly scope: RuntimeScope, private readonly workspaceRoot: () => string | undefined) {}

  /** Each turn of the chat with file changes, in chat order, with the undo standing for it. */
  async checkpoints(sessionId: string): Promise<TurnCheckpoints[]> {
    return (await this.readCheckpoints(sessionId)).checkpoints;
  }

  /** The files `turnId` of the chat changed (`filesOfTurn`: in the order first changed), for a diff of one file. */
  async filesOfTurn(sessionId: string, turnId: string): Promise<TurnFileChange[]> {
    return filesOfTurn(await this.scope.journal.read('listFileChanges', sessionId, [turnId]));
  }

  /** The bytes a checkpoint image's content hash names, or null when the journal has none (a file over the checkpoint limit). */
  content(hash: string): Promise<Uint8Array | null> {
    return this.scope.journal.read('getContent', hash);
  }

  /** `checkpoints`, with the chat's undos they were built from (read once, for an undo that needs both). */
  private async readCheckpoints(sessionId: string): Promise<{ checkpoints: TurnCheckpoints[]; undos: UndoRecord[] }> {
    const [changes, undos] = await Promise.all([this.scope.journal.read('listFileChanges', sessionId), this.scope.journal.read('listUndos', sessionId)]);
    const byTurn = new Map<string, typeof changes>();
    for (const c of changes) byTurn.set(c.turnId, [...(byTurn.get(c.turnId) ?? []), c]);
    const standing = standingUndos(undos);
    const checkpoints = [...byTurn.entries()]
      .map(([turnId, rows]) => ({ turnId, files: filesOfTurn(rows), undoneBy: standing.get(turnId) ?? null }))
      .filter((t) => t.files.length > 0);
    return { checkpoints, undos };
  }

  /**
   * Undoes `turnId`'s changes (`scope` 'turn') or restores the files to before it (`from_turn`).
   * Refused with `not_found` (no such turn in the chat), `busy` (a turn it takes back is still
   * running) or `invalid` (no folder open); an undo of a turn already undone answers `already`.
   */
  async undo(sessionId: string, turnId: string, scope: 'turn' | 'from_turn', choose?: ChooseConflicts): Promise<Result<RestoreResult, RuntimeRefusal>> {
    const root = this.workspaceRoot();
    if (!root) return fail('invalid', 'Open the folder the agent worked in to undo its changes.');
    const turns = await this.scope.journal.read('listTurns', sessionId);
    const at = turns.findIndex((t) => t.id === turnId);
    if (at < 0) return fail('not_found', 'That turn is not part of this chat.');
    const chosen = scope === 'turn' ? [turns[at]!] : turns.slice(at);
    if (chosen.some((t) => t.status === 'running')) return fail('busy', 'The agent is still working on that turn. Wait for it or press Stop.');
    const { checkpoints, undos } = await this.readCheckpoints(sessionId);
    const standing = checkpoints.find((t) => t.turnId === turnId)?.undoneBy;
    if (standing) return ok({ kind: 'already', by: standing });
    const ids = new Set(chosen.map((t) => t.id));
    // Newest first; turns already undone (and not redone) are left out: their files are back already.
    const taken = checkpoints.filter((t) => ids.has(t.turnId) && !t.undoneBy).reverse();
    if (taken.length === 0) return ok({ kind: 'nothing' });
    // A redo of an undo of a turn made its files, and the folders the undo had removed, again: a folder
    // older than that redo was there before it wrote (the user may have made it again after the undo).
    const redone = (turn: string) => undos.filter((u) => u.redoneAt !== null && u.turnIds.includes(turn)).map((u) => u.redoneAt!);
    const began = new Map(chosen.map((t) => [t.id, Math.max(t.createdAt, ...redone(t.id))]));
    // A folder made for a file the agent created goes with the file when empty: made since the turn that created
    // it began (the oldest taken back that changed it), not merely since the first turn taken back: a folder the
    // user made between the turns was theirs before the agent wrote into it.
    const createdSince = new Map<string, number>();
    for (const t of taken) for (const f of t.files) createdSince.set(f.path, began.get(t.turnId)!); // newest first: the oldest stays
    return this.restore(root, undoSteps(taken.map((t) => t.files)), (path) => createdSince.get(path)!, choose, async (plan, found) => {
      const id = randomUUID();
      const items = plan.files.map((f) => ({ path: f.path, outcome: f.outcome, found: found.get(f.path)!.input, wrote: f.target }));
      const decided = await this.scope.journal.write('recordUndo', {
        id, sessionId, turnId, scope, turnIds: taken.map((t) => t.turnId), instanceId: this.scope.instance.id, items, at: this.scope.now(),
      });
      if (!decided.ok) throw new RestoreRefused(decided.reason, decided.message);
      return decided.value.applied ? { id } : { by: decided.value.by };
    }, sessionId);
  }

  /** Redoes undo `undoId`: the files it changed get back what it found. `already` when it was redone. */
  async redo(sessionId: string, undoId: string, choose?: ChooseConflicts): Promise<Result<RestoreResult, RuntimeRefusal>> {
    const root = this.workspaceRoot();
    if (!root) return fail('invalid', 'Open the folder the agent worked in to redo its changes.');
    const undo = (await this.scope.journal.read('listUndos', sessionId)).find((u) => u.id === undoId);
    if (!undo) return fail('not_found', 'That undo is not part of this chat.');
    if (undo.state !== 'undone') return ok({ kind: 'already', by: undoId });
    const steps = redoSteps(undoId, undo.items);
    // The files a redo removes are those the undo made again: their folders are the undo's.
    return this.restore(root, steps, () => undo.createdAt, choose, async (plan) => {
      const decided = await this.scope.journal.write('recordRedo', undoId, plan.files.map((f) => ({ path: f.path, outcome: f.outcome })), this.scope.now());
      if (!decided.ok) throw new RestoreRefused(decided.reason, decided.message);
      return decided.value.applied ? { id: undoId } : { by: undoId };
    }, sessionId);
  }

  /**
   * Plans `steps` against the files now, asks for choices when there are conflicts, journals the
   * plan (`record`: applied, or the undo that came first), then writes the files. A file removed
   * takes with it the empty folders made for it since `createdSince(path)` (ms since the epoch: when
   * what is taken back began making the file).
   */
  private async restore(
    root: string, steps: readonly RestoreStep[], createdSince: (path: string) => number, choose: ChooseConflicts | undefined,
    record: (plan: RestorePlan, found: ReadonlyMap<string, DiskImage>) => Promise<{ id: string } | { by: string }>, sessionId: string,
  ): Promise<Result<RestoreResult, RuntimeRefusal>> {
    if (steps.length === 0) return ok({ kind: 'nothing' });
    const found = new Map<string, DiskImage>();
    for (const path of new Set(steps.map((s) => s.path))) found.set(path, await readImage(root, path));
    const current = (path: string): FileImage => found.get(path)!.image;
    let plan = planRestore(steps, current);
    if (plan.unresolved > 0 && choose) {
      const choices = await choose(plan.conflicts);
      if (!choices) return ok({ kind: 'cancelled' });
      plan = planRestore(steps, current, choices);
    }
    // The bytes to write, read before anything is journaled: a content missing fails here, with nothing done.
    const bytes = new Map<string, Uint8Array | null>();
    for (const f of plan.files) {
      if (sameImage(f.target, f.found)) continue;
      const content = f.target.exists ? await this.scope.journal.read('getContent', f.target.hash!) : null;
      if (f.target.exists && !content) return fail('not_found', `The content of ${f.path} before the change is missing from the journal.`);
      bytes.set(f.path, content);
    }
    let decided: { id: string } | { by: string };
    try {
      decided = await record(plan, found);
    } catch (error) {
      if (error instanceof RestoreRefused) return fail(error.reason, error.message);
      throw error;
    }
    if ('by' in decided) return ok({ kind: 'already', by: decided.by });
    const changedMeanwhile: string[] = [];
    const removed: string[] = [];
    for (const [path, content] of bytes) {
      const now = await readImage(root, path);
      if (!sameImage(now.image, found.get(path)!.image)) {
        changedMeanwhile.push(path);
        continue;
      }
      await writeImage(root, path, content);
      if (content === null) removed.push(path);
    }
    // Folders once every file is gone, the file made last first: a folder holding files of several turns is
    // emptied by them all and goes with the earliest, made since its turn (a later turn's time would keep it).
    for (const path of [...removed].sort((a, b) => createdSince(b) - createdSince(a))) {
      const folders = await removeFoldersMadeSince(root, path, createdSince(path));
      if (folders.length) this.scope.log(`[checkpoints] removed the empty folders made for ${path}: ${folders.join(', ')}`);
    }
    if (changedMeanwhile.length) this.scope.log(`[checkpoints] left as they were (changed during the undo or redo): ${changedMeanwhile.join(', ')}`);
    this.scope.notifier.filesChanged(sessionId);
    return ok({ kind: 'applied', id: decided.id, files: plan.files, changedMeanwhile });
  }
}

/** A journal refusal carried out of `record` (see `restore`). */
class RestoreRefused extends Error {
  constructor(readonly reason: RuntimeRefusal, message: string) {
    super(message);
  }
}

/** The undo standing for each turn (not redone), by turn id. */
function standingUndos(undos: readonly UndoRecord[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const u of undos) if (u.state === 'undone') for (const t of u.turnIds) out.set(t, u.id);
  return out;
}

export { conflictKey };
