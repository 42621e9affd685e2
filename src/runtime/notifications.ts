/**
 * What the runtime tells its listeners (the host's chat panels), and the one place that tells them.
 *
 * A listener hears of an event only after the journal acknowledged it. The `live` notification
 * carries the chat's `LiveState`, computed once here rather than read back by every panel; live
 * notifications are computed one after another, so a later one never carries an older state than
 * an earlier one, and a request for a chat already waiting its turn is folded into that one.
 */
import type { LedgerEvent, SessionRecord } from '../core/events';
import { Sequencer } from '../core/sequencer';
import type { TranscriptUpdate } from '../core/transcript';
import type { LiveState } from '../protocol/messages';

/** What the runtime tells its listeners. */
export type RuntimeNotification =
  | { readonly type: 'update'; readonly sessionId: string; readonly update: TranscriptUpdate }
  /**
   * The chat's live facts changed (running, answerable requests, read-only reason). `readAt`:
   * `performance.now()` (ms) when reading `live` began, so a panel can tell it from a snapshot's.
   */
  | { readonly type: 'live'; readonly sessionId: string; readonly live: LiveState; readonly readAt: number }
  | { readonly type: 'session'; readonly session: SessionRecord }
  /** This window deleted the chat: its views close. */
  | { readonly type: 'deleted'; readonly sessionId: string }
  /** Another window changed this chat: views re-read it from the journal. */
  | { readonly type: 'refresh'; readonly sessionId: string }
  /** This window changed the chat's queue (a message queued, edited, discarded, sent or held): views re-read it. */
  | { readonly type: 'queue'; readonly sessionId: string }
  /** This window journaled file changes of the chat, or an undo or redo of them: views re-read its checkpoints. */
  | { readonly type: 'files'; readonly sessionId: string };

/** `refresh` target meaning every open chat. */
export const ALL_SESSIONS = '*';

/** The runtime's listeners and what it tells them (see module docstring). */
export class Notifier {
  private readonly listeners = new Set<(n: RuntimeNotification) => void>();
  /** Live notifications not computed yet, in order. */
  private readonly liveQueue = new Sequencer();
  /** Chats whose live notification waits in `liveQueue` and has not started. */
  private readonly liveQueued = new Set<string>();

  /**
   * @param liveStateOf the chat's live facts now (journal reads); a throw is logged and that
   *                    notification dropped.
   */
  constructor(
    private readonly liveStateOf: (sessionId: string) => Promise<LiveState>,
    private readonly log: (line: string) => void,
  ) {}

  /** Subscribes to notifications; returns an unsubscribe function. */
  on(listener: (n: RuntimeNotification) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells every listener; a listener that throws is logged and the others still hear it. */
  emit(n: RuntimeNotification): void {
    for (const listener of this.listeners) {
      try {
        listener(n);
      } catch (error) {
        this.log(`[runtime] listener failed: ${(error as Error).message}`);
      }
    }
  }

  /** Tells listeners of journaled ledger events of a chat, one `update` each, in order. */
  publish(sessionId: string, events: readonly LedgerEvent[]): void {
    for (const event of events) this.emit({ type: 'update', sessionId, update: { type: 'event', event } });
  }

  /**
   * Queues a `live` notification of the chat: its state is read when its turn comes, after every
   * earlier one. Nothing is read while nobody listens.
   */
  live(sessionId: string): void {
    if (this.listeners.size === 0 || this.liveQueued.has(sessionId)) return;
    this.liveQueued.add(sessionId);
    void this.liveQueue.run(async () => {
      // Taken off before the read: a change during the read queues a notification of its own.
      this.liveQueued.delete(sessionId);
      if (this.listeners.size === 0) return;
      const readAt = performance.now();
      this.emit({ type: 'live', sessionId, live: await this.liveStateOf(sessionId), readAt });
    }).catch((error: unknown) => this.log(`[runtime] could not read the live state of chat ${sessionId}: ${(error as Error).message}`));
  }

  /** Tells listeners that the chat's checkpoints changed (`files`). */
  filesChanged(sessionId: string): void {
    this.emit({ type: 'files', sessionId });
  }

  /** Forgets every listener (the runtime is disposed). */
  clear(): void {
    this.listeners.clear();
  }
}
