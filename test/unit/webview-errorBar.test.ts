/**
 * The chat view's error bar goes once a later action of the same kind succeeds: a Send refused by a
 * full disk stops being shown when the next Send is saved; other kinds of success leave it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { INITIAL_VIEW_STATE, reduceHostMessage } from '../../webview/state';

const DISK_FULL = 'The disk is full, so the chat journal could not take this change. Nothing was lost; free some space and try again.';

describe('the error bar', () => {
  test('a refused Send stays until a Send succeeds; a Stop that succeeds leaves it', () => {
    const refused = reduceHostMessage(INITIAL_VIEW_STATE, { type: 'error', code: 'storage_failed', message: DISK_FULL, action: 'send' });
    assert.deepEqual(refused.error, { code: 'storage_failed', message: DISK_FULL, action: 'send' });
    const afterStop = reduceHostMessage(refused, { type: 'succeeded', action: 'stop' });
    assert.equal(afterStop.error?.message, DISK_FULL, 'another kind of action says nothing about the disk');
    const afterSend = reduceHostMessage(afterStop, { type: 'succeeded', action: 'send' });
    assert.equal(afterSend.error, null);
  });

  test('an error that refused no action (a malformed message) is not cleared by a success', () => {
    const shown = reduceHostMessage(INITIAL_VIEW_STATE, { type: 'error', code: 'malformed_message', message: 'bad' });
    assert.equal(reduceHostMessage(shown, { type: 'succeeded', action: 'send' }).error?.code, 'malformed_message');
  });
});
