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

/**
 * The error code of the host's refusal of an action because the agent works (`busy`, e.g. a Retry
 * while a reply runs): the view clears it once the run ends.
 */
export const BUSY_CODE = 'busy';

/**
 * Decides what Send (or Enter) does: empty or blank text is ignored; read-only chats and over-long
 * messages are refused with a reason (the text is kept); anything else is sent as typed — also while
 * the agent works, when the host queues it (docs/ARCHITECTURE.md, "Prompts").
 */
export function decideSend(text: string, readOnlyReason: string | null): SendDecision {
  if (text.trim().length === 0) return { kind: 'ignore' };
  if (readOnlyReason) return { kind: 'refuse', reason: readOnlyReason };
  if (text.length > MAX_PROMPT_CHARS) {
    return { kind: 'refuse', reason: `The message is too long (${text.length.toLocaleString('en-US')} characters; the limit is ${MAX_PROMPT_CHARS.toLocaleString('en-US')}).` };
  }
  return { kind: 'send', text };
}

/**
 * The composer's placeholder: what to type, and while the agent works, that Enter queues it. While
 * it waits for the user's approval (`awaitingApproval`), where the card's buttons are from here: Tab
 * leaves the view, and a keyboard user did not find them.
 */
export function composerPlaceholder(local: boolean, running: boolean, awaitingApproval = false): string {
  if (awaitingApproval) return 'The agent waits for your approval above (Shift+Tab: its Deny button). Enter queues your message';
  if (running) return 'Enter queues your message: it is sent when the agent is done (Shift+Enter: new line)';
  return local ? 'Ask the agent… (try: help, run ls, read README.md)' : 'Ask the agent…';
}

/** Fewest and most rows the composer shows (it scrolls past the most; the user can still drag it taller). */
export const COMPOSER_ROWS = { min: 3, max: 12 } as const;

/**
 * The rows the composer should show for `text`: one per line (a line ending the text counts), at
 * least `COMPOSER_ROWS.min`, at most `COMPOSER_ROWS.max`. Long lines that wrap are not counted.
 */
export function composerRows(text: string): number {
  const lines = text.split('\n').length;
  return Math.min(COMPOSER_ROWS.max, Math.max(COMPOSER_ROWS.min, lines));
}

/** True when a scroll box is (nearly) scrolled to its bottom. */
export function isNearBottom(scrollTop: number, scrollHeight: number, clientHeight: number, slack = 24): boolean {
  return scrollHeight - scrollTop - clientHeight <= slack;
}
