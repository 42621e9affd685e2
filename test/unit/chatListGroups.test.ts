/**
 * The chat list's grouping rules (src/core/chatList.ts): day groups by local calendar days, this workspace's
 * chats or all, newest first, the words for the last activity, the waiting badge.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { dayGroupOf, groupChats, lastActiveWords, waitingCount, type ChatListEntry } from '../../src/core/chatList';

const now = new Date(2026, 11, 1, 15, 30).getTime(); // 1 December 2026, 15:30 local time
const at = (day: number, hour = 12) => new Date(2026, 11, day, hour).getTime(); // December
const nov = (day: number, hour = 12) => new Date(2026, 10, day, hour).getTime();
const entry = (id: string, updatedAt: number, workspace: string | null = '/ws', state: ChatListEntry['state'] = 'idle'): ChatListEntry =>
  ({ id, title: `Chat ${id}`, provider: 'local', workspace, updatedAt, activity: updatedAt, state });

describe('the chat list', () => {
  it('groups by local calendar day', () => {
    assert.equal(dayGroupOf(new Date(2026, 11, 1, 0, 0).getTime(), now), 'Today');
    assert.equal(dayGroupOf(new Date(2026, 10, 30, 23, 59).getTime(), now), 'Yesterday');
    assert.equal(dayGroupOf(new Date(2026, 10, 30, 0, 0).getTime(), now), 'Yesterday');
    assert.equal(dayGroupOf(new Date(2026, 10, 29, 23, 59).getTime(), now), 'Previous 7 days');
    assert.equal(dayGroupOf(new Date(2026, 10, 24, 0, 0).getTime(), now), 'Previous 7 days');
    assert.equal(dayGroupOf(new Date(2026, 10, 23, 23, 0).getTime(), now), 'Previous 30 days');
    assert.equal(dayGroupOf(new Date(2026, 10, 1, 0, 0).getTime(), now), 'Previous 30 days');
    assert.equal(dayGroupOf(new Date(2026, 9, 31, 12, 0).getTime(), now), 'Older');
  });

  it('shows this workspace\'s chats, or all, newest first, empty groups left out', () => {
    const entries = [entry('a', at(1, 9)), entry('b', at(1, 14)), entry('c', nov(20), '/other'), entry('d', nov(1) - 86_400_000 * 10, null), entry('e', nov(30, 10))];
    assert.deepEqual(groupChats(entries, 'workspace', '/ws', now).map((g) => [g.group, g.chats.map((c) => c.id)]), [
      ['Today', ['b', 'a']], ['Yesterday', ['e']],
    ]);
    assert.deepEqual(groupChats(entries, 'all', '/ws', now).map((g) => [g.group, g.chats.map((c) => c.id)]), [
      ['Today', ['b', 'a']], ['Yesterday', ['e']], ['Previous 30 days', ['c']], ['Older', ['d']],
    ]);
    assert.deepEqual(groupChats([entry('x', at(1), '')], 'workspace', '', now)[0]?.chats.map((c) => c.id), ['x'], 'a window without a folder keeps its own chats');
  });

  it('words the last activity', () => {
    assert.equal(lastActiveWords(now - 30_000, now), 'just now');
    assert.equal(lastActiveWords(now - 5 * 60_000, now), '5 min ago');
    assert.equal(lastActiveWords(now - 3 * 3_600_000, now), '3 h ago');
    assert.equal(lastActiveWords(nov(30, 20), now), 'yesterday');
    assert.equal(lastActiveWords(nov(27, 16), now), '4 days ago');
    assert.equal(lastActiveWords(now + 5_000, now), 'just now', 'a clock a little ahead is not "in the future"');
  });

  it('counts chats waiting for an approval', () => {
    assert.equal(waitingCount([entry('a', now, '/ws', 'waiting'), entry('b', now, '/ws', 'running'), entry('c', now, null, 'waiting')]), 2);
  });
});
