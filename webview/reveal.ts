/**
 * Which restart banner the view brings into sight: after a window reload the tab went back to where
 * the user had been reading, and the banner saying what the reload did (with its Retry or Continue)
 * could be out of sight below. DOM-reading only (unit-tested on happy-dom).
 */

/**
 * The newest restart banner under `root` that still offers its action (`[data-action]`: not yet
 * retried or continued), unless it is the banner of `shownTurnId` (already brought into sight once
 * for this tab). Null when there is none to show.
 */
export function bannerToReveal(root: ParentNode, shownTurnId: string | undefined): HTMLElement | null {
  const banners = [...root.querySelectorAll<HTMLElement>('.restart-banner[data-turn-id]')].filter((b) => b.querySelector('[data-action]'));
  const newest = banners.at(-1);
  return newest && newest.dataset.turnId !== shownTurnId ? newest : null;
}
