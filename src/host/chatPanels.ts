/**
 * `ChatPanels`: the open chat tabs of this window, their restore after a reload, and their tab
 * records in the journal.
 *
 * One tab per chat per window: opening a chat that has a tab here shows that tab, also one VS Code
 * restored but has not drawn yet. A tab's content comes from the journal, never from content kept in
 * the webview (as VS Code's own chat editor stores only a reference to its session); which chat it
 * is comes from the tab itself (tabIdentity.ts), so a restored tab always shows the chat it showed,
 * whatever order tabs are drawn, opened or restored in. Closing a tab by hand removes its tab
 * record; a window reload does not.
 */
import * as vscode from 'vscode';
import type { SessionRecord } from '../core/events';
import { ALL_SESSIONS, type ChatRuntime, type RuntimeNotification } from '../runtime/chatRuntime';
import type { HostMessage } from '../protocol/messages';
import { logText, noticeText } from './notices';
import { CHAT_VIEW_TYPE, ChatPanel, type ChatPanelHost } from './chatPanel';
import { chatWebviewOptions, renderHtml } from './chatHtml';
import { WorkspaceFiles } from './mentionCompletions';
import { pickChat, type ChatListSource } from './chatPicker';
import { agentIcon, ChatStatus } from './chatStatus';
import type { ModelList } from '../runtime/agents/modelLists';
import { restoredIdentity } from './tabIdentity';
import { UndrawnTabSearch, type Restoring } from './undrawnTabSearch';

/** Where a tab opens: an editor group, and whether it leaves the focus where it is. */
export type ShowOptions = { viewColumn: vscode.ViewColumn; preserveFocus?: boolean };

/** The open chat tabs of this window (see module docstring). */
export class ChatPanels implements ChatPanelHost, vscode.WebviewPanelSerializer, vscode.Disposable {
  private readonly panels = new Set<ChatPanel>();
  /** Panels VS Code handed to the serializer that are not adopted yet (they wait for the journal). */
  private readonly restoring = new Map<vscode.WebviewPanel, Restoring>();
  /** Finds this window's undrawn tab of a chat (told of every tab handed over or shown). */
  private readonly undrawn = new UndrawnTabSearch({
    panels: () => this.webviewPanels(),
    // The chat list kept in memory for the view and the picker: no journal read per open.
    titles: async () => (await this.chats.chatEntries()).map((c) => c.title),
    log: (line) => this.log(line),
  });
  /** Opens under way, by chat: a second open of the chat waits for the first's tab. */
  private readonly opening = new Map<string, Promise<ChatPanel>>();
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
    return [...[...this.panels].map((p) => p.panel), ...this.restoring.keys()];
  }

  /**
   * Opens a chat in a tab, or shows its tab if this window has one: drawn, being restored, or
   * restored by VS Code but not drawn yet (undrawnTabSearch.ts). Two calls for one chat at once open
   * one tab.
   * @param show where: default the active editor group, taking the focus.
   * @param findUnrestored false to skip the layout's undrawn tabs (TabRepair, which replaces tabs
   *        VS Code will never hand over).
   */
  async open(session: SessionRecord, show: ShowOptions = { viewColumn: vscode.ViewColumn.Active }, findUnrestored = true): Promise<ChatPanel> {
    const inFlight = this.opening.get(session.id);
    if (inFlight) {
      const chat = await inFlight;
      chat.reveal();
      return chat;
    }
    const work = this.openOnce(session, show, findUnrestored);
    this.opening.set(session.id, work);
    try {
      return await work;
    } finally {
      this.opening.delete(session.id);
    }
  }

  private async openOnce(session: SessionRecord, show: ShowOptions, findUnrestored: boolean): Promise<ChatPanel> {
    // Looked for again after the undrawn tabs: an orphan tab may have been given the chat meanwhile.
    const shown = (await this.restoredPanelOf(session.id)) ?? (findUnrestored ? await this.undrawn.show(session) : undefined)
      ?? (await this.restoredPanelOf(session.id));
    if (shown) {
      shown.reveal();
      return shown;
    }
    const panel = vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, session.title, show, chatWebviewOptions(this.extensionUri, session.id));
    const chat = this.adopt(panel, session.id);
    void chat.sendEarlySnapshot();
    await this.runtime.recordTab(session.id);
    return chat;
  }

  /** This window's panel of a chat, adopted or (waited for) being restored; undefined when none. */
  private async restoredPanelOf(sessionId: string): Promise<ChatPanel | undefined> {
    const adopted = [...this.panels].find((p) => p.sessionId === sessionId);
    if (adopted) return adopted;
    const restoring = [...this.restoring.values()].find((r) => r.sessionId === sessionId);
    const chat = await restoring?.adopted;
    return chat?.sessionId === sessionId ? chat : [...this.panels].find((p) => p.sessionId === sessionId);
  }

  /** Opens a tab with no chat, offering the picker (a tab whose chat could not be told). */
  openOrphan(show: ShowOptions): ChatPanel {
    const panel = vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, 'Agent chat', show, chatWebviewOptions(this.extensionUri, undefined));
    const chat = this.adopt(panel, undefined);
    void chat.post({ type: 'orphan' });
    return chat;
  }

  /**
   * Restores a panel after a reload (`vscode.WebviewPanelSerializer`). Its chat is the one the panel
   * itself names (tabIdentity.ts), never one guessed from titles, ages or the journal's tab records
   * (which hold other windows' tabs too). A panel naming a chat another tab of this window already
   * shows is closed and that tab shown: one tab per chat per window. One naming no chat offers a
   * picker; one naming a chat deleted meanwhile closes, as an open tab of it would have.
   */
  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const identity = restoredIdentity(panel.webview.options, state);
    let settle: (chat: ChatPanel | undefined) => void = () => undefined;
    const entry: Restoring = { panel, sessionId: identity.sessionId, adopted: new Promise((resolve) => (settle = resolve)) };
    this.restoring.set(panel, entry);
    // The user may close the tab while it waits for the journal: from then on it is no tab of this
    // window, and its panel's properties throw ('Webview is disposed').
    let closed = false;
    const closing = panel.onDidDispose(() => {
      closed = true;
      this.restoring.delete(panel);
    });
    this.undrawn.tabShown({ restored: entry });
    let chat: ChatPanel | undefined;
    try {
      chat = await this.restore(panel, identity, () => closed);
    } finally {
      closing.dispose();
      this.restoring.delete(panel);
      settle(chat);
    }
  }

  /**
   * `deserializeWebviewPanel`'s work once the panel is registered as being restored.
   * @param closed true once the tab was closed (then the panel is left alone: it throws when touched).
   * @returns the panel that shows the tab's chat (this one, or another tab of it), or undefined.
   */
  private async restore(panel: vscode.WebviewPanel, identity: ReturnType<typeof restoredIdentity>, closed: () => boolean): Promise<ChatPanel | undefined> {
    // Show the view at once: it says "Loading the chat…" until the journal is open and recovery has
    // run (a fresh user saw an empty tab for 2-5 s after a reload while this waited). The options
    // keep (or, for a tab of an older build, gain) the chat's id.
    panel.webview.options = chatWebviewOptions(this.extensionUri, identity.sessionId);
    panel.iconPath = agentIcon(this.extensionUri, undefined);
    panel.webview.html = renderHtml(panel.webview, this.extensionUri, identity.sessionId);
    // The host is alive while the journal opens: say so to the view's heartbeat until the panel is adopted.
    const pongs = panel.webview.onDidReceiveMessage((raw: unknown) => {
      if ((raw as { type?: unknown } | null)?.type === 'ping') void panel.webview.postMessage({ type: 'pong' }).then(undefined, () => undefined);
    });
    let runtime: ChatRuntime;
    let session: SessionRecord | undefined;
    try {
      runtime = await this.ready;
      session = identity.sessionId ? await runtime.getSession(identity.sessionId) : undefined;
    } catch (error) {
      if (closed()) {
        pongs.dispose();
        return undefined;
      }
      // The host lives on (it keeps answering pings: a lost connection would be false); the view
      // says what failed instead of loading forever.
      this.log(`[restore] chat tab not restored: ${logText(error)}`);
      const message: HostMessage = { type: 'error', code: 'internal', message: `The chat could not be loaded: ${noticeText(error).replace(/\.$/, '')}. See Agent Chats: Show Logs.` };
      void panel.webview.postMessage(message).then(undefined, () => undefined);
      panel.onDidDispose(() => pongs.dispose());
      return undefined;
    }
    pongs.dispose();
    if (closed()) {
      this.log('[restore] a chat tab was closed while it waited for the journal: left alone');
      return undefined;
    }
    const named = identity.sessionId;
    const other = named === undefined ? undefined : [...this.panels].find((p) => p.sessionId === named);
    if (other) {
      this.log(`[restore] a restored tab names chat ${named}, which another tab of this window shows: closed it and showed that tab`);
      const focus = panel.active;
      panel.dispose();
      other.reveal(!focus);
      return other;
    }
    if (named && !session) {
      this.log(`[restore] a restored tab names chat ${named}, which is no longer in the journal: closed it`);
      panel.dispose();
      return undefined;
    }
    const chat = this.adopt(panel, session?.id);
    this.log(`[restore] chat tab restored: ${session ? `${session.id} (named by the tab's ${identity.from})` : '(the tab names no chat: offering a picker)'}`);
    if (session) {
      panel.title = session.title;
      // Now, not when its view first asks: a restored tab not shown yet showed the generic icon.
      panel.iconPath = agentIcon(this.extensionUri, session.provider);
      // The view's own "ready" may have come while the journal was still opening, before this
      // panel listened: send the chat now (a `ready` that comes later gets the live state only).
      void chat.sendEarlySnapshot();
      await runtime.recordTab(session.id);
    } else {
      void chat.post({ type: 'orphan' });
    }
    return chat;
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

  panelShown(chat: ChatPanel): void {
    this.undrawn.tabShown({ drawn: chat });
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
