/**
 * Extension entry point: wires the journal, the chat runtime and the chat tabs into VS Code.
 *
 * Order on activation: the journal starts opening under `globalStorageUri` (its worker thread starts),
 * then, in the same synchronous call, the serializer and commands are registered (VS Code restores
 * panels only through a serializer registered during `activate`); once the journal is open, this
 * extension host registers itself as an instance and recovery settles the runs orphaned by dead
 * hosts — all before any restored panel receives its chat.
 * Then `TabRepair` reopens journaled tabs VS Code did not restore and replaces tabs left by a dead
 * extension host. The providers are wired in agentRegistry.ts, the commands in commands.ts.
 */
import type { CompletionItem } from '../protocol/messages';
import { mentionItems } from './mentionCompletions';
import * as vscode from 'vscode';
import { Journal } from '../journal/journal';
import { SCHEMA_VERSION } from '../journal/schema';
import type { OpenPhases } from '../journal/workerProtocol';
import { ChatRuntime } from '../runtime/chatRuntime';
import { describeThisInstance } from '../runtime/instance';
import { createAgentRegistry } from './agentRegistry';
import { CHAT_VIEW_TYPE } from './chatPanel';
import { warnWithCheck } from './checkJournal';
import { warnMovedAside } from './salvageJournal';
import { ChatPanels } from './chatPanels';
import type { ChatTree } from './chatTree';
import { createChatTree, registerChatTree } from './chatTreeCommands';
import { registerCommands } from './commands';
import { registerReportDocuments } from './reportDocuments';
import { migrationProgress } from './migrationProgress';
import { logText, noticeText } from './notices';
import { setting } from './providers';
import { TabRepair } from './tabRepair';
import { modelsOffered, settingModel } from './modelChoices';

/** Journal file name inside `globalStorageUri`. */
export const JOURNAL_FILE_NAME = 'journal.sqlite';

/** How often (ms) this host checks for runs orphaned by a host that died while others live. */
export const ORPHAN_CHECK_INTERVAL_MS = 3000;

/** What `activate` returns: a handle for the extension's own tests. */
export interface NativeAgentChatsApi {
  /** Resolves once the journal is open and recovery ran. */
  readonly ready: Promise<ChatRuntime>;
  /** Absolute path of the journal file. */
  readonly journalFile: string;
  /** Session ids of this window's open chat tabs. */
  openSessionIds(): string[];
  /** The extension's SecretStorage, only when VS Code runs it in test mode (never for other extensions). */
  readonly secretsForTests?: vscode.SecretStorage;
  /** The Agent Chats view's data, only in test mode. */
  readonly chatTreeForTests?: ChatTree;
  /** The `@` list's items for `query` (mentionCompletions.ts), only in test mode. */
  readonly mentionItemsForTests?: (query: string) => Promise<CompletionItem[]>;
}

/** What `deactivate` ends: set as each part starts. */
interface Started {
  journal?: Journal;
  runtime?: ChatRuntime;
}

let teardown: (() => Promise<void>) | undefined;

/** VS Code calls this once per extension host. */
export function activate(context: vscode.ExtensionContext): NativeAgentChatsApi {
  const activateStarted = performance.now();
  const output = vscode.window.createOutputChannel('Agent Chats', { log: true });
  const log = (line: string) => output.info(line);
  const journalFile = vscode.Uri.joinPath(context.globalStorageUri, JOURNAL_FILE_NAME).fsPath;
  const started: Started = {};
  let panels!: ChatPanels; // assigned below, before `ready` first needs it (after the journal opened)
  const ready = startRuntime(context, journalFile, () => panels, started, log, activateStarted);
  ready.catch((error) => {
    log(`[journal] could not start: ${logText(error)}`);
    void vscode.window.showErrorMessage(`Agent Chats: ${noticeText(error).replace(/\.$/, '')}. Agent Chats: Show Logs has the details; reload the window to try again.`);
  });
  const chatTree = createChatTree(context, ready);
  panels = new ChatPanels(ready, context.extensionUri, log, chatTree);
  panels.modelLister = (provider) => modelsOffered(provider, context.secrets);
  context.subscriptions.push(output, panels, vscode.window.registerWebviewPanelSerializer(CHAT_VIEW_TYPE, panels));
  registerCommands({ context, ready, panels, output, log });
  registerReportDocuments(context);
  registerChatTree(context, chatTree, ready, panels, log);
  // VS Code's activation is this function returning; the journal keeps opening in the background.
  log(`[activation] activate() returned in ${Math.round(performance.now() - activateStarted)} ms (commands, serializer and view registered; the journal opens in the background)`);
  teardown = async () => {
    panels.dispose();
    started.runtime?.dispose();
    await started.journal?.close();
  };
  return {
    ready,
    journalFile,
    openSessionIds: () => panels.openSessionIds(),
    ...(context.extensionMode === vscode.ExtensionMode.Test ? {
      secretsForTests: context.secrets, chatTreeForTests: chatTree,
      mentionItemsForTests: (query: string) => mentionItems(query, panels.workspaceFiles(), new vscode.CancellationTokenSource().token),
    } : {}),
  };
}

/**
 * Opens the journal (its worker starts at once, in the caller's synchronous call), then builds the
 * runtime, binds the chat panels to it, registers this host as an instance and runs recovery,
 * re-checks orphaned runs every ORPHAN_CHECK_INTERVAL_MS, and starts the tab repair.
 */
async function startRuntime(
  context: vscode.ExtensionContext,
  journalFile: string,
  panels: () => ChatPanels,
  started: Started,
  log: (line: string) => void,
  activateStarted: number,
): Promise<ChatRuntime> {
  const journal = await openJournal(context, journalFile, log);
  const openedAt = performance.now();
  started.journal = journal;
  const runtime = new ChatRuntime({
    journal,
    instance: describeThisInstance(Date.now()),
    agentFor: createAgentRegistry(context, log),
    workspaceRoot: () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    commandTimeoutMs: () => setting('local.commandTimeoutMs', 30_000),
    defaultModel: settingModel,
    log,
  });
  started.runtime = runtime;
  context.subscriptions.push(panels().bind(runtime));
  const recovered = await runtime.start();
  log(`[recovery] startup: ${recovered.length} interrupted run(s) recovered; this host is instance ${runtime.instanceId}`);
  log(startupTimes(journal.report.phases, openedAt - activateStarted, performance.now() - openedAt));
  const timer = setInterval(() => void runtime.recoverOrphans().catch((e) => log(`[recovery] ${(e as Error).message}`)), ORPHAN_CHECK_INTERVAL_MS);
  context.subscriptions.push({ dispose: () => clearInterval(timer) });
  // After recovery, so tabs it reopens or replaces show the recovered state.
  const repair = new TabRepair(panels(), runtime, log);
  context.subscriptions.push(repair);
  void repair.start();
  return runtime;
}

/**
 * Opens the journal under `globalStorageUri` and says what was found: its schema in the log, and a
 * warning when an unreadable journal was moved aside (with Recover Chats… and Check Journal
 * buttons) or the journal opened read-only (Check Journal).
 */
async function openJournal(context: vscode.ExtensionContext, journalFile: string, log: (line: string) => void): Promise<Journal> {
  const dist = vscode.Uri.joinPath(context.extensionUri, 'dist');
  const progress = migrationProgress();
  const journal = await Journal.open({
    file: journalFile,
    wasmPath: vscode.Uri.joinPath(dist, 'sql-wasm.wasm').fsPath,
    workerPath: vscode.Uri.joinPath(dist, 'journal-worker.js').fsPath,
    onMigrationProgress: progress.report,
  }).finally(progress.done);
  context.subscriptions.push({ dispose: journal.onLog(log) });
  const r = journal.report;
  const schema = r.versionFound !== r.version ? `${r.versionFound} → ${r.version}` : r.version === SCHEMA_VERSION ? `${r.version} (current)` : `${r.version} (this version writes ${SCHEMA_VERSION})`;
  log(`[journal] ${journalFile}: schema ${schema}${r.created ? ' (new)' : ''}${r.readOnlyReason ? ' READ-ONLY' : ''}`);
  if (r.quarantined) {
    log(`[journal] moved an unreadable journal aside to ${r.quarantined.path}: ${r.quarantined.reason}`);
    warnMovedAside(`Agent Chats could not read its chat journal, so it moved it aside to ${r.quarantined.path} and started a new one. Nothing was deleted: Recover Chats… brings back what can be read of it.`, r.quarantined.path);
  }
  if (r.readOnlyReason) warnWithCheck(r.readOnlyReason);
  return journal;
}

/**
 * The log line saying where the time from `activate()` to ready went (ms): the journal's open, by
 * phase (`OpenPhases`: the snapshot's read and load grow with the journal's size), then registering
 * this host and recovery.
 */
export function startupTimes(p: OpenPhases, openMs: number, recoveryMs: number): string {
  const ms = Math.round;
  const phases = `worker start ${ms(p.startMs)}, WASM ${ms(p.wasmMs)}, sql.js ${ms(p.sqljsMs)}, snapshot read ${ms(p.readMs)}, database load ${ms(p.loadMs)}, log replay ${ms(p.replayMs)}, migrations ${ms(p.migrateMs)}`;
  return `[startup] ready ${ms(openMs + recoveryMs)} ms after activate() began: journal open ${ms(openMs)} ms (${phases}), instance registered and recovery ${ms(recoveryMs)} ms`;
}

/** VS Code calls this when the extension host shuts down (reload, window close). */
export async function deactivate(): Promise<void> {
  await teardown?.();
  teardown = undefined;
}
