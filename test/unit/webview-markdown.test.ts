/**
 * Markdown fragments (webview/markdown.ts) on happy-dom: a text already rendered is not parsed and
 * sanitized again (scrolling a long chat renders the same turns again and again), and each caller
 * gets its own copy, which it may change without changing what the next caller gets.
 *
 * Raw HTML in a reply is shown as text: for every payload of the hostile corpus
 * (test/unit/htmlPayloads.ts), nothing rendered can run script (no `<script>`, no `on*` attribute,
 * no `javascript:` URL, and the flag a payload would set stays unset while every element gets the
 * events that would fire its handlers), the HTML handed to the sanitizer holds only the tags
 * Markdown makes (nothing a browser's parser could read otherwise), and the reply's lines after the
 * payload are all shown. The Window runs script, so a handler that got through would run.
 */
import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';
import { useHappyDom } from './happyDom';
import { HTML_PAYLOADS, PWNED_FLAG, SENTINEL_MARKDOWN, SENTINEL_TEXTS } from './htmlPayloads';

const window = useHappyDom({ runScripts: true });

describe('markdown fragments', () => {
  test('a text is parsed once, and every caller gets an equal copy of its own', async () => {
    const DOMPurify = (await import('dompurify')).default;
    const { markdownFragment } = await import('../../webview/markdown');
    const parse = mock.method(DOMPurify, 'sanitize');
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
      assert.equal(parse.mock.callCount(), 1, 'parsed and sanitized once');
      markdownFragment(`${text} And more.`);
      assert.equal(parse.mock.callCount(), 2, 'another text is parsed');
    } finally {
      parse.mock.restore();
    }
  });
});

/** Tags `marked` makes from Markdown (GFM): the only ones the sanitizer may be handed. */
const MARKDOWN_TAGS = new Set(['p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'ul', 'ol', 'li', 'input', 'pre', 'code', 'em', 'strong', 'del', 'a', 'img', 'table', 'thead', 'tbody', 'tr', 'th', 'td']);

/** Events whose inline handlers a payload may carry; each is dispatched on every rendered element. */
const HANDLER_EVENTS = ['error', 'load', 'mouseover', 'focus', 'toggle', 'animationstart', 'pointerover', 'input'];

/**
 * Fails when anything under `root` could run script: a `<script>`, an `on*` attribute, or a URL
 * attribute with a script scheme. Then fires `HANDLER_EVENTS` at every element (no click: a link's
 * click would navigate) and fails when the payload's flag got set.
 */
function assertNothingRuns(root: Element): void {
  assert.equal(root.querySelectorAll('script').length, 0, 'no script element');
  for (const el of [root, ...root.querySelectorAll('*')]) {
    for (const attr of [...el.attributes]) {
      assert.ok(!/^on/i.test(attr.name), `no event handler attribute: <${el.tagName.toLowerCase()} ${attr.name}>`);
      // A browser ignores control characters and spaces inside a URL's scheme.
      const bare = [...attr.value].filter((c) => c > ' ').join('');
      assert.ok(!/^(javascript|vbscript|data):/i.test(bare) || (el.tagName === 'IMG' && /^data:image\//.test(bare)), `no script URL: <${el.tagName.toLowerCase()} ${attr.name}="${attr.value}">`);
    }
    for (const type of HANDLER_EVENTS) el.dispatchEvent(new window.Event(type) as unknown as Event);
  }
  assert.equal((window as unknown as Record<string, unknown>)[PWNED_FLAG], undefined, 'no payload script ran');
}

/** Renders `make()` into the document's body (connected, as in the view), hands it to `check`, then removes it and the flag. */
function mounted(make: () => Element | DocumentFragment, check: (root: Element) => void): void {
  const host = window.document.createElement('div') as unknown as Element;
  window.document.body.appendChild(host as never);
  try {
    host.appendChild(make());
    check(host);
  } finally {
    host.remove();
    delete (window as unknown as Record<string, unknown>)[PWNED_FLAG];
  }
}

describe('hostile markup in a reply', () => {
  test('the checks see a payload rendered as HTML (what they guard against)', () => {
    mounted(() => {
      const div = window.document.createElement('div');
      div.innerHTML = HTML_PAYLOADS[0]!.markdown;
      return div as unknown as Element;
    }, (root) => {
      assert.throws(() => assertNothingRuns(root), /event handler|no payload script ran/);
      root.querySelector('img')!.dispatchEvent(new window.Event('error') as unknown as Event);
      assert.equal((window as unknown as Record<string, unknown>)[PWNED_FLAG], 1, 'the Window runs a handler that got through');
    });
  });

  for (const payload of HTML_PAYLOADS) {
    test(`${payload.name}: shown as text, nothing runs, nothing after it is lost`, async () => {
      const DOMPurify = (await import('dompurify')).default;
      const { renderText } = await import('../../webview/render/items');
      const sanitize = mock.method(DOMPurify, 'sanitize');
      try {
        mounted(() => renderText(payload.markdown + SENTINEL_MARKDOWN), (root) => {
          const text = root.textContent ?? '';
          for (const line of SENTINEL_TEXTS) assert.ok(text.includes(line), `"${line}" is shown after the payload; shown: ${JSON.stringify(text)}`);
          if (payload.shown) assert.ok(text.includes(payload.shown), `the markup is shown as written: ${JSON.stringify(payload.shown)} in ${JSON.stringify(text)}`);
          assertNothingRuns(root);
        });
        assert.equal(sanitize.mock.callCount(), 1);
        const html = String(sanitize.mock.calls[0]!.arguments[0]);
        const tags = [...html.matchAll(/<\/?([A-Za-z][\w:-]*)/g)].map((m) => m[1]!.toLowerCase());
        assert.deepEqual(tags.filter((t) => !MARKDOWN_TAGS.has(t)), [], `the sanitizer is handed only Markdown's own tags: ${html}`);
      } finally {
        sanitize.mock.restore();
      }
    });
  }

  for (const [kind, name] of [['user', 'userMarkdownFragment'], ['inline', 'inlineMarkdownFragment']] as const) {
    test(`in ${kind === 'user' ? 'what the user typed' : 'a banner'} (${name}) too: the corpus is text, nothing runs, nothing after it is lost`, async () => {
      // What reaches the sanitizer is checked for the lines after the payload: under happy-dom the
      // sanitizer's own walk drops the text of a fragment that starts with text (a banner's does).
      const DOMPurify = (await import('dompurify')).default;
      const markdown = await import('../../webview/markdown');
      const sanitize = mock.method(DOMPurify, 'sanitize');
      try {
        for (const [i, payload] of HTML_PAYLOADS.entries()) {
          mounted(() => markdown[name](payload.markdown + SENTINEL_MARKDOWN), assertNothingRuns);
          const html = String(sanitize.mock.calls[i]!.arguments[0]);
          for (const line of SENTINEL_TEXTS) assert.ok(html.includes(line), `${payload.name}: "${line}" is kept: ${html}`);
          const tags = [...html.matchAll(/<\/?([A-Za-z][\w:-]*)/g)].map((m) => m[1]!.toLowerCase());
          assert.deepEqual(tags.filter((t) => !MARKDOWN_TAGS.has(t)), [], `${payload.name}: only Markdown's own tags: ${html}`);
        }
      } finally {
        sanitize.mock.restore();
      }
    });
  }

  test('code spans and fenced blocks show HTML as written, and a fenced block keeps its Copy button', async () => {
    const { renderText } = await import('../../webview/render/items');
    const tag = '<img src=x onerror="window.__pwned=1">';
    mounted(() => renderText(`Inline \`${tag}\` here.\n\n\`\`\`html\n<math><mtext><table><mglyph><style>${tag}\n\`\`\`\n\nAfter the block.`), (root) => {
      const codes = [...root.querySelectorAll('code')];
      assert.equal(codes[0]!.textContent, tag);
      assert.equal(codes[1]!.textContent, `<math><mtext><table><mglyph><style>${tag}\n`);
      assert.equal(codes[1]!.className, 'language-html');
      assert.ok(root.querySelector('.code-block [data-action="copy-code"]'), 'the block has its Copy button');
      assert.ok(root.textContent?.includes('After the block.'));
      assertNothingRuns(root);
    });
  });

  test('links and images follow the sanitizer\'s URL rule: web, mail and relative URLs and data: images kept, script URLs dropped', async () => {
    const { renderText } = await import('../../webview/render/items');
    const reply = [
      '[site](https://example.com/a?b=1) [mail](mailto:a@example.com) <https://example.com/auto>',
      '[file](src/app.ts#L3) ![shot](https://example.com/a.png) ![dot](data:image/png;base64,iVBORw0KGgo=)',
      '[bad](javascript:alert(1)) [page](data:text/html;base64,PHA+) ![bad](javascript:alert(1))',
    ].join('\n\n');
    mounted(() => renderText(reply), (root) => {
      const hrefs = [...root.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('href')]);
      assert.deepEqual(hrefs, [
        ['site', 'https://example.com/a?b=1'], ['mail', 'mailto:a@example.com'], ['https://example.com/auto', 'https://example.com/auto'],
        ['file', '#'], ['bad', null], ['page', null],
      ]);
      assert.equal(root.querySelector('a.file-link')?.getAttribute('data-path'), 'src/app.ts', 'a link to a relative path opens the file');
      const srcs = [...root.querySelectorAll('img')].map((img) => [img.getAttribute('alt'), img.getAttribute('src')]);
      assert.deepEqual(srcs, [['shot', 'https://example.com/a.png'], ['dot', 'data:image/png;base64,iVBORw0KGgo='], ['bad', null]]);
      assertNothingRuns(root);
    });
  });
});
