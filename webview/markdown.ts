/**
 * Markdown to sanitized DOM: `marked` parses, `DOMPurify` sanitizes and returns a fragment.
 *
 * Raw HTML in any of it (an agent's reply, what the user typed, a banner) is text, shown as
 * written: a reply is not trusted markup, and markup the sanitizer had to take apart could take
 * what follows with it (`<math><mtext><table><mglyph><style>` makes the browser's parser read the
 * rest of the reply as the style's text, which the sanitizer then drops). So the only elements are
 * the ones Markdown syntax makes; a link's or image's URL that DOMPurify would refuse
 * (`javascript:`, `data:` outside an image) is dropped from them here too. DOMPurify stays as the
 * second wall. Inline styles and form controls are stripped (the webview's CSP forbids inline
 * styles anyway). (Under happy-dom in the unit tests DOMPurify's walk does not work: it removes
 * elements it should keep and keeps others. What the tests check is what this module does before
 * and after it.)
 *
 * The sanitized fragment of each text is kept (the last `CACHED_FRAGMENTS` texts) and handed out as a
 * deep copy: scrolling a long chat renders the same turns again each time they come back into the
 * window, and parsing and sanitizing (DOMPurify parses into a new document each call) was the
 * costliest script of rendering a turn.
 */
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

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

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/**
 * Markdown whose raw HTML is text, shown as written (`List<String>`, a `<dir>` placeholder, a tag
 * asked about or a hostile one), not markup that the sanitizer then strips. A block keeps its line
 * breaks.
 */
const textHtmlMarked = new Marked({
  renderer: {
    html: ({ text, block }) => (block ? `<p>${escapeHtml(text.replace(/\n+$/, '')).replace(/\n/g, '<br>')}</p>\n` : escapeHtml(text)),
  },
});

/**
 * The fragment of `html` (what `textHtmlMarked` made) sanitized, and without any `href` or `src`
 * that DOMPurify's own URL rule refuses (`isValidAttribute`: http(s), mailto, tel and relative
 * URLs pass, `data:` only in an image): the same rule as the sanitizer's, kept even where the
 * sanitizer's walk is not (see the module docstring).
 */
function sanitized(html: string): DocumentFragment {
  const fragment = DOMPurify.sanitize(html, PURIFY_OPTIONS);
  for (const el of fragment.querySelectorAll('[href], [src]')) {
    for (const name of ['href', 'src']) {
      const value = el.getAttribute(name);
      if (value !== null && !DOMPurify.isValidAttribute(el.tagName.toLowerCase(), name, value)) el.removeAttribute(name);
    }
  }
  return fragment;
}

/** Renders block markdown (an agent's reply) to a sanitized fragment; raw HTML in it is text. */
export function markdownFragment(markdown: string): DocumentFragment {
  return cached('block', markdown, () => sanitized(textHtmlMarked.parse(markdown, { async: false, gfm: true, breaks: false })));
}

/**
 * Renders what the user typed: markdown as in an agent's reply (code spans and fenced blocks, such
 * as the local agent's `write` blocks), but every line break the user typed is kept (`breaks`) and
 * raw HTML is shown as typed.
 */
export function userMarkdownFragment(markdown: string): DocumentFragment {
  return cached('user', markdown, () => sanitized(textHtmlMarked.parse(markdown, { async: false, gfm: true, breaks: true })));
}

/** Renders inline markdown (a banner sentence with code spans) to a sanitized fragment; raw HTML in it is text. */
export function inlineMarkdownFragment(markdown: string): DocumentFragment {
  return cached('inline', markdown, () => sanitized(textHtmlMarked.parseInline(markdown, { async: false, gfm: true })));
}
