/**
 * The "Files changed" list of a turn in the chat view (webview/render/filesChanged.ts, on happy-dom):
 * what it lists and offers, the host's `checkpoints` message through the view's strict check and its
 * reducer, and a turn redrawn when its checkpoint changes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TranscriptTurn } from '../../src/core/transcript';
import type { HostMessage, TurnFilesView } from '../../src/protocol/messages';
import { useHappyDom } from './happyDom';

useHappyDom();

const turn = (items: TranscriptTurn['items'] = []): TranscriptTurn => ({
  id: 't1', sessionId: 's', prompt: 'p', origin: 'prompt', parentTurnId: null, status: 'completed', errorClass: null, createdAt: 1, finishedAt: 2, items,
} as unknown as TranscriptTurn);

const files: TurnFilesView = {
  turnId: 't1',
  undoneBy: null,
  files: [
    { path: 'src/a.ts', kind: 'modified', added: 3, removed: 1, checkpointed: true, pending: false },
    { path: 'new.txt', kind: 'created', added: 2, removed: 0, checkpointed: true, pending: false },
    { path: 'big.bin', kind: 'modified', added: null, removed: null, checkpointed: false, pending: true },
  ],
};

describe('the "Files changed" list', () => {
  test('lists each file with its kind and counts, says what is not checkpointed, and offers Undo and Restore; an undone turn offers Redo', async () => {
    const { renderFilesChanged } = await import('../../webview/render/filesChanged');
    const el = renderFilesChanged(turn(), files, false)!;
    const lines = [...el.querySelectorAll('.file-change')].map((li) => li.textContent);
    assert.deepEqual(lines, [
      'src/a.ts modified +3 −1',
      'new.txt created +2 −0',
      'big.bin modified; changed, not checkpointed (over 5 MB): cannot be put back; may be partly written (cut short)',
    ]);
    const link = el.querySelector('[data-action="open-diff"]') as HTMLElement;
    assert.deepEqual([link.dataset.turnId, link.dataset.path], ['t1', 'src/a.ts']);
    assert.deepEqual([...el.querySelectorAll('button')].map((b) => [b.getAttribute('data-action'), b.textContent, b.hasAttribute('disabled')]), [
      ['undo-files', 'Undo changes of this turn', false], ['restore-files', 'Restore to before this turn', false],
    ]);
    const running = renderFilesChanged(turn(), files, true)!;
    assert.ok([...running.querySelectorAll('button')].every((b) => b.hasAttribute('disabled')), 'no undo while a run is live');
    const undone = renderFilesChanged(turn(), { ...files, undoneBy: 'u1' }, false)!;
    assert.equal(undone.querySelector('.files-title')!.textContent, 'Files changed (undone)');
    assert.deepEqual([...undone.querySelectorAll('button')].map((b) => [b.getAttribute('data-action'), b.getAttribute('data-undo-id')]), [['redo-files', 'u1']]);
    const replacedUndone = renderFilesChanged(turn(), { ...files, undoneBy: 'u1' }, false, true)!;
    assert.equal(replacedUndone.querySelectorAll('button').length, 0, 'a replaced request\'s undone changes offer no Redo');
    const replacedStanding = renderFilesChanged(turn(), files, false, true)!;
    assert.deepEqual([...replacedStanding.querySelectorAll('button')].map((b) => b.getAttribute('data-action')), ['undo-files', 'restore-files'], 'changes still standing can be undone');
  });

  test('a turn that ran commands says their changes are not listed; a turn with neither shows nothing', async () => {
    const { renderFilesChanged } = await import('../../webview/render/filesChanged');
    assert.equal(renderFilesChanged(turn(), undefined, false), null);
    const ran = turn([{ type: 'invocation', id: 'i', tool: 'run', summary: 'npm i', status: 'completed', output: '' } as TranscriptTurn['items'][number]]);
    assert.match(renderFilesChanged(ran, undefined, false)!.textContent!, /Commands ran in this turn; files they changed are not listed/);
    const waiting = turn([{ type: 'invocation', id: 'i', tool: 'run', summary: 'touch a', status: 'awaiting_approval', output: '' } as TranscriptTurn['items'][number]]);
    assert.equal(renderFilesChanged(waiting, undefined, false), null, 'a command waiting for approval has changed nothing yet');
    // A fresh user saw the note under a command whose approval a reload, a Stop or Send now closed: "nothing ran".
    type Item = TranscriptTurn['items'][number];
    const closedBy = (closureReason: string, status: string) => turn([
      { type: 'invocation', id: 'i', tool: 'run', summary: 'touch a', status, output: '' } as Item,
      { type: 'boundary', id: 'r', invocationId: 'i', kind: 'command', subject: 'touch a', why: 'w', status: 'denied', closureReason } as Item,
    ]);
    assert.equal(renderFilesChanged(closedBy('host_restarted', 'failed'), undefined, false), null, 'closed by a restart: it never ran');
    assert.equal(renderFilesChanged(closedBy('run_stopped', 'stopped'), undefined, false), null, 'closed by Stop: it never ran');
    const approved = turn([
      { type: 'invocation', id: 'i', tool: 'run', summary: 'touch a', status: 'completed', output: '' } as Item,
      { type: 'boundary', id: 'r', invocationId: 'i', kind: 'command', subject: 'touch a', why: 'w', status: 'approved', decision: 'allow_once', closureReason: 'user_decision' } as Item,
    ]);
    assert.match(renderFilesChanged(approved, undefined, false)!.textContent!, /Commands ran in this turn/, 'approved, it ran');
    // An agent that asks before any command not on the read-only allowlist: a command run without a
    // request was read-only (a fresh user found the note under every `ls` noise); one approved may have written.
    assert.equal(renderFilesChanged(ran, undefined, false, false, true), null, 'a read-only command of a sandboxed agent');
    assert.match(renderFilesChanged(approved, undefined, false, false, true)!.textContent!, /Commands ran in this turn/, 'approved, it may have written');
    const bash = turn([{ type: 'invocation', id: 'i', tool: 'Bash', summary: 'npm i', status: 'completed', output: '' } as Item]);
    assert.match(renderFilesChanged(bash, undefined, false)!.textContent!, /Commands ran in this turn/, 'Claude Code runs some commands without asking: any may have written');
  });

  test("the note follows the chat's agent: none under a read-only command of the local agent, one under Claude Code's", async () => {
    const { ChatRenderer } = await import('../../webview/render');
    const { buildSkeleton } = await import('../../webview/layout');
    const { INITIAL_VIEW_STATE, reduceHostMessage } = await import('../../webview/state');
    type Item = TranscriptTurn['items'][number];
    const ls = turn([{ type: 'invocation', id: 'i', tool: 'run', summary: 'ls', status: 'completed', output: 'a.txt' } as Item]);
    const live = { running: false, actionableRequestIds: [], readOnlyReason: null };
    const noteIn = (provider: string) => {
      const sk = buildSkeleton(window.document.createElement('div'));
      const session = { id: 's1', title: 'ls', provider, createdAt: 1, updatedAt: 1 };
      new ChatRenderer(sk).render(reduceHostMessage(INITIAL_VIEW_STATE, { type: 'snapshot', session, transcript: { turns: [ls] }, hasOlder: false, turnCount: 1, live, queue: [] }));
      return sk.content.querySelector('.files-note')?.textContent ?? null;
    };
    assert.equal(noteIn('local'), null);
    assert.match(noteIn('claude') ?? '', /Commands ran in this turn/);
  });

  test('Undo pressed from the keyboard: the focus goes to the Redo that replaces it, not to the page', async () => {
    const { renderTurn } = await import('../../webview/render/turn');
    const ctx = { actionableIds: new Set<string>(), busyRequestIds: new Set<string>(), busyTurn: false, followedUp: false, running: false };
    const el = renderTurn(turn(), { ...ctx, files });
    window.document.body.replaceChildren(el);
    el.querySelector<HTMLElement>('[data-action="undo-files"]')!.focus();
    assert.equal(window.document.activeElement?.getAttribute('data-action'), 'undo-files', 'precondition: Undo has the focus');
    const after = renderTurn(turn(), { ...ctx, files: { ...files, undoneBy: 'u1' } }, el);
    assert.equal(after, el, 'patched in place');
    assert.equal(window.document.activeElement?.getAttribute('data-action'), 'redo-files');
    // A part rebuilt while the focus is elsewhere leaves the focus where it is.
    const composer = window.document.body.appendChild(window.document.createElement('textarea'));
    composer.focus();
    renderTurn(turn(), { ...ctx, files }, el);
    assert.equal(window.document.activeElement, composer);
  });

  test('the view checks and keeps the host\'s checkpoints message; a malformed one is a problem', async () => {
    const { hostMessageProblem } = await import('../../src/protocol/checkHostMessage');
    const { INITIAL_VIEW_STATE, reduceHostMessage } = await import('../../webview/state');
    const message: HostMessage = { type: 'checkpoints', turns: [files], seq: 1 };
    assert.equal(hostMessageProblem(message), null);
    assert.match(hostMessageProblem({ ...message, turns: [{ ...files, files: [{ ...files.files[0], kind: 'renamed' }] }] })!, /kind is not one of/);
    const state = reduceHostMessage(INITIAL_VIEW_STATE, message);
    assert.deepEqual(state.files.get('t1'), files);
  });
});
