/**
 * The Agent Chats view: a TreeView of every chat in the activity bar's "Agent Chats" container,
 * grouped by day (src/core/chatList.ts), this workspace's chats or all of them, with each chat's
 * agent, last activity and state, and a badge counting chats that wait for an approval.
 *
 * It stays live without re-reading the whole list: a runtime notification names one chat, whose
 * entry alone is read again (after a 30 ms pause that gathers a burst); only when a chat appears,
 * goes, or moves to another day group does the tree ask VS Code to redraw every item (items keep
 * their ids, so selection, expansion and scroll survive it).
 */
import * as vscode from 'vscode';
import { dayGroupOf, groupChats, lastActiveWords, waitingCount, type ChatListEntry, type DayGroup } from '../core/chatList';
import { ALL_SESSIONS, type ChatRuntime, type RuntimeNotification } from '../runtime/chatRuntime';
import type { ChatListSource } from './chatPicker';
import { PROVIDERS } from './providers';

/** The view's id (package.json `contributes.views`). */
export const CHAT_TREE_VIEW_ID = 'nativeAgentChats.chats';
/** Context key: which chats the view shows, 'workspace' or 'all'. */
export const CHAT_LIST_SCOPE_KEY = 'nativeAgentChats.chatListScope';

/** A day group of the tree. */
interface GroupNode {
  readonly kind: 'group';
  readonly group: DayGroup;
}

/** A chat of the tree; `sessionId` lets the chat commands take the node as their argument. */
export interface ChatNode {
  readonly kind: 'chat';
  readonly sessionId: string;
  entry: ChatListEntry;
}

type Node = GroupNode | ChatNode;

const AGENT_ICONS: Record<string, string> = {
  local: 'device-desktop', claude: 'sparkle', codex: 'terminal', 'openai-compatible': 'server-process', 'vscode-lm': 'hubot',
};

/** How long after the last change to the chats the picker's first page read ahead is read again (ms). */
const PREFETCH_AGAIN_MS = 1000;

/** The TreeDataProvider of the Agent Chats view (see module docstring). */
export class ChatTree implements vscode.TreeDataProvider<Node>, ChatListSource, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly listChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeList = this.listChanged.event;
  private loadedOnce = false;
  private entries = new Map<string, ChatNode>();
  private groups: { group: DayGroup; chats: ChatNode[] }[] = [];
  private loaded: Promise<void> | undefined;
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private view: vscode.TreeView<Node> | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  /**
   * @param ready the chat runtime once the journal is open (the view waits for it);
   * @param workspace the folder this window's chats belong to ('' without a folder);
   * @param memento where the chosen scope is kept for this workspace.
   */
  constructor(private readonly ready: Promise<ChatRuntime>, readonly workspace: string, private readonly memento: vscode.Memento) {
    this.disposables.push(this.changed, this.listChanged);
    ready.then((runtime) => this.disposables.push({ dispose: runtime.onNotification((n) => this.heard(n)) }), () => undefined);
    void vscode.commands.executeCommand('setContext', CHAT_LIST_SCOPE_KEY, this.scope);
  }

  /** Which chats are shown: this workspace's (the default) or every one. */
  get scope(): 'workspace' | 'all' {
    return this.memento.get<'workspace' | 'all'>(CHAT_LIST_SCOPE_KEY, 'workspace');
  }

  /** Shows this workspace's chats or all; the choice is kept for this workspace. */
  async setScope(scope: 'workspace' | 'all'): Promise<void> {
    await this.memento.update(CHAT_LIST_SCOPE_KEY, scope);
    await vscode.commands.executeCommand('setContext', CHAT_LIST_SCOPE_KEY, scope);
    this.regroup();
  }

  /** Creates the TreeView (once) and returns it. */
  createView(): vscode.TreeView<Node> {
    this.view ??= vscode.window.createTreeView(CHAT_TREE_VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(this.view);
    return this.view;
  }

  /** Reads the whole list again (the Refresh button, a journal reloaded from disk). */
  reload(): Promise<void> {
    this.loaded = (async () => {
      const entries = await (await this.ready).chatList();
      this.entries = new Map(entries.map((entry) => [entry.id, { kind: 'chat', sessionId: entry.id, entry }]));
      this.loadedOnce = true;
      this.regroup();
    })();
    return this.loaded;
  }

  get listLoaded(): boolean {
    return this.loadedOnce;
  }

  /**
   * The newest `n` chats of all and of this workspace, read straight from the journal (the picker's
   * first page while the whole list loads: `ChatListSource.firstEntries`).
   */
  async firstEntries(n: number): Promise<readonly ChatListEntry[]> {
    const kept = this.prefetched;
    if (kept?.n === n) return kept.entries;
    return (await this.ready).chatList({ newest: n, workspace: this.workspace });
  }

  /**
   * Reads the picker's first page (`firstEntries(n)`) ahead of the first Open Chat… and keeps it
   * until a chat changes (then reads it again a second after the changes pause); also formats its times once, since a process's first date formatting
   * loads the locale's data. Nothing is read when the whole list is loaded already. The first
   * Open Chat… of a window with 10,000 chats read its page and formatted its rows after the
   * command: over half of what it took (docs/BENCHMARKS.md, Chat list in code-server).
   */
  prefetchFirstPage(n: number): void {
    if (this.loaded || this.prefetched) return;
    const entries = this.ready.then((runtime) => runtime.chatList({ newest: n, workspace: this.workspace }));
    this.prefetched = { n, entries };
    entries.then((list) => {
      const now = Date.now();
      for (const e of list) lastActiveWords(e.updatedAt, now);
      if (this.prefetched?.entries === entries) this.prefetched = { n, entries, read: list };
    }, () => {
      if (this.prefetched?.entries === entries) this.prefetched = undefined;
    });
  }

  /** Reads the first page again after a change (see `heard`). */
  private prefetchAgain: NodeJS.Timeout | undefined;

  /** The first page read ahead (`prefetchFirstPage`) until a chat changes; `read`, once it came. */
  private prefetched: { readonly n: number; readonly entries: Promise<ChatListEntry[]>; readonly read?: readonly ChatListEntry[] } | undefined;

  /** The first page of `n` read ahead and current, if it is (`ChatListSource.firstEntriesNow`). */
  firstEntriesNow(n: number): readonly ChatListEntry[] | undefined {
    return this.prefetched?.n === n ? this.prefetched.read : undefined;
  }

  /**
   * Every chat the view knows (the Open Chat… picker's list, `ChatListSource`): loads the list the
   * first time, and first reads the chats a notification named that the 30 ms pause still holds.
   */
  async chatEntries(): Promise<readonly ChatListEntry[]> {
    if (!this.loaded) await this.reload();
    else await this.loaded;
    if (this.timer) {
      clearTimeout(this.timer);
      await this.flush();
    }
    return [...this.entries.values()].map((n) => n.entry);
  }

  getTreeItem(node: Node): vscode.TreeItem {
    return node.kind === 'group' ? groupItem(node.group) : chatItem(node.entry, Date.now());
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (!this.loaded) await this.reload();
    else await this.loaded;
    if (!node) return this.groups.map(({ group }) => ({ kind: 'group', group }));
    return node.kind === 'group' ? this.groups.find((g) => g.group === node.group)?.chats ?? [] : [];
  }

  getParent(node: Node): Node | undefined {
    return node.kind === 'chat' ? { kind: 'group', group: dayGroupOf(node.entry.updatedAt, Date.now()) } : undefined;
  }

  private heard(n: RuntimeNotification): void {
    // A streamed event changes no item; anything else may move a chat into or out of the first
    // page, or change its state: the page is read again once the changes pause.
    const streamed = n.type === 'update' && n.update.type === 'event';
    if (this.prefetched && !streamed) {
      const size = this.prefetched.n;
      this.prefetched = undefined;
      clearTimeout(this.prefetchAgain);
      this.prefetchAgain = setTimeout(() => this.prefetchFirstPage(size), PREFETCH_AGAIN_MS);
    }
    const id = n.type === 'session' ? n.session.id : n.sessionId;
    if (id === ALL_SESSIONS) {
      void this.reload();
      return;
    }
    // A streamed event changes no item; a turn's record (started, ended) and the rest may.
    if (n.type === 'update' && n.update.type === 'event') return;
    this.pending.add(id);
    this.timer ??= setTimeout(() => void this.flush(), 30);
  }

  /** Reads the entries of the chats heard of and redraws what changed. */
  private async flush(): Promise<void> {
    this.timer = undefined;
    const ids = [...this.pending];
    this.pending.clear();
    await this.loaded;
    let regroup = false;
    for (const id of ids) {
      const entry = await (await this.ready).chatListEntry(id);
      const node = this.entries.get(id);
      if (!entry || !node) {
        if (entry) this.entries.set(id, { kind: 'chat', sessionId: id, entry });
        else this.entries.delete(id);
        regroup ||= entry !== undefined || node !== undefined;
        continue;
      }
      const now = Date.now();
      const moved = dayGroupOf(entry.updatedAt, now) !== dayGroupOf(node.entry.updatedAt, now) || entry.updatedAt !== node.entry.updatedAt;
      node.entry = entry;
      if (moved) regroup = true;
      else this.changed.fire(node);
    }
    if (regroup) {
      this.regroup();
    } else {
      this.updateBadge();
      if (ids.length > 0) this.listChanged.fire();
    }
  }

  private regroup(): void {
    const byId = this.entries;
    this.groups = groupChats([...byId.values()].map((n) => n.entry), this.scope, this.workspace, Date.now())
      .map(({ group, chats }) => ({ group, chats: chats.map((c) => byId.get(c.id)!) }));
    this.changed.fire(undefined);
    this.listChanged.fire();
    this.updateBadge();
  }

  private updateBadge(): void {
    if (!this.view) return;
    const waiting = waitingCount([...this.entries.values()].map((n) => n.entry));
    this.view.badge = waiting > 0 ? { value: waiting, tooltip: waiting === 1 ? 'A chat waits for your approval' : `${waiting} chats wait for your approval` } : undefined;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    clearTimeout(this.prefetchAgain);
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

function groupItem(group: DayGroup): vscode.TreeItem {
  const item = new vscode.TreeItem(group, vscode.TreeItemCollapsibleState.Expanded);
  item.id = `group:${group}`;
  item.contextValue = 'chatGroup';
  return item;
}

const STATE_WORDS: Record<ChatListEntry['state'], string> = {
  running: 'The agent is working', waiting: 'Waits for your approval', failed: 'The last reply failed', interrupted: 'The last reply was interrupted by a restart', idle: '',
};

/** The tree item of one chat: title, last activity and agent, an icon for its state (else its agent). */
export function chatItem(entry: ChatListEntry, now: number): vscode.TreeItem {
  const item = new vscode.TreeItem(entry.title, vscode.TreeItemCollapsibleState.None);
  const agent = PROVIDERS.find((p) => p.id === entry.provider)?.label ?? entry.provider;
  item.id = `chat:${entry.id}`;
  item.description = `${lastActiveWords(entry.updatedAt, now)} · ${agent}`;
  item.iconPath =
    entry.state === 'running' ? new vscode.ThemeIcon('loading~spin')
    : entry.state === 'waiting' ? new vscode.ThemeIcon('bell-dot', new vscode.ThemeColor('notificationsWarningIcon.foreground'))
    : entry.state === 'failed' ? new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'))
    : entry.state === 'interrupted' ? new vscode.ThemeIcon('debug-disconnect')
    : new vscode.ThemeIcon(AGENT_ICONS[entry.provider] ?? 'comment-discussion');
  const state = STATE_WORDS[entry.state];
  const where = entry.workspace === null ? 'Workspace: unknown (a chat from an older version)' : entry.workspace === '' ? 'No workspace folder' : `Workspace: ${entry.workspace}`;
  item.tooltip = new vscode.MarkdownString(
    [`**${escapeMarkdown(entry.title)}**`, `${agent} · last active ${new Date(entry.updatedAt).toLocaleString()}`, state, escapeMarkdown(where)].filter(Boolean).join('\n\n'),
  );
  item.accessibilityInformation = { label: [entry.title, state, `${agent}, last active ${lastActiveWords(entry.updatedAt, now)}`].filter(Boolean).join(', ') };
  item.contextValue = entry.workspace === null ? 'chat.unknownWorkspace' : 'chat';
  item.command = { title: 'Open Chat', command: 'nativeAgentChats.openChat', arguments: [{ sessionId: entry.id }] };
  return item;
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!<>|]/g, (c) => `\\${c}`);
}
