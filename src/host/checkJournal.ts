/**
 * Agent Chats: Check Journal (`nativeAgentChats.checkJournal`): runs the journal check
 * (src/runtime/journalCheck.ts) under a cancellable progress notification — its reads run in the
 * journal's threads, chunk by chunk, so the window never stalls — and opens the report
 * (src/core/journalCheckMarkdown.ts) as a read-only Markdown document (./reportDocuments.ts). Also the
 * warnings that offer a **Check Journal** button (a journal moved aside, a read-only journal). A
 * check that finds chats held by damaged records offers **Repair Journal…** in a notification.
 */
import * as vscode from 'vscode';
import { journalVerdict } from '../core/journalCheck';
import { journalCheckMarkdown } from '../core/journalCheckMarkdown';
import type { ChatRuntime } from '../runtime/chatRuntime';
import { checkJournal } from '../runtime/journalCheck';
import { withJournalProgress } from './journalProgress';
import { showReport } from './reportDocuments';
import { REPAIR_JOURNAL_BUTTON, REPAIR_JOURNAL_COMMAND } from './repairJournal';

/** The command's id (contributed in package.json). */
export const CHECK_JOURNAL_COMMAND = 'nativeAgentChats.checkJournal';

/** The button's label on the warnings that offer the check. */
export const CHECK_JOURNAL_BUTTON = 'Check Journal';

/**
 * Runs the check with a progress notification (cancellable) and opens the report. Resolves the
 * verdict (for tests and callers), or undefined when the user cancelled.
 */
export async function runCheckJournal(runtime: ChatRuntime): Promise<string | undefined> {
  const report = await withJournalProgress('Agent Chats: Checking the chat journal', (hooks) => checkJournal(runtime.journal, { instanceId: runtime.instanceId, ...hooks }));
  if (!report) return undefined;
  await showReport('Journal check', journalCheckMarkdown(report));
  offerRepair(new Set(report.unreadableRows.filter((r) => r.writtenBy === 'damaged').map((r) => r.sessionId)).size);
  return journalVerdict(report);
}

/** After a check that found `chats` chats held by damaged records: a notification with a **Repair Journal…** button. */
function offerRepair(chats: number): void {
  if (chats === 0) return;
  const message = `Agent Chats: ${chats === 1 ? '1 chat is' : `${chats} chats are`} held by damaged records. Repair Journal… shows what it can set aside; it changes nothing before you confirm.`;
  void vscode.window.showInformationMessage(message, REPAIR_JOURNAL_BUTTON).then((choice) => {
    if (choice === REPAIR_JOURNAL_BUTTON) void vscode.commands.executeCommand(REPAIR_JOURNAL_COMMAND);
  });
}

/** Shows a warning with a **Check Journal** button that runs the command. */
export function warnWithCheck(message: string): void {
  void vscode.window.showWarningMessage(message, CHECK_JOURNAL_BUTTON).then((choice) => {
    if (choice === CHECK_JOURNAL_BUTTON) void vscode.commands.executeCommand(CHECK_JOURNAL_COMMAND);
  });
}
