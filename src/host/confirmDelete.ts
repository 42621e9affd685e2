/**
 * The modal confirmation of Delete Chat…, where Enter keeps the chat.
 *
 * VS Code's modal message dialog focuses its first button that is not the close affordance, and
 * Enter presses the focused button (checked in code-server 4.139's workbench: the dialog focuses the
 * button of index 0 among the items not marked `isCloseAffordance`; the close affordance becomes the
 * Cancel button, placed last, which Escape answers). With `Delete` as the only item, Enter deleted.
 * So the first item is the harmless one; Delete is never the first button.
 */
import * as vscode from 'vscode';
import type { SessionRecord } from '../core/events';

/** Button labels of the confirmation (tests find the dialog's buttons by them). */
export const DELETE_CONFIRMATION = { keep: 'Keep Chat', delete: 'Delete Chat' } as const;

/** Asks, in a modal dialog naming the chat, whether to delete it. Resolves true only for Delete Chat. */
export async function confirmDelete(session: SessionRecord): Promise<boolean> {
  const keep: vscode.MessageItem = { title: DELETE_CONFIRMATION.keep };
  const remove: vscode.MessageItem = { title: DELETE_CONFIRMATION.delete };
  const cancel: vscode.MessageItem = { title: 'Cancel', isCloseAffordance: true };
  const answer = await vscode.window.showWarningMessage(
    `Delete the chat “${session.title}”?`,
    { modal: true, detail: 'Its messages, tool output and approvals are removed from the chat journal. This cannot be undone.' },
    keep,
    remove,
    cancel,
  );
  return answer === remove;
}
