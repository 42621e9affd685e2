/**
 * `ChatPanel`: one chat tab — a `WebviewPanel` in the editor area showing one journaled session.
 *
 * One class owns one panel and its disposables. The HTML carries a strict Content Security Policy with a fresh nonce; scripts
 * and styles load only from the extension's `dist/` and `media/` folders. Every message from the
 * webview is decoded with the shared protocol; a malformed one is answered with an `error` message
 * and nothing else happens (a run of them with nothing posted between is answered with one:
 * panelRefusals.ts). A decoded one goes to its handler in the table of panelHandlers.ts, which acts
 * through the panel's `PanelContext`; the handshake (early snapshot, `ready`) is panelHandshake.ts.
 */
import * as vscode from 'vscode';
import { noticeText } from './notices';
import { decodeWebviewMessage } from '../protocol/decode';
import { dispatchMessage } from '../protocol/handlerTable';
import type { HostMessage, LiveState, WebviewMessage } from '../protocol/messages';
import { Sequencer } from '../core/sequencer';
import type { ChangeMark, ChatRuntime } from '../runtime/chatRuntime';
import { agentIcon } from './chatStatus';
import { SentCheckpoints, undoBeforeResend } from './checkpointActions';
import type { PanelContext } from './panelContext';
import { PANEL_HANDLERS } from './panelHandlers';
import { Handshake, viewHeard, type PendingReveal } from './panelHandshake';
import { outboxAbout, PanelOutbox } from './panelOutbox';
import type { ModelList } from '../runtime/agents/modelLists';
import { attachmentRequests } from './attachmentSources';
import type { WorkspaceFiles } from './mentionCompletions';
import { PanelMentions } from './panelMentions';
import { PanelRefusals } from './panelRefusals';
import { chatWebviewOptions, renderHtml } from './chatHtml';

/** The webview view type (also in package.json's `onWebviewPanel:` activation event). */
export const CHAT_VIEW_TYPE = 'nativeAgentChats.chat';

/** What a panel needs from its owner. */
export interface ChatPanelHost {
  readonly runtime: ChatRuntime;
  readonly extensionUri: vscode.Uri;
  readonly log: (line: string) => void;
  /** The user asked this (orphan) panel to show another chat. */
  pickSessionFor(panel: ChatPanel): Promise<void>;
  /** The panel was closed by the user or VS Code. */
  panelDisposed(panel: ChatPanel): void;
  /** The panel became active or inactive, or its chat's live state or title changed. */
  panelStateChanged?(panel: ChatPanel): void;
  /** The panel became the active editor: its tab was shown (by the user, or by the host showing a tab). */
  panelShown?(panel: ChatPanel): void;
  /** The models a provider offers in the chat's header (none when unset). */
  listModels?(provider: string): Promise<ModelList>;
  /** The workspace's paths for the `@` list, shared by the window's panels. */
  workspaceFiles(): WorkspaceFiles;
}

/** One chat tab (see module docstring). `sessionId` is undefined for an orphan panel. */
export class ChatPanel {
  private readonly disposables: vscode.Disposable[] = [];
  private disposed = false;
  /** The view's messages to send and its queue (`panelOutbox.ts`). */
  private readonly prompts: PanelOutbox;
  /** The view's `@` list and drops (`panelMentions.ts`). */
  private readonly mentions: PanelMentions;
  /** Its answers to the view's malformed messages (`panelRefusals.ts`). */
  private readonly refusals: PanelRefusals;
  /** Whether the view has its state (`panelHandshake.ts`). */
  private readonly handshake = new Handshake();
  /** What the message handlers act through (`panelContext.ts`). */
  private readonly context: PanelContext;

  constructor(
    readonly panel: vscode.WebviewPanel,
    private session: string | undefined,
    private readonly host: ChatPanelHost,
  ) {
    this.prompts = new PanelOutbox({
      get runtime() { return host.runtime; }, post: (m) => this.post(m), sendLive: () => this.sendLive(), attachmentRequests,
      undoBeforeResend: (sessionId, turnId) => undoBeforeResend(host.runtime, sessionId, turnId),
    });
    this.refusals = new PanelRefusals({ post: (m) => this.post(m), queued: () => this.queued, log: host.log });
    this.mentions = new PanelMentions({
      files: () => host.workspaceFiles(), postNow: (m) => this.postNow(m), post: (m) => this.post(m), log: host.log, visible: () => panel.visible,
    });
    const sessionId = () => this.session;
    this.context = {
      get runtime() { return host.runtime; },
      get sessionId() { return sessionId(); },
      extensionUri: host.extensionUri, log: host.log, prompts: this.prompts, mentions: this.mentions, handshake: this.handshake,
      post: (m) => this.post(m), postNow: (m) => this.postNow(m), sendLive: () => this.sendLive(), sendSnapshot: () => this.sendSnapshot(),
      postReveal: (reveal) => this.postReveal(reveal), pickSession: () => host.pickSessionFor(this),
      listModels: (provider) => host.listModels?.(provider) ?? Promise.resolve({ models: [] }),
    };
    // The chat id rides in the options, which VS Code saves with the tab (tabIdentity.ts).
    panel.webview.options = chatWebviewOptions(host.extensionUri, session);
    panel.iconPath = agentIcon(host.extensionUri, undefined);
    // A restored panel already shows the view (saying it is loading) since before the journal was
    // ready: keep it rather than reload it. Its session comes with the snapshot.
    if (!panel.webview.html) panel.webview.html = renderHtml(panel.webview, host.extensionUri, session);
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw) => void this.receive(raw)),
      panel.onDidDispose(() => this.dispose()),
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.mentions.viewHidden();
        this.host.panelStateChanged?.(this);
        if (panel.active) this.host.panelShown?.(this);
      }),
      this.mentions,
    );
  }

  /** The live state the view was last sent (undefined before the first). */
  get live(): LiveState | undefined {
    return this.lastLive;
  }

  private lastLive: LiveState | undefined;

  /** The chat this panel shows, or undefined while orphaned. */
  get sessionId(): string | undefined {
    return this.session;
  }

  /** Points the panel at a session (used when an orphan panel is given one) and re-sends state. */
  async attach(sessionId: string): Promise<void> {
    this.session = sessionId;
    this.panel.webview.options = chatWebviewOptions(this.host.extensionUri, sessionId);
    await this.sendSnapshot();
  }

  /**
   * Sends one message to the webview, in order with every other message of this panel: messages
   * whose content is computed asynchronously (snapshots, pages, changes, live state) are produced one
   * after another, so a snapshot read before an update can never arrive after it and undo it. (An
   * update that the snapshot already holds is applied twice harmlessly: the reducer drops a seq it has
   * seen.) Each message sent gets the next `seq`, so the view can tell when one went missing.
   * Dropped if the panel is gone.
   */
  post(message: HostMessage | (() => Promise<HostMessage | undefined>)): Promise<void> {
    this.queued++;
    return this.outbox.run(async () => {
      const m = typeof message === 'function' ? await message() : message;
      if (m && !this.disposed) {
        await this.panel.webview.postMessage({ ...m, seq: ++this.seq });
        // A change from another window carries the live state too: the status bar and the running
        // context key must read what the view now shows.
        if (m.type === 'snapshot' || m.type === 'live' || (m.type === 'changes' && m.live)) {
          this.lastLive = m.live;
          this.host.panelStateChanged?.(this);
        }
      }
    }).catch((error: unknown) => this.host.log(`[panel] could not update the chat view: ${(error as Error).message}`));
  }

  private readonly outbox = new Sequencer();
  /** How many messages were put in the ordered queue (`post`) so far: tells whether a folded refusal is still its last. */
  private queued = 0;

  /** Posts outside the ordered queue, with no `seq` (a `pong`, the `@` list); dropped if the panel is gone. */
  private postNow(message: HostMessage): void {
    if (!this.disposed) void this.panel.webview.postMessage(message).then(undefined, () => undefined);
  }

  /**
   * Attaches `attachments` to the message being written in this tab (Add Selection to Chat, Add File
   * to Chat, Ask About Selection…); `focus`: the composer takes the focus. In order with the panel's
   * messages, so a view still loading gets it after its snapshot.
   */
  attachToComposer(attachments: HostMessage & { type: 'attach' }): Promise<void> {
    return this.mentions.attach(attachments);
  }
  /** The `seq` of the last message sent (see `HostMessage`). */
  private seq = 0;
  /** Where the view's reads of the journal stopped; undefined until the first snapshot. */
  private mark: ChangeMark | undefined;
  /** `performance.now()` (ms) when the latest snapshot or `changes` (both carry the live state) began reading the journal. */
  private snapshotReadAt = -Infinity;

  /**
   * Sends the first snapshot while the view is still loading, so that it does not wait for its own
   * `ready` to reach the host and the journal's read to come back: VS Code holds a webview's messages
   * until its document has loaded. The `ready` that follows is answered with the live state only
   * (unless a message of the view came first: that view had loaded, so a later `ready` is a new
   * view's and gets a snapshot); a view built again meanwhile (its tab hidden and shown), which never
   * got this snapshot, finds its first numbered message not a snapshot and asks for one (`trackSeq`
   * in webview/paging.ts).
   */
  sendEarlySnapshot(): Promise<void> {
    this.handshake.earlySnapshotSent();
    return this.sendSnapshot();
  }

  /** Sends the full state: session, the transcript's last page read from the journal, live facts; then the checkpoints. */
  sendSnapshot(): Promise<void> {
    void this.post(() => this.snapshot());
    return this.sendCheckpoints();
  }

  /**
   * Sends the chat's checkpoints (each turn's "Files changed"), read now; with `ifChanged`, only when
   * they differ from those the view was last sent (another window's change, this window's undo).
   */
  sendCheckpoints(ifChanged = false): Promise<void> {
    const sessionId = this.session;
    return sessionId ? this.post(() => this.checkpoints.message(this.host.runtime, sessionId, ifChanged)) : Promise.resolve();
  }

  private readonly checkpoints = new SentCheckpoints();

  private async snapshot(): Promise<HostMessage> {
    const runtime = this.host.runtime;
    if (!this.session) return { type: 'orphan' };
    this.snapshotReadAt = performance.now();
    const session = await runtime.getSession(this.session);
    if (!session) return { type: 'error', code: 'not_found', message: 'This chat is no longer in the journal.' };
    this.panel.title = session.title;
    this.panel.iconPath = agentIcon(this.host.extensionUri, session.provider);
    const page = await runtime.transcriptPage(session.id);
    this.mark = page.mark;
    return {
      type: 'snapshot', session, transcript: page.transcript, hasOlder: page.hasOlder, turnCount: page.turnCount,
      live: await runtime.liveState(session.id), queue: await this.prompts.snapshotQueue(session.id), hostNow: Date.now(),
    };
  }

  /**
   * Another window (or this one's rename) changed the chat: sends what changed since the view's last
   * read, with the live state read after it, in one `changes` message; a snapshot instead when there
   * was no read yet or too much changed. Reads only the changed rows: the panel keeps no copy of the
   * transcript.
   */
  sendChanges(): Promise<void> {
    const sessionId = this.session;
    if (!sessionId) return Promise.resolve();
    return this.post(async () => {
      const runtime = this.host.runtime;
      const mark = this.mark;
      if (!mark) return this.snapshot();
      const readAt = performance.now();
      const { changes, session } = await runtime.changesWithSession(sessionId, mark);
      if (!changes) return this.snapshot();
      if (!session) return { type: 'error', code: 'not_found', message: 'This chat is no longer in the journal.' };
      this.panel.title = session.title;
      this.mark = changes.mark;
      this.snapshotReadAt = readAt;
      return { type: 'changes', session, updates: changes.updates, turnCount: changes.turnCount, live: await runtime.liveState(sessionId), hostNow: Date.now() };
    });
  }

  /** Sends the chat's queue if it changed since the view was last sent it (a `queue` notification, another window's change). */
  sendQueue(): Promise<void> {
    return this.session ? this.prompts.sendQueueIfChanged(this.session) : Promise.resolve();
  }

  /**
   * Sends the chat's live state as the runtime's `live` notification carries it (in order with the
   * other messages; `readAt`: `performance.now()` in ms when its read began, unset: now), or,
   * without one, as the runtime reads it now.
   */
  sendLive(live?: LiveState, readAt = performance.now()): Promise<void> {
    const sessionId = this.session;
    if (!sessionId) return Promise.resolve();
    if (live) {
      // A snapshot that began reading after this state's read began carries a newer one: keep it.
      // (Not "after it was received": a snapshot begun while the state was being read would be
      // followed by the older state, e.g. a Stop button back after the snapshot cleared it.)
      return this.post(async () => (this.snapshotReadAt >= readAt ? undefined : { type: 'live', live, hostNow: Date.now() }));
    }
    return this.post(async () => ({ type: 'live', live: await this.host.runtime.liveState(sessionId), hostNow: Date.now() }));
  }

  private async receive(raw: unknown): Promise<void> {
    const decoded = decodeWebviewMessage(raw);
    if (!decoded.ok) return this.refusals.refuse(raw, decoded.message);
    try {
      await this.handle(decoded.value);
    } catch (error) {
      this.host.log(`[panel] ${decoded.value.type} failed: ${(error as Error).stack ?? error}`);
      const about = outboxAbout(decoded.value);
      void this.post({ type: 'error', code: 'internal', message: `Something went wrong: ${noticeText(error).replace(/\.$/, '')}. See Agent Chats: Show Logs.`, ...about });
    }
  }

  /** One lookup in the table of the view's messages (`panelHandlers.ts`), once the handshake heard the view. */
  private handle(message: WebviewMessage): Promise<void> | void {
    viewHeard(message.type, this.context);
    return dispatchMessage(PANEL_HANDLERS, message, this.context);
  }

  /**
   * Shows turn `turnId` in the view (a search result), marking the matched words: `snippet` and its
   * `[start, end)` match ranges, as the search returned them. A hidden tab's view does not exist
   * (no `retainContextWhenHidden`): VS Code builds it again once the tab shows, and a message posted
   * before that is lost, so the reveal then waits for the new view's `ready` and follows its snapshot.
   */
  revealTurn(turnId: string, snippet: string, ranges: readonly (readonly [number, number])[]): void {
    const terms = [...new Set(ranges.map(([start, end]) => snippet.slice(start, end)).filter(Boolean))];
    const now = this.handshake.reveal({ turnId, terms }, this.panel.visible);
    if (now) this.postReveal(now);
  }

  private postReveal({ turnId, terms }: PendingReveal): void {
    void this.post(async () => {
      const sessionId = this.session;
      const at = sessionId ? await this.host.runtime.turnCursor(sessionId, turnId) : undefined;
      return at ? { type: 'reveal', at, terms: [...terms] } : undefined;
    });
  }

  /** Brings the tab to the front of its editor group; `preserveFocus`: the focus stays where it is. */
  reveal(preserveFocus = false): void {
    this.panel.reveal(undefined, preserveFocus);
  }

  /** Releases the panel's listeners; tells the owner. Idempotent. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.host.panelDisposed(this);
    this.panel.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
