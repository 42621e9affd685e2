/**
 * The view's end of the outbox (docs/ARCHITECTURE.md, "Prompts: the outbox, the queue and
 * delivery"): each message the user sends gets a client id (a random UUID) and is kept in the tab's
 * persisted state (`PanelMemory.unacknowledged`) from the moment it is posted until the host answers
 * `succeeded` or `error` with that id. A view rebuilt meanwhile (a reload, a switch of tabs: VS Code
 * destroys a hidden tab's view) posts the kept ones again with the same ids, and the journal makes
 * one turn of each. DOM-free (unit-tested); the composer (`composer.ts`) wires it to the host.
 */
import type { AttachmentRef } from '../src/core/attachments';
import type { WebviewMessage } from '../src/protocol/messages';
import type { UnacknowledgedMessage } from './panelMemory';

/** Where the unanswered messages are kept (`PanelMemory`). */
export interface UnacknowledgedStore {
  readonly unacknowledged: readonly UnacknowledgedMessage[];
  saveUnacknowledged(messages: readonly UnacknowledgedMessage[]): void;
}

/** A random UUID (version 4). `crypto.randomUUID` exists only in secure contexts; a view served over plain http from a remote code-server is not one. */
export function newClientId(random: (bytes: Uint8Array) => Uint8Array = (b) => crypto.getRandomValues(b)): string {
  const b = random(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The `send` message of a kept message: its optional fields only when they hold something. */
function sendMessage(m: UnacknowledgedMessage): Extract<WebviewMessage, { type: 'send' }> {
  return {
    type: 'send', clientId: m.clientId, text: m.text,
    ...(typeof m.replacesTurnId === 'string' ? { replacesTurnId: m.replacesTurnId } : {}),
    ...(m.attachments?.length ? { attachments: m.attachments } : {}),
    ...(typeof m.replacesTurnId === 'string' && m.undoReplacedFiles === true ? { undoReplacedFiles: true } : {}),
  };
}

/** The view's outbox (see module docstring). */
export class ViewOutbox {
  constructor(
    private readonly store: UnacknowledgedStore,
    private readonly post: (message: Extract<WebviewMessage, { type: 'send' }>) => void,
    private readonly makeId: () => string = () => newClientId(),
  ) {}

  /**
   * Posts `text` as a new message (a fresh client id), kept until the host answers it; with
   * `extra.replacesTurnId`, an edit and resend of that turn (`extra.undoReplacedFiles`: its file
   * changes undone first); `extra.attachments`: what the user attached (chips). Returns its id.
   */
  send(text: string, extra: { readonly replacesTurnId?: string | undefined; readonly attachments?: readonly AttachmentRef[]; readonly undoReplacedFiles?: boolean } = {}): string {
    const { replacesTurnId, attachments = [], undoReplacedFiles } = extra;
    const clientId = this.makeId();
    const message: UnacknowledgedMessage = {
      clientId, text, ...(replacesTurnId ? { replacesTurnId } : {}), ...(attachments.length ? { attachments } : {}),
      ...(replacesTurnId && undoReplacedFiles ? { undoReplacedFiles: true } : {}),
    };
    // Kept before it is posted: a view destroyed right after posting still has it.
    this.store.saveUnacknowledged([...this.store.unacknowledged, message]);
    this.post(sendMessage(message));
    return clientId;
  }

  /** Posts every kept message again, with its own id (and the turn it replaces), oldest first (a rebuilt view, once its chat has come). */
  resend(): void {
    for (const message of this.store.unacknowledged) this.post(sendMessage(message));
  }

  /**
   * The host answered message `clientId` (`succeeded` or `error`): it is no longer kept. Returns its
   * text, attachments and the turn it was to replace, or undefined when it was not kept here (an answer to another view's post,
   * or a second answer).
   */
  answered(clientId: string): { text: string; attachments: readonly AttachmentRef[]; replacesTurnId?: string } | undefined {
    const kept = this.store.unacknowledged;
    const found = kept.find((m) => m.clientId === clientId);
    if (!found) return undefined;
    this.store.saveUnacknowledged(kept.filter((m) => m !== found));
    return { text: found.text, attachments: found.attachments ?? [], ...(typeof found.replacesTurnId === 'string' ? { replacesTurnId: found.replacesTurnId } : {}) };
  }
}
