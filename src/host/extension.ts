/**
 * Extension entry point: wires the journal, the chat runtime and the chat tabs into VS Code.
 *
 * Order on activation: the journal starts opening under `globalStorageUri` (its worker thread starts),
 * then, in the same synchronous call, the serializer and commands are registered (VS Code restores
 * panels only through a serializer registered during `activate`); once the journal is open, this
 * extension host registers itself as an instance and recovery settles the runs orphaned by dead
 * hosts — all before any restored panel receives its chat.
 * Then `TabRepair` reopens journaled tabs VS Code did not restore and replaces tabs left by a dead
 * extension host.
 */
import * as vscode from 'vscode';
import type { SessionRecord } from '../core/events';
import { Journal } from '../journal/journal';
import { SCHEMA_VERSION } from '../journal/schema';
import { ChatRuntime, titleProblem } from '../runtime/chatRuntime';
import { describeThisInstance } from '../runtime/instance';
import { CHAT_VIEW_TYPE } from './chatPanel';
import { confirmDelete } from './confirmDelete';
import { logText, noticeText } from './notices';
import { ChatPanels, pickSession } from './chatPanels';
import { TabRepair } from './tabRepair';
import { createClaudeAgent } from '../runtime/agents/claude/claudeAgent';
import { createCodexAgent } from '../runtime/agents/codex/codexAgent';
import { OPENAI_COMPATIBLE_DEFAULT_BASE_URL, createOpenAICompatibleAgent } from '../runtime/agents/openaiCompatible/openaiCompatibleAgent';
import { apiKeySecretName, createAgentRegistry, pickProvider, promptForApiKey, setting } from './providers';

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
}

let teardown: (() => Promise<void>) | undefined;

/** VS Code calls this once per extension host. */
export function activate(context: vscode.ExtensionContext): NativeAgentChatsApi {
  const output = vscode.window.createOutputChannel('Agent Chats', { log: true });
  const log = (line: string) => output.info(line);
  const journalFile = vscode.Uri.joinPath(context.globalStorageUri, JOURNAL_FILE_NAME).fsPath;

  let runtimeRef: ChatRuntime | undefined;
  let journalRef: Journal | undefined;
  let panels!: ChatPanels; // assigned below, before `ready` first awaits
  const ready = (async () => {
    const dist = vscode.Uri.joinPath(context.extensionUri, 'dist');
    const journal = await Journal.open({
      file: journalFile,
      wasmPath: vscode.Uri.joinPath(dist, 'sql-wasm.wasm').fsPath,
      workerPath: vscode.Uri.joinPath(dist, 'journal-worker.js').fsPath,
    });
    context.subscriptions.push({ dispose: journal.onLog(log) });
    journalRef = journal;
    const r = journal.report;
    const schema = r.versionFound !== r.version ? `${r.versionFound} → ${r.version}` : r.version === SCHEMA_VERSION ? `${r.version} (current)` : `${r.version} (this version writes ${SCHEMA_VERSION})`;
    log(`[journal] ${journalFile}: schema ${schema}${r.created ? ' (new)' : ''}${r.readOnlyReason ? ' READ-ONLY' : ''}`);
    if (r.quarantined) {
      log(`[journal] moved an unreadable journal aside to ${r.quarantined.path}: ${r.quarantined.reason}`);
      void vscode.window.showWarningMessage(
        `Agent Chats could not read its chat journal, so it moved it aside to ${r.quarantined.path} and started a new one. Nothing was deleted.`,
      );
    }
    if (r.readOnlyReason) void vscode.window.showWarningMessage(r.readOnlyReason);
    const runtime = new ChatRuntime({
      journal,
      instance: describeThisInstance(Date.now()),
      agentFor: createAgentRegistry(context, {
        chunkDelayMs: 15,
        extra: {
          claude: () =>
            createClaudeAgent({
              executablePath: setting('claude.executablePath', ''),
              baseUrl: setting('claude.baseUrl', ''),
              model: setting('claude.model', ''),
              apiKey: () => Promise.resolve(context.secrets.get(apiKeySecretName('claude'))),
              // Claude Code retries a failing API 10 times with growing delays; fail in seconds instead.
              maxRetries: 2,
              log,
            }),
          codex: () =>
            createCodexAgent({
              executablePath: setting('codex.executablePath', ''),
              codexHome: vscode.Uri.joinPath(context.globalStorageUri, 'codex-home').fsPath,
              baseUrl: setting('codex.baseUrl', '') || undefined,
              model: setting('codex.model', '') || undefined,
              apiKey: () => Promise.resolve(context.secrets.get(apiKeySecretName('codex'))),
              log,
            }),
          'openai-compatible': () =>
            createOpenAICompatibleAgent({
              baseUrl: setting('openaiCompatible.baseUrl', OPENAI_COMPATIBLE_DEFAULT_BASE_URL),
              model: setting('openaiCompatible.model', ''),
              apiKey: () => Promise.resolve(context.secrets.get(apiKeySecretName('openai-compatible'))),
              log,
            }),
        },
      }),
      workspaceRoot: () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      commandTimeoutMs: () => setting('local.commandTimeoutMs', 30_000),
      log,
    });
    runtimeRef = runtime;
    context.subscriptions.push(panels.bind(runtime));
    const recovered = await runtime.start();
    log(`[recovery] startup: ${recovered.length} interrupted run(s) recovered; this host is instance ${runtime.instanceId}`);
    const timer = setInterval(() => void runtime.recoverOrphans().catch((e) => log(`[recovery] ${(e as Error).message}`)), ORPHAN_CHECK_INTERVAL_MS);
    context.subscriptions.push({ dispose: () => clearInterval(timer) });
    // After recovery, so tabs it reopens or replaces show the recovered state.
    const repair = new TabRepair(panels, runtime, log);
    context.subscriptions.push(repair);
    void repair.start();
    return runtime;
  })();
  ready.catch((error) => {
    log(`[journal] could not start: ${logText(error)}`);
    void vscode.window.showErrorMessage(`Agent Chats: ${noticeText(error).replace(/\.$/, '')}. Agent Chats: Show Logs has the details; reload the window to try again.`);
  });

  panels = new ChatPanels(ready, context.extensionUri, log);
  context.subscriptions.push(output, panels, vscode.window.registerWebviewPanelSerializer(CHAT_VIEW_TYPE, panels));

  const command = (id: string, run: (runtime: ChatRuntime, args?: unknown) => Promise<unknown>) =>
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

  context.subscriptions.push(
    vscode.commands.registerCommand('nativeAgentChats.setApiKey', () => promptForApiKey(context.secrets)),
  );
  // New Chat offers the agents (the default first); `{ provider }` skips the picker (tests, keybindings).
  command('nativeAgentChats.newChat', async (runtime, args?: unknown) => {
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
  });
  command('nativeAgentChats.openChat', async (runtime) => {
    const session = await pickSession(runtime, 'Open a chat');
    if (session) await panels.open(session);
    return session?.id;
  });
  /**
   * The chat a command acts on: `given.sessionId` (tests, keybindings), else the active chat tab's,
   * else (another kind of tab is active) one the user picks: never a chat whose tab is out of sight.
   * Undefined when there is none or the pick was dismissed.
   * @throws Error when that chat is no longer in the journal.
   */
  const chatFor = async (runtime: ChatRuntime, given: { sessionId?: unknown } | undefined, placeHolder: string): Promise<SessionRecord | undefined> => {
    const sessionId = typeof given?.sessionId === 'string' ? given.sessionId : panels.activeSessionId() ?? (await pickSession(runtime, placeHolder))?.id;
    if (!sessionId) return undefined;
    const session = await runtime.getSession(sessionId);
    if (!session) throw new Error('That chat is no longer in the journal.');
    return session;
  };
  // Renames the chat of the active tab (else a picked one); `{ sessionId, title }` skips the UI (tests).
  command('nativeAgentChats.renameChat', async (runtime, args?: unknown) => {
    const given = args as { sessionId?: unknown; title?: unknown } | undefined;
    const session = await chatFor(runtime, given, 'Rename which chat?');
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
  });
  // Deletes the chat of the active tab (else a picked one) after a modal confirmation;
  // `{ sessionId, confirmed: true }` skips the UI (tests). Resolves true once deleted.
  command('nativeAgentChats.deleteChat', async (runtime, args?: unknown) => {
    const given = args as { sessionId?: unknown; confirmed?: unknown } | undefined;
    const session = await chatFor(runtime, given, 'Delete which chat?');
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
  });
  command('nativeAgentChats.stop', async (runtime) => {
    // Only the active chat tab's agent: Stop from the palette never reaches a chat out of sight.
    const sessionId = panels.activeSessionId();
    if (!sessionId) {
      void vscode.window.showInformationMessage('Stop acts on the active chat tab: select the chat whose agent you want to stop, then run Stop again.');
      return false;
    }
    const stopped = await runtime.stop(sessionId);
    return stopped.ok && stopped.value.stopped;
  });
  command('nativeAgentChats.showLogs', async () => output.show());

  teardown = async () => {
    panels.dispose();
    runtimeRef?.dispose();
    await journalRef?.close();
  };
  return {
    ready,
    journalFile,
    openSessionIds: () => panels.openSessionIds(),
    ...(context.extensionMode === vscode.ExtensionMode.Test ? { secretsForTests: context.secrets } : {}),
  };
}

/** VS Code calls this when the extension host shuts down (reload, window close). */
export async function deactivate(): Promise<void> {
  await teardown?.();
  teardown = undefined;
}
