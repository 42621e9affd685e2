/**
 * Markdown fragments (webview/markdown.ts) on happy-dom: a text already rendered is not parsed and
 * sanitized again (scrolling a long chat renders the same turns again and again), and each caller
 * gets its own copy, which it may change without changing what the next caller gets.
 */
import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';
import { useHappyDom } from './happyDom';

const window = useHappyDom();

describe('markdown fragments', () => {
  test('a text is parsed once, and every caller gets an equal copy of its own', async () => {
    const { marked } = await import('marked');
    const { markdownFragment } = await import('../../webview/markdown');
    const parse = mock.method(marked, 'parse');
    try {
      const text = `Reply ${Date.now()}: run \`ls\`, then **read** the list.`;
      const first = markdownFragment(text);
      const div = window.document.createElement('div');
      div.appendChild(first as never);
      const html = div.innerHTML;
      assert.match(html, /<code>ls<\/code>/);
      // The caller changes its copy (as renderText wraps code blocks).
      div.querySelector('code')!.textContent = 'changed';
      const second = window.document.createElement('div');
      second.appendChild(markdownFragment(text) as never);
      assert.equal(second.innerHTML, html, 'the same markup, unchanged by what the first caller did');
      assert.equal(parse.mock.callCount(), 1, 'parsed once');
      markdownFragment(`${text} And more.`);
      assert.equal(parse.mock.callCount(), 2, 'another text is parsed');
    } finally {
      parse.mock.restore();
    }
  });
});
