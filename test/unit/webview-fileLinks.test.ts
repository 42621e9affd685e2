/**
 * File links as the view draws them, on a DOM in plain Node (happy-dom): in an agent's reply (code
 * spans, paths in text, Markdown links to relative paths; not in code blocks, not URLs), in a tool's
 * header, in a diff's file and hunk headers; and what a click on one asks the host to open.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useHappyDom } from './happyDom';

useHappyDom();

const links = (root: Element) => [...root.querySelectorAll<HTMLElement>('a.file-link[data-action="open-file"]')]
  .map((a) => `${a.dataset.path}${a.dataset.line ? `:${a.dataset.line}` : ''}${a.dataset.column ? `:${a.dataset.column}` : ''}=${a.textContent}`);

describe('file links', () => {
  test('in a reply: code spans that are paths, paths in text, Markdown links to files; not code blocks or URLs', async () => {
    const { renderText } = await import('../../webview/render/items');
    const el = renderText([
      'I changed `src/app.ts:12` and test/app.test.ts#L3, see [the notes](docs/notes.md#L7).',
      'Not `npm test`, not https://example.com/a/b.html, not [a site](https://example.com/x.md).',
      '```',
      'src/in-a-block.ts:1',
      '```',
    ].join('\n'));
    assert.deepEqual(links(el), ['src/app.ts:12=src/app.ts:12', 'test/app.test.ts:3=test/app.test.ts#L3', 'docs/notes.md:7=the notes']);
    assert.equal(el.querySelector('a.file-link code')?.textContent, 'src/app.ts:12', 'the code span stays code, inside the link');
    assert.equal(el.querySelector('a[href="https://example.com/x.md"]')?.classList.contains('file-link'), false);
  });

  test('a setting named in a reply opens the Settings editor', async () => {
    const { renderText } = await import('../../webview/render/items');
    const el = renderText('Set `nativeAgentChats.openaiCompatible.model` first.');
    assert.equal(el.querySelector('a.setting-link')?.getAttribute('data-setting'), 'nativeAgentChats.openaiCompatible.model');
  });

  test('in a tool\'s header: the file of a file tool, paths in a command', async () => {
    const { renderInvocation } = await import('../../webview/render/items');
    const item = (tool: string, summary: string) => ({ type: 'invocation', id: 'i1', tool, summary, status: 'completed', output: '' }) as never;
    assert.deepEqual(links(renderInvocation(item('read', 'notes.txt'))), ['notes.txt=notes.txt']);
    assert.deepEqual(links(renderInvocation(item('Edit', 'src/app.ts'))), ['src/app.ts=src/app.ts']);
    assert.deepEqual(links(renderInvocation(item('run', 'cat src/app.ts | wc -l'))), ['src/app.ts=src/app.ts']);
    assert.deepEqual(links(renderInvocation(item('run', 'ls -la'))), []);
  });

  test('in a diff: the file headers link to the file, each hunk to its first line', async () => {
    const { renderDiff } = await import('../../webview/render/diff');
    const pre = renderDiff('--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,2 +10,3 @@\n-old\n+new\n ctx\n');
    assert.deepEqual(links(pre), ['src/app.ts=a/src/app.ts', 'src/app.ts=b/src/app.ts', 'src/app.ts:10=@@ -1,2 +10,3 @@']);
    assert.equal(pre.textContent, '--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,2 +10,3 @@\n-old\n+new\n ctx\n', 'the diff reads as before');
    assert.deepEqual(links(renderDiff('--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n')), ['new.txt=b/new.txt', 'new.txt:1=@@ -0,0 +1 @@']);
  });

  test('a click asks for the path and line the link holds, and nothing for a forged one', async () => {
    const { fileLink, fileToOpen } = await import('../../webview/fileLinks');
    const a = fileLink({ path: 'src/app.ts', line: 12, column: 4 }, 'src/app.ts:12:4');
    const inner = a.appendChild(document.createElement('span'));
    assert.deepEqual(fileToOpen(inner), { path: 'src/app.ts', line: 12, column: 4 });
    a.setAttribute('data-line', '0');
    assert.deepEqual(fileToOpen(a), { path: 'src/app.ts' }, 'a line the host would refuse is left out');
    assert.equal(fileToOpen(document.createElement('a')), null);
  });
});
