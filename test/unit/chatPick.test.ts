/**
 * Which chats the Open Chat… picker hands VS Code (src/core/chatPick.ts): this workspace's first,
 * newest first, at most the limit; typed text narrows every chat, so a chat beyond the newest is
 * found by its title; the test for a possible match keeps what VS Code's own filter would show.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { ChatListEntry } from '../../src/core/chatList';
import { couldMatch, pickRows } from '../../src/core/chatPick';

const entry = (id: string, title: string, updatedAt: number, workspace: string | null): ChatListEntry =>
  ({ id, title, provider: 'local', workspace, updatedAt, activity: updatedAt, state: 'idle' });
const describe_ = (e: ChatListEntry) => (e.provider === 'claude' ? 'yesterday · Claude Code' : 'yesterday · Local agent');
const ids = (rows: { mine: readonly ChatListEntry[]; others: readonly ChatListEntry[] }) => [...rows.mine, ...rows.others].map((e) => e.id);

describe('the Open Chat… picker rows', () => {
  // 250 chats of another folder, newer than everything, and two of this one; the oldest chat is the needle.
  const chats = [
    ...Array.from({ length: 250 }, (_, i) => entry(`o${i}`, `Other chat ${i}`, 10_000 + i, '/other')),
    entry('h1', 'Fix the login form', 500, '/here'),
    entry('h2', 'Write release notes', 600, '/here'),
    entry('needle', 'Migrate the billing cron job', 1, '/elsewhere'),
  ];

  it('with no text: this workspace first, newest first, then the others newest first, up to the limit', () => {
    const rows = pickRows(chats, '/here', '', describe_, 5);
    assert.deepEqual(ids(rows), ['h2', 'h1', 'o249', 'o248', 'o247']);
    assert.equal(rows.more, 253 - 5);
  });

  it('typed text finds a chat beyond the newest, by a piece of its title', () => {
    assert.ok(!ids(pickRows(chats, '/here', '', describe_, 100)).includes('needle'));
    const rows = pickRows(chats, '/here', 'billing cron', describe_, 100);
    assert.deepEqual(ids(rows), ['needle']);
    assert.equal(rows.more, 0);
  });

  it('over the limit, titles holding the text as one piece come before looser matches', () => {
    const loose = [entry('a', 'crontab backup', 900, '/x'), entry('b', 'c-r-o-n loosely', 950, '/x'), entry('c', 'cron', 100, '/x')];
    assert.deepEqual(ids(pickRows(loose, '/here', 'cron', describe_, 2)), ['a', 'c']);
  });

  it('matches the description too (VS Code matches it: the agent, the time)', () => {
    const mixed = [entry('l', 'First', 2, '/x'), { ...entry('c', 'Second', 1, '/x'), provider: 'claude' }];
    assert.deepEqual(ids(pickRows(mixed, '/here', 'Claude', describe_, 100)), ['c']);
  });

  it('keeps every title VS Code\'s filter could match: substring, word starts, camel case, wildcard, case, spaces', () => {
    assert.ok(couldMatch('login', 'Fix the Login form'));
    assert.ok(couldMatch('ftl', 'Fix the login'));
    assert.ok(couldMatch('FixLog', 'fixLogin'));
    assert.ok(couldMatch('fix*form', 'Fix the login form'));
    assert.ok(couldMatch('  form ', 'Fix the login form'));
    assert.ok(!couldMatch('mrof', 'Fix the login form'), 'letters out of order');
    assert.ok(!couldMatch('formx', 'Fix the login form'));
  });
});
