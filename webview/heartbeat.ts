/**
 * The chat view's heartbeat: notices an extension host that stopped answering.
 *
 * A view whose extension host died (killed, crashed) stays on screen in VS Code with nobody behind
 * it: clicks go nowhere and a running reply looks live forever. So the view pings the host every
 * `HEARTBEAT.intervalMs` and, when a ping has gone unanswered for `HEARTBEAT.lostAfterMs`, says it
 * lost the host. Only an unanswered ping counts, never the time since the last answer: a view whose
 * timers the browser throttled (a background browser tab) has simply not asked.
 *
 * Pure and clock-free (the caller passes `now`, ms since the epoch), so it is unit-tested without
 * timers; `ChatView` (`chatView.ts`) drives it from one interval.
 */
import { HEARTBEAT } from '../src/protocol/messages';

/** What a tick asks the caller to do. */
export interface HeartbeatTick {
  /** Send a `ping` now. */
  readonly ping: boolean;
  /** The host has not answered a ping for `lostAfterMs` (true on every tick while that lasts). */
  readonly lost: boolean;
}

/** The heartbeat of one view (see module docstring). */
export class Heartbeat {
  /** When the oldest unanswered ping was sent (ms), or undefined when every ping was answered. */
  private unansweredSince: number | undefined;

  constructor(private readonly timing: { readonly intervalMs: number; readonly lostAfterMs: number } = HEARTBEAT) {}

  /** Called every `intervalMs`: pings, and says whether the host counts as lost. */
  tick(now: number): HeartbeatTick {
    if (this.unansweredSince === undefined) {
      this.unansweredSince = now;
      return { ping: true, lost: false };
    }
    return { ping: true, lost: now - this.unansweredSince >= this.timing.lostAfterMs };
  }

  /** Any message from the host answers every ping sent so far. */
  answered(): void {
    this.unansweredSince = undefined;
  }
}
