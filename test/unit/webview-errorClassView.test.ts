/** Unit tests of `webview/errorClassView.ts`: what each error class shows and which action it offers. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LedgerEvent, TurnRecord } from '../../src/core/events';
import { buildTranscript, isFollowedUp, type TranscriptTurn } from '../../src/core/transcript';
import { ERROR_CLASSES, type ErrorClass } from '../../src/core/vocabulary';
import { actionLabel, describeErrorClass, errorClassShortLabel } from '../../webview/errorClassView';

function turnRecord(id: string, over: Partial<TurnRecord> = {}): TurnRecord {
  return { id, sessionId: 's1', prompt: 'run rm -rf build', origin: 'prompt', parentTurnId: null, status: 'failed', errorClass: null, seq: 1, createdAt: 1, ...over };
}

/** A turn whose `rm -rf build` request was closed by a restart, built with the real reducer. */
function restartClosedTurn(subject = 'rm -rf build', kind: 'command' | 'write_outside_workspace' = 'command'): TranscriptTurn {
  const base = { runId: 'r1', sessionId: 's1', turnId: 't1', at: 1 };
  const events: LedgerEvent[] = [
    { ...base, seq: 1, kind: 'invocation_started', payload: { invocationId: 'i1', tool: 'run', summary: subject } },
    { ...base, seq: 2, kind: 'boundary_requested', payload: { requestId: 'b1', invocationId: 'i1', kind, subject, why: 'Not on the allowlist' } },
    { ...base, seq: 3, kind: 'boundary_decided', payload: { requestId: 'b1', status: 'denied', decision: 'deny', closureReason: 'host_restarted' } },
    { ...base, seq: 4, kind: 'run_finished', payload: { status: 'interrupted', turnStatus: 'failed', errorClass: 'sandbox_boundary_closed_by_restart' } },
  ];
  const transcript = buildTranscript([turnRecord('t1')], events);
  return transcript.turns[0]!;
}

function plainTurn(errorClass: ErrorClass): TranscriptTurn {
  return { ...turnRecord('t1', { errorClass }), items: [], applied: {} };
}

describe('describeErrorClass', () => {
  test('sandbox_boundary_closed_by_restart offers Retry and names the waiting command', () => {
    const view = describeErrorClass('sandbox_boundary_closed_by_restart', restartClosedTurn());
    assert.equal(view.action, 'retry');
    assert.equal(view.tone, 'restart');
    assert.equal(view.note, null);
    assert.equal(
      view.body,
      'The VS Code window reloaded or restarted while the agent was waiting for your approval to run `rm -rf build`. It was closed without an answer, so nothing ran.',
    );
  });

  test('a subject containing backticks gets a longer code fence', () => {
    const view = describeErrorClass('sandbox_boundary_closed_by_restart', restartClosedTurn('echo `date`'));
    assert.match(view.body, /to run `` echo `date` ``\./);
  });

  test('a write outside the workspace uses the verb "write" and does not say "ran"', () => {
    const view = describeErrorClass('sandbox_boundary_closed_by_restart', restartClosedTurn('/etc/hosts', 'write_outside_workspace'));
    assert.match(view.body, /approval to write `\/etc\/hosts`\./);
    assert.match(view.body, /nothing was done\.$/);
  });

  test('without a restart-closed request it still explains and offers Retry', () => {
    const view = describeErrorClass('sandbox_boundary_closed_by_restart', plainTurn('sandbox_boundary_closed_by_restart'));
    assert.equal(view.action, 'retry');
    assert.equal(view.body, 'The VS Code window reloaded or restarted while the agent was waiting for your approval. It was closed without an answer, so nothing ran.');
  });

  test('app_restarted offers Continue in a restart banner', () => {
    const view = describeErrorClass('app_restarted', plainTurn('app_restarted'));
    assert.equal(view.action, 'continue');
    assert.equal(view.tone, 'restart');
    assert.equal(view.body, 'The VS Code window running this reply reloaded, restarted or closed, or its extension host stopped, so the reply stopped partway. Nothing was waiting on you.');
  });

  for (const errorClass of ['agent_error', 'agent_unavailable', 'journal_refused'] as const) {
    test(`${errorClass} offers Retry in an error banner`, () => {
      const view = describeErrorClass(errorClass, plainTurn(errorClass));
      assert.equal(view.action, 'retry');
      assert.equal(view.tone, 'error');
      assert.ok(view.title.length > 0 && view.body.length > 0);
    });
  }

  test('every error class has its own title', () => {
    const titles = ERROR_CLASSES.map((c) => describeErrorClass(c, plainTurn(c)).title);
    assert.equal(new Set(titles).size, ERROR_CLASSES.length);
  });

  test('a followed-up turn offers no action and says it was retried', () => {
    const turn = restartClosedTurn();
    const retry = { ...turnRecord('t2', { origin: 'retry', parentTurnId: 't1', status: 'completed', createdAt: 2 }), items: [], applied: {} };
    const transcript = { turns: [turn, retry] };
    assert.equal(isFollowedUp(transcript, 't1'), true);
    const view = describeErrorClass('sandbox_boundary_closed_by_restart', turn, { followedUp: isFollowedUp(transcript, 't1') });
    assert.equal(view.action, null);
    assert.equal(view.note, 'Already retried below.');
    assert.match(view.body, /`rm -rf build`/);
  });

  test('a continued app_restarted turn says it was continued', () => {
    const view = describeErrorClass('app_restarted', plainTurn('app_restarted'), { followedUp: true });
    assert.equal(view.action, null);
    assert.equal(view.note, 'Already continued below.');
  });

  test('no action while a run is live, without a note', () => {
    const view = describeErrorClass('agent_error', plainTurn('agent_error'), { running: true });
    assert.equal(view.action, null);
    assert.equal(view.note, null);
  });
});

describe('action and short labels', () => {
  test('button labels', () => {
    assert.equal(actionLabel('retry'), 'Retry');
    assert.equal(actionLabel('continue'), 'Continue');
  });

  test('short labels of error classes', () => {
    assert.equal(errorClassShortLabel('sandbox_boundary_closed_by_restart'), 'Closed by a reload or restart');
    assert.equal(errorClassShortLabel('app_restarted'), 'Interrupted by a reload or restart');
    assert.equal(new Set(ERROR_CLASSES.map(errorClassShortLabel)).size, ERROR_CLASSES.length);
  });
});
