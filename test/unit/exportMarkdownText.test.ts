/**
 * What the Markdown export puts in a document cannot change the document: output in a fenced block
 * stays in it whatever fences it holds, text shown as written renders as written, prompts and replies
 * carry no raw HTML and no open fence, file names of an export are safe and unique. Checked by
 * parsing the result with `marked` (a CommonMark/GFM parser, the one the chat view uses).
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { marked, type Token } from 'marked';
import type { SessionRecord } from '../../src/core/events';
import { EXPORT_INDEX_FILE, exportIndexMarkdown, markdownFileName, uniqueFileNames } from '../../src/core/exportFiles';
import { chatToMarkdown, durationLabel, isoTime } from '../../src/core/exportMarkdown';
import { escapeText, fencedBlock, markdownWithoutHtml } from '../../src/core/markdownText';
import { buildTranscript, MAX_INVOCATION_OUTPUT_CHARS } from '../../src/core/transcript';

/** A token's type and, where it has them, its text and link target. */
type Tok = { readonly type: string; readonly text?: string; readonly href?: string };

/** Every token of `markdown`, nested ones included. */
function tokens(markdown: string): Tok[] {
  const out: Token[] = [];
  marked.walkTokens(marked.lexer(markdown, { gfm: true }), (t) => void out.push(t));
  return out as Tok[];
}

/** The document's text as `marked` renders it, tags stripped and entities decoded (what a reader sees). */
function shown(markdown: string): string {
  const html = marked.parse(markdown, { async: false, gfm: true, breaks: false });
  return html.replace(/<br>\n?/g, '\n').replace(/<[^>]+>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&').trim();
}

const session: SessionRecord = { id: 's', title: 't', provider: 'local', createdAt: 0, updatedAt: 0 };

describe('export: fenced blocks', () => {
  for (const output of ['```\nbreak out?\n```\n', '~~~\nnot a fence for backticks\n~~~', 'four ````\n````', '`````', 'a ``` b ```` c ~~~~~~ d', '```js\n```\n~~~\n````\n']) {
    it(`output ${JSON.stringify(output)} stays one code block, verbatim`, () => {
      const doc = `before\n\n${fencedBlock(output)}\n\nafter\n`;
      const code = tokens(doc).filter((t) => t.type === 'code');
      assert.equal(code.length, 1);
      assert.equal(code[0]!.text, output.replace(/\n$/, ''));
      assert.ok(tokens(doc).some((t) => t.type === 'paragraph' && t.text === 'after'), 'what follows is still text');
    });
  }

  it('an invocation whose output holds every fence is followed by the rest of the chat, not swallowed', () => {
    const at = 1;
    const transcript = buildTranscript(
      [{ id: 't', sessionId: 's', prompt: 'run cat x', origin: 'prompt', parentTurnId: null, status: 'completed', errorClass: null, seq: 1, createdAt: at }],
      [
        { runId: 'r', seq: 1, sessionId: 's', turnId: 't', kind: 'invocation_started', payload: { invocationId: 'i', tool: 'run', summary: 'cat x' }, at },
        { runId: 'r', seq: 2, sessionId: 's', turnId: 't', kind: 'invocation_output', payload: { invocationId: 'i', chunk: '```\n~~~\n````\n' }, at },
        { runId: 'r', seq: 3, sessionId: 's', turnId: 't', kind: 'invocation_finished', payload: { invocationId: 'i', status: 'completed', exitCode: 0 }, at },
        { runId: 'r', seq: 4, sessionId: 's', turnId: 't', kind: 'text', payload: { text: 'AFTER THE OUTPUT' }, at },
      ],
    );
    const doc = chatToMarkdown(session, transcript);
    const code = tokens(doc).filter((t) => t.type === 'code');
    assert.deepEqual(code.map((c) => c.text), ['```\n~~~\n````']);
    assert.ok(tokens(doc).some((t) => t.type === 'paragraph' && t.text === 'AFTER THE OUTPUT'));
  });
});

describe('export: text as written and Markdown without HTML', () => {
  it('text shown as written renders as written', () => {
    for (const text of ['*not emphasis* and _this_', '# not a heading', '- not a list', '1. not a number', '> not a quote', 'a | b', '[x](y) ![i](j)', 'C:\\dir\\', '&amp; stays &amp;', '<b>tag</b>', '~~no strike~~', '===', 'costs $5 or $6']) {
      assert.equal(shown(escapeText(text)), text, text);
    }
  });

  it('dollars are escaped: GitHub reads `$…$` as math (marked does not, so this is checked as text)', () => {
    assert.equal(escapeText('set $HOME and $PATH$'), 'set \\$HOME and \\$PATH\\$');
  });

  it('a heading of any title shows the title', () => {
    for (const title of ['C# tips #', '# not a level', 'plain']) {
      const heading = tokens(`# ${escapeText(title)}`).find((t) => t.type === 'heading');
      assert.equal(shown(`# ${escapeText(title)}`), title);
      assert.ok(heading, title);
    }
  });

  it('text with code spans keeps them as code and the rest as written', () => {
    const doc = escapeText('set `a.b` to *2*');
    assert.equal(shown(doc), 'set `a.b` to *2*');
    const spans = escapeText('set `a.b` to *2*', true);
    assert.deepEqual(tokens(spans).filter((t) => t.type === 'codespan').map((t) => t.text), ['a.b']);
    assert.equal(shown(spans), 'set a.b to *2*');
  });

  it('prompts and replies keep their Markdown but lose raw HTML, outside code only', () => {
    const source = 'Hi <b>there</b> <!-- hidden\n\n`<kbd>` stays code\n\n```html\n<script>x()</script>\n```\n\n<script>alert(1)</script>\n\n    <i>indented code</i>';
    const doc = markdownWithoutHtml(source);
    assert.deepEqual(tokens(doc).filter((t) => t.type === 'html'), [], 'no raw HTML token');
    assert.deepEqual(tokens(doc).filter((t) => t.type === 'code').map((t) => t.text), ['<script>x()</script>', '<i>indented code</i>']);
    assert.deepEqual(tokens(doc).filter((t) => t.type === 'codespan').map((t) => t.text), ['<kbd>']);
    assert.match(shown(doc), /Hi <b>there<\/b> <!-- hidden/);
  });

  it('a reply cut inside a fenced block is closed, so the chat after it is not code', () => {
    const doc = `${markdownWithoutHtml('text\n\n````js\nconst a = 1;\n```')}\n\nNEXT TURN\n`;
    assert.ok(tokens(doc).some((t) => t.type === 'paragraph' && t.text === 'NEXT TURN'));
  });

  it('a prompt keeps its line breaks (as the chat view shows it)', () => {
    const html = (md: string) => marked.parse(md, { async: false, gfm: true, breaks: false });
    assert.equal(html(markdownWithoutHtml('one\ntwo\n\nthree', true)), '<p>one<br>two</p>\n<p>three</p>\n');
    assert.equal(html(markdownWithoutHtml('one\ntwo\n\nthree')), '<p>one\ntwo</p>\n<p>three</p>\n', 'a reply keeps Markdown\'s soft breaks');
  });
});

describe('export: times, durations, cut output', () => {
  it('writes ISO-8601 times with the offset given for each instant', () => {
    const ms = Date.UTC(2026, 11, 1, 18, 5, 9);
    assert.equal(isoTime(ms), '2026-12-01T18:05:09+00:00');
    assert.equal(isoTime(ms, () => 60), '2026-12-01T19:05:09+01:00');
    assert.equal(isoTime(ms, () => -330), '2026-12-01T12:35:09-05:30');
  });

  it('words durations as the view does, with milliseconds under a second', () => {
    assert.deepEqual([0, 350, 1_000, 65_000].map(durationLabel), ['0 ms', '350 ms', '1 s', '1 min 05 s']);
  });

  it('says when an output was cut at the projection\'s cap', () => {
    const event = (seq: number, chunk: string) =>
      ({ runId: 'r', seq, sessionId: 's', turnId: 't', kind: 'invocation_output', payload: { invocationId: 'i', chunk }, at: 1 }) as const;
    const started = { runId: 'r', seq: 1, sessionId: 's', turnId: 't', kind: 'invocation_started', payload: { invocationId: 'i', tool: 'run', summary: 'yes' }, at: 1 } as const;
    const turn = { id: 't', sessionId: 's', prompt: 'run yes', origin: 'prompt', parentTurnId: null, status: 'completed', errorClass: null, seq: 1, createdAt: 1 } as const;
    const full = chatToMarkdown(session, buildTranscript([turn], [started, event(2, 'y'.repeat(MAX_INVOCATION_OUTPUT_CHARS))]));
    const cut = chatToMarkdown(session, buildTranscript([turn], [started, event(2, 'y'.repeat(MAX_INVOCATION_OUTPUT_CHARS)), event(3, 'z')]));
    assert.doesNotMatch(full, /cut: only its last/);
    assert.match(cut, /Output \(cut: only its last 65,536 characters are kept\):/);
  });
});

describe('export: file names and the index', () => {
  it('makes a safe file name of any title', () => {
    assert.equal(markdownFileName('list the files in this project'), 'list-the-files-in-this-project.md');
    assert.equal(markdownFileName('a/b\\c:d*e?f"g<h>i|j\u0000k'), 'a-b-c-d-e-f-g-h-i-j-k.md');
    assert.equal(markdownFileName('  ...  '), 'chat.md');
    assert.equal(markdownFileName('CON'), 'CON-chat.md');
    assert.equal(markdownFileName('readme'), 'readme-chat.md');
    assert.equal(markdownFileName('é'.repeat(200)), `${'é'.repeat(80)}.md`);
  });

  it('gives chats with the same title distinct names, never the index\'s', () => {
    assert.deepEqual(uniqueFileNames(['New chat', 'new chat', 'New chat', 'README']), ['New-chat.md', 'new-chat-2.md', 'New-chat-3.md', 'README-chat.md']);
    assert.ok(!uniqueFileNames(['README', 'readme.md']).includes(EXPORT_INDEX_FILE));
  });

  it('lists the chats newest first, each a link to its file', () => {
    const chat = (id: string, updatedAt: number, title: string) => ({ session: { id, title, provider: 'local', createdAt: 0, updatedAt }, fileName: `${id} (1).md`, turns: 2 });
    const index = exportIndexMarkdown([chat('old', 1_000, 'Old'), chat('new', 2_000, 'New *one*')], 3_000);
    const links = tokens(index).filter((t) => t.type === 'link');
    assert.deepEqual(links.map((l) => [l.text, l.href]), [['New \\*one\\*', 'new%20%281%29.md'], ['Old', 'old%20%281%29.md']]);
    assert.match(index, /^# Agent Chats\n\n2 chats, exported 1970-01-01T00:00:03\+00:00, newest first\./);
  });
});

describe('export: how a message was sent', () => {
  it('a turn sent from the queue says so beside its time, as the chat does; one sent at once says nothing', () => {
    const turn = (id: string, sentFrom: 'composer' | 'queue' | 'send_now', createdAt: number) =>
      ({ id, sessionId: 's', prompt: `prompt ${id}`, origin: 'prompt', parentTurnId: null, status: 'completed', errorClass: null, seq: createdAt, createdAt, sentFrom }) as const;
    const doc = chatToMarkdown(session, buildTranscript([turn('a', 'composer', 1), turn('b', 'queue', 2), turn('c', 'send_now', 3)], []));
    const metas = doc.split('\n').filter((line) => line.startsWith('*Sent '));
    assert.equal(metas.length, 3);
    assert.doesNotMatch(metas[0]!, /queue/);
    assert.match(metas[1]!, / · Sent from the queue\*$/);
    assert.match(metas[2]!, / · Sent from the queue at your request\*$/);
  });
});
