/**
 * The one walker that turns matches in a view's text into links (file references, `fileLinks.ts`;
 * setting names, `settingLinks.ts`): it visits the text nodes under a root in document order and
 * replaces each match of a pattern by the node its caller makes, leaving the text around it as text.
 * What happens at an element (walked into, left alone, or handled by the caller's own rule) is the
 * caller's rule.
 */

/**
 * What the walk does at an element: the count of links the caller's rule made there (it handled the
 * element, 0 to leave it alone), or undefined to walk into its children.
 */
export type ElementRule = (el: Element) => number | undefined;

/**
 * Replaces every match of `pattern` (a global RegExp) in the text under `root` by `link(match)`,
 * applying `atElement` to each element first. Returns how many links were made (the rule's own
 * included).
 */
export function linkTextUnder(root: Node, pattern: RegExp, link: (match: RegExpMatchArray) => Node, atElement: ElementRule): number {
  let made = 0;
  for (const node of [...root.childNodes]) {
    if (node.nodeType === 3) made += linkMatches(node as Text, pattern, link);
    else if (node.nodeType === 1) made += atElement(node as Element) ?? linkTextUnder(node, pattern, link, atElement);
  }
  return made;
}

/** Replaces each match of `pattern` in `text` by `link(match)`; returns how many. */
function linkMatches(text: Text, pattern: RegExp, link: (match: RegExpMatchArray) => Node): number {
  const value = text.data;
  const matches = [...value.matchAll(pattern)];
  if (matches.length === 0) return 0;
  const parts: Node[] = [];
  let at = 0;
  for (const m of matches) {
    if (m.index > at) parts.push(document.createTextNode(value.slice(at, m.index)));
    parts.push(link(m));
    at = m.index + m[0].length;
  }
  if (at < value.length) parts.push(document.createTextNode(value.slice(at)));
  text.replaceWith(...parts);
  return matches.length;
}
