/**
 * Agent Chats: Recover Chats from a Moved-Aside Journal… (`nativeAgentChats.recoverChats`): picks a
 * journal moved aside next to the current one (`journal.sqlite.unreadable-<ms>`; the only one is
 * taken without asking), reads it in the journal's helper thread under a progress notification,
 * opens the dry run as a read-only Markdown document (src/core/salvageMarkdown.ts), and recovers its
 * chats only after a modal confirmation (src/runtime/salvage.ts). Also the warning shown when a
 * journal was just moved aside, with **Recover Chats…** and **Check Journal** buttons. The rules are
 * in the runtime and the journal; this file only asks and shows.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { showReport } from './reportDocuments';
import { salvageCounts } from '../core/salvage';
import { salvageMarkdown, salvageVerdict } from '../core/salvageMarkdown';
import { timeWords, sizeWords } from '../core/journalCheck';
import type { ChatRuntime } from '../runtime/chatRuntime';
import { applySalvage, listMovedAside, planSalvage } from '../runtime/salvage';
import { CHECK_JOURNAL_BUTTON, CHECK_JOURNAL_COMMAND } from './checkJournal';

/** The command's id (contributed in package.json). */
export const RECOVER_CHATS_COMMAND = 'nativeAgentChats.recoverChats';

/** The button on the moved-aside warning and the modal's confirm button. */
const RECOVER_BUTTON = 'Recover Chats…';
const CONFIRM_BUTTON = 'Recover';

/** What the command did, for tests: the dry run's verdict, and the chats recovered (undefined: not applied). */
export interface RecoverChatsOutcome {
  readonly verdict: string;
  readonly recovered?: number;
}

/**
 * Runs the command (see module docstring). `args.name` picks the moved-aside file without asking;
 * `args.confirm` (tests) answers the modal. Resolves undefined when there is nothing to pick or the
 * user cancelled the pick.
 */
export async function runRecoverChats(runtime: ChatRuntime, args?: { name?: string; confirm?: boolean }): Promise<RecoverChatsOutcome | undefined> {
  const name = args?.name ?? (await pickMovedAside(runtime.journal.file));
  if (!name) return undefined;
  const dryRun = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Agent Chats: Reading ${name}` },
    () => planSalvage(runtime.journal, name),
  );
  await showReport(`Recover chats from ${name} (dry run)`, salvageMarkdown(dryRun.plan));
  const verdict = salvageVerdict(dryRun.plan);
  const counts = salvageCounts(dryRun.plan);
  const toImport = counts.whole + counts.partial;
  if (toImport === 0 || dryRun.plan.read.newer) {
    void vscode.window.showInformationMessage(`Agent Chats: ${verdict}`);
    return { verdict };
  }
  const confirmed = args?.confirm ?? (await vscode.window.showWarningMessage(
    `Recover ${toImport} chat${toImport === 1 ? '' : 's'} from ${name}?`,
    { modal: true, detail: `${verdict} Each is added to your chats, marked as recovered; chats already there are left as they are, and ${name} stays as it is. The report that just opened lists every chat.` },
    CONFIRM_BUTTON,
  )) === CONFIRM_BUTTON;
  if (!confirmed) return { verdict };
  const applied = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Agent Chats: Recovering chats from ${name}` },
    () => applySalvage(runtime.journal, dryRun, { now: Date.now }),
  );
  void vscode.commands.executeCommand('nativeAgentChats.refreshChats');
  const partly = applied.imported.filter((c) => !c.whole).length;
  const failed = applied.failed.length > 0 ? ` ${applied.failed.length} could not be added: ${applied.failed[0]!.message}` : '';
  void vscode.window.showInformationMessage(
    `Agent Chats: recovered ${applied.imported.length} chat${applied.imported.length === 1 ? '' : 's'}${partly > 0 ? ` (${partly} partly)` : ''} from ${name}; Open Chat… lists them.${failed}`,
  );
  return { verdict, recovered: applied.imported.length };
}

/** The moved-aside journal to read: the only one, or the user's pick (newest first); undefined when there is none or the pick was cancelled. */
async function pickMovedAside(file: string): Promise<string | undefined> {
  const found = listMovedAside(file).reverse();
  if (found.length === 0) {
    void vscode.window.showInformationMessage('Agent Chats: no journal was moved aside here, so there is nothing to recover.');
    return undefined;
  }
  if (found.length === 1) return found[0]!.name;
  const picked = await vscode.window.showQuickPick(
    found.map((f) => ({ label: f.name, description: `moved aside ${timeWords(f.movedAt)}, ${sizeWords(f.bytes)}` })),
    { title: 'Recover chats from which moved-aside journal?', placeHolder: path.dirname(file) },
  );
  return picked?.label;
}

/** The warning shown when the journal was just moved aside, with **Recover Chats…** and **Check Journal**. */
export function warnMovedAside(message: string, aside: string): void {
  void vscode.window.showWarningMessage(message, RECOVER_BUTTON, CHECK_JOURNAL_BUTTON).then((choice) => {
    if (choice === RECOVER_BUTTON) void vscode.commands.executeCommand(RECOVER_CHATS_COMMAND, { name: path.basename(aside) });
    if (choice === CHECK_JOURNAL_BUTTON) void vscode.commands.executeCommand(CHECK_JOURNAL_COMMAND);
  });
}
