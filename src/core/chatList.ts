/**
 * What a chat list item shows besides its title: the chat's state, from the facts the journal
 * keeps (`listChats`) and whether a run's owner window is alive (only the runtime knows that).
 * Pure module.
 */
import type { ErrorClass, TurnStatus } from './vocabulary';

/** A chat as a list shows it (the journal's `listChats` / `getChatListItem`). Times in ms since the epoch. */
export interface ChatListItem {
  readonly id: string;
  readonly title: string;
  readonly provider: string;
  /** The folder the chat was created in ('' no folder, null unknown; see `SessionRecord.workspace`). */
  readonly workspace: string | null;
  readonly createdAt: number;
  /** The last activity: a prompt sent, a run ended, a rename. */
  readonly updatedAt: number;
  /** A run of the chat marked running, with the instance (window) that owns it; null when none. */
  readonly runInFlight: { readonly runId: string; readonly instanceId: string } | null;
  /** Boundary requests of the chat waiting for a decision. */
  readonly pendingRequests: number;
  /** The chat's newest turn (null: no turn yet, or one this build cannot read). */
  readonly lastTurn: { readonly id: string; readonly status: TurnStatus; readonly errorClass: ErrorClass | null } | null;
}

/**
 * A chat's state for its list item: `waiting` (a boundary request waits for a decision), `running`
 * (a run in flight whose owner is alive), `interrupted` (its last turn was ended by a restart, or a
 * run is marked running but its owner is gone and recovery has not closed it yet), `failed` (its last
 * turn failed), else `idle` (completed, stopped, or no turn yet).
 */
export type ChatState = 'waiting' | 'running' | 'interrupted' | 'failed' | 'idle';

/** Error classes of a turn ended by a restart rather than by the agent. */
const RESTART_CLASSES: readonly ErrorClass[] = ['app_restarted', 'sandbox_boundary_closed_by_restart'];

/**
 * The state of `item` (see ChatState). `ownerAlive(instanceId)`: whether the window that owns a run
 * still runs (the runtime's liveness check).
 */
export function chatState(item: ChatListItem, ownerAlive: (instanceId: string) => boolean): ChatState {
  if (item.pendingRequests > 0) return 'waiting';
  if (item.runInFlight) return ownerAlive(item.runInFlight.instanceId) ? 'running' : 'interrupted';
  const last = item.lastTurn;
  if (last?.status === 'failed') return last.errorClass && RESTART_CLASSES.includes(last.errorClass) ? 'interrupted' : 'failed';
  return 'idle';
}
