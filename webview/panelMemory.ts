/**
 * What a chat tab remembers about itself in its persisted state (`setState`): the chat it shows,
 * the composer's unsent text, the messages it posted that the host has not answered yet, and where
 * the user had scrolled to. VS Code destroys a tab's view
 * whenever the tab is hidden (the panel does not retain its context) and on every window reload;
 * without this, switching tabs threw away what the user was typing and where they were reading.
 * DOM-free (unit-tested): `ChatView` wires it to the composer, the transcript and its state store (`HostChannel`).
 */
import { ATTACHMENT_KINDS, type AttachmentRef } from '../src/core/attachments';
import type { WebviewPersistedState } from '../src/protocol/messages';

/** Whether a kept value is an attachment reference (a damaged state may hold anything). */
function isRef(v: unknown): v is AttachmentRef {
  const r = v as Partial<AttachmentRef> | null;
  return typeof r === 'object' && r !== null && typeof r.path === 'string' && (ATTACHMENT_KINDS as readonly unknown[]).includes(r.kind)
    && (r.range === undefined || (typeof r.range === 'object' && r.range !== null && Number.isInteger(r.range.startLine) && Number.isInteger(r.range.endLine)));
}

/** A message the view posted (`send`) that the host has not answered yet. */
export type UnacknowledgedMessage = NonNullable<WebviewPersistedState['unacknowledged']>[number];

/** A place in the transcript: `offset` px below the top of turn `turnId`. */
export type ScrollAnchor = NonNullable<WebviewPersistedState['scrollAnchor']>;

/** Where the state lives: `HostChannel.restore` / `HostChannel.persist` in the view. */
export interface StateStore {
  restore(): WebviewPersistedState | undefined;
  persist(state: WebviewPersistedState): void;
}

/** Keeps the panel's persisted state (see module docstring). */
export class PanelMemory {
  private state: WebviewPersistedState;

  constructor(private readonly store: StateStore) {
    this.state = store.restore() ?? {};
  }

  /** The draft to put back in the composer when the view loads ('' when none). */
  get draft(): string {
    return typeof this.state.draft === 'string' ? this.state.draft : '';
  }

  /**
   * Where the user had scrolled the transcript to (the turn at the top of the view, and px into it),
   * or undefined when they were at the bottom (following the chat) or nothing was kept.
   */
  get scrollAnchor(): ScrollAnchor | undefined {
    const anchor: unknown = this.state.scrollAnchor;
    if (typeof anchor !== 'object' || anchor === null) return undefined;
    const { turnId, offset } = anchor as Record<string, unknown>;
    return typeof turnId === 'string' && typeof offset === 'number' && Number.isFinite(offset) ? { turnId, offset } : undefined;
  }

  /**
   * The messages posted and not answered yet, oldest first ([] when none; entries that are not a
   * `{clientId, text}` of strings, e.g. from a damaged state, are left out).
   */
  get unacknowledged(): readonly UnacknowledgedMessage[] {
    const kept: unknown = this.state.unacknowledged;
    if (!Array.isArray(kept)) return [];
    return kept.filter((m): m is UnacknowledgedMessage =>
      typeof m === 'object' && m !== null && typeof (m as UnacknowledgedMessage).clientId === 'string' && typeof (m as UnacknowledgedMessage).text === 'string');
  }

  /** Records the messages posted and not answered yet (each `send` adds one, each answer removes one). */
  saveUnacknowledged(messages: readonly UnacknowledgedMessage[]): void {
    const { unacknowledged: _dropped, ...rest } = this.state;
    const kept = messages.map(({ clientId, text, replacesTurnId, attachments, undoReplacedFiles }) => ({
      clientId, text,
      ...(typeof replacesTurnId === 'string' ? { replacesTurnId } : {}),
      ...(attachments?.length ? { attachments: attachments.filter(isRef) } : {}),
      ...(typeof replacesTurnId === 'string' && undoReplacedFiles === true ? { undoReplacedFiles: true as const } : {}),
    }));
    this.save(messages.length > 0 ? { ...rest, unacknowledged: kept } : rest);
  }

  /** The composer's chips to put back when the view loads ([] when none; malformed entries left out). */
  get draftAttachments(): AttachmentRef[] {
    const kept: unknown = this.state.draftAttachments;
    return Array.isArray(kept) ? kept.filter(isRef) : [];
  }

  /** Records the composer's chips (on every change; [] once sent). */
  saveDraftAttachments(refs: readonly AttachmentRef[]): void {
    const { draftAttachments: _dropped, ...rest } = this.state;
    if (refs.length === 0 && _dropped === undefined) return;
    this.save(refs.length ? { ...rest, draftAttachments: [...refs] } : rest);
  }

  /** The turn whose restart banner was last scrolled into view, if any. */
  get bannerShown(): string | undefined {
    return typeof this.state.bannerShown === 'string' ? this.state.bannerShown : undefined;
  }

  /** Records that the restart banner of turn `turnId` was scrolled into view. */
  saveBannerShown(turnId: string): void {
    if (turnId !== this.bannerShown) this.save({ ...this.state, bannerShown: turnId });
  }

  /** Records the composer's text (on every edit; '' once sent). */
  saveDraft(text: string): void {
    if (text === this.draft) return;
    this.save({ ...this.state, draft: text });
  }

  /** Records the transcript's scroll position (a turn and px into it), or undefined when at the bottom. */
  saveScroll(anchor: ScrollAnchor | undefined): void {
    const next = anchor === undefined ? undefined : { turnId: anchor.turnId, offset: Math.round(anchor.offset) };
    const kept = this.scrollAnchor;
    if (next?.turnId === kept?.turnId && next?.offset === kept?.offset) return;
    // (`scrollTop`: the px offset kept by earlier versions, meaningless once a chat loads in pages.)
    const { scrollAnchor: _dropped, scrollTop: _old, ...rest } = this.state as WebviewPersistedState & { scrollTop?: unknown };
    this.save(next === undefined ? rest : { ...rest, scrollAnchor: next });
  }

  /**
   * Records the session the panel shows. What was kept for another session (an orphan tab given
   * another chat) is dropped: its draft must not be offered as if typed for this chat.
   * @returns true when something was dropped, so the caller clears the composer and follows the chat.
   */
  showSession(sessionId: string): boolean {
    if (this.state.sessionId === sessionId) return false;
    const dropped = this.state.sessionId !== undefined && (this.draft !== '' || this.scrollAnchor !== undefined);
    this.save(this.state.sessionId !== undefined ? { sessionId } : { ...this.state, sessionId });
    return dropped;
  }

  private save(next: WebviewPersistedState): void {
    this.state = next;
    this.store.persist(next);
  }
}
