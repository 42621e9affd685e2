/**
 * What a screen reader hears (webview/announcer.ts): an approval that starts waiting and how the
 * newest reply ended, through one status region; the transcript itself is not a live region, so the
 * turns the virtualized view draws while the user scrolls are not announced as new.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SessionRecord } from '../../src/core/events';
import type { TranscriptItem, TranscriptTurn } from '../../src/core/transcript';
import type { LiveState } from '../../src/protocol/messages';
import { announcementsFor } from '../../webview/announcer';
import { INITIAL_VIEW_STATE, reduceHostMessage, type ViewState } from '../../webview/state';
import { buildSkeleton } from '../../webview/layout';
import { useHappyDom } from './happyDom';

const window = useHappyDom();

const session: SessionRecord = { id: 's1', title: 'Chat', provider: 'local', createdAt: 1, updatedAt: 1 };
const idle: LiveState = { running: false, actionableRequestIds: [], readOnlyReason: null };
const card: TranscriptItem = { type: 'boundary', id: 'r1', kind: 'command', subject: 'touch x', why: 'not read-only', status: 'pending' };

function turn(status: TranscriptTurn['status'], items: TranscriptItem[] = [], errorClass: TranscriptTurn['errorClass'] = null): TranscriptTurn {
  return { id: 't1', sessionId: 's1', prompt: 'run touch x', origin: 'prompt', parentTurnId: null, status, errorClass, seq: 1, createdAt: 1, items, applied: {} };
}
function view(t: TranscriptTurn, live: LiveState = idle, id = 's1'): ViewState {
  return reduceHostMessage(INITIAL_VIEW_STATE, { type: 'snapshot', queue: [], session: { ...session, id }, transcript: { turns: [t] }, hasOlder: false, turnCount: 1, live });
}

describe('announcements', () => {
  test('an approval that starts waiting, once', () => {
    const before = view(turn('running'), { ...idle, running: true });
    const after = view(turn('running', [card]), { ...idle, running: true, actionableRequestIds: ['r1'] });
    assert.deepEqual(announcementsFor(before, after), ['Approval needed to run touch x. Shift+Tab from the message box goes to its Deny button.']);
    assert.deepEqual(announcementsFor(after, after), [], 'still waiting is not news');
  });

  test('how the newest reply ended', () => {
    const running = view(turn('running'), { ...idle, running: true });
    assert.deepEqual(announcementsFor(running, view(turn('completed'))), ['The agent replied.']);
    assert.deepEqual(announcementsFor(running, view(turn('stopped'))), ['The reply was stopped.']);
    assert.match(announcementsFor(running, view(turn('failed', [], 'agent_error')))[0] ?? '', /^The reply failed: .+\.$/);
  });

  test('nothing for a first snapshot or another chat', () => {
    assert.deepEqual(announcementsFor(INITIAL_VIEW_STATE, view(turn('completed'))), []);
    assert.deepEqual(announcementsFor(view(turn('running'), { ...idle, running: true }), view(turn('completed'), idle, 's2')), []);
  });

  test('the transcript is not a live region; the announcer is', () => {
    const sk = buildSkeleton(window.document.body.appendChild(window.document.createElement('div')) as unknown as HTMLElement);
    assert.equal(sk.transcript.closest('[aria-live]'), null, 'turns drawn while scrolling would be read out as new');
    assert.equal(sk.announcer.getAttribute('role'), 'status');
    assert.equal(sk.announcer.getAttribute('aria-live'), 'polite');
  });
});
