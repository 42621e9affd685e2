/**
 * Markdown to sanitized DOM: `marked` parses, `DOMPurify` sanitizes and returns a fragment.
 * Inline styles and form controls are stripped (the webview's CSP forbids inline styles anyway).
 * (Under happy-dom in the unit tests DOMPurify passes HTML through unchanged: what it strips is
 * not tested there, only what `marked` produces.)
 */
import DOMPurify from 'dompurify';
import { Marked, marked } from 'marked';

const PURIFY_OPTIONS = {
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'option'],
  FORBID_ATTR: ['style'],
  RETURN_DOM_FRAGMENT: true as const,
};

/** Renders block markdown (an agent's reply) to a sanitized fragment. */
export function markdownFragment(markdown: string): DocumentFragment {
  const html = marked.parse(markdown, { async: false, gfm: true, breaks: false });
  return DOMPurify.sanitize(html, PURIFY_OPTIONS);
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
  const html = userMarked.parse(markdown, { async: false, gfm: true, breaks: true });
  return DOMPurify.sanitize(html, PURIFY_OPTIONS);
}

/** Renders inline markdown (a banner sentence with code spans) to a sanitized fragment. */
export function inlineMarkdownFragment(markdown: string): DocumentFragment {
  const html = marked.parseInline(markdown, { async: false, gfm: true });
  return DOMPurify.sanitize(html, PURIFY_OPTIONS);
}
