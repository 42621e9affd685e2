/**
 * `ChatPanels`: the open chat tabs of this window, their restore after a reload, and their tab
 * records in the journal.
 *
 * One panel per session: opening a chat that is open reveals it. A panel's session comes from the
 * journal, never from content kept in the webview (as VS Code's own chat editor stores only a
 * reference to its session): the webview state carries the session id, and when a restored panel
 * has no usable state it takes the oldest journaled tab no panel has claimed; failing that it shows
 * a picker. Closing a tab by hand removes its tab record; a window reload does not.
 */
import * as vscode from 'vscode';
import type { SessionRecord } from '../core/events';
import { sessionIdFromState } from '../protocol/decode';
import { ALL_SESSIONS, type ChatRuntime, type RuntimeNotification } from '../runtime/chatRuntime';
import type { HostMessage } from '../protocol/messages';
import { logText, noticeText } from './notices';
import { CHAT_VIEW_TYPE, ChatPanel, type ChatPanelHost } from './chatPanel';
import { chatWebviewOptions, renderHtml } from './chatHtml';
import { WorkspaceFiles } from './mentionCompletions';
import { pickChat, type ChatListSource } from './chatPicker';
import { agentIcon, ChatStatus } from './chatStatus';
import type { ModelList } from '../runtime/agents/modelLists';

/** The open chat tabs of this window (see module docstring). */
export class ChatPanels implements ChatPanelHost, vscode.WebviewPanelSerializer, vscode.Disposable {
  private readonly panels = new Set<ChatPanel>();
  /** Panels VS Code handed to the serializer that are not adopted yet (they wait for the journal). */
  private readonly restoring = new Set<vscode.WebviewPanel>();
  private shuttingDown = false;
  private readonly status = new ChatStatus();
  private files: WorkspaceFiles | undefined;
  /** The chat tab that was active last (the editor commands attach to it when no chat tab is active). */
  private lastActive: ChatPanel | undefined;

  /**
   * @param ready resolves with the runtime once the journal is open and recovery has run;
   *              restored panels wait for it, so they never show pre-recovery state.
   * @param chats the chat list the picker shows (the Agent Chats view's).
   */
  constructor(
    private readonly ready: Promise<ChatRuntime>,
    readonly extensionUri: vscode.Uri,
    readonly log: (line: string) => void,
    private readonly chats: ChatListSource,
  ) {}

  private runtimeValue: ChatRuntime | undefined;

  /** Where the chat headers' model lists come from (set at activation: it needs the secret storage). */
  modelLister: ((provider: string) => Promise<ModelList>) | undefined;

  /** The models a provider offers (none before `modelLister` is set). */
  listModels(provider: string): Promise<ModelList> {
    return this.modelLister?.(provider) ?? Promise.resolve({ models: [] });
  }

  /** The runtime (only valid after `ready`). */
  get runtime(): ChatRuntime {
    if (!this.runtimeValue) throw new Error('The chat runtime is not ready yet.');
    return this.runtimeValue;
  }

  /** Wires runtime notifications to panels; call once the runtime is ready. */
  bind(runtime: ChatRuntime): vscode.Disposable {
    this.runtimeValue = runtime;
    const off = runtime.onNotification((n) => this.route(n));
    return { dispose: off };
  }

  /** Session ids shown by open panels (for tests and Stop). */
  openSessionIds(): string[] {
    return [...this.panels].map((p) => p.sessionId).filter((id): id is string => id !== undefined);
  }

  /**
   * The chat of the active chat tab, or undefined when the active tab is not a chat (a text editor,
   * say): commands then ask, never act on a chat the user cannot see.
   */
  activeSessionId(): string | undefined {
    return [...this.panels].find((p) => p.panel.active)?.sessionId;
  }

  /**
   * The chat tab the editor's attach commands add to: the active one, else the one active last,
   * else any open chat tab; undefined when no chat tab is open.
   */
  attachTarget(): ChatPanel | undefined {
    const open = [...this.panels].filter((p) => p.sessionId);
    return open.find((p) => p.panel.active) ?? (this.lastActive && open.includes(this.lastActive) ? this.lastActive : undefined) ?? open[0];
  }

  /** Every webview panel of this window's chat tabs, adopted or still being restored (for `TabRepair`). */
  webviewPanels(): vscode.WebviewPanel[] {
    return [...[...this.panels].map((p) => p.panel), ...this.restoring];
  }

  /**
   * Opens a chat in a tab, or reveals its tab if it is open.
   * @param show where: default the active editor group, taking the focus.
   */
  async open(session: SessionRecord, show: { viewColumn: vscode.ViewColumn; preserveFocus?: boolean } = { viewColumn: vscode.ViewColumn.Active }): Promise<ChatPanel> {
    const existing = [...this.panels].find((p) => p.sessionId === session.id);
    if (existing) {
      existing.reveal();
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, session.title, show, {
      ...chatWebviewOptions(this.extensionUri),
    });
    const chat = this.adopt(panel, session.id);
    void chat.sendEarlySnapshot();
    await this.runtime.recordTab(session.id);
    return chat;
  }

  /** Opens a tab with no chat, offering the picker (a tab whose chat could not be told). */
  openOrphan(show: { viewColumn: vscode.ViewColumn; preserveFocus?: boolean }): ChatPanel {
    const panel = vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, 'Agent chat', show, chatWebviewOptions(this.extensionUri));
    const chat = this.adopt(panel, undefined);
    void chat.post({ type: 'orphan' });
    return chat;
  }

  /** Restores a panel after a reload (`vscode.WebviewPanelSerializer`). */
  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    // Show the view at once: it says "Loading the chat…" until the journal is open and recovery has
    // run (a fresh user saw an empty tab for 2-5 s after a reload while this waited).
    panel.webview.options = chatWebviewOptions(this.extensionUri);
    panel.iconPath = agentIcon(this.extensionUri, undefined);
    panel.webview.html = renderHtml(panel.webview, this.extensionUri, sessionIdFromState(state));
    this.restoring.add(panel);
    // The host is alive while the journal opens: say so to the view's heartbeat until the panel is adopted.
    const pongs = panel.webview.onDidReceiveMessage((raw: unknown) => {
      if ((raw as { type?: unknown } | null)?.type === 'ping') void panel.webview.postMessage({ type: 'pong' }).then(undefined, () => undefined);
    });
    let runtime: ChatRuntime;
    let sessionId: string | undefined;
    try {
      runtime = await this.ready;
      sessionId = await this.restoredSessionId(runtime, state, panel.title);
    } catch (error) {
      // The host lives on (it keeps answering pings: a lost connection would be false); the view
      // says what failed instead of loading forever.
      this.restoring.delete(panel);
      this.log(`[restore] chat tab not restored: ${logText(error)}`);
      const message: HostMessage = { type: 'error', code: 'internal', message: `The chat could not be loaded: ${noticeText(error).replace(/\.$/, '')}. See Agent Chats: Show Logs.` };
      void panel.webview.postMessage(message).then(undefined, () => undefined);
      panel.onDidDispose(() => pongs.dispose());
      return;
    }
    this.restoring.delete(panel);
    pongs.dispose();
    const chat = this.adopt(panel, sessionId);
    this.log(`[restore] chat tab restored: ${sessionId ?? '(no chat: offering a picker)'}`);
    if (sessionId) {
      const session = await runtime.getSession(sessionId);
      if (session) {
        panel.title = session.title;
        // Now, not when its view first asks: a restored tab not shown yet showed the generic icon.
        panel.iconPath = agentIcon(this.extensionUri, session.provider);
      }
      // The view's own "ready" may have come while the journal was still opening, before this
      // panel listened: send the chat now (a `ready` that comes later gets the live state only).
      void chat.sendEarlySnapshot();
      await runtime.recordTab(sessionId);
    } else {
      void chat.post({ type: 'orphan' });
    }
  }

  /**
   * The chat a restored panel shows: the one its state names; else (a tab VS Code restored but never
   * drew has no state) the unclaimed journaled tab whose chat has the panel's title, the oldest such;
   * else the oldest unclaimed journaled tab.
   */
  private async restoredSessionId(runtime: ChatRuntime, state: unknown, title: string): Promise<string | undefined> {
    const claimed = new Set(this.openSessionIds());
    let sessionId = sessionIdFromState(state);
    if (sessionId && (claimed.has(sessionId) || !(await runtime.getSession(sessionId)))) sessionId = undefined;
    if (!sessionId) {
      const unclaimed = (await runtime.listTabs()).filter((t) => !claimed.has(t.sessionId));
      let titled: string | undefined;
      for (const t of unclaimed) {
        if ((await runtime.getSession(t.sessionId))?.title !== title) continue;
        titled = t.sessionId;
        break;
      }
      sessionId = titled ?? unclaimed[0]?.sessionId;
      this.log(`[restore] panel had ${state === undefined ? 'no state' : 'unusable state'}; ${sessionId ? `matched journaled tab ${sessionId}${titled ? ' by its title' : ''}` : 'no unclaimed tab, offering a picker'}`);
    }
    return sessionId;
  }

  /**
   * The chat picker (see chatPicker.ts) over the Agent Chats view's list. Resolves the picked chat,
   * or undefined when dismissed or when the chat was deleted meanwhile.
   */
  async pickSession(placeHolder: string): Promise<SessionRecord | undefined> {
    const id = await pickChat(this.chats, placeHolder);
    return id === undefined ? undefined : this.runtime.getSession(id);
  }

  /** Lets the user choose the chat an orphan panel shows. */
  async pickSessionFor(chat: ChatPanel): Promise<void> {
    const session = await this.pickSession('Choose the chat to show in this tab');
    if (!session) return;
    const other = [...this.panels].find((p) => p !== chat && p.sessionId === session.id);
    if (other) {
      other.reveal();
      chat.dispose();
      return;
    }
    await chat.attach(session.id);
    await this.runtime.recordTab(session.id);
  }

  panelStateChanged(): void {
    const active = [...this.panels].find((p) => p.panel.active && p.sessionId);
    if (active) this.lastActive = active;
    this.status.update([...this.panels].map((p) => ({ sessionId: p.sessionId, title: p.panel.title, active: p.panel.active, live: p.live })));
  }

  panelDisposed(chat: ChatPanel): void {
    this.panels.delete(chat);
    this.panelStateChanged();
    if (!this.shuttingDown && chat.sessionId) void this.runtimeValue?.removeTab(chat.sessionId);
  }

  /** The window is going away: panels vanish without the user closing them, so keep tab records. */
  dispose(): void {
    this.shuttingDown = true;
    this.status.dispose();
    this.files?.dispose();
  }

  /** The workspace's paths for the `@` list (read at the first `@` of any panel, then kept: mentionCompletions.ts). */
  workspaceFiles(): WorkspaceFiles {
    this.files ??= new WorkspaceFiles(this.log);
    return this.files;
  }

  private adopt(panel: vscode.WebviewPanel, sessionId: string | undefined): ChatPanel {
    const chat = new ChatPanel(panel, sessionId, this);
    this.panels.add(chat);
    return chat;
  }

  private route(n: RuntimeNotification): void {
    const sessionId = n.type === 'session' ? n.session.id : n.sessionId;
    for (const chat of [...this.panels]) {
      if (chat.sessionId !== sessionId && !(n.type === 'refresh' && sessionId === ALL_SESSIONS)) continue;
      if (n.type === 'deleted') chat.dispose();
      else if (n.type === 'update') void chat.post({ type: 'update', update: n.update });
      else if (n.type === 'live') void chat.sendLive(n.live, n.readAt);
      // The journal was reloaded from disk: its change marks no longer hold, read the page afresh.
      else if (n.type === 'refresh' && n.sessionId === ALL_SESSIONS) void chat.sendSnapshot();
      else if (n.type === 'refresh') {
        void chat.sendChanges();
        // Another window may have queued, edited, sent or discarded a message, or undone files.
        void chat.sendQueue();
        void chat.sendCheckpoints(true);
      } else if (n.type === 'queue') void chat.sendQueue();
      else if (n.type === 'files') void chat.sendCheckpoints(true);
      else {
        chat.panel.title = n.session.title;
        void chat.sendChanges();
      }
    }
  }
}
