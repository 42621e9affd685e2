/**
 * A chat panel's handshake with its view: what answers a view's `ready` and `resync`, and the
 * heartbeat's `ping` (docs/ARCHITECTURE.md, "Long chats: pages and changes": early snapshot).
 *
 * `Handshake` holds the rules and no `vscode`:
 * - A panel may post its first snapshot while the view still loads (`earlySnapshotSent`): VS Code
 *   holds the message until the view's document has loaded. The `ready` that follows is answered
 *   with the live state only.
 * - A view that speaks (any message but `ready`) has loaded: it got the early snapshot, if there was
 *   one, so a `ready` after it is a new view's (the tab shown again, the host back): a snapshot.
 * - A reveal asked while the tab is hidden (its view does not exist: no `retainContextWhenHidden`)
 *   waits for the next `ready`, and follows the snapshot that answers it.
 * - `resync` (the view missed a `seq`) is answered with a snapshot, whatever came before.
 */
import type { WebviewMessageHandlersFor, WebviewMessageType } from '../protocol/hostHandlers';
import type { PanelContext } from './panelContext';

/** A search result to show: the turn and the words to mark in it. */
export interface PendingReveal {
  readonly turnId: string;
  readonly terms: readonly string[];
}

/** What to answer a view's `ready` with (see `Handshake.ready`). */
export interface ReadyAnswer {
  /** True: a snapshot; false: the early snapshot stands, the live state only. */
  readonly snapshot: boolean;
  /** A reveal that waited for a view: posted after the snapshot. */
  readonly reveal?: PendingReveal;
}

/** One panel's handshake state (see module docstring). */
export class Handshake {
  /** An early snapshot was posted and no message of a view has come since. */
  private earlySnapshot = false;
  /** A reveal asked while the view was hidden. */
  private waitingReveal: PendingReveal | undefined;

  /** The panel posted a snapshot before any view asked (`ChatPanel.sendEarlySnapshot`). */
  earlySnapshotSent(): void {
    this.earlySnapshot = true;
  }

  /**
   * A message of type `type` came from the view. Returns true when the view spoke (any type but
   * `ready`): it has loaded, and a later `ready` is a new view's. (A restored tab's view may have
   * posted its `ready` while the journal opened, before the panel listened: it got the early
   * snapshot, and no `ready` of it follows.)
   */
  heard(type: WebviewMessageType): boolean {
    if (type === 'ready') return false;
    this.earlySnapshot = false;
    return true;
  }

  /** The view posted `ready`: what answers it (see `ReadyAnswer`). A waiting reveal goes with a snapshot. */
  ready(): ReadyAnswer {
    const early = this.earlySnapshot;
    this.earlySnapshot = false;
    const reveal = this.waitingReveal;
    this.waitingReveal = undefined;
    if (reveal) return { snapshot: true, reveal };
    return { snapshot: !early };
  }

  /**
   * A reveal was asked: returns it to post now when the tab is `visible` (an older one waiting is
   * dropped), else keeps it for the next `ready` (replacing an older one) and returns undefined.
   */
  reveal(reveal: PendingReveal, visible: boolean): PendingReveal | undefined {
    this.waitingReveal = visible ? undefined : reveal;
    return visible ? reveal : undefined;
  }
}

/** Called with every decoded message before its handler: a view that spoke has loaded (see `Handshake.heard`). */
export function viewHeard(type: WebviewMessageType, panel: PanelContext): void {
  if (panel.handshake.heard(type)) panel.mentions.viewSpoke();
}

/** The handshake's messages. */
export const handshakeHandlers = {
  ready: (_message, panel) => {
    const answer = panel.handshake.ready();
    if (!answer.snapshot) {
      panel.mentions.viewReady();
      return panel.sendLive();
    }
    const snapshot = panel.sendSnapshot();
    if (answer.reveal) panel.postReveal(answer.reveal);
    panel.mentions.viewReady();
    return snapshot;
  },
  resync: (_message, panel) => panel.sendSnapshot(),
  // Answered at once, not behind journal-backed messages: it says the host lives, nothing more.
  ping: (_message, panel) => panel.postNow({ type: 'pong' }),
} satisfies WebviewMessageHandlersFor<'ready' | 'resync' | 'ping', PanelContext>;
