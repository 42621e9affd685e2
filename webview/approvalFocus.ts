/**
 * Shift+Tab from the message box while the agent waits for an approval goes to the waiting card's
 * buttons, as the box's placeholder says: in the DOM's order it reached the queue's buttons, "Latest ↓"
 * or, with the chat scrolled up, an older turn (the card's turn not drawn), and never the card.
 */

/** What the jump needs of the view. */
export interface ApprovalFocusDeps {
  /** The transcript's content (the turns drawn). */
  readonly content: ParentNode;
  /** Whether an approval this window may decide waits. */
  readonly waiting: () => boolean;
  /** Brings the chat to its end and draws its newest turns now (the waiting card is in the newest turn). */
  readonly toEnd: () => void;
}

/** A waiting card's decision buttons, drawn and enabled. */
const DECISIONS = '.boundary-card[data-state="actionable"] [data-decision]:not([disabled])';

/** True for Shift+Tab with no other modifier. */
export function isShiftTab(event: KeyboardEvent): boolean {
  return event.key === 'Tab' && event.shiftKey && !event.altKey && !event.ctrlKey && !event.metaKey;
}

/**
 * Focuses the last decision button of the newest waiting card (Deny: the one Shift+Tab reached first
 * at the bottom, then Allow for this session, Allow once), bringing the chat to its end first when
 * the card is not drawn. Returns false (nothing done) when no approval waits or no card shows one.
 */
export function focusWaitingCard(deps: ApprovalFocusDeps): boolean {
  if (!deps.waiting()) return false;
  const find = () => {
    const all = deps.content.querySelectorAll<HTMLElement>(DECISIONS);
    return all.length > 0 ? all[all.length - 1] : undefined;
  };
  let button = find();
  if (!button) {
    deps.toEnd();
    button = find();
  }
  if (!button) return false;
  button.focus();
  button.scrollIntoView?.({ block: 'nearest' });
  return true;
}
