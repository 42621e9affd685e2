/**
 * A tiny element builder for the renderer. Children given as strings become text nodes, so text
 * from the agent or the journal is never parsed as HTML here (markdown goes through `markdown.ts`).
 */

/** Attribute values: strings are set, `true` sets an empty attribute, `false`/`null`/`undefined` skip it. */
export type Attrs = Readonly<Record<string, string | number | boolean | null | undefined>>;

/** A child: a node, a text string, or nothing. */
export type Child = Node | string | null | undefined | false;

/** Creates an element with attributes and children (strings become text nodes). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs, ...children: Child[]): HTMLElementTagNameMap[K];
export function h(tag: string, attrs?: Attrs, ...children: Child[]): HTMLElement;
export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/** Appends children (strings as text nodes, empty ones skipped). */
export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/**
 * Makes `parent`'s children exactly `wanted`, in order: removes the others first, so that children
 * kept in the same order are never moved (a moved element loses the focus), then inserts the new ones.
 */
export function reconcileChildren(parent: HTMLElement, wanted: readonly HTMLElement[]): void {
  const keep = new Set<Element>(wanted);
  for (const child of [...parent.children]) if (!keep.has(child)) child.remove();
  wanted.forEach((el, i) => {
    const current = parent.children[i];
    if (current !== el) parent.insertBefore(el, current ?? null);
  });
}
