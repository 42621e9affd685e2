/**
 * Keeps the transcript pinned to its bottom while the user is at the bottom (streaming replies
 * stay in view) and leaves it alone once the user scrolls up to read.
 */
import { isNearBottom } from './input';

/** Tracks whether the user is at the bottom of `box` and re-pins when content or size changes. */
export class ScrollPin {
  private pinned = true;

  /** Watches `box` (the scroller) and `content` (what grows inside it). */
  constructor(private readonly box: HTMLElement, content: HTMLElement) {
    box.addEventListener('scroll', () => {
      this.pinned = isNearBottom(box.scrollTop, box.scrollHeight, box.clientHeight);
    }, { passive: true });
    if (typeof ResizeObserver !== 'undefined') {
      const observer = new ResizeObserver(() => this.restore());
      observer.observe(box);
      observer.observe(content);
    }
  }

  /** Scrolls to the bottom if the user was there (call after each render). */
  restore(): void {
    if (this.pinned) this.box.scrollTop = this.box.scrollHeight;
  }

  /** Pins to the bottom now (e.g. after the user sent a prompt or a new snapshot arrived). */
  pin(): void {
    this.pinned = true;
    this.restore();
  }
}
