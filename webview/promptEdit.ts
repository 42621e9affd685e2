/**
 * Edit and resend in the composer: Edit on the last prompt puts its text and its attachments (as
 * chips) in the composer with a bar above it saying that Send replaces that request (the original
 * stays, collapsed as edited) and, when that request changed files, offering to undo those changes
 * first (checked; the host undoes them before the edit goes, asking about conflicts as Undo does);
 * Cancel (or Escape) gives back what the composer held before, text and chips. While editing, the composer's Send
 * posts the text with the turn it replaces (`send` with `replacesTurnId`); the host refuses it if
 * that turn is no longer the chat's last or a reply runs, and the text comes back as any refused
 * message does. The mode is the view's own: a view rebuilt (a reload, a tab switch) keeps the text
 * as a draft, not the mode.
 */
import type { AttachmentRef } from '../src/core/attachments';
import { h } from './dom';

/** The composer as the edit needs it: its text. */
export interface EditableComposer {
  value: string | undefined;
  focus(): void;
}

/** The composer's chips as the edit needs them (`ComposerAttachments`). */
export interface EditableChips {
  take(): AttachmentRef[];
  add(refs: readonly AttachmentRef[]): void;
}

/** What the request being replaced brings to the edit. */
export interface EditedRequest {
  /** Its attachments, put back as chips (the host reads them again when the edit is sent). */
  readonly attachments?: readonly AttachmentRef[];
  /** How many files it changed that no undo has put back (0: no offer to undo them). */
  readonly changedFiles?: number;
}

/** An edit being sent: the turn it replaces, and whether that turn's file changes are undone first. */
export interface FinishedEdit {
  readonly turnId: string;
  readonly undoFiles: boolean;
}

/** The edit mode (see module docstring). `onChange`: the composer's text changed here (save the draft). */
export class PromptEdit {
  /** `div.edit-bar` above the composer, hidden while not editing. */
  readonly bar: HTMLElement;
  /** The offer to undo the replaced request's file changes first (hidden when it changed none). */
  private readonly undoOffer: HTMLElement;
  private undoChecked = true;
  private editing: { readonly turnId: string; readonly before: string; readonly beforeChips: AttachmentRef[]; readonly changedFiles: number } | null = null;

  constructor(private readonly composer: EditableComposer, private readonly onChange: (text: string) => void, private readonly chips: EditableChips) {
    this.undoOffer = h('vscode-checkbox', { class: 'edit-undo-files', checked: true, hidden: true }, '');
    this.undoOffer.addEventListener('change', (event) => {
      this.undoChecked = (event.target as { checked?: boolean }).checked === true;
    });
    this.bar = h(
      'div',
      { class: 'edit-bar', role: 'status', hidden: true },
      h('span', { class: 'edit-message' }, 'Editing your last request: Send replaces it (the original stays, collapsed as edited).'),
      this.undoOffer,
      h('vscode-button', { 'data-action': 'cancel-edit', appearance: 'secondary', 'aria-label': 'Cancel the edit' }, 'Cancel'),
    );
  }

  /** The turn being edited, or null. */
  get turnId(): string | null {
    return this.editing?.turnId ?? null;
  }

  /**
   * Starts editing `turnId`, whose prompt is `prompt`: the composer holds the prompt and the
   * request's attachments as chips; what it held is kept for Cancel. When the request changed files,
   * the bar offers (checked) to undo those changes before the edit is sent.
   */
  start(turnId: string, prompt: string, request: EditedRequest = {}): void {
    const before = this.editing ? this.editing.before : this.composer.value ?? '';
    const beforeChips = this.editing ? this.editing.beforeChips : this.chips.take();
    if (this.editing) this.chips.take();
    const changedFiles = request.changedFiles ?? 0;
    this.editing = { turnId, before, beforeChips, changedFiles };
    this.chips.add(request.attachments ?? []);
    this.undoChecked = true;
    (this.undoOffer as HTMLElement & { checked?: boolean }).checked = true;
    this.undoOffer.textContent = `Undo the changes it made to ${changedFiles === 1 ? '1 file' : `${changedFiles} files`} first`;
    this.undoOffer.hidden = changedFiles === 0;
    this.set(prompt);
    this.bar.hidden = false;
    this.composer.focus();
  }

  /** Cancels the edit: the composer gets back what it held before, text and chips. No-op while not editing. */
  cancel(): void {
    if (!this.editing) return;
    const { before, beforeChips } = this.editing;
    this.editing = null;
    this.bar.hidden = true;
    this.chips.take();
    this.chips.add(beforeChips);
    this.set(before);
    this.composer.focus();
  }

  /**
   * The edit was sent: leaves the mode (the composer is cleared by the send). Returns the turn it
   * replaces and whether its file changes are to be undone first, or undefined when not editing.
   */
  finish(): FinishedEdit | undefined {
    const editing = this.editing;
    this.editing = null;
    this.bar.hidden = true;
    return editing ? { turnId: editing.turnId, undoFiles: editing.changedFiles > 0 && this.undoChecked } : undefined;
  }

  private set(text: string): void {
    this.composer.value = text;
    this.onChange(text);
  }
}
