/**
 * The chat view's composer as the user uses it: the text kept as a draft in the tab's state and the
 * box grown with it, the chips and `@` list (`ComposerAttachments`), the edit mode
 * (`PromptEdit`), Send, Queue, Stop and Jump to latest, the keys (Enter sends, Escape cancels an
 * edit, Shift+Tab goes to a waiting approval), and the view's outbox (`outbox.ts`): a message is
 * kept until the host answers it, and a refused one gives its text and chips back. Owned by
 * `ChatView`, which hands it the state and where messages go.
 */
import type { AttachmentRef } from '../src/core/attachments';
import type { HostMessageOf } from '../src/protocol/viewHandlers';
import type { WebviewMessage } from '../src/protocol/messages';
import { focusWaitingCard, isShiftTab } from './approvalFocus';
import { ComposerAttachments } from './composerAttachments';
import { composerRows, decideSend, isSelectAllKey, isSendKey } from './input';
import type { Skeleton } from './layout';
import { ViewOutbox } from './outbox';
import type { PanelMemory } from './panelMemory';
import { PromptEdit } from './promptEdit';
import { sendBlockedReason, type ViewState } from './state';

/** What the composer works with. */
export interface ComposerDeps {
  readonly sk: Skeleton;
  /** The tab's persisted state (draft, chips, unanswered messages). */
  readonly memory: PanelMemory;
  /** Posts a message to the host. */
  readonly post: (message: WebviewMessage) => void;
  /** Says a sentence in the view's polite live region. */
  readonly announce: (text: string) => void;
  readonly state: () => ViewState;
  readonly setState: (next: ViewState) => void;
  /** Follows the bottom of the transcript again. */
  readonly pinToBottom: () => void;
  /** Follows the bottom and lays the transcript out again (Shift+Tab to a waiting card at its end). */
  readonly toEnd: () => void;
  /** The queue under the transcript: a queued message's refused edit, and its answer (`QueueView`). */
  readonly queue: { takeRefusedEdit(clientId: string): string | undefined; answered(clientId: string): void };
  /** Makes a message's client id (default: a random UUID, `newClientId`). */
  readonly makeClientId?: () => string;
}

/** The composer (see module docstring). */
export class Composer {
  /** The chips and the `@` list. */
  readonly attachments: ComposerAttachments;
  private readonly promptEdit: PromptEdit;
  private readonly outbox: ViewOutbox;

  /** Puts the kept draft and chips back and wires the composer's elements. */
  constructor(private readonly deps: ComposerDeps) {
    const { sk, memory } = deps;
    this.outbox = new ViewOutbox(memory, (m) => deps.post(m), deps.makeClientId);
    sk.composer.value = memory.draft;
    // Before the composer's send key is wired: the `@` list takes Enter, Tab, arrows and Escape first.
    this.attachments = new ComposerAttachments({
      composerBox: sk.composerBox, composer: sk.composer, dropZone: sk.app, post: deps.post,
      announce: deps.announce,
      showError: (message) => deps.setState({ ...deps.state(), error: { code: 'not_attached', message } }),
      kept: memory.draftAttachments, keep: (refs) => memory.saveDraftAttachments(refs),
    });
    this.promptEdit = new PromptEdit(sk.composer, (text) => (memory.saveDraft(text), this.fit()), this.attachments);
    sk.composerBox.prepend(this.promptEdit.bar);
    // 'input' as the user types; 'change' also after a paste or a programmatic edit is committed.
    for (const kind of ['input', 'change']) sk.composer.addEventListener(kind, () => (memory.saveDraft(sk.composer.value ?? ''), this.fit()));
    this.fit(); // a draft kept from before the view was rebuilt
    this.wire();
  }

  /** Wires the send key (after the `@` list's keys) and the composer's buttons. */
  private wire(): void {
    const { sk } = this.deps;
    sk.composer.addEventListener('keydown', (event: KeyboardEvent) => this.onKeyDown(event));
    sk.jumpToLatest.addEventListener('click', () => {
      this.deps.pinToBottom();
      // The button hides once at the bottom: focus goes where the user most likely continues.
      this.focus();
    });
    sk.send.addEventListener('click', () => {
      if (!sk.send.hasAttribute('disabled')) this.send();
    });
    sk.queueSend.addEventListener('click', () => {
      if (sk.queueSend.hasAttribute('disabled')) return;
      this.send();
      this.focus();
    });
    sk.stop.addEventListener('click', () => {
      if (sk.stop.hasAttribute('disabled')) return;
      this.deps.post({ type: 'stop' });
      // Stop is hidden once the run ends, which dropped the focus: Enter then did nothing.
      this.focus();
    });
  }

  /** Puts the focus in the composer. */
  focus(): void {
    this.deps.sk.composer.focus();
  }

  /** Empties the composer (text and chips) without keeping an empty draft: the chat shown changed. */
  clear(): void {
    this.deps.sk.composer.value = '';
    this.fit();
    this.attachments.take();
  }

  /** Posts every message not answered yet again, with its own id, oldest first (a rebuilt view, once its chat has come). */
  resend(): void {
    this.outbox.resend();
  }

  /** Cancels the edit mode, if on (what the composer held before comes back). */
  cancelEdit(): void {
    this.promptEdit.cancel();
  }

  /**
   * The host answered a message of the outbox or an action on a queued one: it is no longer kept. A
   * refused one (a send, an edit) gives its text back in the composer — after what is there, if
   * anything — so that nothing typed is lost; the error bar says why.
   */
  acknowledge(message: HostMessageOf<'succeeded' | 'error'>): void {
    const clientId = message.clientId;
    if (!clientId) return;
    const posted = this.outbox.answered(clientId);
    const edited = message.type === 'error' && message.action === 'editQueued' ? this.deps.queue.takeRefusedEdit(clientId) : undefined;
    this.deps.queue.answered(clientId);
    // A refused edit and resend goes back into the edit mode, so that Send replaces the request again.
    if (message.type === 'error' && posted?.replacesTurnId && this.resumeEdit(posted.replacesTurnId, posted.text, posted.attachments)) return;
    const back = message.type === 'error' ? posted?.text ?? edited : undefined;
    if (back !== undefined) this.giveBack(back);
    // A refused message's attachments go back to the composer too.
    if (message.type === 'error' && posted?.attachments.length) this.attachments.add(posted.attachments);
  }

  /** Starts editing request `turnId` with `text` and `refs` in the composer (see PromptEdit). */
  startEdit(turnId: string, text: string, refs: readonly AttachmentRef[]): void {
    const files = this.deps.state().files.get(turnId);
    this.promptEdit.start(turnId, text, { attachments: refs, changedFiles: files && files.undoneBy === null ? files.files.length : 0 });
  }

  /** Gives text the user typed back in the composer, after what is there (the draft is saved). */
  giveBack(text: string): void {
    const { sk, memory } = this.deps;
    const now = sk.composer.value ?? '';
    sk.composer.value = now.trim() ? `${now}\n\n${text}` : text;
    memory.saveDraft(sk.composer.value);
    this.fit();
  }

  /** Grows the composer with its text (up to `COMPOSER_ROWS.max` rows) and shrinks it back when it empties. */
  private fit(): void {
    const rows = composerRows(this.deps.sk.composer.value ?? '');
    const el = this.deps.sk.composer as unknown as { rows: number };
    if (el.rows !== rows) el.rows = rows;
  }

  /**
   * Puts a refused edit of `turnId` back in the edit mode (text, chips, the offer to undo its files)
   * when the composer is empty and that request is still the chat's last; else false (the text is
   * given back as any refused message's).
   */
  private resumeEdit(turnId: string, text: string, refs: readonly AttachmentRef[]): boolean {
    const composer = this.deps.sk.composer;
    if ((composer.value ?? '').trim() || this.attachments.attachments.length || this.deps.state().transcript.turns.at(-1)?.id !== turnId) return false;
    this.startEdit(turnId, text, refs);
    return true;
  }

  /** Sends the composer's text if it may be sent (the host queues it while the agent works), then clears it. */
  private send(): void {
    const { sk, memory } = this.deps;
    const state = this.deps.state();
    const decision = decideSend(sk.composer.value ?? '', sendBlockedReason(state));
    if (decision.kind === 'ignore') return;
    if (decision.kind === 'refuse') {
      this.deps.setState({ ...state, error: { code: decision.code ?? 'not_sent', message: decision.reason } });
      return;
    }
    const edit = this.promptEdit.finish();
    this.outbox.send(decision.text, { replacesTurnId: edit?.turnId, undoReplacedFiles: edit?.undoFiles, attachments: this.attachments.take() });
    sk.composer.value = '';
    memory.saveDraft('');
    this.fit();
    this.deps.pinToBottom();
    this.focus();
  }

  private onKeyDown(event: KeyboardEvent): void {
    const { sk } = this.deps;
    // The browser selects all in the text box at once; not forwarded, VS Code does not do it again later.
    if (isSelectAllKey(event)) return event.stopPropagation();
    if (event.key === 'Escape' && this.promptEdit.turnId) {
      event.preventDefault();
      return this.promptEdit.cancel();
    }
    if (isShiftTab(event) && focusWaitingCard({
      content: sk.content,
      waiting: () => this.deps.state().mode === 'chat' && this.deps.state().live.actionableRequestIds.length > 0,
      toEnd: this.deps.toEnd,
    })) return event.preventDefault();
    if (!isSendKey(event)) return;
    event.preventDefault();
    if (!sk.send.hasAttribute('disabled')) this.send();
  }
}
