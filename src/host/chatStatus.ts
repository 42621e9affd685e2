/**
 * What VS Code shows around the chat tabs of this window besides the tabs themselves: the context
 * keys menus and keybindings test (`nativeAgentChats.chatActive`: the active editor is a chat tab;
 * `nativeAgentChats.chatRunning`: its agent works), a status-bar item while an agent of an open chat
 * works or waits for an approval (click: reveal that chat), and each tab's agent icon.
 */
import * as vscode from 'vscode';
import { isOneOf, PROVIDER_IDS } from '../core/vocabulary';
import type { LiveState } from '../protocol/messages';

/** Context key: the active editor is a chat tab. */
export const CHAT_ACTIVE_KEY = 'nativeAgentChats.chatActive';
/** Context key: the active chat tab's agent is working (Stop applies). */
export const CHAT_RUNNING_KEY = 'nativeAgentChats.chatRunning';

/** What the status reads of one open chat tab. */
export interface ChatTabState {
  readonly sessionId: string | undefined;
  readonly title: string;
  readonly active: boolean;
  /** The live state the tab last showed, if any. */
  readonly live: LiveState | undefined;
}

/** The context keys and the status-bar item of this window's chat tabs (see module docstring). */
export class ChatStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('nativeAgentChats.status', vscode.StatusBarAlignment.Left, 50);
  private keys = '';

  constructor() {
    this.item.name = 'Agent Chats';
  }

  /** Brings the context keys and the status-bar item in line with `tabs` (cheap: call on every change). */
  update(tabs: readonly ChatTabState[]): void {
    const active = tabs.find((t) => t.active);
    const keys = `${active !== undefined}|${active?.live?.running === true}`;
    if (keys !== this.keys) {
      this.keys = keys;
      void vscode.commands.executeCommand('setContext', CHAT_ACTIVE_KEY, active !== undefined);
      void vscode.commands.executeCommand('setContext', CHAT_RUNNING_KEY, active?.live?.running === true);
    }
    const shown = statusOf(tabs);
    if (!shown) {
      this.item.hide();
      return;
    }
    this.item.text = shown.text;
    this.item.tooltip = shown.tooltip;
    this.item.command = { title: 'Show the chat', command: 'nativeAgentChats.openChat', arguments: [{ sessionId: shown.sessionId }] };
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}

/**
 * The status-bar item's text for `tabs`, or undefined when no agent works: a chat waiting for an
 * approval comes before one that only works (it needs the user).
 */
export function statusOf(tabs: readonly ChatTabState[]): { text: string; tooltip: string; sessionId: string } | undefined {
  const waiting = tabs.filter((t) => t.sessionId && (t.live?.actionableRequestIds.length ?? 0) > 0);
  const working = tabs.filter((t) => t.sessionId && t.live?.running);
  const first = waiting[0] ?? working[0];
  if (!first?.sessionId) return undefined;
  const others = new Set([...waiting, ...working].map((t) => t.sessionId)).size - 1;
  const more = others > 0 ? ` (+${others})` : '';
  return waiting.length > 0
    ? { text: `$(bell-dot) Agent waiting for approval${more}`, tooltip: `“${first.title}” waits for your approval. Click to show it.`, sessionId: first.sessionId }
    : { text: `$(loading~spin) Agent working${more}`, tooltip: `The agent is working on “${first.title}”. Click to show it.`, sessionId: first.sessionId };
}

/** The tab icon of a chat with `provider` (the generic chat icon for an unknown one), for light and dark themes. */
export function agentIcon(extensionUri: vscode.Uri, provider: string | undefined): { light: vscode.Uri; dark: vscode.Uri } {
  if (!isOneOf(PROVIDER_IDS, provider)) {
    return { light: vscode.Uri.joinPath(extensionUri, 'media', 'chat-light.svg'), dark: vscode.Uri.joinPath(extensionUri, 'media', 'chat.svg') };
  }
  return {
    light: vscode.Uri.joinPath(extensionUri, 'media', 'agents', `${provider}-light.svg`),
    dark: vscode.Uri.joinPath(extensionUri, 'media', 'agents', `${provider}-dark.svg`),
  };
}
