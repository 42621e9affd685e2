/**
 * What undos and redos of a chat's file changes, journaled since the agent's last turn, leave the
 * agent to hear (pure): each file once, by where they left it. An undo and the redo of that same
 * undo cancel out for a file (it is back as the agent last saw it): a note saying "the user redid
 * your changes" then told the agent of a change that did not happen. `fileNote` (core/checkpoints.ts)
 * words it for a model; the local agent says it in its own words.
 */

/** One undo or redo of the chat the agent has not heard of, and what it did to the files. */
export interface RestoreNews {
  readonly kind: 'undo' | 'redo';
  /** The undo's id; a redo carries the id of the undo it redoes. */
  readonly undoId: string;
  /** Paths (workspace-relative, as journaled) put back. */
  readonly restored: readonly string[];
  /** Paths left as the user had changed them (a conflict the user chose to keep). */
  readonly kept: readonly string[];
}

/** Where the undos and redos left each file they touched (each path in one list, in first-touched order). */
export interface FileNews {
  /** Back as before the agent's changes. */
  readonly undone: readonly string[];
  /** Back as after the agent's changes. */
  readonly redone: readonly string[];
  /** Left as the user had changed them. */
  readonly kept: readonly string[];
}

/** One step a file went through: put back by an undo or a redo of `undoId`, or kept as the user had it. */
interface Step { readonly kind: 'undo' | 'redo' | 'kept'; readonly undoId: string }

/**
 * The files `news` (oldest first) leave changed, each by its last step that was not cancelled: a redo
 * that puts back what the undo just before it (of the same file, same undo id) took away cancels
 * both. Empty lists when nothing is left to say.
 */
export function fileNewsOf(news: readonly RestoreNews[]): FileNews {
  const steps = new Map<string, Step[]>();
  const add = (path: string, step: Step) => {
    const stack = steps.get(path) ?? [];
    const top = stack[stack.length - 1];
    if (step.kind === 'redo' && top?.kind === 'undo' && top.undoId === step.undoId) stack.pop();
    else stack.push(step);
    steps.set(path, stack);
  };
  for (const n of news) {
    for (const p of n.restored) add(p, { kind: n.kind, undoId: n.undoId });
    for (const p of n.kept) add(p, { kind: 'kept', undoId: n.undoId });
  }
  const where = (kind: Step['kind']) => [...steps].filter(([, s]) => s[s.length - 1]?.kind === kind).map(([p]) => p);
  return { undone: where('undo'), redone: where('redo'), kept: where('kept') };
}

/** True when `news` says nothing (no file left changed). */
export function isEmptyFileNews(news: FileNews): boolean {
  return news.undone.length === 0 && news.redone.length === 0 && news.kept.length === 0;
}
