/**
 * What a chat panel gives the handlers of its view's messages (`PanelContext`): each concern's
 * handlers (panelHandshake.ts, panelPages.ts, panelOutbox.ts, panelDecisions.ts, panelMentions.ts,
 * checkpointActions.ts, panelModels.ts, panelCommands.ts) act through it, and `ChatPanel` builds one
 * per panel. `inChat` wraps a handler that needs the panel's chat.
 */
import type * as vscode from 'vscode';
import type { ModelList } from '../runtime/agents/modelLists';
import type { ChatRuntime } from '../runtime/chatRuntime';
import type { HostMessage } from '../protocol/messages';
import type { Handshake, PendingReveal } from './panelHandshake';
import type { PanelMentions } from './panelMentions';
import type { PanelOutbox } from './panelOutbox';

/** One panel as its message handlers see it. */
export interface PanelContext {
  /** The window's runtime (read at each use: the panel's owner holds it). */
  readonly runtime: ChatRuntime;
  /** The chat the panel shows, or undefined while orphaned (read at each use: `attach` changes it). */
  readonly sessionId: string | undefined;
  readonly extensionUri: vscode.Uri;
  readonly log: (line: string) => void;
  /** The view's messages to send and its queue. */
  readonly prompts: PanelOutbox;
  /** The view's `@` list, drops and attachments. */
  readonly mentions: PanelMentions;
  /** Whether the view has its state: early snapshot, reveal waiting for a view (`panelHandshake.ts`). */
  readonly handshake: Handshake;
  /** Posts in order with the panel's other messages, with the next `seq` (`ChatPanel.post`). */
  post(message: HostMessage | (() => Promise<HostMessage | undefined>)): Promise<void>;
  /** Posts outside the ordered queue, with no `seq` (a `pong`, the `@` list). */
  postNow(message: HostMessage): void;
  /** Sends the chat's live state, read now. */
  sendLive(): Promise<void>;
  /** Sends the full state (`ChatPanel.sendSnapshot`). */
  sendSnapshot(): Promise<void>;
  /** Posts a reveal of a search result, when its turn is still one of the panel's chat. */
  postReveal(reveal: PendingReveal): void;
  /** Asks the user which chat this (orphan) panel shows. */
  pickSession(): Promise<void>;
  /** The models `provider` offers in the chat's header (none when the owner lists none). */
  listModels(provider: string): Promise<ModelList>;
}

/**
 * A handler of a message that acts on the panel's chat: `handle` gets its id; an orphan panel
 * answers the message with an `orphan` error instead.
 */
export function inChat<M>(
  handle: (message: M, panel: PanelContext, sessionId: string) => Promise<void> | void,
): (message: M, panel: PanelContext) => Promise<void> | void {
  return (message, panel) => {
    const sessionId = panel.sessionId;
    if (sessionId) return handle(message, panel, sessionId);
    void panel.post({ type: 'error', code: 'orphan', message: 'Pick a chat for this tab first.' });
  };
}
