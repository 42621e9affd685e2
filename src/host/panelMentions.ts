/**
 * A chat panel's part of attaching context: it answers the view's `complete` (the `@` list, one
 * request in flight per panel: a newer one cancels the older, whose answer is then not sent) and
 * `attachUris` (files dropped on the chat) with `completions` and `attach` messages, and hands the
 * editor commands' attachments to the view (`attach`), keeping them while there is no view to take
 * them: a new tab's view is still loading, a hidden tab's was destroyed (no
 * `retainContextWhenHidden`), and a message posted then is lost. They go after the snapshot that
 * answers the view's next `ready`.
 */
import * as vscode from 'vscode';
import type { WebviewMessageHandlersFor } from '../protocol/hostHandlers';
import type { HostMessage } from '../protocol/messages';
import { mentionItems, refsOfUris, type WorkspaceFiles } from './mentionCompletions';
import type { PanelContext } from './panelContext';

/** What the panel gives this module. */
export interface MentionPanel {
  /** The workspace's paths, shared by the window's panels. */
  readonly files: () => WorkspaceFiles;
  /** Posts outside the ordered queue (the `@` list must not wait behind journal reads). */
  postNow(message: HostMessage): void;
  /** Posts in order with the panel's other messages. */
  post(message: HostMessage): Promise<void>;
  readonly log: (line: string) => void;
  /** Whether the tab is visible now. */
  readonly visible: () => boolean;
}

/** One panel's `@` list and drops (see module docstring). */
export class PanelMentions implements vscode.Disposable {
  private pending: vscode.CancellationTokenSource | undefined;
  /** The view posted `ready` since it was last hidden (it takes messages). */
  private viewAlive = false;
  /** Attachments asked for while there was no view (see module docstring). */
  private readonly waiting: (HostMessage & { type: 'attach' })[] = [];

  constructor(private readonly panel: MentionPanel) {}

  /** Answers `complete` `requestId` with the items for `query`, unless a newer request came first. */
  async complete(requestId: number, query: string): Promise<void> {
    this.pending?.cancel();
    const source = new vscode.CancellationTokenSource();
    this.pending = source;
    try {
      const items = await mentionItems(query, this.panel.files(), source.token);
      if (!source.token.isCancellationRequested) this.panel.postNow({ type: 'completions', requestId, items });
    } catch (error) {
      if (!source.token.isCancellationRequested) {
        this.panel.log(`[mentions] the @ list failed: ${(error as Error).message}`);
        this.panel.postNow({ type: 'completions', requestId, items: [] });
      }
    } finally {
      source.dispose();
      if (this.pending === source) this.pending = undefined;
    }
  }

  /** Attaches the files and folders of dropped URIs (those VS Code can stat). */
  async attachUris(uris: readonly string[]): Promise<void> {
    const attachments = await refsOfUris(uris);
    if (attachments.length) await this.panel.post({ type: 'attach', attachments, focus: true });
    else this.panel.log(`[mentions] nothing to attach among ${uris.length} dropped URIs`);
  }

  /** Attaches to the view's composer now, or after its next `ready` when it has none (see module docstring). */
  attach(message: HostMessage & { type: 'attach' }): Promise<void> {
    if (this.viewAlive && this.panel.visible()) return this.panel.post(message);
    this.waiting.push(message);
    return Promise.resolve();
  }

  /** The view posted `ready` (its snapshot is on its way): what waited for it follows. */
  viewReady(): void {
    this.viewAlive = true;
    for (const message of this.waiting.splice(0)) void this.panel.post(message);
  }

  /**
   * A message of the view other than `ready` came: the view has loaded. What waited for its `ready`
   * goes now if the tab shows, since a restored tab's view may have posted its `ready` before the
   * panel listened (the journal was still opening), and no other follows.
   */
  viewSpoke(): void {
    if (!this.viewAlive && this.panel.visible()) this.viewReady();
  }

  /** The tab was hidden: its view is gone until it is shown again. */
  viewHidden(): void {
    this.viewAlive = false;
  }

  dispose(): void {
    this.pending?.cancel();
  }
}

/** The view's `@` list and drops, answered by the panel's `PanelMentions` (no chat needed). */
export const mentionHandlers = {
  complete: ({ requestId, query }, panel) => panel.mentions.complete(requestId, query),
  attachUris: ({ uris }, panel) => panel.mentions.attachUris(uris),
} satisfies WebviewMessageHandlersFor<'complete' | 'attachUris', PanelContext>;
