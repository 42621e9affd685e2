/**
 * Hostile markup an agent's reply may hold, for the Markdown renderer's tests
 * (test/unit/webview-markdown.test.ts): the kinds of input known to confuse HTML sanitizers or slip
 * script past them (mutation XSS through MathML and SVG namespaces, raw-text elements such as
 * `<style>`, `<noscript>`, `<xmp>`, `<plaintext>`, `<textarea>` and `<title>`, comment tricks,
 * unclosed tags, form and table nesting, `<iframe srcdoc>`, event handlers and `javascript:` URLs,
 * raw or through Markdown's own link syntax). Written for these tests, one line or a few each.
 *
 * Every payload that could run script would set `window.__pwned` (`PWNED_FLAG`); each is followed
 * in the reply by `SENTINEL_MARKDOWN`, whose lines must all be shown after it.
 */

/** The global a payload sets when its script runs. */
export const PWNED_FLAG = '__pwned';

/** One hostile piece of a reply. */
export interface HtmlPayload {
  /** What it tries, for the test's name. */
  readonly name: string;
  /** The Markdown text of the payload (without the sentinel lines). */
  readonly markdown: string;
  /** Text the reply must show literally (the raw markup as written), when it is raw HTML. */
  readonly shown?: string;
}

/** Code that sets the flag. */
const SET = `window.${PWNED_FLAG}=1`;

/**
 * The Markdown after each payload: a paragraph and a list, separated from the payload by a blank
 * line. Its three lines of text are `SENTINEL_TEXTS`.
 */
export const SENTINEL_MARKDOWN = '\n\nSentinel paragraph after the payload.\n\n- sentinel item one\n- sentinel item two\n';

/** The text of each line of `SENTINEL_MARKDOWN`. */
export const SENTINEL_TEXTS = ['Sentinel paragraph after the payload.', 'sentinel item one', 'sentinel item two'] as const;

/** The corpus. */
export const HTML_PAYLOADS: readonly HtmlPayload[] = [
  { name: 'mglyph and style inside MathML text in a table', markdown: `<math><mtext><table><mglyph><style><img src=x onerror="${SET}">`, shown: '<math><mtext><table><mglyph><style>' },
  { name: 'mglyph and style whose comment hides a closing tag', markdown: `<math><mtext><table><mglyph><style><!--</style><img title="--&gt;&lt;/mglyph&gt;&lt;img src=x onerror=${SET}&gt;">`, shown: '<math><mtext><table><mglyph><style><!--' },
  { name: 'mglyph, svg and textarea inside MathML mi', markdown: `<math><mi><table><mglyph><svg><mtext><textarea><path id="</textarea><img src=x onerror=${SET}>">`, shown: '<math><mi>' },
  { name: 'style inside noscript', markdown: `<noscript><style></noscript><img src=x onerror="${SET}">`, shown: '<noscript><style>' },
  { name: 'noscript closed inside an attribute', markdown: `<noscript><p title="</noscript><img src=x onerror=${SET}>"></noscript>`, shown: '<noscript><p title=' },
  { name: 'svg foreignObject back to HTML', markdown: `<svg><foreignObject><img src=x onerror="${SET}"></foreignObject></svg>`, shown: '<svg><foreignObject>' },
  { name: 'svg, a stray </p> and style', markdown: `<svg></p><style><a id="</style><img src=x onerror=${SET}>">`, shown: '<svg></p><style>' },
  { name: 'svg style holding an img', markdown: `<svg><style><img src=x onerror="${SET}"></style></svg>`, shown: '<svg><style>' },
  { name: 'MathML annotation-xml as HTML', markdown: `<math><annotation-xml encoding="text/html"><img src=x onerror="${SET}"></annotation-xml></math>`, shown: '<math><annotation-xml' },
  { name: 'form and table nesting across MathML', markdown: `<form><math><mtext></form><form><mglyph><style></math><img src=x onerror="${SET}">`, shown: '<form><math><mtext></form>' },
  { name: 'form inside a table cell', markdown: `<table><tr><td><form><img src=x onerror="${SET}"></td></tr></table>`, shown: '<table><tr><td><form>' },
  { name: 'select and option around a style', markdown: `<select><option><style></option></select><img src=x onerror=${SET}></style>`, shown: '<select><option><style>' },
  { name: 'template content', markdown: `<template><img src=x onerror="${SET}"></template>`, shown: '<template>' },
  { name: 'comment closed early by <!-->', markdown: `<!--><img src=x onerror="${SET}">-->`, shown: '<!--><img' },
  { name: 'comment opened inside an attribute', markdown: `<a title="<!--"><img src=x onerror="${SET}">-->`, shown: '<a title="<!--">' },
  { name: 'an unclosed comment', markdown: `<!-- <img src=x onerror="${SET}">`, shown: '<!-- <img' },
  { name: 'an unclosed tag', markdown: `<img src=x onerror="${SET}"`, shown: '<img src=x' },
  { name: 'an unclosed div with a handler', markdown: `<div onmouseover="${SET}">hover me`, shown: '<div onmouseover=' },
  { name: 'xmp closed inside an attribute', markdown: `<xmp><p title="</xmp><img src=x onerror=${SET}>">`, shown: '<xmp><p title=' },
  { name: 'plaintext', markdown: `<plaintext><img src=x onerror="${SET}">`, shown: '<plaintext>' },
  { name: 'textarea closed inside an attribute', markdown: `<textarea><img title="</textarea><img src=x onerror=${SET}>">`, shown: '<textarea><img title=' },
  { name: 'title closed inside an attribute', markdown: `<title><img title="</title><img src=x onerror=${SET}>">`, shown: '<title><img title=' },
  { name: 'iframe srcdoc', markdown: `<iframe srcdoc="<script>parent.${PWNED_FLAG}=1</script>"></iframe>`, shown: '<iframe srcdoc=' },
  { name: 'iframe with a javascript: src', markdown: `<iframe src="javascript:parent.${PWNED_FLAG}=1"></iframe>`, shown: '<iframe src=' },
  { name: 'a script', markdown: `<script>${SET}</script>`, shown: '<script>' },
  { name: 'an unclosed script', markdown: `<script>${SET}`, shown: '<script>' },
  { name: 'a style with @import', markdown: `<style>@import "javascript:${SET}";</style>`, shown: '<style>@import' },
  { name: 'a raw link with a javascript: href', markdown: `<a href="javascript:${SET}">click</a>`, shown: '<a href="javascript:' },
  { name: 'a raw link with an entity-encoded javascript: href', markdown: `<a href="&#106;avascript:${SET}">click</a>`, shown: '<a href=' },
  { name: 'a raw link whose scheme holds a tab entity', markdown: `<a href="jav&#x09;ascript:${SET}">click</a>`, shown: '<a href=' },
  { name: 'svg onload', markdown: `<svg onload="${SET}"></svg>`, shown: '<svg onload=' },
  { name: 'svg animate setting a javascript: href', markdown: `<svg><a><animate attributeName="href" values="javascript:${SET}"/><text y="20">click</text></a></svg>`, shown: '<svg><a><animate' },
  { name: 'details ontoggle', markdown: `<details open ontoggle="${SET}"><summary>more</summary></details>`, shown: '<details open ontoggle=' },
  { name: 'body onload', markdown: `<body onload="${SET}">`, shown: '<body onload=' },
  { name: 'object with javascript: data', markdown: `<object data="javascript:${SET}"></object>`, shown: '<object data=' },
  { name: 'embed of a data: page', markdown: `<embed src="data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX19wd25lZD0xPC9zY3JpcHQ+">`, shown: '<embed src=' },
  { name: 'meta refresh to javascript:', markdown: `<meta http-equiv="refresh" content="0;url=javascript:${SET}">`, shown: '<meta http-equiv=' },
  { name: 'mixed-case tag and handler', markdown: `<IMG SRC=x OnErRoR="${SET}">`, shown: '<IMG SRC=x' },
  { name: 'an inline img in a paragraph', markdown: `Read this <img src=x onerror="${SET}"> now.`, shown: '<img src=x onerror=' },
  { name: 'inline markup with a handler in a list item', markdown: `- an item <b onmouseover="${SET}">bold</b>`, shown: '<b onmouseover=' },
  { name: 'a Markdown link to javascript:', markdown: `[click](javascript:${SET})` },
  { name: 'a Markdown link to an entity-encoded javascript:', markdown: `[click](javascript&#58;${SET})` },
  { name: 'a Markdown link to a data: page', markdown: '[click](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0xPC9zY3JpcHQ+)' },
  { name: 'an autolink to javascript:', markdown: `<javascript:${SET}>` },
  { name: 'a Markdown image from javascript:', markdown: `![x](javascript:${SET})` },
  { name: 'a Markdown link whose title tries to close its quote', markdown: `[click](https://example.com/ "t\\" onmouseover=\\"${SET}")` },
];
