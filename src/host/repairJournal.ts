/**
 * Agent Chats: Repair Journal… (`nativeAgentChats.repairJournal`): the dry run first, under a
 * cancellable progress notification (src/runtime/journalRepair.ts `planRepair`: Check Journal's reads,
 * then the evidence of every fenced chat; nothing is written), opened as a read-only Markdown
 * document (src/core/repairMarkdown.ts); then, only when the plan changes something and the user
 * confirms in a modal dialog, the repair (`applyRepair`: the files copied aside, each chat one
 * logged transaction), and a notification of what it did. Chats it released are re-read by their
 * tabs here; other windows re-read them when they replay the log.
 */
import * as vscode from 'vscode';
import { withJournalProgress } from './journalProgress';
import { showReport } from './reportDocuments';
import { itemsToApply } from '../core/repairPlan';
import { repairDryRunMarkdown, repairResultWords } from '../core/repairMarkdown';
import type { ChatRuntime } from '../runtime/chatRuntime';
import { applyRepair, planRepair, type RepairOutcome } from '../runtime/journalRepair';

/** The command's id (contributed in package.json). */
export const REPAIR_JOURNAL_COMMAND = 'nativeAgentChats.repairJournal';

/** The button's label where the repair is offered (a fenced chat's notice, Check Journal's result). */
export const REPAIR_JOURNAL_BUTTON = 'Repair Journal…';

/** The modal's confirming button. */
const REPAIR_BUTTON = 'Repair';

/** What the command did: the outcome when it repaired, else why it stopped (for tests and callers). */
export type RepairRun = { readonly applied: RepairOutcome } | { readonly stopped: 'cancelled' | 'nothing_to_do' | 'declined' };

/**
 * Runs the dry run, shows it, and repairs after the user's confirmation (see module docstring).
 * `build`: the extension's version, recorded with every row set aside. `confirm` (tests): answers
 * the modal instead of the user.
 */
export async function runRepairJournal(runtime: ChatRuntime, build: string, confirm?: (message: string) => Promise<boolean>): Promise<RepairRun> {
  const dry = await withJournalProgress('Agent Chats: Reading the chat journal for a repair (nothing is changed)', (hooks) => planRepair(runtime.journal, { instanceId: runtime.instanceId, ...hooks }));
  if (!dry) return { stopped: 'cancelled' };
  const markdown = repairDryRunMarkdown(dry.plan, `${runtime.journal.file}.before-repair-<time>`);
  await showReport('Journal repair (dry run)', markdown);
  const todo = itemsToApply(dry.plan).length;
  if (todo === 0) {
    void vscode.window.showInformationMessage('Agent Chats: Nothing to repair; nothing was changed. The document shows why.');
    return { stopped: 'nothing_to_do' };
  }
  const question = `Make the ${todo === 1 ? 'change' : `${todo} changes`} the document shows?`;
  const yes = confirm
    ? await confirm(question)
    : (await vscode.window.showWarningMessage(question, {
      modal: true,
      detail: 'The journal\'s files are copied aside first; nothing is deleted. Each chat is checked again just before it is changed.',
    }, REPAIR_BUTTON)) === REPAIR_BUTTON;
  if (!yes) return { stopped: 'declined' };
  const outcome = await applyRepair(runtime.journal, dry.plan, { build, instanceId: runtime.instanceId });
  runtime.chatsChanged(outcome.changed);
  const notDone = outcome.applied.filter((a) => !a.done).map((a) => ({ title: 'chatTitle' in a.item ? a.item.chatTitle : 'finding' in a.item ? a.item.finding.chatTitle : null, why: a.why ?? '' }));
  const words = `Agent Chats: ${repairResultWords(outcome.applied.length - notDone.length, notDone, outcome.copiedTo)}`;
  if (notDone.length > 0) void vscode.window.showWarningMessage(words);
  else void vscode.window.showInformationMessage(words);
  return { applied: outcome };
}
