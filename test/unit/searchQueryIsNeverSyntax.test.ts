/**
 * What the user types into search is never FTS or SQL syntax (core/searchQuery.ts): quotes, `*`,
 * `NEAR`, `-`, parentheses, 10,000 characters, NUL never make a search throw; a query with no word
 * is refused with a sentence; punctuation around a word still finds it; snippets mark the matches.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { parseSearchQuery, snippetFor, wholeWordFirst } from '../../src/core/searchQuery';
import { openJournal, tempDir } from './helpers';

const HOSTILE = [
  '"', '""', '"zebra', 'zebra"', '*', 'zebra*', '**zebra', 'NEAR', 'zebra NEAR okapi', 'zebra NEAR/2 okapi', 'NEAR/', '-', '-zebra', 'zebra -okapi',
  '(', ')', '(zebra', 'zebra OR', 'OR zebra', 'AND', 'NOT zebra', '^zebra', 'body:zebra', 'event_search:zebra', "'; DROP TABLE events; --",
  '\u0000', 'zeb\u0000ra', 'x'.repeat(10_000), 'zebra '.repeat(2_000), '\uD800', '🦓 zebra', '\\', '%', '_', '?', '?1', ':a', '$a', '@a',
];

describe('search: user text is never syntax', () => {
  it('hostile queries never throw: each either searches or is refused with a sentence', async () => {
    const journal = await openJournal(path.join(tempDir(), 'journal.sqlite'));
    try {
      await journal.write('createSession', { id: 's', title: 'Chat', provider: 'local', createdAt: 1, updatedAt: 1 });
      await journal.write('startTurn', {
        turn: { id: 't', sessionId: 's', prompt: 'zebra crossing', origin: 'prompt', parentTurnId: null, createdAt: 2 },
        run: { id: 'r', instanceId: 'i', provider: 'local' },
      });
      for (const query of HOSTILE) {
        const result = await journal.read('searchChats', query, {});
        if (!result.ok) {
          assert.equal(result.reason, 'empty_query', JSON.stringify(query.slice(0, 40)));
          assert.match(result.message, /Type a word to search for/);
        }
      }
      for (const query of ['"zebra"', 'zebra*', '(zebra)', '-zebra', 'zebra cross', 'ZEBRA', 'zeb', 'zebra\u0000']) {
        const result = await journal.read('searchChats', query, {});
        assert.ok(result.ok);
        assert.deepEqual(result.value.map((r) => r.turnId), ['t'], JSON.stringify(query));
      }
      for (const query of ['', '   ', '"*"', '-()', '\u0000']) {
        const result = await journal.read('searchChats', query, {});
        assert.deepEqual(result.ok ? 'searched' : result.reason, 'empty_query', JSON.stringify(query));
      }
    } finally {
      await journal.close();
    }
  });

  it('turns text into quoted words, the last a prefix; bounds their number and length', () => {
    assert.deepEqual(parseSearchQuery('Fix "the" NEAR(build)*'), { terms: ['fix', 'the', 'near', 'build'], prefixLast: true, match: '"fix" "the" "near" "build*"' });
    assert.deepEqual(parseSearchQuery('a'), { terms: ['a'], prefixLast: false, match: '"a"' });
    assert.equal(parseSearchQuery('-*()"')?.match, undefined);
    assert.equal(parseSearchQuery('w '.repeat(100) + Array.from({ length: 30 }, (_, i) => `t${i}`).join(' '))!.terms.length, 12);
    assert.equal(parseSearchQuery('x'.repeat(10_000))!.terms[0]!.length, 64);
  });

  it('searches a three-character last word whole first, still as quoted words; longer or shorter ones have no such query', () => {
    assert.deepEqual(wholeWordFirst(parseSearchQuery('commit "LOG')!), { terms: ['commit', 'log'], prefixLast: false, match: '"commit" "log"' });
    assert.deepEqual(wholeWordFirst(parseSearchQuery('née')!)?.match, '"née"');
    assert.equal(wholeWordFirst(parseSearchQuery('jour')!), null);
    assert.equal(wholeWordFirst(parseSearchQuery('the jo')!), null);
  });

  it('a snippet is cut around the first match and marks every match in it', () => {
    const query = parseSearchQuery('journal wri')!;
    const text = `${'word '.repeat(40)}the journal\n\nwrites a Journal entry, written ${'tail '.repeat(40)}`;
    const snippet = snippetFor(text, query, 80);
    assert.ok(snippet.text.startsWith('…') && snippet.text.endsWith('…'), snippet.text);
    assert.deepEqual(snippet.matchRanges.map(([a, b]) => snippet.text.slice(a, b)), ['journal', 'writes', 'Journal', 'written']);
    assert.ok(!snippet.text.includes('\n'));
  });
});
