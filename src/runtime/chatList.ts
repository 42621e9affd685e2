/**
 * The chat list (src/core/chatList.ts) read from the journal: every chat's item (`listChats`, three
 * queries however many chats) with its state now, which needs one thing the journal cannot say:
 * whether the window owning a run in flight is alive (`isAlive`, asked once per owner).
 */
import { byRecentActivity, chatState, type ChatListEntry, type ChatListItem } from '../core/chatList';
import type { RuntimeScope } from './scope';

/**
 * Every chat of the journal as the list shows it, most recently active first; with `first`, only
 * the first page: the `first.newest` most recently active chats of all and as many of
 * `first.workspace` (that folder's chats come first in the picker), each once.
 */
export async function chatListOf(scope: RuntimeScope, first?: { readonly newest: number; readonly workspace: string }): Promise<ChatListEntry[]> {
  const items = first ? await firstPage(scope, first.newest, first.workspace) : await scope.journal.read('listChats');
  const alive = await ownersAlive(scope, items);
  return items.map((item) => entryOf(item, alive));
}

/** The newest `n` chats of all and of `workspace`, each once, most recently active first. */
async function firstPage(scope: RuntimeScope, n: number, workspace: string): Promise<ChatListItem[]> {
  // Both asked at once: the worker answers in call order, and a whole list asked meanwhile must not come between.
  const [all, here] = await Promise.all([scope.journal.read('listChats', { newest: n }), scope.journal.read('listChats', { workspace, newest: n })]);
  const ids = new Set(all.map((i) => i.id));
  return [...all, ...here.filter((i) => !ids.has(i.id))].sort(byRecentActivity);
}

/** One chat as the list shows it, or undefined when it is no longer in the journal. */
export async function chatListEntryOf(scope: RuntimeScope, sessionId: string): Promise<ChatListEntry | undefined> {
  const item = await scope.journal.read('getChatListItem', sessionId);
  return item && entryOf(item, await ownersAlive(scope, [item]));
}

function entryOf(item: ChatListItem, alive: ReadonlyMap<string, boolean>): ChatListEntry {
  return {
    id: item.id, title: item.title, provider: item.provider, workspace: item.workspace, updatedAt: item.updatedAt, activity: item.activity,
    state: chatState(item, (instanceId) => alive.get(instanceId) ?? false),
  };
}

/** Whether each owner of the items' runs in flight is alive (this window always is). */
async function ownersAlive(scope: RuntimeScope, items: readonly ChatListItem[]): Promise<Map<string, boolean>> {
  const alive = new Map<string, boolean>();
  for (const item of items) {
    const id = item.runInFlight?.instanceId;
    if (id === undefined || alive.has(id)) continue;
    const owner = id === scope.instance.id ? scope.instance : await scope.journal.read('getInstance', id);
    alive.set(id, owner !== undefined && (owner.id === scope.instance.id || scope.isAlive(owner)));
  }
  return alive;
}
