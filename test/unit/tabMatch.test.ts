/**
 * Matching chat tabs to journaled chats by title (src/core/tabMatch.ts): which tabs a dead
 * extension host left, which journaled tabs a window must reopen.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { matchTabsToChats, tabsToReopen, unownedTabs } from '../../src/core/tabMatch';

const records = [
  { sessionId: 's1', title: 'Fix the build' },
  { sessionId: 's2', title: 'New chat' },
  { sessionId: 's3', title: 'New chat' },
  { sessionId: 's4', title: 'Release notes' },
  { sessionId: 's5', title: 'Refactor' },
];

describe('matching tabs to chats', () => {
  test('each label takes the first unused chat of its title; a title with no chat left gets none', () => {
    assert.deepEqual(matchTabsToChats(['New chat', 'Fix the build', 'New chat', 'New chat', 'Gone'], records), ['s2', 's1', 's3', undefined, undefined]);
  });

  test('candidates are taken in the order given (journaled tabs before other chats)', () => {
    assert.deepEqual(matchTabsToChats(['Refactor'], [{ sessionId: 'tab', title: 'Refactor' }, records[4]!]), ['tab']);
  });
});

describe('journaled tabs a window reopens', () => {
  test('those no panel shows and no restored tab stands for (code-server restored 3 of 5)', () => {
    // The saved layout holds three of the five chat tabs: one shown by a panel, two not yet handed over.
    const shown = new Set(['s1']);
    assert.deepEqual(tabsToReopen(records, shown, ['New chat', 'Refactor']), ['s3', 's4']);
  });

  test('nothing when every journaled tab is in the layout; all when the layout has none', () => {
    assert.deepEqual(tabsToReopen(records, new Set(['s1', 's2', 's3']), ['Release notes', 'Refactor']), []);
    assert.deepEqual(tabsToReopen(records, new Set(), []), ['s1', 's2', 's3', 's4', 's5']);
  });
});

describe('the tabs of a group no panel owns', () => {
  test('the visible panel owns the active tab; other panels own tabs of their title', () => {
    const tabs = [
      { label: 'New chat', active: false },
      { label: 'Fix the build', active: false },
      { label: 'New chat', active: true },
      { label: 'Refactor', active: false },
    ];
    // A hidden panel titled "New chat" and the visible one (renamed since the layout was saved).
    assert.deepEqual(unownedTabs(tabs, [{ title: 'New chat', visible: false }, { title: 'Renamed', visible: true }]), [1, 3]);
  });

  test('with no panels every tab is unowned; with a panel per tab none is', () => {
    const tabs = [{ label: 'A', active: true }, { label: 'B', active: false }];
    assert.deepEqual(unownedTabs(tabs, []), [0, 1]);
    assert.deepEqual(unownedTabs(tabs, [{ title: 'B', visible: false }, { title: 'A', visible: true }]), []);
  });

  test('with no panel visible, the active tab (the one no panel shows) is the unowned one of two with one title', () => {
    // After a host crash, the left tab "Fix the build" stands first; the user opened that chat again
    // (a new panel, next to it), then went back to the left tab: that one is visible and has no panel.
    const tabs = [{ label: 'Fix the build', active: true }, { label: 'Fix the build', active: false }];
    assert.deepEqual(unownedTabs(tabs, [{ title: 'Fix the build', visible: false }]), [0]);
  });
});
