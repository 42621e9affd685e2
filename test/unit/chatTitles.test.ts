/**
 * A new chat's name (src/runtime/titles.ts `distinctTitle`) never repeats another chat's: the journal
 * hands it only the titles that could clash (`titlesLike`), with SQL's wildcards in a title taken
 * literally.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { distinctTitle } from '../../src/runtime/titles';
import { lifetime, tempDir } from './helpers';

describe('a new chat\'s distinct title', () => {
  it('is read from the titles that could clash only, wildcards taken literally', async () => {
    await lifetime(path.join(tempDir(), 'journal.sqlite'), async (j) => {
      const titles = ['Fix 50% of_bugs', 'Fix 50% of_bugs (2)', 'Fix 50X of-bugs (3)', 'Fix 50% of_bugs(4)', 'Other', 'Fix 50% of_bugs'];
      for (const [i, title] of titles.entries()) {
        assert.ok((await j.write('createSession', { id: `s${i}`, title, provider: 'local', createdAt: i, updatedAt: i })).ok);
      }
      const taken = await j.read('titlesLike', 'Fix 50% of_bugs', 's5');
      assert.deepEqual(taken.sort(), ['Fix 50% of_bugs', 'Fix 50% of_bugs (2)']);
      assert.equal(distinctTitle('Fix 50% of_bugs', taken), 'Fix 50% of_bugs (3)');
      assert.deepEqual(await j.read('titlesLike', 'Other', 's4'), [], 'the chat being named is not its own clash');
    });
  });
});
