/**
 * What a chat tab does with checkpoints: the "Files changed" lists it sends the view
 * (`checkpointsMessage`), and the view's Open diff / Undo / Restore / Redo (`checkpointHandlers`).
 * A conflict (a file changed since the agent, or the undo, left it) is decided per file in a
 * QuickPick listing each with its diff one click away (`chooseConflicts`); nothing is overwritten
 * that the user did not pick. Also **Agent Chats: Undo Last Turn's Changes** (`undoLastTurn`).
 */
import * as vscode from 'vscode';
import { conflictKey, restoreDidAll, restoreOutcomeWords, type ConflictChoice, type RestoreConflict } from '../core/checkpoints';
import type { Result } from '../core/result';
import type { WebviewMessageHandlersFor } from '../protocol/hostHandlers';
import type { ErrorCode, HostMessage, TurnFilesView } from '../protocol/messages';
import type { ChatRuntime, RuntimeRefusal } from '../runtime/chatRuntime';
import type { RestoreResult } from '../runtime/fileUndo';
import { undoBeforeResend as undoFirst } from '../runtime/resendUndo';
import { CHECKPOINT_SCHEME, CheckpointContentProvider, checkpointUri, openFileDiff } from './checkpointContent';
import { inChat, type PanelContext } from './panelContext';

/** The `checkpoints` message of a chat: every turn with file changes. */
export async function checkpointsMessage(runtime: ChatRuntime, sessionId: string): Promise<HostMessage> {
  const turns: TurnFilesView[] = (await runtime.files.checkpoints(sessionId)).map((t) => ({
    turnId: t.turnId,
    undoneBy: t.undoneBy,
    files: t.files.map((f) => ({ path: f.path, kind: f.kind, added: f.added, removed: f.removed, checkpointed: f.checkpointed, pending: f.pending })),
  }));
  return { type: 'checkpoints', turns };
}

/**
 * The checkpoints a panel's view was last sent. Another window's change re-reads them and sends them
 * only when they differ: sent at each such change, the list of every turn with file changes cost the
 * view about 10 ms to check in a chat with 2,000 of them, at every approval decided elsewhere.
 */
export class SentCheckpoints {
  /** The `turns` last sent (JSON), or undefined before the first. */
  private last: string | undefined;

  /**
   * The chat's `checkpoints` message, read now; undefined when `ifChanged` and the view was last sent
   * the same (a snapshot's passes `ifChanged` false: the view starts from nothing). Throws what the
   * runtime's read throws.
   */
  async message(runtime: ChatRuntime, sessionId: string, ifChanged: boolean): Promise<HostMessage | undefined> {
    const message = await checkpointsMessage(runtime, sessionId);
    const key = JSON.stringify(message);
    if (ifChanged && key === this.last) return undefined;
    this.last = key;
    return message;
  }
}

/** Undo / Restore (`undoFiles`) or Redo (`redoFiles`) done: a refusal to the view's error bar, else the outcome told. */
function answerRestore(what: 'Undo' | 'Redo', result: Result<RestoreResult, RuntimeRefusal>, post: (m: HostMessage) => void): void {
  if (!result.ok) return post({ type: 'error', code: result.reason, message: result.message });
  tellOutcome(what, result.value, post);
}

/**
 * The view's Open diff, Undo / Restore and Redo, on the panel's chat: a refusal or failure is
 * posted as an `error` message, an undo's outcome told as `tellOutcome` says.
 */
export const checkpointHandlers = {
  openFileDiff: inChat(async ({ turnId, path }, panel, sessionId) => {
    if (!(await openFileDiff(panel.runtime, sessionId, turnId, path))) void panel.post({ type: 'error', code: 'not_found', message: `That turn did not change ${path}.` });
  }),
  undoFiles: inChat(async ({ turnId, scope }, panel, sessionId) =>
    answerRestore('Undo', await panel.runtime.files.undo(sessionId, turnId, scope, chooseConflicts), (m) => void panel.post(m))),
  redoFiles: inChat(async ({ undoId }, panel, sessionId) =>
    answerRestore('Redo', await panel.runtime.files.redo(sessionId, undoId, chooseConflicts), (m) => void panel.post(m))),
} satisfies WebviewMessageHandlersFor<'openFileDiff' | 'undoFiles' | 'redoFiles', PanelContext>;

/**
 * For an edit and resend that asked for it (`undoReplacedFiles`): undoes the file changes of the
 * turn being replaced, conflicts asked per file as for Undo (`src/runtime/resendUndo.ts`: nothing
 * when the turn can no longer be replaced). Returns null when the send may go on, else why it must
 * not, for the message to be given back.
 */
export async function undoBeforeResend(runtime: ChatRuntime, sessionId: string, turnId: string): Promise<{ code: ErrorCode; message: string } | null> {
  const decided = await undoFirst(runtime, sessionId, turnId, chooseConflicts);
  if (!decided.go) return { code: decided.code, message: decided.message };
  if (decided.outcome) tellOutcome('Undo', decided.outcome);
  return null;
}

/** Undoes the changes of the newest turn of the chat that has changes and no undo standing. */
export async function undoLastTurn(runtime: ChatRuntime, sessionId: string): Promise<void> {
  const turns = await runtime.files.checkpoints(sessionId);
  const last = [...turns].reverse().find((t) => !t.undoneBy);
  if (!last) {
    void vscode.window.showInformationMessage('No turn of this chat has file changes to undo.');
    return;
  }
  const result = await runtime.files.undo(sessionId, last.turnId, 'turn', chooseConflicts);
  if (!result.ok) void vscode.window.showErrorMessage(result.message);
  else tellOutcome('Undo', result.value);
}

/** How long the status bar shows an undo's or redo's outcome, ms. */
export const OUTCOME_STATUS_MS = 8000;

/**
 * Says what an undo or redo did. Asked from the chat's view (`post`), an outcome that did all it was
 * asked goes to the status bar and the view's screen-reader announcement: the chat itself shows it
 * (the turn's list says Undone and offers Redo), and a notification stood over the view's Send
 * button. Anything else, or asked from elsewhere, is a notification.
 */
function tellOutcome(what: 'Undo' | 'Redo', result: RestoreResult, post?: (m: HostMessage) => void): void {
  if (result.kind === 'cancelled') return;
  if (result.kind === 'nothing') return void vscode.window.showInformationMessage(`${what}: no file to put back.`);
  if (result.kind === 'already') return void vscode.window.showInformationMessage(`${what}: already done (in this or another window).`);
  const words = restoreOutcomeWords(what, result.files, result.changedMeanwhile.length);
  if (post && restoreDidAll(result.files, result.changedMeanwhile.length)) {
    vscode.window.setStatusBarMessage(words, OUTCOME_STATUS_MS);
    post({ type: 'announce', text: words });
    return;
  }
  void vscode.window.showInformationMessage(words);
}

/** A QuickPick item of one conflict. */
interface ConflictItem extends vscode.QuickPickItem {
  readonly conflict: RestoreConflict;
}

/**
 * Asks which conflicting files to put back anyway: a multi-select QuickPick, none picked at first
 * (keeping the user's version is the default); each item's button opens the diff between what the
 * file holds now and what would be put back. Escape cancels the whole undo.
 */
export function chooseConflicts(conflicts: readonly RestoreConflict[]): Promise<ReadonlyMap<string, ConflictChoice> | undefined> {
  return new Promise((resolve) => {
    const pick = vscode.window.createQuickPick<ConflictItem>();
    pick.canSelectMany = true;
    pick.title = 'These files changed since the agent wrote them';
    // Short enough for the quick pick's one line; the title says why the files are listed.
    pick.placeholder = 'Check files to put back anyway (your edits to them are lost). Enter: go on. Escape: cancel.';
    const diffButton = { iconPath: new vscode.ThemeIcon('diff'), tooltip: 'Show what putting it back would change' };
    pick.items = conflicts.map((c) => ({ label: c.path, description: c.found.exists ? 'changed after the agent wrote it' : 'deleted after the agent wrote it', conflict: c, buttons: [diffButton] }));
    pick.selectedItems = [];
    let done = false;
    pick.onDidTriggerItemButton(({ item }) => {
      const file = workspaceFile(item.conflict.path);
      const now = file ?? checkpointUri(item.conflict.path, item.conflict.found, 'after');
      void vscode.commands.executeCommand('vscode.diff', now, checkpointUri(item.conflict.path, item.conflict.restore, 'before'), `${item.conflict.path} (now ↔ put back)`, { preview: true });
    });
    pick.onDidAccept(() => {
      done = true;
      const chosen = new Set(pick.selectedItems.map((i) => i.conflict));
      resolve(new Map(conflicts.map((c) => [conflictKey(c.group, c.path), chosen.has(c) ? 'restore' : 'keep'])));
      pick.dispose();
    });
    pick.onDidHide(() => {
      if (!done) resolve(undefined);
      pick.dispose();
    });
    pick.show();
  });
}

/** The file on disk of a checkpoint path in the first workspace folder (absolute paths as they are). */
function workspaceFile(path: string): vscode.Uri | undefined {
  if (path.startsWith('/')) return vscode.Uri.file(path);
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder ? vscode.Uri.joinPath(folder.uri, path) : undefined;
}

/**
 * Registers the checkpoint content provider and the commands: **Undo Last Turn's Changes** (the
 * active chat tab's, or `{ sessionId }`) and `nativeAgentChats.openFileDiff` (`{ sessionId, turnId,
 * path }`, hidden from the palette: the view's file links and tests). `command` is `chatCommand`'s.
 */
export function registerCheckpoints(
  context: vscode.ExtensionContext, ready: Promise<ChatRuntime>, activeSessionId: () => string | undefined,
  command: (id: string, run: (runtime: ChatRuntime, args?: unknown) => Promise<unknown>) => void,
): void {
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, new CheckpointContentProvider(ready)));
  command('nativeAgentChats.undoLastTurnChanges', async (runtime, args) => {
    const given = (args as { sessionId?: unknown } | undefined)?.sessionId;
    const sessionId = typeof given === 'string' ? given : activeSessionId();
    if (!sessionId) return void vscode.window.showInformationMessage('Undo Last Turn\'s Changes acts on the active chat tab: select the chat, then run it again.');
    return undoLastTurn(runtime, sessionId);
  });
  command('nativeAgentChats.openFileDiff', async (runtime, args) => {
    const a = args as { sessionId?: unknown; turnId?: unknown; path?: unknown } | undefined;
    if (typeof a?.sessionId !== 'string' || typeof a.turnId !== 'string' || typeof a.path !== 'string') throw new Error('openFileDiff needs { sessionId, turnId, path }.');
    return openFileDiff(runtime, a.sessionId, a.turnId, a.path);
  });
}
