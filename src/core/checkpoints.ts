/**
 * Checkpoints' rules, pure: what a turn changed in the workspace's files (`filesOfTurn`), and what
 * an undo or a redo does to each file (`planRestore`), given what the files hold now.
 *
 * A file image is the file's state at one moment: absent, or present with the SHA-256 of its bytes
 * (`hash`) and its size; the bytes themselves are kept in the content store only up to
 * `MAX_CHECKPOINT_BYTES` (`isKept`), so a larger file is compared by its hash but cannot be put
 * back. The rule of every undo
 * and redo: a file is put back only if it holds what the agent left (the change's after image); if
 * it already holds what is to be put back it is left alone; otherwise someone changed it since, and
 * it is a conflict, never overwritten unless the user chose so for that file.
 */
import type { FileNews } from './fileNews';

/** Largest file (bytes) whose content a checkpoint keeps; a larger one is "changed, not checkpointed". */
export const MAX_CHECKPOINT_BYTES = 5 * 1024 * 1024;

/** A file's state at one moment (see module docstring). */
export interface FileImage {
  readonly exists: boolean;
  /** SHA-256 of the bytes (64 hex characters); null when absent (or, in rows of a damaged journal, unknown). */
  readonly hash: string | null;
  /** Size in bytes (0 when absent). */
  readonly size: number;
}

/** The image of a file that does not exist. */
export const ABSENT: FileImage = { exists: false, hash: null, size: 0 };

/** True when a restore can put `image` back: absent, or its bytes within the cap (so in the content store). */
export function isKept(image: FileImage): boolean {
  return !image.exists || (image.hash !== null && image.size <= MAX_CHECKPOINT_BYTES);
}

/**
 * Where a change stands: `pending` journaled before the write and its end not known (a crash or a
 * Stop may have cut it anywhere: the file may hold either image); `applied` the tool finished;
 * `not_applied` the tool never wrote (denied, stopped before it ran, or it failed without touching the file).
 */
export type FileChangeState = 'pending' | 'applied' | 'not_applied';
/** Every `FileChangeState`, for decoding. */
export const FILE_CHANGE_STATES = ['pending', 'applied', 'not_applied'] as const;

/** One file change an agent's tool made, as the journal keeps it (`file_changes`). */
export interface FileChangeRecord {
  readonly id: string;
  readonly sessionId: string;
  readonly turnId: string;
  readonly runId: string;
  readonly invocationId: string;
  /** Workspace-relative with `/` separators; absolute for a file outside the workspace. */
  readonly path: string;
  readonly before: FileImage;
  /** Null while not known (an agent's own tool that has not reported yet, or was cut short). */
  readonly after: FileImage | null;
  readonly state: FileChangeState;
  /** False when an image's bytes were too large to keep (`reason`). */
  readonly checkpointed: boolean;
  readonly reason: 'too_large' | null;
  /** Lines added and removed; null when not counted (binary, too large, or not known yet). */
  readonly added: number | null;
  readonly removed: number | null;
  readonly createdAt: number;
}

/** What a turn did to a file. */
export type ChangeKind = 'created' | 'modified' | 'deleted';

/** What a turn did to one file: its image before the turn's first change and after its last. */
export interface TurnFileChange {
  readonly turnId: string;
  readonly path: string;
  readonly kind: ChangeKind;
  readonly before: FileImage;
  /** Null when the last write's end is not known. */
  readonly after: FileImage | null;
  readonly checkpointed: boolean;
  /** True when the last change is `pending` (the write may or may not have happened). */
  readonly pending: boolean;
  readonly added: number | null;
  readonly removed: number | null;
}

/** The kind of change from `before` to `after` (an unknown after counts as modified, or created). */
export function changeKind(before: FileImage, after: FileImage | null): ChangeKind {
  if (!before.exists) return 'created';
  return after && !after.exists ? 'deleted' : 'modified';
}

/**
 * The files a turn changed, in the order first changed: `changes` are the turn's rows in journal
 * order; rows `not_applied` are left out. A file changed twice keeps its first before image and its
 * last after image; line counts are summed (null if any is unknown).
 */
export function filesOfTurn(changes: readonly FileChangeRecord[]): TurnFileChange[] {
  const byPath = new Map<string, TurnFileChange>();
  for (const c of changes) {
    if (c.state === 'not_applied') continue;
    const prev = byPath.get(c.path);
    const before = prev ? prev.before : c.before;
    const sum = (a: number | null | undefined, b: number | null) => (a === null || b === null ? null : (a ?? 0) + b);
    byPath.set(c.path, {
      turnId: c.turnId,
      path: c.path,
      kind: changeKind(before, c.after),
      before,
      after: c.after,
      checkpointed: (prev ? prev.checkpointed : true) && c.checkpointed,
      pending: c.state === 'pending',
      added: sum(prev ? prev.added : undefined, c.added),
      removed: sum(prev ? prev.removed : undefined, c.removed),
    });
  }
  return [...byPath.values()];
}

/** True when two images hold the same thing (both absent, or the same bytes). */
export function sameImage(a: FileImage, b: FileImage | null): boolean {
  if (!b) return false;
  if (!a.exists || !b.exists) return a.exists === b.exists;
  return a.hash !== null && a.hash === b.hash;
}

/**
 * One step a restore takes back: a file that should hold `expected` (what the agent left; null
 * when not known) and is to be put back to `restore`. An undo's steps are a turn's files; a redo's
 * are the files an undo changed (expected: what the undo wrote; restore: what it found).
 */
export interface RestoreStep {
  /** The turn the step belongs to (for a redo, the undo's id). */
  readonly group: string;
  readonly path: string;
  readonly expected: FileImage | null;
  readonly restore: FileImage;
  /** False when `restore`'s bytes were not kept (too large): the file cannot be put back. */
  readonly restorable: boolean;
}

/** Every outcome a restore can have for a file. */
export const RESTORE_OUTCOMES = ['restored', 'unchanged', 'conflict_kept', 'conflict_restored', 'not_checkpointed'] as const;
/** What a restore does to one file. */
export type RestoreOutcome = (typeof RESTORE_OUTCOMES)[number];

/** True when `value` is a `RestoreOutcome` (decoding journal rows). */
export function isRestoreOutcome(value: unknown): value is RestoreOutcome {
  return typeof value === 'string' && (RESTORE_OUTCOMES as readonly string[]).includes(value);
}

/** A file changed since the agent (or the undo) left it: the user chooses what happens. */
export interface RestoreConflict {
  readonly group: string;
  readonly path: string;
  /** What the file holds at that point of the restore. */
  readonly found: FileImage;
  /** What the agent left (null: not known). */
  readonly expected: FileImage | null;
  /** What a restore would put there. */
  readonly restore: FileImage;
}

/** The user's choice for a conflict, by `conflictKey`: keep the file as it is, or put it back anyway. */
export type ConflictChoice = 'keep' | 'restore';

/** The key of a conflict in a choices map. */
export function conflictKey(group: string, path: string): string {
  return `${group}\u0000${path}`;
}

/** What a restore does to one file, all steps folded. */
export interface PlannedFile {
  readonly path: string;
  /** What the file holds now. */
  readonly found: FileImage;
  /** What it will hold (equal to `found`: nothing is written). */
  readonly target: FileImage;
  readonly outcome: RestoreOutcome;
}

/** A restore's plan: each file touched, and the conflicts met (with the choice they got, if any). */
export interface RestorePlan {
  readonly files: readonly PlannedFile[];
  readonly conflicts: readonly RestoreConflict[];
  /** Conflicts without a choice yet (kept in `files` until the user chooses). */
  readonly unresolved: number;
}

const RANK: Record<RestoreOutcome, number> = { unchanged: 0, restored: 1, conflict_restored: 2, not_checkpointed: 3, conflict_kept: 4 };

/**
 * Plans a restore (see module docstring): `steps` in the order they are taken back (newest turn
 * first; within a turn any order, one step per file), `current(path)` what each file holds now,
 * `choices` the user's choices by `conflictKey` (a conflict without one is kept). Each file's
 * outcome is the most telling of its steps (a kept conflict over a restore).
 */
export function planRestore(steps: readonly RestoreStep[], current: (path: string) => FileImage, choices: ReadonlyMap<string, ConflictChoice> = new Map()): RestorePlan {
  const state = new Map<string, { found: FileImage; now: FileImage; outcome: RestoreOutcome }>();
  const conflicts: RestoreConflict[] = [];
  let unresolved = 0;
  for (const step of steps) {
    const found = state.get(step.path)?.now ?? current(step.path);
    const file = state.get(step.path) ?? { found, now: found, outcome: 'unchanged' as RestoreOutcome };
    let outcome: RestoreOutcome;
    let next = file.now;
    if (sameImage(step.restore, file.now)) outcome = 'unchanged';
    else if (!step.restorable) outcome = 'not_checkpointed';
    else if (sameImage(file.now, step.expected)) {
      outcome = 'restored';
      next = step.restore;
    } else {
      conflicts.push({ group: step.group, path: step.path, found: file.now, expected: step.expected, restore: step.restore });
      const choice = choices.get(conflictKey(step.group, step.path));
      if (choice === undefined) unresolved++;
      outcome = choice === 'restore' ? 'conflict_restored' : 'conflict_kept';
      if (choice === 'restore') next = step.restore;
    }
    state.set(step.path, { found: file.found, now: next, outcome: RANK[outcome] > RANK[file.outcome] ? outcome : file.outcome });
  }
  const files = [...state.entries()].map(([path, s]) => ({ path, found: s.found, target: s.now, outcome: s.outcome }));
  return { files, conflicts, unresolved };
}

/** The steps that undo `turns` (newest first, each with its files from `filesOfTurn`). */
export function undoSteps(turns: readonly (readonly TurnFileChange[])[]): RestoreStep[] {
  return turns.flatMap((files) =>
    files.map((f) => ({ group: f.turnId, path: f.path, expected: f.after, restore: f.before, restorable: isKept(f.before) })),
  );
}

/** One file of a journaled undo (`file_undo_items`). */
export interface UndoItem {
  readonly path: string;
  readonly outcome: RestoreOutcome;
  /** What the undo found (a redo puts it back). */
  readonly found: FileImage;
  /** What the undo left. */
  readonly wrote: FileImage;
}

/** The steps that redo an undo: the files it changed, from what it wrote back to what it found. */
export function redoSteps(undoId: string, items: readonly UndoItem[]): RestoreStep[] {
  return items
    .filter((i) => !sameImage(i.found, i.wrote))
    .map((i) => ({ group: undoId, path: i.path, expected: i.wrote, restore: i.found, restorable: isKept(i.found) }));
}

/**
 * The short note the next prompt carries after undos or redos, so a model's picture of the
 * workspace is not stale; empty when nothing is left changed (`fileNewsOf`: an undo and its redo
 * cancel out). Each file is named once, by where the undos and redos left it: undone, redone, or left
 * as the user had it.
 */
export function fileNote(news: FileNews): string {
  const named = (paths: readonly string[]) => paths.join(', ');
  const lines = [
    news.undone.length && `The user undid your earlier changes to ${named(news.undone)}: those files are back as they were before your changes.`,
    news.redone.length && `The user redid your earlier changes to ${named(news.redone)}: those files are back as they were after your changes.`,
    news.kept.length && `These files were left as the user had them: ${named(news.kept)}.`,
  ].filter(Boolean);
  return lines.length ? `[Files changed since your last reply. ${lines.join(' ')} Read a file again before relying on its content.]` : '';
}

/**
 * The sentence saying what an applied undo or redo did (`what`: "Undo" or "Redo"): the files it
 * put back, the files the agent had created that it removed (or, for a redo, created again), those
 * it left as the user had them, those not checkpointed, and `changedMeanwhile` files changed while
 * it ran.
 */
export function restoreOutcomeWords(what: 'Undo' | 'Redo', files: readonly PlannedFile[], changedMeanwhile: number): string {
  const files1 = (n: number) => (n === 1 ? '1 file' : `${n} files`);
  const done = files.filter((f) => f.outcome === 'restored' || f.outcome === 'conflict_restored');
  const removed = done.filter((f) => !f.target.exists).length;
  const created = done.filter((f) => f.target.exists && !f.found.exists).length;
  const putBack = done.length - removed - created;
  const count = (o: RestoreOutcome) => files.filter((f) => f.outcome === o).length;
  const parts = [
    putBack || (!removed && !created) ? `put back ${files1(putBack)}` : '',
    removed ? `removed ${files1(removed)} the agent had created` : '',
    created ? `created ${files1(created)} again` : '',
    count('conflict_kept') ? `left ${files1(count('conflict_kept'))} as you changed them` : '',
    count('not_checkpointed') ? `left ${files1(count('not_checkpointed'))} as they are (over 5 MB, not checkpointed)` : '',
    changedMeanwhile ? `left ${files1(changedMeanwhile)} changed during the ${what.toLowerCase()} as they are` : '',
  ].filter(Boolean);
  return `${what}: ${parts.join('; ')}.`;
}

/**
 * True when a restore did all it was asked: every file put back (or already as asked), none left as
 * the user changed it, too large to have been kept, or changed during the restore.
 */
export function restoreDidAll(files: readonly PlannedFile[], changedMeanwhile: number): boolean {
  return changedMeanwhile === 0 && files.every((f) => f.outcome === 'restored' || f.outcome === 'unchanged' || f.outcome === 'conflict_restored');
}

/**
 * Lines added and removed by a unified diff (`core/unifiedDiff.ts`'s format): its `+`/`-` lines,
 * headers left out. Null when there is no diff.
 */
export function lineCounts(diff: string | undefined): { added: number; removed: number } | null {
  if (diff === undefined) return null;
  let added = 0;
  let removed = 0;
  // The two header lines come first; a removed line reading `-- x` shows as `--- x` further down.
  for (const line of diff.split('\n').slice(2)) {
    if (line.startsWith('+')) added++;
    else if (line.startsWith('-')) removed++;
  }
  return { added, removed };
}
