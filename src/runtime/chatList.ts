/**
 * The chat list (src/core/chatList.ts) read from the journal: every chat with its state now. A chat
 * is `running` when a run of it is in flight in a live host, `waiting` when such a run waits for an
 * approval; a run whose owner died is neither (recovery settles it).
 */
import type { ChatListEntry, ChatListState } from '../core/chatList';
import type { SessionRecord } from '../core/events';
import type { RuntimeScope } from './scope';

/** Every chat of the journal as the list shows it, most recently active first. */
export async function chatListOf(scope: RuntimeScope): Promise<ChatListEntry[]> {
  const [sessions, states] = await Promise.all([scope.journal.read('listSessions'), liveStates(scope)]);
  return sessions.map((s) => entryOf(s, states.get(s.id) ?? 'idle'));
}

/** One chat as the list shows it, or undefined when it is no longer in the journal. */
export async function chatListEntryOf(scope: RuntimeScope, sessionId: string): Promise<ChatListEntry | undefined> {
  const session = await scope.journal.read('getSession', sessionId);
  return session && entryOf(session, (await liveStates(scope)).get(sessionId) ?? 'idle');
}

function entryOf(session: SessionRecord, state: ChatListState): ChatListEntry {
  return { id: session.id, title: session.title, provider: session.provider, workspace: null, updatedAt: session.updatedAt, state };
}

/** Chats with a run in flight in a live host: `waiting` when it has a pending request, else `running`. */
async function liveStates(scope: RuntimeScope): Promise<Map<string, ChatListState>> {
  const states = new Map<string, ChatListState>();
  const alive = new Map<string, boolean>();
  for (const run of await scope.journal.read('listRunsInFlight')) {
    if (!alive.has(run.instanceId)) {
      const owner = run.instanceId === scope.instance.id ? scope.instance : await scope.journal.read('getInstance', run.instanceId);
      alive.set(run.instanceId, owner !== undefined && (owner.id === scope.instance.id || scope.isAlive(owner)));
    }
    if (!alive.get(run.instanceId)) continue;
    const waiting = (await scope.journal.read('listPendingBoundaryRequests', run.id)).length > 0;
    if (waiting || !states.has(run.sessionId)) states.set(run.sessionId, waiting ? 'waiting' : 'running');
  }
  return states;
}
