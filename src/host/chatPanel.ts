/**
 * `ChatPanel`: one chat tab — a `WebviewPanel` in the editor area showing one journaled session.
 *
 * One class owns one panel and its disposables. The HTML carries a strict Content Security Policy with a fresh nonce; scripts
 * and styles load only from the extension's `dist/` and `media/` folders. Every message from the
 * webview is decoded with the shared protocol; a malformed one is answered with an `error` message
 * and nothing else happens (a run of them with nothing posted between is answered with one:
 * panelRefusals.ts).
 */
import * as vscode from 'vscode';
import { noticeText } from './notices';
import { decodeWebviewMessage } from '../protocol/decode';
import type { HostMessage, LiveState, WebviewMessage } from '../protocol/messages';
import { cursorOf, type TurnCursor } from '../core/transcript';
import { Sequencer } from '../core/sequencer';
import type { ChangeMark, ChatRuntime } from '../runtime/chatRuntime';
import { agentIcon } from './chatStatus';
import { CHECK_JOURNAL_COMMAND } from './checkJournal';
import { REPAIR_JOURNAL_COMMAND } from './repairJournal';
import { handleCheckpointMessage, isCheckpointMessage, SentCheckpoints, undoBeforeResend } from './checkpointActions';
import { openOwnSetting } from './openSetting';
import { isOutboxMessage, PanelOutbox } from './panelOutbox';
import { handleModelMessage } from './panelModels';
import { openWorkspaceFile } from './openFile';
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
    this.earlySnapshot = true;
    return this.sendSnapshot();
  }

  /** An early snapshot was posted and no message of a view has come since (see `sendEarlySnapshot`). */
  private earlySnapshot = false;

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

  /** Sends the page of turns before `before` (the view scrolled up to its oldest turn). */
  private sendPage(before: TurnCursor): Promise<void> {
    const sessionId = this.session;
    if (!sessionId) return Promise.resolve();
    return this.post(async () => {
      const page = await this.host.runtime.transcriptPage(sessionId, before);
      return { type: 'page', before, turns: page.transcript.turns, hasOlder: page.hasOlder };
    });
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
      const about = isOutboxMessage(decoded.value) ? { action: decoded.value.type, clientId: decoded.value.clientId } : {};
      void this.post({ type: 'error', code: 'internal', message: `Something went wrong: ${noticeText(error).replace(/\.$/, '')}. See Agent Chats: Show Logs.`, ...about });
    }
  }

  private async handle(message: WebviewMessage): Promise<void> {
    const runtime = this.host.runtime;
    // A view that speaks before any `ready` reached this panel (a restored tab's view posted its
    // ready while the journal opened, before the panel listened) has loaded: it gets the early
    // snapshot, and a `ready` after this is a new view's (the tab shown again, the host back).
    if (message.type !== 'ready') {
      this.earlySnapshot = false;
      this.mentions.viewSpoke();
    }
    // Answered at once, not behind journal-backed messages: it says the host lives, nothing more.
    if (message.type === 'ping') return this.postNow({ type: 'pong' });
    if (message.type === 'complete') return this.mentions.complete(message.requestId, message.query);
    if (message.type === 'attachUris') return this.mentions.attachUris(message.uris);
    const early = message.type === 'ready' && this.earlySnapshot;
    if (message.type === 'ready') this.earlySnapshot = false;
    if (message.type === 'ready' && this.waitingReveal) {
      const { turnId, terms } = this.waitingReveal;
      this.waitingReveal = undefined;
      const snapshot = this.sendSnapshot();
      this.postReveal(turnId, terms);
      this.mentions.viewReady();
      return snapshot;
    }
    if (early) {
      this.mentions.viewReady();
      return this.sendLive();
    }
    if (message.type === 'ready') {
      const snapshot = this.sendSnapshot();
      this.mentions.viewReady();
      return snapshot;
    }
    if (message.type === 'resync') return this.sendSnapshot();
    if (message.type === 'loadOlder') return this.sendPage(message.before);
    if (message.type === 'pickSession') return this.host.pickSessionFor(this);
    if (message.type === 'checkJournal') return void vscode.commands.executeCommand(CHECK_JOURNAL_COMMAND);
    if (message.type === 'repairJournal') return void vscode.commands.executeCommand(REPAIR_JOURNAL_COMMAND);
    if (message.type === 'viewError') {
      // The view went on without the part that failed; the log keeps what failed for a bug report.
      this.host.log(`[view] ${this.session ?? '(no chat)'}: ${message.message}`);
      return;
    }
    if (message.type === 'openSetting') {
      if (!(await openOwnSetting(message.id, this.host.extensionUri))) {
        this.host.log(`[panel] refused to open setting ${message.id}: not a setting of this extension`);
        void this.post({ type: 'error', code: 'unknown_setting', message: `${message.id} is not a setting of Native Agent Chats.` });
      }
      return;
    }
    if (message.type === 'openFile') return this.openFile(message);
    const sessionId = this.session;
    if (!sessionId) {
      void this.post({ type: 'error', code: 'orphan', message: 'Pick a chat for this tab first.' });
      return;
    }
    if (isOutboxMessage(message)) return this.prompts.handle(sessionId, message);
    if (message.type === 'listModels' || message.type === 'setModel') {
      const listModels = (provider: string) => this.host.listModels?.(provider) ?? Promise.resolve({ models: [] });
      return handleModelMessage({ runtime, listModels, post: (m) => void this.post(m) }, sessionId, message);
    }
    if (isCheckpointMessage(message)) return handleCheckpointMessage(runtime, sessionId, message, (m) => void this.post(m));
    const result =
      message.type === 'stop' ? await runtime.stop(sessionId)
      : message.type === 'decide' ? await runtime.decide(sessionId, message.requestId, message.decision)
      : message.type === 'retry' ? await runtime.retry(sessionId, message.turnId)
      : await runtime.continueTurn(sessionId, message.turnId);
    if (result.ok) {
      void this.post({ type: 'succeeded', action: message.type });
    } else {
      void this.post({ type: 'error', code: result.reason, message: result.message, action: message.type });
      // A stale prompt (decided elsewhere) must stop looking actionable.
      void this.sendLive();
    }
  }

  /**
   * Shows turn `turnId` in the view (a search result), marking the matched words: `snippet` and its
   * `[start, end)` match ranges, as the search returned them. A hidden tab's view does not exist
   * (no `retainContextWhenHidden`): VS Code builds it again once the tab shows, and a message posted
   * before that is lost, so the reveal then waits for the new view's `ready` and follows its snapshot.
   */
  revealTurn(turnId: string, snippet: string, ranges: readonly (readonly [number, number])[]): void {
    const terms = [...new Set(ranges.map(([start, end]) => snippet.slice(start, end)).filter(Boolean))];
    if (this.panel.visible) {
      this.waitingReveal = undefined;
      this.postReveal(turnId, terms);
    } else {
      this.waitingReveal = { turnId, terms };
    }
  }

  /** A reveal asked while the view was hidden: sent after the snapshot of its next `ready`. */
  private waitingReveal: { readonly turnId: string; readonly terms: readonly string[] } | undefined;

  private postReveal(turnId: string, terms: readonly string[]): void {
    void this.post(async () => {
      const turn = await this.host.runtime.journal.read('getTurn', turnId);
      return turn && turn.sessionId === this.session ? { type: 'reveal', at: cursorOf(turn), terms: [...terms] } : undefined;
    });
  }

  /** Opens a file the view links to, inside the workspace only (`openFile.ts`); a refusal goes to the error bar and the log. */
  private async openFile(ref: { readonly path: string; readonly line?: number; readonly column?: number }): Promise<void> {
    const roots = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
    const refused = await openWorkspaceFile(ref, roots);
    if (!refused) return;
    this.host.log(`[panel] did not open ${ref.path}: ${refused.message}`);
    void this.post({ type: 'error', code: refused.reason, message: refused.message });
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
