/**
 * Enter in Search Chats… while a search runs (src/host/searchChats.ts), on a fake quick pick
 * (test/unit/fakeQuickPick.ts): the first search of a large journal left the pick busy and empty,
 * and Enter then closed it and opened nothing. Enter with no result to take is kept until the latest
 * query's results arrive, then opens the first one, once; Escape before then opens nothing.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { quickPicks } from './fakeQuickPick';
import { gate, settle } from './helpers';
import type { Result } from '../../src/core/result';
import type { SearchRefusal, SearchResult } from '../../src/journal/operations/search';
import type { ChatRuntime } from '../../src/runtime/chatRuntime';
// After the fake `vscode` is installed (fakeQuickPick.ts).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { searchChats } = require('../../src/host/searchChats') as typeof import('../../src/host/searchChats');

type Found = Result<SearchResult[], SearchRefusal>;

const result = (sessionId: string, title: string): SearchResult =>
  ({ sessionId, title, turnId: `${sessionId}-t1`, createdAt: 1, kind: 'reply', eventId: 1, snippet: `… ${title} …`, matchRanges: [[2, 5]] });

/** A runtime whose searches the test answers, in the order they were asked. */
function searchingRuntime() {
  const asked: { query: string; answer: ReturnType<typeof gate<Found>> }[] = [];
  const runtime = {
    searchChats: (query: string) => {
      const answer = gate<Found>();
      asked.push({ query, answer });
      return answer.promise;
    },
  } as unknown as ChatRuntime;
  return { runtime, asked };
}

describe('Enter in Search Chats… while a search runs', () => {
  it('Enter on the busy, empty search opens the first result once it arrives, once', async () => {
    const { runtime, asked } = searchingRuntime();
    const found = searchChats(runtime, { initial: 'billing' });
    const pick = quickPicks.at(-1)!;
    assert.deepEqual({ visible: pick.visible, busy: pick.busy, items: pick.items.length }, { visible: true, busy: true, items: 0 });
    pick.accept();
    await settle();
    assert.equal(pick.visible, true, 'still open: Enter is kept, not a dismissal');
    asked[0]!.answer.resolve({ ok: true, value: [result('a', 'Billing cron'), result('b', 'Billing export')] });
    assert.equal((await found)?.sessionId, 'a');
    assert.equal(pick.hides, 1);
    assert.equal(asked.length, 1);
  });

  it('Enter while an older query runs and a newer one waits opens the newer query\'s first result', async () => {
    const { runtime, asked } = searchingRuntime();
    const found = searchChats(runtime);
    const pick = quickPicks.at(-1)!;
    pick.type('bil');
    pick.type('billing');
    pick.accept();
    asked[0]!.answer.resolve({ ok: true, value: [result('old', 'Bilbo')] });
    await settle();
    assert.equal(pick.visible, true, 'the results of a query no longer typed are not taken');
    assert.deepEqual(asked.map((a) => a.query), ['bil', 'billing']);
    asked[1]!.answer.resolve({ ok: true, value: [result('new', 'Billing cron')] });
    assert.equal((await found)?.sessionId, 'new');
  });

  it('Escape before the results arrive opens nothing', async () => {
    const { runtime, asked } = searchingRuntime();
    const found = searchChats(runtime, { initial: 'billing' });
    const pick = quickPicks.at(-1)!;
    pick.accept();
    pick.hide();
    asked[0]!.answer.resolve({ ok: true, value: [result('a', 'Billing cron')] });
    assert.equal(await found, undefined);
    await settle();
    assert.equal(pick.hides, 1);
  });

  it('Enter on a search that finds nothing leaves it open, saying so', async () => {
    const { runtime, asked } = searchingRuntime();
    const found = searchChats(runtime, { initial: 'nothing like it' });
    const pick = quickPicks.at(-1)!;
    pick.accept();
    asked[0]!.answer.resolve({ ok: true, value: [] });
    await settle();
    assert.deepEqual({ visible: pick.visible, busy: pick.busy, placeholder: pick.placeholder }, { visible: true, busy: false, placeholder: 'Nothing found for “nothing like it”' });
    pick.hide();
    assert.equal(await found, undefined);
  });
});
