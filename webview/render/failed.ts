/**
 * Rendering in isolation: a part of the view that throws while it is rendered (an item, a card, a
 * turn) is replaced by a small "could not be shown" box with the error behind a details toggle, and
 * the error is reported (to the host's log), while everything else renders as usual. Before, one
 * throw skipped the rest of the frame: no later item, no bars, and a composer that kept Stop after
 * the run had ended.
 */

/** Receives an error thrown while rendering `where` (e.g. "boundary card r1"). */
export type RenderErrorSink = (error: unknown, where: string) => void;

/** The words of the box that stands in for a part that failed. */
export const RENDER_FAILED_TEXT = 'This item could not be shown.';

/** One line naming an error: `Name: message` (or the value as text). */
export function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/**
 * Renders `.render-failed[role=note]`: the fixed sentence and a `<details>` holding where it failed
 * and the error. Built with properties, not `setAttribute`, so a broken attribute path does not
 * break the box too.
 */
export function renderFailed(error: unknown, where: string, tag: 'div' | 'section' = 'div'): HTMLElement {
  const box = document.createElement(tag);
  box.className = tag === 'section' ? 'turn render-failed' : 'render-failed';
  try {
    box.setAttribute('role', 'note');
  } catch {
    // The role is a nicety; the box must show even when attributes cannot be set.
  }
  const text = document.createElement('span');
  text.textContent = RENDER_FAILED_TEXT;
  const details = document.createElement('details');
  const summary = document.createElement('summary');
  summary.textContent = 'Details';
  const pre = document.createElement('pre');
  pre.textContent = `While rendering ${where}: ${errorText(error)}`;
  details.append(summary, pre);
  box.append(text, details);
  return box;
}

/**
 * Calls `render`; if it throws, reports the error to `onError` (when given) and returns the
 * stand-in box instead. Never throws unless building the box itself throws.
 */
export function safely(render: () => HTMLElement, where: string, onError: RenderErrorSink | undefined, tag: 'div' | 'section' = 'div'): HTMLElement {
  try {
    return render();
  } catch (error) {
    try {
      onError?.(error, where);
    } catch {
      // A failing reporter must not take the view down with it.
    }
    return renderFailed(error, where, tag);
  }
}
