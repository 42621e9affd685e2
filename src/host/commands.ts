/**
 * The commands of the extension (`nativeAgentChats.*`, contributed in package.json). Every chat
 * command waits for the runtime (the journal open and recovery run); one that fails logs the error
 * and shows its message, and resolves undefined. Commands that take an argument object let tests
 * and keybindings skip the UI.
 */
import { registerCheckpoints } from './checkpointActions';
import * as vscode from 'vscode';
import type { SessionRecord } from '../core/events';
import { type ChatRuntime, titleProblem } from '../runtime/chatRuntime';
import { ChatPanels } from './chatPanels';
import { CHECK_JOURNAL_COMMAND, runCheckJournal } from './checkJournal';
import { RECOVER_CHATS_COMMAND, runRecoverChats } from './salvageJournal';
import { REPAIR_JOURNAL_COMMAND, runRepairJournal } from './repairJournal';
import { confirmDelete } from './confirmDelete';
import { registerAttachCommands } from './attachCommands';
import { registerExportCommands } from './exportCommands';
import { logText, noticeText } from './notices';
import { pickProvider, promptForApiKey, setting } from './providers';

/** What the commands act on. */
export interface CommandDeps {
  readonly context: vscode.ExtensionContext;
  /** Resolves once the journal is open and recovery ran. */
  readonly ready: Promise<ChatRuntime>;
  readonly panels: ChatPanels;
  /** The extension's log (Agent Chats: Show Logs shows it). */
  readonly output: vscode.LogOutputChannel;
  readonly log: (line: string) => void;
}

/**
 * Returns `command(id, run)`, which registers a chat command (disposed with `context.subscriptions`):
 * `run` gets the runtime once it is ready; a throw is logged and shown as a notification, and the
 * command resolves undefined.
 */
export function chatCommand(
  context: vscode.ExtensionContext, ready: Promise<ChatRuntime>, log: (line: string) => void,
): (id: string, run: (runtime: ChatRuntime, args?: unknown) => Promise<unknown>) => void {
  return (id, run) => {
    context.subscriptions.push(
      vscode.commands.registerCommand(id, async (args?: unknown) => {
        try {
          return await run(await ready, args);
        } catch (error) {
          log(`[command] ${id} failed: ${logText(error)}`);
          void vscode.window.showErrorMessage(`Agent Chats: ${noticeText(error)}`);
          return undefined;
        }
      }),
    );
  };
}

/** Registers every command; each is disposed with `context.subscriptions`. */
export function registerCommands(deps: CommandDeps): void {
  const { context, ready, panels, output, log } = deps;
  const command = chatCommand(context, ready, log);
  context.subscriptions.push(
    vscode.commands.registerCommand('nativeAgentChats.setApiKey', () => promptForApiKey(context.secrets)),
  );
  command('nativeAgentChats.newChat', (runtime, args) => newChat(runtime, panels, args));
  const openChat = async (runtime: ChatRuntime, args: unknown) => {
    // `{ sessionId }` (the status-bar item, tree items, tests) skips the picker.
    const given = (args as { sessionId?: unknown } | undefined)?.sessionId;
    const session = typeof given === 'string' ? await runtime.getSession(given) : await panels.pickSession('Open a chat');
    if (session) await panels.open(session);
    return session?.id;
  };
  command('nativeAgentChats.openChat', openChat);
  // The same, titled "Open" in the Agent Chats view's context menu ("Open Chat…" reads as a picker there).
  command('nativeAgentChats.openChatFromList', openChat);
  command('nativeAgentChats.renameChat', (runtime, args) => renameChat(runtime, panels, args));
  command('nativeAgentChats.deleteChat', (runtime, args) => deleteChat(runtime, panels, args));
  command('nativeAgentChats.stop', (runtime) => stop(runtime, panels));
  command('nativeAgentChats.showLogs', async () => output.show());
  command(CHECK_JOURNAL_COMMAND, (runtime) => runCheckJournal(runtime));
  command(RECOVER_CHATS_COMMAND, (runtime, args) => runRecoverChats(runtime, args as { name?: string; confirm?: boolean } | undefined));
  command(REPAIR_JOURNAL_COMMAND, (runtime) => runRepairJournal(runtime, String((context.extension.packageJSON as { version?: unknown }).version ?? 'unknown')));
  registerExportCommands(command, panels);
  registerCheckpoints(context, ready, () => panels.activeSessionId(), command);
  registerAttachCommands(command, panels);
}

/**
 * New Chat offers the agents (the default first); `{ provider }` skips the picker (tests,
 * keybindings). Resolves the new chat's session id, or undefined.
 */
async function newChat(runtime: ChatRuntime, panels: ChatPanels, args: unknown): Promise<string | undefined> {
  const given = (args as { provider?: unknown } | undefined)?.provider;
  const provider = typeof given === 'string' ? given : await pickProvider(setting('defaultProvider', 'local'));
  if (!provider) return undefined;
  const created = await runtime.createSession(provider);
  if (!created.ok) {
    void vscode.window.showErrorMessage(created.message);
    return undefined;
  }
  await panels.open(created.value);
  return created.value.id;
}

/**
 * The chat a command acts on: `given.sessionId` (tests, keybindings), else the active chat tab's,
 * else (another kind of tab is active) one the user picks: never a chat whose tab is out of sight.
 * Undefined when there is none or the pick was dismissed.
 * @throws Error when that chat is no longer in the journal.
 */
async function chatFor(runtime: ChatRuntime, panels: ChatPanels, given: { sessionId?: unknown } | undefined, placeHolder: string): Promise<SessionRecord | undefined> {
  const sessionId = typeof given?.sessionId === 'string' ? given.sessionId : panels.activeSessionId() ?? (await panels.pickSession(placeHolder))?.id;
  if (!sessionId) return undefined;
  const session = await runtime.getSession(sessionId);
  if (!session) throw new Error('That chat is no longer in the journal.');
  return session;
}

/** Renames the chat of the active tab (else a picked one); `{ sessionId, title }` skips the UI (tests). Resolves the new title. */
async function renameChat(runtime: ChatRuntime, panels: ChatPanels, args: unknown): Promise<string | undefined> {
  const given = args as { sessionId?: unknown; title?: unknown } | undefined;
  const session = await chatFor(runtime, panels, given, 'Rename which chat?');
  if (!session) return undefined;
  const title = typeof given?.title === 'string'
    ? given.title
    : await vscode.window.showInputBox({ prompt: `New title of the chat “${session.title}”`, value: session.title, validateInput: titleProblem });
  if (title === undefined) return undefined;
  const renamed = await runtime.renameSession(session.id, title);
  if (!renamed.ok) {
    void vscode.window.showErrorMessage(renamed.message);
    return undefined;
  }
  return renamed.value.title;
}

/**
 * Deletes the chat of the active tab (else a picked one) after a modal confirmation;
 * `{ sessionId, confirmed: true }` skips the UI (tests). Resolves true once deleted.
 */
async function deleteChat(runtime: ChatRuntime, panels: ChatPanels, args: unknown): Promise<boolean> {
  const given = args as { sessionId?: unknown; confirmed?: unknown } | undefined;
  const session = await chatFor(runtime, panels, given, 'Delete which chat?');
  if (!session) return false;
  // Say it now rather than after the "cannot be undone" question (a fresh user was asked, then refused).
  if ((await runtime.liveState(session.id)).running) {
    void vscode.window.showWarningMessage(`The agent is still working on “${session.title}”. Stop it first, then delete the chat.`);
    return false;
  }
  if (given?.confirmed !== true && !(await confirmDelete(session))) return false;
  const deleted = await runtime.deleteSession(session.id);
  if (!deleted.ok) {
    void vscode.window.showErrorMessage(deleted.message);
    return false;
  }
  return true;
}

/** Stops the active chat tab's agent only: Stop from the palette never reaches a chat out of sight. Resolves true when a run was stopped. */
async function stop(runtime: ChatRuntime, panels: ChatPanels): Promise<boolean> {
  const sessionId = panels.activeSessionId();
  if (!sessionId) {
    void vscode.window.showInformationMessage('Stop acts on the active chat tab: select the chat whose agent you want to stop, then run Stop again.');
    return false;
  }
  const stopped = await runtime.stop(sessionId);
  return stopped.ok && stopped.value.stopped;
}
