/** Unit tests of the chat view's pure helpers: labels, composer rules and the view-state reducer. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SessionRecord, TurnRecord } from '../../src/core/events';
import { MAX_PROMPT_CHARS as PROTOCOL_MAX } from '../../src/protocol/messages';
import { BOUNDARY_KINDS } from '../../src/core/vocabulary';
import { composerRows, COMPOSER_ROWS, decideSend, isNearBottom, isSendKey, MAX_PROMPT_CHARS } from '../../webview/input';
import {
  boundaryKindLabel, codeSpan, describeBoundary, invocationBadgeStatus, invocationDetail, invocationStatusLabel, NOT_ACTIONABLE_TEXT, turnOriginLabel, type BoundaryItem,
} from '../../webview/labels';
import { dismissError, INITIAL_VIEW_STATE, markBusy, reduceHostMessage, requestBusyKey } from '../../webview/state';

const pending: BoundaryItem = { type: 'boundary', id: 'b1', kind: 'command', subject: 'rm -rf build', why: 'why', status: 'pending' };

describe('boundary labels', () => {
  test('kinds in human words', () => {
    assert.deepEqual(BOUNDARY_KINDS.map(boundaryKindLabel), [
      'Run a command', 'Read outside the workspace', 'Write outside the workspace', 'Reach the network', 'Change files',
    ]);
  });

  test('a pending request is actionable only when its id is live-actionable', () => {
    assert.deepEqual(describeBoundary(pending, new Set(['b1'])).state, 'actionable');
    assert.deepEqual(describeBoundary(pending, new Set()), { state: 'waiting', text: NOT_ACTIONABLE_TEXT });
    assert.equal(NOT_ACTIONABLE_TEXT, 'Waiting in another window or no longer answerable');
  });

  test('settled outcomes in words', () => {
    const settle = (over: Partial<BoundaryItem>) => describeBoundary({ ...pending, ...over } as BoundaryItem, new Set(['b1'])).text;
    assert.equal(settle({ status: 'approved', decision: 'allow_once', closureReason: 'user_decision' }), 'Approved once');
    assert.equal(settle({ status: 'approved', decision: 'allow_session', closureReason: 'user_decision' }), 'Approved for this session');
    assert.equal(settle({ status: 'approved', decision: 'allow_session', closureReason: 'session_grant' }), 'Approved by an earlier session grant');
    assert.equal(settle({ status: 'denied', decision: 'deny', closureReason: 'user_decision' }), 'Denied by you');
    assert.equal(settle({ status: 'denied', decision: 'deny', closureReason: 'host_restarted' }), 'Denied because the window reloaded or restarted while it was waiting');
    assert.equal(settle({ status: 'denied', decision: 'deny', closureReason: 'run_stopped' }), 'Closed because the run was stopped');
    assert.equal(settle({ status: 'denied', decision: 'deny', closureReason: 'run_ended' }), 'Closed because the run ended');
  });
});

describe('other labels', () => {
  test('invocation status with exit code', () => {
    assert.equal(invocationStatusLabel({ status: 'completed', exitCode: 0 }), 'Done');
    assert.equal(invocationStatusLabel({ status: 'failed', exitCode: 2 }), 'Failed (exit 2)');
    assert.equal(invocationStatusLabel({ status: 'awaiting_approval' }), 'Waiting for approval');
  });

  test('an invocation cut short by a restart is interrupted, not failed', () => {
    // A fresh user saw "Failed" next to a card saying the restart denied the request.
    for (const failureClass of ['sandbox_boundary_closed_by_restart', 'app_restarted'] as const) {
      assert.equal(invocationStatusLabel({ status: 'failed', failureClass }), 'Interrupted');
      assert.equal(invocationBadgeStatus({ status: 'failed', failureClass }), 'interrupted');
    }
    assert.equal(invocationStatusLabel({ status: 'failed', failureClass: 'agent_error', exitCode: 1 }), 'Failed (exit 1)');
    assert.equal(invocationBadgeStatus({ status: 'failed', failureClass: 'agent_error' }), 'failed');
    assert.equal(invocationBadgeStatus({ status: 'denied' }), 'denied');
  });

  test('the line under an invocation does not repeat its status badge', () => {
    // A stopped command showed "Stopped" as its badge and again as the line under it.
    const short = (c: string) => `class ${c}`;
    assert.equal(invocationDetail({ status: 'stopped', message: 'Stopped.' }, short), '');
    assert.equal(invocationDetail({ status: 'stopped', message: 'Stopped' }, short), '');
    assert.equal(invocationDetail({ status: 'failed', exitCode: 2, message: 'Failed (exit 2)' }, short), '');
    assert.equal(invocationDetail({ status: 'failed', message: 'ENOENT: no such file' }, short), 'ENOENT: no such file');
    assert.equal(
      invocationDetail({ status: 'failed', failureClass: 'sandbox_boundary_closed_by_restart', message: 'Stopped' }, short),
      'class sandbox_boundary_closed_by_restart — Stopped',
    );
    assert.equal(invocationDetail({ status: 'completed', exitCode: 0 }, short), '');
  });

  test('turn origins', () => {
    assert.equal(turnOriginLabel({ origin: 'retry' }), 'Retry of an earlier request');
    assert.equal(turnOriginLabel({ origin: 'continue' }), 'Continued after restart');
    assert.equal(turnOriginLabel({ origin: 'prompt' }), null);
  });

  test('code spans', () => {
    assert.equal(codeSpan('ls -la'), '`ls -la`');
    assert.equal(codeSpan('a `b` c'), '`` a `b` c ``');
  });
});

describe('composer rules', () => {
  test('Enter sends, Shift+Enter and IME composition do not', () => {
    assert.equal(isSendKey({ key: 'Enter', shiftKey: false }), true);
    assert.equal(isSendKey({ key: 'Enter', shiftKey: true }), false);
    assert.equal(isSendKey({ key: 'Enter', shiftKey: false, isComposing: true }), false);
    assert.equal(isSendKey({ key: 'a', shiftKey: false }), false);
  });

  test('blank text is ignored, read-only refuses, too long refuses', () => {
    assert.deepEqual(decideSend('  \n ', null), { kind: 'ignore' });
    assert.deepEqual(decideSend('hi', null), { kind: 'send', text: 'hi' });
    assert.deepEqual(decideSend('hi', 'Written by a newer version'), { kind: 'refuse', reason: 'Written by a newer version' });
    assert.equal(decideSend('x'.repeat(MAX_PROMPT_CHARS + 1), null).kind, 'refuse');
  });

  test('the mirrored prompt limit equals the protocol limit', () => {
    assert.equal(MAX_PROMPT_CHARS, PROTOCOL_MAX);
  });

  test('near bottom', () => {
    assert.equal(isNearBottom(900, 1200, 300), true);
    assert.equal(isNearBottom(500, 1200, 300), false);
  });
});

describe('view state', () => {
  const session: SessionRecord = { id: 's1', title: 'Chat', provider: 'local', createdAt: 1, updatedAt: 1 };
  const turn: TurnRecord = { id: 't1', sessionId: 's1', prompt: 'hi', origin: 'prompt', parentTurnId: null, status: 'running', errorClass: null, seq: 1, createdAt: 1 };
  const live = { running: true, actionableRequestIds: ['b1'], readOnlyReason: null };

  test('snapshot, update, live, orphan and error', () => {
    let s = reduceHostMessage(INITIAL_VIEW_STATE, { type: 'snapshot', queue: [], session, transcript: { turns: [] }, hasOlder: false, turnCount: 0, live });
    assert.equal(s.mode, 'chat');
    assert.equal(s.session?.id, 's1');
    s = reduceHostMessage(s, { type: 'update', update: { type: 'turn', turn } });
    assert.equal(s.transcript.turns.length, 1);
    s = reduceHostMessage(s, {
      type: 'update',
      update: { type: 'event', event: { runId: 'r', seq: 1, sessionId: 's1', turnId: 't1', kind: 'text', payload: { text: 'hello' }, at: 2 } },
    });
    assert.deepEqual(s.transcript.turns[0]!.items, [{ type: 'text', text: 'hello' }]);
    s = reduceHostMessage(s, { type: 'live', live: { running: false, actionableRequestIds: [], readOnlyReason: 'ro' } });
    assert.equal(s.live.readOnlyReason, 'ro');
    s = reduceHostMessage(s, { type: 'error', code: 'invalid', message: 'Bad thing' });
    assert.deepEqual(s.error, { code: 'invalid', message: 'Bad thing' });
    assert.equal(dismissError(s).error, null);
    s = reduceHostMessage(s, { type: 'orphan' });
    assert.equal(s.mode, 'orphan');
    assert.equal(s.transcript.turns.length, 0);
  });

  test('busy buttons re-enable on the next host message', () => {
    let s = reduceHostMessage(INITIAL_VIEW_STATE, { type: 'snapshot', queue: [], session, transcript: { turns: [] }, hasOlder: false, turnCount: 0, live });
    s = markBusy(s, requestBusyKey('b1'));
    assert.equal(s.busy.has('request:b1'), true);
    s = reduceHostMessage(s, { type: 'live', live });
    assert.equal(s.busy.size, 0);
  });
});

describe('provider names', () => {
  test('names each provider for the tab header and passes unknown ids through', async () => {
    const { providerName } = await import('../../webview/labels');
    assert.equal(providerName('local'), 'Local agent');
    assert.equal(providerName('vscode-lm'), 'VS Code model');
    assert.equal(providerName('openai-compatible'), 'OpenAI-compatible');
    assert.equal(providerName('someday'), 'someday');
  });
});

describe('select all in the composer', () => {
  test('is Ctrl+A or Cmd+A, without Shift or Alt', async () => {
    const { isSelectAllKey } = await import('../../webview/input');
    assert.equal(isSelectAllKey({ key: 'a', ctrlKey: true, shiftKey: false }), true);
    assert.equal(isSelectAllKey({ key: 'A', metaKey: true, shiftKey: false }), true);
    assert.equal(isSelectAllKey({ key: 'a', shiftKey: false }), false);
    assert.equal(isSelectAllKey({ key: 'a', ctrlKey: true, shiftKey: true }), false);
    assert.equal(isSelectAllKey({ key: 'a', ctrlKey: true, altKey: true, shiftKey: false }), false);
    assert.equal(isSelectAllKey({ key: 'c', ctrlKey: true, shiftKey: false }), false);
  });
});

describe('send while the agent works', () => {
  test('the placeholder says that Enter queues while the agent works', async () => {
    // Sending no longer depends on the run (decideSend has no such input): the host queues it.
    const { composerPlaceholder } = await import('../../webview/input');
    assert.equal(composerPlaceholder(true, true), 'Enter queues your message: it is sent when the agent is done (Shift+Enter: new line)');
    assert.equal(composerPlaceholder(false, true), 'Enter queues your message: it is sent when the agent is done (Shift+Enter: new line)');
    assert.equal(composerPlaceholder(true, false), 'Ask the agent… (try: help, run ls, read README.md)');
    assert.equal(composerPlaceholder(false, false), 'Ask the agent…');
    assert.equal(composerPlaceholder(true, true, true), 'The agent waits for your approval above (Shift+Tab: its Deny button). Enter queues your message');
  });

  test('keeps the offset of the host\'s clock from the last message that carried it', () => {
    const session: SessionRecord = { id: 's1', title: 'Chat', provider: 'local', createdAt: 1, updatedAt: 1 };
    const live = { running: true, actionableRequestIds: [], readOnlyReason: null };
    let s = reduceHostMessage(INITIAL_VIEW_STATE, { type: 'snapshot', queue: [], session, transcript: { turns: [] }, hasOlder: false, turnCount: 0, live, hostNow: Date.now() + 5_000 });
    assert.ok(Math.abs(s.hostClockOffsetMs - 5_000) < 1_000, `offset ${s.hostClockOffsetMs}`);
    s = reduceHostMessage(s, { type: 'live', live });
    assert.ok(Math.abs(s.hostClockOffsetMs - 5_000) < 1_000, 'kept when a message has no hostNow');
    s = reduceHostMessage(s, { type: 'live', live, hostNow: Date.now() - 2_000 });
    assert.ok(Math.abs(s.hostClockOffsetMs + 2_000) < 1_000, `offset ${s.hostClockOffsetMs}`);
  });

  test('the refusal goes away once the run ends; other errors stay until dismissed', async () => {
    // A fresh user saw "The agent is still working" stay up after Stop, next to a Send button that was back.
    const { BUSY_CODE } = await import('../../webview/input');
    const running = { running: true, actionableRequestIds: [], readOnlyReason: null };
    const session: SessionRecord = { id: 's1', title: 'Chat', provider: 'local', createdAt: 1, updatedAt: 1 };
    let s = reduceHostMessage(INITIAL_VIEW_STATE, { type: 'snapshot', queue: [], session, transcript: { turns: [] }, hasOlder: false, turnCount: 0, live: running });
    s = { ...s, error: { code: BUSY_CODE, message: 'busy' } };
    s = reduceHostMessage(s, { type: 'live', live: running });
    assert.equal(s.error?.code, BUSY_CODE, 'kept while the run is live');
    s = reduceHostMessage(s, { type: 'live', live: { ...running, running: false } });
    assert.equal(s.error, null);
    s = { ...s, error: { code: 'not_found', message: 'gone' } };
    s = reduceHostMessage(s, { type: 'live', live: { ...running, running: false } });
    assert.equal(s.error?.code, 'not_found');
  });
});

describe('the composer\'s height', () => {
  test('grows with the text\'s lines from 3 up to 12 rows, and shrinks back', () => {
    assert.deepEqual(['', 'one line', 'a\nb\nc', 'a\nb\nc\nd', 'x\n'.repeat(30)].map(composerRows), [3, 3, 3, 4, COMPOSER_ROWS.max]);
    assert.equal(COMPOSER_ROWS.max, 12);
  });
});
