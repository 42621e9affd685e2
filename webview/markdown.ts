/**
 * Markdown to sanitized DOM: `marked` parses, `DOMPurify` sanitizes and returns a fragment.
 * Inline styles and form controls are stripped (the webview's CSP forbids inline styles anyway).
 * (Under happy-dom in the unit tests DOMPurify passes HTML through unchanged: what it strips is
 * not tested there, only what `marked` produces.)
 *
 * The sanitized fragment of each text is kept (the last `CACHED_FRAGMENTS` texts) and handed out as a
 * deep copy: scrolling a long chat renders the same turns again each time they come back into the
 * window, and parsing and sanitizing (DOMPurify parses into a new document each call) was the
 * costliest script of rendering a turn.
 */
import DOMPurify from 'dompurify';
import { Marked, marked } from 'marked';

const PURIFY_OPTIONS = {
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'option'],
  FORBID_ATTR: ['style'],
  RETURN_DOM_FRAGMENT: true as const,
};

/** Most sanitized fragments kept (by kind and text); texts over `CACHED_TEXT_CHARS` chars are not kept. */
const CACHED_FRAGMENTS = 500;
const CACHED_TEXT_CHARS = 20_000;
const fragments = new Map<string, DocumentFragment>();

/**
 * A fresh copy of the fragment `make` gives for `text` of `kind`, made once while it stays among the
 * `CACHED_FRAGMENTS` most recently used. The caller may change the copy: the kept one stays as made.
 */
function cached(kind: string, text: string, make: () => DocumentFragment): DocumentFragment {
  if (text.length > CACHED_TEXT_CHARS) return make();
  const key = `${kind}:${text}`;
  let fragment = fragments.get(key);
  if (fragment) fragments.delete(key);
  else {
    fragment = make();
    if (fragments.size >= CACHED_FRAGMENTS) fragments.delete(fragments.keys().next().value!);
  }
  // Most recently used last: the first key is the one dropped.
  fragments.set(key, fragment);
  return fragment.cloneNode(true) as DocumentFragment;
}

/** Renders block markdown (an agent's reply) to a sanitized fragment. */
export function markdownFragment(markdown: string): DocumentFragment {
  return cached('block', markdown, () => DOMPurify.sanitize(marked.parse(markdown, { async: false, gfm: true, breaks: false }), PURIFY_OPTIONS));
}

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/**
 * Markdown for what the user typed: raw HTML in it is text, shown as typed (`List<String>`, a
 * `<dir>` placeholder, a tag asked about), not markup that the sanitizer then strips.
 */
const userMarked = new Marked({
  renderer: {
    html: ({ text, block }) => (block ? `<p>${escapeHtml(text.replace(/\n+$/, '')).replace(/\n/g, '<br>')}</p>\n` : escapeHtml(text)),
  },
});

/**
 * Renders what the user typed: markdown as in an agent's reply (code spans and fenced blocks, such
 * as the local agent's `write` blocks), but every line break the user typed is kept (`breaks`) and
 * raw HTML is shown as typed (`userMarked`).
 */
export function userMarkdownFragment(markdown: string): DocumentFragment {
  return cached('user', markdown, () => DOMPurify.sanitize(userMarked.parse(markdown, { async: false, gfm: true, breaks: true }), PURIFY_OPTIONS));
}

/** Renders inline markdown (a banner sentence with code spans) to a sanitized fragment. */
export function inlineMarkdownFragment(markdown: string): DocumentFragment {
  return cached('inline', markdown, () => DOMPurify.sanitize(marked.parseInline(markdown, { async: false, gfm: true }), PURIFY_OPTIONS));
}
