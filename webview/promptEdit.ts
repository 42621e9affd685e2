/**
 * Edit and resend in the composer: Edit on the last prompt puts its text in the composer with a bar
 * above it saying that Send replaces that request (the original stays, collapsed as edited), and
 * Cancel (or Escape) gives back what the composer held before. While editing, the composer's Send
 * posts the text with the turn it replaces (`send` with `replacesTurnId`); the host refuses it if
 * that turn is no longer the chat's last or a reply runs, and the text comes back as any refused
 * message does. The mode is the view's own: a view rebuilt (a reload, a tab switch) keeps the text
 * as a draft, not the mode.
 */
import { h } from './dom';

/** The composer as the edit needs it: its text. */
export interface EditableComposer {
  value: string | undefined;
  focus(): void;
}

/** The edit mode (see module docstring). `onChange`: the composer's text changed here (save the draft). */
export class PromptEdit {
  /** `div.edit-bar` above the composer, hidden while not editing. */
  readonly bar: HTMLElement;
  private editing: { readonly turnId: string; readonly before: string } | null = null;

  constructor(private readonly composer: EditableComposer, private readonly onChange: (text: string) => void) {
    this.bar = h(
      'div',
      { class: 'edit-bar', role: 'status', hidden: true },
      h('span', { class: 'edit-message' }, 'Editing your last request: Send replaces it (the original stays, collapsed as edited).'),
      h('vscode-button', { 'data-action': 'cancel-edit', appearance: 'secondary', 'aria-label': 'Cancel the edit' }, 'Cancel'),
    );
  }

  /** The turn being edited, or null. */
  get turnId(): string | null {
    return this.editing?.turnId ?? null;
  }

  /** Starts editing `turnId`, whose prompt is `prompt`: the composer holds the prompt, what it held is kept for Cancel. */
  start(turnId: string, prompt: string): void {
    const before = this.editing ? this.editing.before : this.composer.value ?? '';
    this.editing = { turnId, before };
    this.set(prompt);
    this.bar.hidden = false;
    this.composer.focus();
  }

  /** Cancels the edit: the composer gets back what it held before. No-op while not editing. */
  cancel(): void {
    if (!this.editing) return;
    const { before } = this.editing;
    this.editing = null;
    this.bar.hidden = true;
    this.set(before);
    this.composer.focus();
  }

  /** The edit was sent: leaves the mode (the composer is cleared by the send). Returns the turn it replaces, or undefined. */
  finish(): string | undefined {
    const turnId = this.editing?.turnId;
    this.editing = null;
    this.bar.hidden = true;
    return turnId;
  }

  private set(text: string): void {
    this.composer.value = text;
    this.onChange(text);
  }
}
