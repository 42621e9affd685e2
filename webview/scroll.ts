/**
 * Keeps the transcript pinned to its bottom while the user is at the bottom (streaming replies
 * stay in view) and leaves it alone once the user scrolls up to read.
 */
import { isNearBottom } from './input';

/** Tracks whether the user is at the bottom of `box` and re-pins when content or size changes. */
export class ScrollPin {
  private pinnedNow = true;

  /**
   * Watches `box` (the scroller) and `content` (what grows inside it); `onPinnedChange(pinned)` is
   * called each time following the bottom starts or stops (to show or hide a jump-to-latest button).
   */
  constructor(private readonly box: HTMLElement, content: HTMLElement, private readonly onPinnedChange: (pinned: boolean) => void = () => undefined) {
    box.addEventListener('scroll', () => {
      this.pinned = isNearBottom(box.scrollTop, box.scrollHeight, box.clientHeight);
    }, { passive: true });
    if (typeof ResizeObserver !== 'undefined') {
      const observer = new ResizeObserver(() => this.restore());
      observer.observe(box);
      observer.observe(content);
    }
  }

  /** True while the view follows the bottom of the transcript. */
  get atBottom(): boolean {
    return this.pinnedNow;
  }

  private get pinned(): boolean {
    return this.pinnedNow;
  }

  private set pinned(on: boolean) {
    if (on === this.pinnedNow) return;
    this.pinnedNow = on;
    this.onPinnedChange(on);
  }

  /** Scrolls to the bottom if the user was there (call after each render). */
  restore(): void {
    if (this.pinned) this.box.scrollTop = this.box.scrollHeight;
  }

  /**
   * Stops following the bottom (a rebuilt view going back to where the user read: the virtualized
   * transcript scrolls there, `VirtualTranscript.restoreTo`).
   */
  release(): void {
    this.pinned = false;
  }

  /**
   * Scrolls `el` (an element or a text range inside the scroller) fully into view if it is not, its bottom first (a banner's
   * button sits at its bottom); follows the bottom afterwards only if that is where it ended.
   * Returns true when it scrolled.
   */
  reveal(el: { getBoundingClientRect(): DOMRect }): boolean {
    const box = this.box.getBoundingClientRect();
    const r = el.getBoundingClientRect();
    if (r.top >= box.top && r.bottom <= box.bottom) return false;
    // Bottom into view; but never push the element's top out of view (one taller than the box).
    const delta = Math.min(r.bottom - box.bottom, r.top - box.top);
    this.box.scrollTop += r.bottom > box.bottom ? delta : r.top - box.top;
    this.pinned = isNearBottom(this.box.scrollTop, this.box.scrollHeight, this.box.clientHeight);
    return true;
  }

  /** Pins to the bottom now (e.g. after the user sent a prompt or a new snapshot arrived). */
  pin(): void {
    this.pinned = true;
    this.restore();
  }
}
