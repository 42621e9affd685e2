/**
 * A turn's "Files changed" list (checkpoints): each file the agent changed through its file tools,
 * created / modified / deleted with its +/- line counts, "changed, not checkpointed" for a file over
 * the size cap, and "may be partly written" for a write a crash or Stop cut short; each file opens
 * VS Code's diff (`data-action="open-diff"`). Then Undo changes of this turn and Restore to before
 * this turn, or Redo when an undo stands. A turn that ran commands says their changes are not listed.
 */
import { neverRan, requestsByInvocation } from '../labels';
import type { TranscriptTurn } from '../../src/core/transcript';
import type { FileChangeView, TurnFilesView } from '../../src/protocol/messages';
import { h } from '../dom';
import { button } from './button';

/** Tools whose changes checkpoints do not capture (shell commands of the product, Claude and Codex). */
const COMMAND_TOOLS: ReadonlySet<string> = new Set(['run', 'Bash']);

/**
 * True when the turn ran a shell command that may have changed files (their changes are not
 * captured): one that did not `neverRan`. `sandboxed`: the chat's agent asks before any command not
 * on the read-only allowlist (`SANDBOXED_COMMAND_PROVIDERS`), so only a command run after an approved
 * request counts; a read-only `ls` is not worth the note.
 */
export function ranCommands(turn: TranscriptTurn, sandboxed = false): boolean {
  const { requestsOf } = requestsByInvocation(turn.items);
  return turn.items.some((i) => {
    if (i.type !== 'invocation' || !COMMAND_TOOLS.has(i.tool)) return false;
    const requests = requestsOf.get(i.id) ?? [];
    return !neverRan(i, requests) && (!sandboxed || requests.length > 0);
  });
}

/** A string that changes whenever what this block shows changes (for the turn's cache key). */
export function filesKey(files: TurnFilesView | undefined, commands: boolean, running: boolean): string {
  return files ? `${JSON.stringify(files)}${commands ? 'c' : ''}${running ? 'r' : ''}` : commands ? 'c' : '';
}

/** The words of one file's change. */
function kindWords(f: FileChangeView): string {
  return f.kind === 'created' ? 'created' : f.kind === 'deleted' ? 'deleted' : 'modified';
}

/**
 * One file's line of the list. Its parts are separated by text (a space; before a note "; ", for
 * assistive technology only, where the flex gap shows the break), not by CSS alone, so a screen reader and a copy read "src/a.ts modified +3 −1", not "src/a.tsmodified+3 −1".
 */
function fileLine(turnId: string, f: FileChangeView): HTMLElement {
  const counts = f.added !== null && f.removed !== null
    ? h('span', { class: 'file-counts' }, h('span', { class: 'added' }, `+${f.added}`), ' ', h('span', { class: 'removed' }, `−${f.removed}`))
    : null;
  const notes = [
    !f.checkpointed ? 'changed, not checkpointed (over 5 MB): cannot be put back' : null,
    f.pending ? 'may be partly written (cut short)' : null,
  ].filter((n): n is string => n !== null);
  return h(
    'li',
    { class: 'file-change', 'data-kind': f.kind },
    h('a', { href: '#', class: 'file-link', 'data-action': 'open-diff', 'data-turn-id': turnId, 'data-path': f.path, title: `Show the changes to ${f.path}` }, f.path),
    ' ',
    h('span', { class: 'file-kind' }, kindWords(f)),
    ...(counts ? [' ', counts] : []),
    ...notes.flatMap((n) => [h('span', { class: 'sr-only' }, '; '), h('span', { class: 'file-note' }, n)]),
  );
}

/**
 * The block of a turn, or null when it has neither files nor commands. `running`: a run of the chat
 * is live (Undo and Restore wait for it to end). `replaced`: an edit and resend replaced the turn;
 * its undone changes offer no Redo (they were taken back with the request; Undo and Restore of
 * changes still standing stay offered).
 */
export function renderFilesChanged(turn: TranscriptTurn, files: TurnFilesView | undefined, running: boolean, replaced = false, sandboxed = false): HTMLElement | null {
  const commands = ranCommands(turn, sandboxed);
  if (!files && !commands) return null;
  const note = commands ? h('div', { class: 'files-note' }, 'Commands ran in this turn; files they changed are not listed and cannot be undone here.') : null;
  if (!files) return h('div', { class: 'files-changed' }, note);
  const undone = files.undoneBy !== null;
  const busy = running || turn.status === 'running';
  const actions = undone
    ? replaced ? [] : [button('secondary', { 'data-action': 'redo-files', 'data-undo-id': files.undoneBy, disabled: busy }, 'Redo')]
    : [
        button('secondary', { 'data-action': 'undo-files', 'data-turn-id': turn.id, disabled: busy }, 'Undo changes of this turn'),
        button('secondary', { 'data-action': 'restore-files', 'data-turn-id': turn.id, disabled: busy }, 'Restore to before this turn'),
      ];
  return h(
    'div',
    { class: 'files-changed', 'data-turn-id': turn.id, 'data-undone': undone ? 'true' : 'false' },
    h('div', { class: 'files-title' }, undone ? 'Files changed (undone)' : 'Files changed'),
    h('ul', { class: 'file-list' }, ...files.files.map((f) => fileLine(turn.id, f))),
    note,
    h('div', { class: 'files-actions' }, ...actions),
  );
}
