/**
 * The words of a revealed search result (webview/highlight.ts, on happy-dom): found in the turn's
 * whole text, case-insensitively, in document order; marked only where the browser has CSS Custom
 * Highlights.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useHappyDom } from './happyDom';

const window = useHappyDom();

describe('a revealed search result', () => {
  test('has its words found anywhere in the turn, whatever their case, in document order', async () => {
    const { termRanges } = await import('../../webview/highlight');
    const turn = window.document.createElement('section');
    turn.innerHTML = '<div class="message user"><p>Why does <code>npm TEST</code> fail?</p></div><pre class="output">npm test\nnpm testing done</pre>';
    const found = termRanges(turn as never, ['npm test', 'NPM TEST', 'fail', '  ']).map((r) => `${r.startContainer.nodeValue?.slice(0, 4)}:${r.startOffset}-${r.endOffset}:${r.toString()}`);
    assert.deepEqual(found, ['npm :0-8:npm TEST', ' fai:1-5:fail', 'npm :0-8:npm test', 'npm :9-17:npm test'], 'each match once, the blank term ignored');
    assert.deepEqual(termRanges(turn as never, ['absent']), []);
    assert.deepEqual(termRanges(turn as never, []), []);
  });

  test('inside a request replaced by an edit (collapsed) opens it, and only the details that hold a match', async () => {
    const { openAround, termRanges } = await import('../../webview/highlight');
    const turn = window.document.createElement('section');
    turn.innerHTML = '<details class="replaced-turn"><summary>Edited</summary><p>read second line</p></details><details class="other"><summary>x</summary><p>nothing</p></details>';
    const ranges = termRanges(turn as never, ['second line']);
    assert.equal(openAround(turn as never, ranges), 1);
    assert.deepEqual([...turn.querySelectorAll('details')].map((d) => (d as unknown as { open: boolean }).open), [true, false]);
    assert.equal(openAround(turn as never, []), 0, 'no match, nothing opened');
  });

  test('is marked as a highlight where the browser has them, and said not to be where it has none', async () => {
    const { markRanges, SEARCH_HIGHLIGHT } = await import('../../webview/highlight');
    const set = new Map<string, unknown>();
    class Highlight {
      readonly ranges: unknown[];
      constructor(...ranges: unknown[]) {
        this.ranges = ranges;
      }
    }
    const browser = { CSS: { highlights: { set: (k: string, v: unknown) => set.set(k, v), delete: (k: string) => set.delete(k) } }, Highlight } as unknown as Window;
    const range = window.document.createRange() as unknown as Range;
    assert.equal(markRanges(browser, [range]), true);
    assert.deepEqual((set.get(SEARCH_HIGHLIGHT) as Highlight).ranges, [range]);
    assert.equal(markRanges(browser, []), true);
    assert.equal(set.has(SEARCH_HIGHLIGHT), false, 'no words: the marks go');
    assert.equal(markRanges({} as Window, [range]), false);
  });
});
