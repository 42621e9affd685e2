/**
 * Command output follows its end while the command runs, as a terminal does: a re-rendered
 * invocation's output box started again at its first lines, so a long command's latest output was
 * out of sight. A box the user scrolled up in stays where they left it; a finished one keeps its
 * position across re-renders.
 */
import { isNearBottom } from '../input';

/** Where an output box was scrolled to (px), and whether that was its end; `box`: the element read. */
export interface OutputScroll {
  readonly top: number;
  readonly atEnd: boolean;
  readonly box?: HTMLElement;
}

const OUTPUT = '.invocation[data-invocation-id] pre.output';

/**
 * The scroll positions of the output boxes under a root, by invocation id, as their scroll events
 * said (a capturing listener: scroll events do not bubble). A box never scrolled has none: it is at
 * its top. Reading every box's position before each render forced a layout of the whole view at
 * every update, a millisecond or more; an event is read when the box has just been scrolled.
 */
export class OutputScrollTracker {
  /** By invocation id; `turnId`: the turn holding the box. */
  private readonly known = new Map<string, OutputScroll & { readonly turnId: string }>();

  constructor(root: HTMLElement) {
    root.addEventListener('scroll', (event) => this.note(event.target), { capture: true, passive: true });
  }

  /** The positions noted, by invocation id (`box`: the element that scrolled). */
  get positions(): ReadonlyMap<string, OutputScroll> {
    return this.known;
  }

  /**
   * Forgets the positions of the boxes of turns `keep` says no to (by turn id): a noted box holds its
   * element, and with it its turn's whole tree, after the renderer let the turn go.
   */
  retain(keep: (turnId: string) => boolean): void {
    for (const [id, noted] of this.known) if (!keep(noted.turnId)) this.known.delete(id);
  }

  private note(target: EventTarget | null): void {
    const pre = target as HTMLElement | null;
    if (!pre?.matches?.(OUTPUT)) return;
    const id = pre.closest<HTMLElement>('.invocation')?.dataset.invocationId;
    if (!id) return;
    const turnId = pre.closest<HTMLElement>('section[data-turn-id]')?.dataset.turnId ?? '';
    this.known.set(id, { top: pre.scrollTop, atEnd: isNearBottom(pre.scrollTop, pre.scrollHeight, pre.clientHeight), box: pre, turnId });
  }
}

/**
 * Scrolls each output box under `root`: a running invocation's to its end unless the user had
 * scrolled up in it (`before`, from `OutputScrollTracker`); any other to where it was. `stayed`: the
 * children of `root` (turn elements) that were in it before the change; a box in one of them was
 * not moved and is left alone unread. Call once the boxes are in the document.
 */
export function followOutputs(root: ParentNode, before: ReadonlyMap<string, OutputScroll>, stayed?: ReadonlySet<Node>): void {
  root.querySelectorAll<HTMLElement>(OUTPUT).forEach((pre) => {
    const invocation = pre.closest<HTMLElement>('.invocation');
    const was = before.get(invocation?.dataset.invocationId ?? '');
    const running = invocation?.dataset.status === 'running';
    // The same box, never out of the document, is where it was: reading it would only force a layout.
    // One inserted again (its turn scrolled out of the virtualized window and back) is at its top in
    // Chromium, with no scroll event.
    if (!running && was?.box === pre && (!stayed || stayed.has(childOf(root, pre)))) return;
    const top = running && (!was || was.atEnd) ? pre.scrollHeight : was?.top;
    if (top !== undefined && pre.scrollTop !== top) pre.scrollTop = top;
  });
}

/** The child of `root` that holds `node` (`node` itself if none does). */
function childOf(root: ParentNode, node: Node): Node {
  let el = node;
  while (el.parentNode && el.parentNode !== root) el = el.parentNode;
  return el;
}
