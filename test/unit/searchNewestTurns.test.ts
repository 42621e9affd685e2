/**
 * Search returns the newest turns that match, one result per turn, at most the limit (50 unless
 * asked): a word found in many turns shows the newest ones first, even when the newest turn holds
 * thousands of its matches (a long command output), and a turn matched only by its prompt takes its
 * place by time among turns matched by replies. A three-letter last word common enough to fill the
 * results is searched whole; otherwise as the start of longer words (core/searchQuery.ts).
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Journal } from '../../src/journal/journal';
import type { SearchResult } from '../../src/journal/operations/search';
import { openJournal, tempDir } from './helpers';

const FOLDER = path.resolve('folder-search');

/** Turn `n` (0-based) of chat `c<n % 3>`, created at 1000·(n+1): its prompt, and a reply at +10 unless `reply` is null. */
async function turn(journal: Journal, n: number, prompt: string, reply: string | null): Promise<string> {
  const sessionId = `c${n % 3}`;
  const at = 1000 * (n + 1);
  const started = await journal.write('startTurn', {
    turn: { id: `t${n}`, sessionId, prompt, origin: 'prompt', parentTurnId: null, createdAt: at },
    run: { id: `r${n}`, instanceId: 'i1', provider: 'local' },
    // Seeded turns leave their runs running: none counts as busy for the next (`startTurn`'s check).
    endedRunIds: Array.from({ length: n }, (_, i) => `r${i}`),
  });
  assert.equal(started.ok, true);
  if (reply !== null) assert.equal((await journal.write('appendEvents', `r${n}`, [{ kind: 'text', payload: { text: reply } }], at + 10)).ok, true);
  return `t${n}`;
}

async function search(journal: Journal, query: string, options: { limit?: number; workspace?: string } = {}): Promise<SearchResult[]> {
  const result = await journal.read('searchChats', query, options);
  assert.ok(result.ok, `search for ${query} refused`);
  return result.value;
}

describe('search: the newest turns, one result each', () => {
  it('a word in 80 turns gives exactly the 50 newest, newest first, though the newest turn holds 3,000 of its matches', async () => {
    const journal = await openJournal(path.join(tempDir(), 'journal.sqlite'));
    try {
      for (let c = 0; c < 3; c++) {
        const created = await journal.write('createSession', { id: `c${c}`, title: `Chat ${c}`, provider: 'local', createdAt: 1, updatedAt: 1, workspace: c === 0 ? FOLDER : null });
        assert.equal(created.ok, true);
      }
      const turns: string[] = [];
      // Every 7th turn has the word only in its prompt; the others only in their reply.
      for (let n = 0; n < 80; n++) turns.push(await turn(journal, n, n % 7 === 0 ? `find the heron ${n}` : `prompt ${n}`, n % 7 === 0 ? 'nothing here' : `a heron stood there (${n})`));
      // The newest turn streams a long command output, every chunk with the word.
      for (let k = 0; k < 3000; k += 500) {
        const chunks = Array.from({ length: 500 }, (_, i) => ({ kind: 'invocation_output' as const, payload: { invocationId: 'inv', chunk: `heron line ${k + i}\n` } }));
        assert.equal((await journal.write('appendEvents', 'r79', chunks, 200_000 + k)).ok, true);
      }

      const results = await search(journal, 'heron');
      assert.deepEqual(results.map((r) => r.turnId), turns.slice(-50).reverse());
      assert.equal(new Set(results.map((r) => r.turnId)).size, 50);
      // Each result is its turn's newest match: the last chunk of the long output, a reply, or a prompt.
      assert.deepEqual([results[0]!.kind, results[0]!.snippet], ['output', 'heron line 2999']);
      for (const r of results.slice(1)) assert.equal(r.kind, Number(r.turnId.slice(1)) % 7 === 0 ? 'prompt' : 'reply', r.turnId);
      for (const r of results) assert.deepEqual(r.snippet.slice(r.matchRanges[0]![0], r.matchRanges[0]![1]), 'heron', r.turnId);

      // A limit, the prefix of the word, and one workspace's chats give the same order.
      assert.deepEqual((await search(journal, 'her', { limit: 7 })).map((r) => r.turnId), turns.slice(-7).reverse());
      assert.deepEqual((await search(journal, 'hero')).map((r) => r.turnId), turns.slice(-50).reverse());
      const inFolder = turns.filter((t) => Number(t.slice(1)) % 3 === 0);
      assert.deepEqual((await search(journal, 'heron', { workspace: FOLDER })).map((r) => r.turnId), inFolder.reverse());
    } finally {
      await journal.close();
    }
  });

  it('a three-letter word that fills the results is taken whole; one that does not is still a prefix', async () => {
    const journal = await openJournal(path.join(tempDir(), 'journal.sqlite'));
    try {
      for (let c = 0; c < 3; c++) assert.equal((await journal.write('createSession', { id: `c${c}`, title: `Chat ${c}`, provider: 'local', createdAt: 1, updatedAt: 1 })).ok, true);
      const withWord: string[] = [];
      for (let n = 0; n < 55; n++) withWord.push(await turn(journal, n, `prompt ${n}`, `the log was long (${n})`));
      const longer: string[] = [];
      for (let n = 55; n < 58; n++) longer.push(await turn(journal, n, `prompt ${n}`, `logging on (${n})`));

      const results = await search(journal, 'log');
      assert.deepEqual(results.map((r) => r.turnId), withWord.slice(-50).reverse());
      assert.deepEqual(results[0]!.matchRanges.map(([a, b]) => results[0]!.snippet.slice(a, b)), ['log']);
      // Asked for more turns than hold the whole word: the prefix finds the longer word too, newest first.
      assert.deepEqual((await search(journal, 'log', { limit: 100 })).map((r) => r.turnId), [...withWord, ...longer].reverse());
      assert.deepEqual((await search(journal, 'logg')).map((r) => r.turnId), [...longer].reverse());
    } finally {
      await journal.close();
    }
  });
});
