/**
 * Markdown to sanitized DOM: `marked` parses, `DOMPurify` sanitizes and returns a fragment.
 * Inline styles and form controls are stripped (the webview's CSP forbids inline styles anyway).
 */
import DOMPurify from 'dompurify';
import { marked } from 'marked';

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

/**
 * Renders what the user typed: markdown as in an agent's reply (code spans and fenced blocks, such
 * as the local agent's `write` blocks), but every line break the user typed is kept (`breaks`).
 */
export function userMarkdownFragment(markdown: string): DocumentFragment {
  const html = marked.parse(markdown, { async: false, gfm: true, breaks: true });
  return DOMPurify.sanitize(html, PURIFY_OPTIONS);
}

/** Renders inline markdown (a banner sentence with code spans) to a sanitized fragment. */
export function inlineMarkdownFragment(markdown: string): DocumentFragment {
  const html = marked.parseInline(markdown, { async: false, gfm: true });
  return DOMPurify.sanitize(html, PURIFY_OPTIONS);
}
