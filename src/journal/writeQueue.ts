/**
 * The journal worker's message queue. Messages that arrive together are queued and drained on the
 * next turn of the event loop; consecutive writes among them form one write group (at most
 * MAX_GROUP: one lock, one fdatasync), everything else runs alone, in arrival order (a `changed`
 * among writes runs once after their group rather than splitting it). After the last
 * queued write the writer lease is kept a moment (`leaseIdleMs`) for the next one, then let go.
 */
import type { ToWorker } from './workerProtocol';

/** Most transactions committed as one group. */
const MAX_GROUP = 64;

/** Default: the lease is let go after this long (ms) without a queued write. */
const LEASE_IDLE_MS = 2;

/** A write message. */
export type WriteMessage = Extract<ToWorker, { kind: 'write' }>;

/** Any other message. */
export type OtherMessage = Exclude<ToWorker, { kind: 'write' }>;

/** What the queue runs its messages with. */
export interface WriteQueueHost {
  /** Commits consecutive writes as one group. */
  readonly writeGroup: (group: WriteMessage[]) => void;
  /** Runs a read, a close or a compaction request. */
  readonly handle: (message: OtherMessage) => void;
  /** True once the journal closed: nothing more runs. */
  readonly closed: () => boolean;
  /** True while the store keeps the writer lease. */
  readonly holdsLease: () => boolean;
  /** Lets the writer lease go. */
  readonly releaseLease: () => void;
}

/** A write, or a `changed` hint, which a write group absorbs (see `drain`). */
const joinsGroup = (m: ToWorker): boolean => m.kind === 'write' || m.kind === 'changed';

/** The queue (see module docstring). */
export class WriteQueue {
  private readonly queue: ToWorker[] = [];
  private draining = false;
  /** Lets the lease go once no write came for `leaseIdleMs`; refreshed after each drain. */
  private readonly linger: NodeJS.Timeout;

  /** `leaseIdleMs`: how long (ms) the lease is kept without a queued write (default 2). */
  constructor(
    private readonly host: WriteQueueHost,
    leaseIdleMs = LEASE_IDLE_MS,
  ) {
    this.linger = setTimeout(() => {
      if (this.queue.length === 0 && !host.closed()) host.releaseLease();
    }, leaseIdleMs);
    this.linger.unref?.();
  }

  /** Queues `message`; the queue drains on the next turn, with whatever arrived by then. */
  push(message: ToWorker): void {
    this.queue.push(message);
    if (!this.draining) {
      this.draining = true;
      setImmediate(() => this.drain()); // messages that arrived together are all queued by then: one group
    }
  }

  /** Stops the lease's idle timer (the journal is closing). */
  stop(): void {
    clearTimeout(this.linger);
  }

  private drain(): void {
    this.draining = false;
    const queue = this.queue;
    while (queue.length > 0 && !this.host.closed()) {
      if (queue[0]!.kind === 'write') {
        const group: WriteMessage[] = [];
        // A `changed` among the writes (the opener's folder watch sees this process's own appends
        // too) must not split them into two groups: its catch-up runs once, after the group.
        let changed = false;
        while (queue.length > 0 && group.length < MAX_GROUP && joinsGroup(queue[0]!)) {
          const m = queue.shift()!;
          if (m.kind === 'write') group.push(m);
          else changed = true;
        }
        this.host.writeGroup(group);
        if (changed && !this.host.closed()) this.host.handle({ kind: 'changed' });
      } else {
        this.host.handle(queue.shift() as OtherMessage);
      }
    }
    if (!this.host.closed() && this.host.holdsLease()) this.linger.refresh();
  }
}
