/**
 * The `@` list's order: the open editors first, then `@problems` and `@selection`, then the
 * workspace's files; a query that starts a special's word puts that special first.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { orderMentionItems } from '../../src/core/mentionOrder';

const item = (label: string) => ({ label });
const specials = [item('problems'), item('selection')];
const open = [item('src/greet.js')];
const files = [item('README.md'), item('package.json')];

describe('the @ list order', () => {
  it('shows the open editors before the specials when nothing is typed', () => {
    assert.deepEqual(orderMentionItems('', specials, open, files).map((i) => i.label), ['src/greet.js', 'problems', 'selection', 'README.md', 'package.json']);
  });
  it('puts a special first when the query starts its word, any case', () => {
    assert.deepEqual(orderMentionItems('Prob', [item('problems')], open, files).map((i) => i.label), ['problems', 'src/greet.js', 'README.md', 'package.json']);
  });
  it('a special matched only fuzzily stays after the open editors', () => {
    assert.deepEqual(orderMentionItems('pms', [item('problems')], open, []).map((i) => i.label), ['src/greet.js', 'problems']);
  });
});
