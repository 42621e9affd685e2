/**
 * Putting text into a Markdown document without letting it change the document: fenced blocks whose
 * fence no content can close, text shown as written (every character that Markdown would read as
 * markup escaped), and Markdown from users and agents kept as Markdown but without raw HTML and
 * without a fence left open. Used by the Markdown export (`exportMarkdown.ts`). Pure: strings only.
 *
 * The rules are CommonMark's (with GitHub's tables and strikethrough), as VS Code's Markdown preview
 * (markdown-it) and GitHub render them.
 */

/** `\r\n` and lone `\r` as `\n`: Markdown reads a lone `\r` as a line ending too. */
export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** The longest run of `char` in `text` (0 when there is none). */
function longestRun(text: string, char: '`' | '~'): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

/**
 * A fenced code block holding `content` verbatim: a backtick fence one longer than the longest run
 * of backticks anywhere in `content` (at least 3), so no line of it can close the block (a `~~~`
 * line cannot close a backtick fence at all). `info` is the language (`text`, `diff`); it has no
 * backtick. Ends without a newline.
 */
export function fencedBlock(content: string, info = 'text'): string {
  const body = normalizeNewlines(content);
  const fence = '`'.repeat(Math.max(3, longestRun(body, '`') + 1));
  return `${fence}${info}\n${body}${body.endsWith('\n') || body === '' ? '' : '\n'}${fence}`;
}

/**
 * Characters Markdown may read as inline markup anywhere in a line (GFM: `~` strikes, `|` makes
 * tables; GitHub: `$` opens math).
 */
const INLINE_MARKUP = /[\\`*_[\]<>|~$]/g;

/** Escapes one line's characters (not the line's start: `escapeLineStart`). */
function escapeInline(text: string): string {
  // `&` only where it would start an entity (`&amp;`, `&#60;`): elsewhere it is shown as is.
  return text.replace(INLINE_MARKUP, '\\$&').replace(/&(?=#?[0-9A-Za-z]+;)/g, '\\&');
}

/** Escapes what would start a block at a line's start: a heading, list, quote, rule or setext underline. */
function escapeLineStart(line: string): string {
  return line.replace(/^([#+\-=])/, '\\$1').replace(/^(\d+)([.)])/, '$1\\$2');
}

/** Escapes a run of `#` ending a line after a blank: a heading would drop it as its closing sequence. */
function escapeLineEnd(line: string): string {
  return line.replace(/(\s)(#+)$/, '$1\\$2');
}

/**
 * `text` shown as written, as one paragraph: every character Markdown would read as markup is
 * backslash-escaped, except inside `code spans` (single backticks, one line) when `codeSpans` is
 * true (messages quote commands and settings that way, and the view shows them as code). Lines keep
 * their breaks (hard line breaks); blank lines and leading blanks are dropped (they would end the
 * paragraph or start a code block). Also fit for a heading's text.
 */
export function escapeText(text: string, codeSpans = false): string {
  const lines = normalizeNewlines(text).split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return lines
    .map((line) => {
      const parts = codeSpans ? line.split(/(`[^`\n]+`)/) : [line];
      const escaped = parts.map((part, i) => (i % 2 === 1 ? part : escapeInline(part))).join('');
      return escapeLineEnd(parts[0] === '' ? escaped : escapeLineStart(escaped));
    })
    .join('\\\n');
}

/** Each line of `markdown` prefixed with `> ` (an empty line with `>`): a blockquote. */
export function quote(markdown: string): string {
  return markdown.split('\n').map((line) => (line === '' ? '>' : `> ${line}`)).join('\n');
}

/** An opening or closing fence line: up to 3 spaces, then 3+ backticks or tildes. */
const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** How Markdown reads one line of `markdownWithoutHtml`'s input. */
interface FenceState {
  /** The open fence (its characters), or null outside a fenced block. */
  open: string | null;
}

/** True when `line` opens (or, with `state.open`, closes) a fenced block; updates `state`. */
function stepFence(line: string, state: FenceState): boolean {
  const m = FENCE_LINE.exec(line);
  if (!m) return false;
  const fence = m[1]!;
  if (state.open === null) {
    // A backtick fence's info string has no backtick.
    if (fence[0] === '`' && m[2]!.includes('`')) return false;
    state.open = fence;
    return true;
  }
  if (fence[0] === state.open[0] && fence.length >= state.open.length && m[2]!.trim() === '') {
    state.open = null;
    return true;
  }
  return false;
}

/**
 * Escapes, in one line outside code, each `<` that would start raw HTML (a tag, comment,
 * declaration or processing instruction: `<` then a letter, `/`, `!` or `?`), leaving code spans
 * (backtick runs closed by a run of the same length on the line) and already escaped `\<` alone.
 */
function escapeHtmlStarts(line: string): string {
  let out = '';
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === '`') {
      let n = 1;
      while (line[i + n] === '`') n++;
      const ticks = '`'.repeat(n);
      let close = line.indexOf(ticks, i + n);
      while (close >= 0 && line[close + n] === '`') close = line.indexOf(ticks, close + n + 1);
      const end = close >= 0 ? close + n : i + n;
      out += line.slice(i, end);
      i = end;
      continue;
    }
    if (c === '<' && /[A-Za-z/!?]/.test(line[i + 1] ?? '') && !escapedAt(line, i)) out += '\\<';
    else out += c;
    i++;
  }
  return out;
}

/** True when an odd number of backslashes precede `line[i]` (the character is already escaped). */
function escapedAt(line: string, i: number): boolean {
  let n = 0;
  while (i - n - 1 >= 0 && line[i - n - 1] === '\\') n++;
  return n % 2 === 1;
}

/**
 * `markdown` (a prompt or an agent's reply) kept as Markdown, but safe to put among other content:
 * raw HTML outside code is escaped, so it shows as typed (as the chat view shows a prompt's) and an
 * unclosed `<!--` or `<script>` cannot hide the rest of the document; a fenced block left open (a
 * reply stopped midway) is closed. `hardBreaks`: every line break outside fenced blocks becomes a
 * hard line break (two trailing spaces), as the view shows what the user typed. Indented code
 * (4 spaces or a tab after a blank line) is left alone.
 */
export function markdownWithoutHtml(markdown: string, hardBreaks = false): string {
  const lines = normalizeNewlines(markdown).replace(/\n+$/, '').split('\n');
  const state: FenceState = { open: null };
  let indentedCode = false;
  const out = lines.map((line, i) => {
    if (stepFence(line, state) || state.open !== null) return line;
    const blankBefore = i === 0 || lines[i - 1]!.trim() === '';
    indentedCode = /^( {4}|\t)/.test(line) && (blankBefore || indentedCode);
    if (indentedCode) return line;
    const next = lines[i + 1];
    const breakAfter = hardBreaks && line.trim() !== '' && next !== undefined && next.trim() !== '' && !FENCE_LINE.test(next);
    return escapeHtmlStarts(line) + (breakAfter ? '  ' : '');
  });
  if (state.open !== null) out.push(state.open);
  return out.join('\n');
}
