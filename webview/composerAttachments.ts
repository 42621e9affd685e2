/**
 * The composer's attachments in the DOM: chips above the text (kept in the tab's state with the
 * draft), the `@` list (asked of the host as the user types: the view never walks the disk), and
 * files dropped from VS Code's Explorer or editor tabs. The rules are `attachments.ts` (pure); this
 * module wires them to the composer, the host and the announcer.
 *
 * Keyboard: while the `@` list is open, Up/Down move in it, Enter or Tab attach the highlighted
 * item and Escape closes it (none of them reaches the composer's own handling: construct this before
 * the composer's send key is wired). Backspace in an empty composer removes the last chip; each chip's
 * remove button is in the tab order and named with what it removes. The list lives outside the text
 * area's shadow root, so the highlighted item is said through the view's polite status region.
 */
import type { AttachmentRef } from '../src/core/attachments';
import type { CompletionItem, HostMessage, WebviewMessage } from '../src/protocol/messages';
import { addAttachments, chipName, droppedUris, mentionAt, moveActive, withoutMention, type Mention, type MentionList } from './attachments';
import { h } from './dom';
import type { ValueElement } from './layout';
import { renderChips, renderMentionList } from './render/attachmentViews';

/** What the controller needs from the view. */
export interface ComposerAttachmentsDeps {
  readonly composerBox: HTMLElement;
  readonly composer: ValueElement;
  /** The element files may be dropped on (the whole chat). */
  readonly dropZone: HTMLElement;
  readonly post: (message: WebviewMessage) => void;
  /** Says a sentence in the polite status region. */
  readonly announce: (text: string) => void;
  /** Shows a sentence in the error bar. */
  readonly showError: (text: string) => void;
  /** The chips kept in the tab's state, and where to keep them. */
  readonly kept: readonly AttachmentRef[];
  readonly keep: (refs: readonly AttachmentRef[]) => void;
}

/** The inner `<textarea>` of the toolkit's text area (its caret), when there is one. */
function textControl(composer: ValueElement): HTMLTextAreaElement | undefined {
  const control = (composer as unknown as { control?: HTMLTextAreaElement }).control;
  return typeof control?.selectionStart === 'number' ? control : undefined;
}

/** The composer's chips, `@` list and drops (see module docstring). */
export class ComposerAttachments {
  private refs: AttachmentRef[];
  private list: MentionList | undefined;
  private mention: Mention | undefined;
  private nextRequest = 0;
  readonly chips: HTMLElement;
  readonly mentionBox: HTMLElement;

  constructor(private readonly deps: ComposerAttachmentsDeps) {
    this.refs = [...deps.kept];
    this.chips = h('ul', { class: 'chips', 'aria-label': 'Attachments', hidden: true });
    this.mentionBox = h('div', { id: 'mention-list', class: 'mention-list', role: 'listbox', 'aria-label': 'Attach a file, folder, problems or the selection', hidden: true });
    deps.composerBox.prepend(this.mentionBox, this.chips);
    renderChips(this.chips, this.refs);
    this.chips.addEventListener('click', (event) => this.onChipClick(event));
    deps.composer.addEventListener('input', () => this.onInput());
    deps.composer.addEventListener('keydown', (event) => this.onKeyDown(event));
    deps.composer.addEventListener('blur', () => this.close());
    deps.dropZone.addEventListener('dragover', (event) => this.onDragOver(event));
    deps.dropZone.addEventListener('dragleave', () => deps.dropZone.classList.remove('drop-target'));
    deps.dropZone.addEventListener('drop', (event) => this.onDrop(event));
  }

  /** The chips of the message being written. */
  get attachments(): readonly AttachmentRef[] {
    return this.refs;
  }

  /** Takes the chips for a message being sent: they leave the composer. */
  take(): AttachmentRef[] {
    const taken = this.refs;
    this.set([]);
    return taken;
  }

  /** Adds attachments (a refused message given back, a host's `attach`); says how many did not fit. */
  add(refs: readonly AttachmentRef[]): void {
    const { list, refused } = addAttachments(this.refs, refs);
    this.set(list);
    if (refused > 0) this.deps.showError(`A message holds at most ${list.length} attachments: ${refused} more were not added.`);
    else if (refs.length > 0) this.deps.announce(`Attached ${refs.map(chipName).join(', ')}.`);
  }

  /** Handles the host's `completions` and `attach`; other messages are not this module's. */
  receive(message: HostMessage): void {
    if (message.type === 'completions' && this.list && message.requestId === this.list.requestId) {
      this.list = { ...this.list, items: message.items, active: 0, searching: false };
      this.renderList();
      this.deps.announce(message.items.length ? `${message.items.length} suggestions. ${this.spoken()}` : 'No matching files.');
    } else if (message.type === 'attach') {
      this.add(message.attachments);
      if (message.focus) this.deps.composer.focus();
    }
  }

  private set(refs: AttachmentRef[]): void {
    this.refs = refs;
    renderChips(this.chips, refs);
    this.deps.keep(refs);
  }

  private onChipClick(event: Event): void {
    const target = event.target as Element | null;
    const button = typeof target?.closest === 'function' ? target.closest<HTMLElement>('[data-chip-index]') : null;
    if (!button) return;
    const index = Number(button.dataset.chipIndex);
    const removed = this.refs[index];
    if (!removed) return;
    this.set(this.refs.filter((_, i) => i !== index));
    this.deps.announce(`Removed ${chipName(removed)}.`);
    // The button is gone: the focus goes to the next chip's, else back to the text.
    const next = this.chips.querySelectorAll<HTMLElement>('[data-chip-index]')[Math.min(index, this.refs.length - 1)];
    (next ?? this.deps.composer).focus();
  }

  private onInput(): void {
    const text = this.deps.composer.value ?? '';
    const control = textControl(this.deps.composer);
    const caret = control?.selectionStart ?? text.length;
    this.mention = mentionAt(text, caret);
    if (!this.mention) return this.close();
    const requestId = ++this.nextRequest;
    // The last answer stays shown (no flicker) until this one comes; none yet reads "Searching…".
    this.list = { requestId, items: this.list?.items ?? [], active: 0, searching: true };
    this.deps.post({ type: 'complete', requestId, query: this.mention.query });
    this.renderList();
  }

  private onKeyDown(event: KeyboardEvent): void {
    if (!this.list) {
      if (event.key === 'Backspace' && (this.deps.composer.value ?? '') === '' && this.refs.length > 0) {
        const last = this.refs[this.refs.length - 1]!;
        this.set(this.refs.slice(0, -1));
        this.deps.announce(`Removed ${chipName(last)}.`);
      }
      return;
    }
    const handled = event.key === 'ArrowDown' || event.key === 'ArrowUp' || event.key === 'Escape'
      || ((event.key === 'Enter' || event.key === 'Tab') && !event.shiftKey && this.list.items.length > 0);
    if (!handled) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    if (event.key === 'Escape') return this.close();
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      this.list = moveActive(this.list, event.key === 'ArrowDown' ? 1 : -1);
      this.renderList();
      this.deps.announce(this.spoken());
      return;
    }
    const item = this.list.items[this.list.active];
    if (item) this.pick(item);
  }

  /** The highlighted item in words. */
  private spoken(): string {
    const item = this.list?.items[this.list.active];
    return item ? `${item.label}${item.detail ? `, ${item.detail}` : ''} (${this.list!.active + 1} of ${this.list!.items.length})` : '';
  }

  /** Attaches `item` and takes its `@query` out of the text. */
  private pick(item: CompletionItem): void {
    const composer = this.deps.composer;
    if (this.mention) {
      const { text, caret } = withoutMention(composer.value ?? '', this.mention);
      composer.value = text;
      composer.dispatchEvent(new Event('change'));
      textControl(composer)?.setSelectionRange(caret, caret);
    }
    this.close();
    this.add([item.ref]);
    composer.focus();
  }

  private close(): void {
    this.list = undefined;
    this.mention = undefined;
    this.renderList();
  }

  private renderList(): void {
    renderMentionList(this.mentionBox, this.list, (item) => this.pick(item));
  }

  private onDragOver(event: DragEvent): void {
    const types = [...(event.dataTransfer?.types ?? [])];
    if (!types.some((t) => t === 'application/vnd.code.uri-list' || t === 'text/uri-list' || t === 'Files')) return;
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
    this.deps.dropZone.classList.add('drop-target');
  }

  private onDrop(event: DragEvent): void {
    this.deps.dropZone.classList.remove('drop-target');
    const data = event.dataTransfer;
    if (!data) return;
    event.preventDefault();
    const uris = droppedUris(data.getData('application/vnd.code.uri-list'), data.getData('text/uri-list'));
    if (uris.length > 0) this.deps.post({ type: 'attachUris', uris });
    else this.deps.showError("Only files and folders from VS Code's Explorer or editor tabs can be dropped here.");
  }
}
