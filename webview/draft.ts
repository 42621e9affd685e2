/**
 * The composer's unsent text, kept in the panel's persisted state. A chat tab's view is destroyed
 * whenever the tab is hidden (the panel does not retain its context) and on every window reload;
 * without this, switching tabs or reloading threw away what the user was typing. DOM-free
 * (unit-tested): the entry point wires it to the composer and to `HostChannel`.
 */
import type { WebviewPersistedState } from '../src/protocol/messages';

/** Where the state lives: `HostChannel.restore` / `HostChannel.persist` in the view. */
export interface StateStore {
  restore(): WebviewPersistedState | undefined;
  persist(state: WebviewPersistedState): void;
}

/** Keeps the panel's persisted state: the session it shows and the draft typed for it. */
export class DraftKeeper {
  private state: WebviewPersistedState;

  constructor(private readonly store: StateStore) {
    this.state = store.restore() ?? {};
  }

  /** The draft to put back in the composer when the view loads ('' when none). */
  get draft(): string {
    return typeof this.state.draft === 'string' ? this.state.draft : '';
  }

  /** Records the composer's text (on every edit; '' once sent). */
  saveDraft(text: string): void {
    if (text === this.draft) return;
    this.save({ ...this.state, draft: text });
  }

  /**
   * Records the session the panel shows. A draft typed for another session is dropped (an orphan
   * tab that was given another chat must not offer the old chat's text as if typed for this one).
   * @returns true when the draft was dropped, so the caller clears the composer.
   */
  showSession(sessionId: string): boolean {
    if (this.state.sessionId === sessionId) return false;
    const dropped = this.state.sessionId !== undefined && this.draft !== '';
    this.save(dropped ? { sessionId } : { ...this.state, sessionId });
    return dropped;
  }

  private save(next: WebviewPersistedState): void {
    this.state = next;
    this.store.persist(next);
  }
}
