/**
 * The undo an edit and resend asks for first (`undoReplacedFiles`): the file changes of the turn
 * being replaced are undone before the edited request goes. Nothing is undone when that turn can no
 * longer be replaced (another request followed it, e.g. this very message sent before a reload, or
 * another window's): the send then goes on and is answered as it would be. The question is asked
 * again once the user has chosen what to do with conflicting files, since the choice can take long
 * and another window may have sent meanwhile: files undone for a resend that is then refused would
 * be taken back with no request to replace them.
 */
import type { Result } from '../core/result';
import type { ChooseConflicts, FileUndo, RestoreResult } from './fileUndo';
import type { Journal } from '../journal/journal';
import type { RuntimeRefusal } from './refusals';

/** What the resend does after its undo: go on (`outcome`: what the undo did, if it ran), or be refused. */
export type ResendUndo =
  | { readonly go: true; readonly outcome?: RestoreResult }
  | { readonly go: false; readonly code: RuntimeRefusal; readonly message: string };

/**
 * Undoes turn `turnId`'s file changes in chat `sessionId` before it is replaced (see module
 * docstring); `choose` asks about conflicting files as for Undo. Refused (`go` false, the message to
 * be given back) when the undo is refused or the user cancels it.
 */
export async function undoBeforeResend(
  runtime: { readonly journal: Pick<Journal, 'read'>; readonly files: Pick<FileUndo, 'undo'> }, sessionId: string, turnId: string, choose: ChooseConflicts,
): Promise<ResendUndo> {
  const replaceable = async () => (await runtime.journal.read('replaceProblemOf', sessionId, turnId)) === null;
  if (!(await replaceable())) return { go: true };
  let overtaken = false;
  const result: Result<RestoreResult, RuntimeRefusal> = await runtime.files.undo(sessionId, turnId, 'turn', async (conflicts) => {
    const choices = await choose(conflicts);
    if (choices && !(await replaceable())) overtaken = true;
    return overtaken ? undefined : choices;
  });
  if (!result.ok) return { go: false, code: result.reason, message: `The edited request was not sent: ${result.message}` };
  // Overtaken while the user chose: nothing undone, and the send is refused for its own reason.
  if (overtaken) return { go: true };
  if (result.value.kind === 'cancelled') return { go: false, code: 'not_actionable', message: 'The edited request was not sent: undoing its file changes was cancelled.' };
  return { go: true, outcome: result.value };
}
