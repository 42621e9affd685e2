/**
 * Agent Chats: Check Journal (`nativeAgentChats.checkJournal`): runs the journal check
 * (src/runtime/journalCheck.ts) under a cancellable progress notification — its reads run in the
 * journal's threads, chunk by chunk, so the window never stalls — and opens the report
 * (src/core/journalCheckMarkdown.ts) as a read-only Markdown document (./reportDocuments.ts). Also the warnings that offer
 * a **Check Journal** button (a journal moved aside, a read-only journal).
 */
import * as vscode from 'vscode';
import { journalVerdict } from '../core/journalCheck';
import { journalCheckMarkdown } from '../core/journalCheckMarkdown';
import type { ChatRuntime } from '../runtime/chatRuntime';
import { checkJournal } from '../runtime/journalCheck';
import { showReport } from './reportDocuments';

/** The command's id (contributed in package.json). */
export const CHECK_JOURNAL_COMMAND = 'nativeAgentChats.checkJournal';

/** The button's label on the warnings that offer the check. */
export const CHECK_JOURNAL_BUTTON = 'Check Journal';

/**
 * Runs the check with a progress notification (cancellable) and opens the report. Resolves the
 * verdict (for tests and callers), or undefined when the user cancelled.
 */
export async function runCheckJournal(runtime: ChatRuntime): Promise<string | undefined> {
  const report = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Agent Chats: Checking the chat journal', cancellable: true },
    (progress, token) => {
      let shown = 0;
      return checkJournal(runtime.journal, {
        instanceId: runtime.instanceId,
        cancelled: () => token.isCancellationRequested,
        onProgress: (p) => {
          // withProgress adds up increments (percent); report only the growth since the last call.
          const percent = Math.floor((100 * p.done) / Math.max(1, p.total));
          progress.report({ message: p.step, increment: percent - shown });
          shown = percent;
        },
      });
    },
  );
  if (!report) return undefined;
  await showReport('Journal check', journalCheckMarkdown(report));
  return journalVerdict(report);
}

/** Shows a warning with a **Check Journal** button that runs the command. */
export function warnWithCheck(message: string): void {
  void vscode.window.showWarningMessage(message, CHECK_JOURNAL_BUTTON).then((choice) => {
    if (choice === CHECK_JOURNAL_BUTTON) void vscode.commands.executeCommand(CHECK_JOURNAL_COMMAND);
  });
}
