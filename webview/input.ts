/**
 * Composer rules, pure and DOM-free (unit-tested): which key press sends, and what text is sent.
 */
import { MAX_PROMPT_CHARS } from '../src/protocol/messages';

/** Longest prompt the host accepts (the protocol's limit, re-exported for the view's modules). */
export { MAX_PROMPT_CHARS };

/** The parts of a keyboard event the composer looks at. */
export interface KeyLike {
  readonly key: string;
  readonly shiftKey: boolean;
  readonly isComposing?: boolean;
  readonly altKey?: boolean;
  readonly ctrlKey?: boolean;
  readonly metaKey?: boolean;
}

/** True when the key press sends the prompt: Enter without Shift/Alt, and not while an IME composes. */
export function isSendKey(event: KeyLike): boolean {
  return event.key === 'Enter' && !event.shiftKey && !event.altKey && !event.isComposing;
}

/**
 * True for Select All (Ctrl+A, or Cmd+A on macOS). The composer keeps this key to itself: a VS Code
 * webview forwards key presses to the workbench, whose Select All is sent back and run a moment
 * later, after the next keys typed, so it selected them and the next key replaced them. Measured in
 * code-server: typing at 30 ms a key right after Ctrl+A and Backspace lost the first character in 6
 * of 8 tries; after deleting with Backspace alone, in 0 of 6.
 */
export function isSelectAllKey(event: KeyLike): boolean {
  return (event.ctrlKey === true || event.metaKey === true) && !event.altKey && !event.shiftKey && event.key.toLowerCase() === 'a';
}

/** What pressing Send does with the composer's text. */
export type SendDecision =
  | { readonly kind: 'send'; readonly text: string }
  | { readonly kind: 'ignore' }
  | { readonly kind: 'refuse'; readonly reason: string; readonly code?: string };

/** Why Send waits while the agent works and a request of it waits on the user (the text stays). */
export const BUSY_ASKING_REASON = 'The agent is waiting for your answer to its request above. Answer it or press Stop; your message stays here.';

/** Why Send waits while the agent works on its own (the text stays). */
export const BUSY_REASON = 'The agent is still working on this chat. Wait for it or press Stop; your message stays here.';

/** The error code of a refusal for either reason above: the view clears it once the run ends. */
export const BUSY_CODE = 'busy';

/** Why Send waits while a run is live: `asking` when a request of it waits on the user. */
export function busyReason(asking: boolean): string {
  return asking ? BUSY_ASKING_REASON : BUSY_REASON;
}

/**
 * Decides what Send does: empty or blank text is ignored; read-only chats, a chat whose agent is
 * still working (`running`; `asking`: a request of it waits on the user) and over-long prompts are
 * refused with a reason (the text is kept); anything else is sent as typed.
 */
export function decideSend(text: string, readOnlyReason: string | null, running = false, asking = false): SendDecision {
  if (text.trim().length === 0) return { kind: 'ignore' };
  if (readOnlyReason) return { kind: 'refuse', reason: readOnlyReason };
  if (running) return { kind: 'refuse', reason: busyReason(asking), code: BUSY_CODE };
  if (text.length > MAX_PROMPT_CHARS) {
    return { kind: 'refuse', reason: `The message is too long (${text.length.toLocaleString('en-US')} characters; the limit is ${MAX_PROMPT_CHARS.toLocaleString('en-US')}).` };
  }
  return { kind: 'send', text };
}

/** True when a scroll box is (nearly) scrolled to its bottom. */
export function isNearBottom(scrollTop: number, scrollHeight: number, clientHeight: number, slack = 24): boolean {
  return scrollHeight - scrollTop - clientHeight <= slack;
}
