/**
 * Checkpoints' pure rules (src/core/checkpoints.ts): a turn's files, the plan of an undo across
 * turns newest first, conflicts and the user's choices, what cannot be put back, redo as the undo
 * reversed, the note the agent gets (src/core/fileNews.ts: an undo and its redo cancel out), and line counts from a diff.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import {
  conflictKey, fileNote, filesOfTurn, lineCounts, MAX_CHECKPOINT_BYTES, planRestore, redoSteps, restoreDidAll, restoreOutcomeWords, undoSteps,
  type FileChangeRecord, type FileImage, type PlannedFile,
} from '../../src/core/checkpoints';
import { fileNewsOf, type RestoreNews } from '../../src/core/fileNews';

const img = (hash: string, size = 4): FileImage => ({ exists: true, hash, size });
const ABSENT: FileImage = { exists: false, hash: null, size: 0 };

function change(turnId: string, path: string, before: FileImage, after: FileImage | null, extra: Partial<FileChangeRecord> = {}): FileChangeRecord {
  return {
    id: `${turnId}:${path}`, sessionId: 's', turnId, runId: 'r', invocationId: `i-${turnId}-${path}`, path, before, after,
    state: 'applied', checkpointed: true, reason: null, added: 1, removed: 0, createdAt: 1, ...extra,
  };
}

describe('checkpoint rules', () => {
  it('a turn\'s files: first before, last after, counts summed, not-applied rows left out', () => {
    const files = filesOfTurn([
      change('t1', 'a', img('A0'), img('A1')),
      change('t1', 'b', ABSENT, img('B1')),
      change('t1', 'a', img('A1'), img('A2'), { added: 2, removed: 3 }),
      change('t1', 'c', img('C0'), ABSENT, { added: null }),
      change('t1', 'd', img('D0'), img('D1'), { state: 'not_applied' }),
    ]);
    assert.deepEqual(files.map((f) => [f.path, f.kind, f.before.hash, f.after?.hash, f.added, f.removed]), [
      ['a', 'modified', 'A0', 'A2', 3, 3], ['b', 'created', null, 'B1', 1, 0], ['c', 'deleted', 'C0', null, null, 0],
    ]);
  });

  it('an undo across turns goes newest first: a file changed in two turns goes back to its first before', () => {
    const t1 = filesOfTurn([change('t1', 'a', img('A0'), img('A1'))]);
    const t2 = filesOfTurn([change('t2', 'a', img('A1'), img('A2')), change('t2', 'n', ABSENT, img('N1'))]);
    const disk = new Map([['a', img('A2')], ['n', img('N1')]]);
    const plan = planRestore(undoSteps([t2, t1]), (p) => disk.get(p) ?? ABSENT);
    assert.deepEqual(plan.files.map((f) => [f.path, f.outcome, f.target.exists ? f.target.hash : 'absent']), [['a', 'restored', 'A0'], ['n', 'restored', 'absent']]);
    assert.equal(plan.conflicts.length, 0);
  });

  it('a file that holds neither image is a conflict: kept without a choice, put back with one; one already back is unchanged', () => {
    const t1 = filesOfTurn([change('t1', 'a', img('A0'), img('A1')), change('t1', 'b', img('B0'), img('B1'))]);
    const disk = new Map([['a', img('USER')], ['b', img('B0')]]);
    const plain = planRestore(undoSteps([t1]), (p) => disk.get(p)!);
    assert.deepEqual(plain.files.map((f) => [f.path, f.outcome, f.target.hash]), [['a', 'conflict_kept', 'USER'], ['b', 'unchanged', 'B0']]);
    assert.equal(plain.unresolved, 1);
    assert.deepEqual(plain.conflicts.map((c) => [c.path, c.found.hash, c.expected?.hash, c.restore.hash]), [['a', 'USER', 'A1', 'A0']]);
    const chosen = planRestore(undoSteps([t1]), (p) => disk.get(p)!, new Map([[conflictKey('t1', 'a'), 'restore']]));
    assert.deepEqual(chosen.files.map((f) => [f.path, f.outcome, f.target.hash]), [['a', 'conflict_restored', 'A0'], ['b', 'unchanged', 'B0']]);
    assert.equal(chosen.unresolved, 0);
  });

  it('an unknown after image (a write cut short) is a conflict unless the file is still as before', () => {
    const t1 = filesOfTurn([change('t1', 'a', img('A0'), null, { state: 'pending' })]);
    assert.equal(t1[0]!.pending, true);
    assert.equal(planRestore(undoSteps([t1]), () => img('A0')).files[0]!.outcome, 'unchanged');
    assert.equal(planRestore(undoSteps([t1]), () => img('A?')).files[0]!.outcome, 'conflict_kept');
  });

  it('bytes over the cap cannot be put back; a file the agent created can be removed whatever its size', () => {
    const big = img('BIG', MAX_CHECKPOINT_BYTES + 1);
    const t1 = filesOfTurn([change('t1', 'was-big', big, img('S')), change('t1', 'new-big', ABSENT, big)]);
    const disk = new Map([['was-big', img('S')], ['new-big', big]]);
    const plan = planRestore(undoSteps([t1]), (p) => disk.get(p)!);
    assert.deepEqual(plan.files.map((f) => [f.path, f.outcome]), [['was-big', 'not_checkpointed'], ['new-big', 'restored']]);
  });

  it('redo reverses an undo with the same rule; a file changed since the undo is a conflict', () => {
    const items = [
      { path: 'a', outcome: 'restored' as const, found: img('A1'), wrote: img('A0') },
      { path: 'b', outcome: 'conflict_kept' as const, found: img('USER'), wrote: img('USER') },
      { path: 'c', outcome: 'restored' as const, found: img('C1'), wrote: ABSENT },
    ];
    const steps = redoSteps('u1', items);
    assert.deepEqual(steps.map((s) => s.path), ['a', 'c'], 'a file the undo left alone is not redone');
    const disk = new Map([['a', img('A0')], ['c', img('LATER')]]);
    const plan = planRestore(steps, (p) => disk.get(p) ?? ABSENT);
    assert.deepEqual(plan.files.map((f) => [f.path, f.outcome, f.target.hash]), [['a', 'restored', 'A1'], ['c', 'conflict_kept', 'LATER']]);
  });

  it('an undo and the redo of that same undo cancel out: the files are as the agent last saw them, so nothing is said', () => {
    // A fresh user undid and redid a turn; the agent was then told "The user redid your earlier changes".
    const undo = (id: string, ...restored: string[]): RestoreNews => ({ kind: 'undo', undoId: id, restored, kept: [] });
    const redo = (id: string, ...restored: string[]): RestoreNews => ({ kind: 'redo', undoId: id, restored, kept: [] });
    assert.deepEqual(fileNewsOf([undo('u1', 'a.txt', 'b.txt'), redo('u1', 'a.txt', 'b.txt')]), { undone: [], redone: [], kept: [] });
    assert.equal(fileNote(fileNewsOf([undo('u1', 'a.txt'), redo('u1', 'a.txt')])), '');
    assert.deepEqual(fileNewsOf([undo('u2', 'a.txt'), undo('u1', 'a.txt'), redo('u1', 'a.txt'), redo('u2', 'a.txt')]), { undone: [], redone: [], kept: [] }, 'two turns undone, both redone');
    assert.deepEqual(fileNewsOf([undo('u2', 'a.txt'), undo('u1', 'a.txt'), redo('u1', 'a.txt')]), { undone: ['a.txt'], redone: [], kept: [] }, 'the later turn\'s undo still stands');
    assert.deepEqual(fileNewsOf([undo('u1', 'a.txt', 'b.txt'), { ...redo('u1', 'a.txt'), kept: ['b.txt'] }]), { undone: [], redone: [], kept: ['b.txt'] }, 'the user changed b.txt after the undo and the redo kept it');
    assert.deepEqual(fileNewsOf([redo('u0', 'a.txt'), undo('u1', 'a.txt')]), { undone: ['a.txt'], redone: [], kept: [] }, 'a redo of an undo the agent heard of is news');
  });

  it('the agent\'s note names each file once, where the last undo or redo left it; nothing to say is empty', () => {
    const note = (news: readonly RestoreNews[]) => fileNote(fileNewsOf(news));
    assert.equal(note([]), '');
    assert.equal(note([{ kind: 'undo', undoId: 'u1', restored: [], kept: [] }]), '');
    assert.equal(
      note([{ kind: 'undo', undoId: 'u1', restored: ['a.txt', 'b.txt'], kept: ['c.txt'] }, { kind: 'redo', undoId: 'u0', restored: ['a.txt'], kept: [] }]),
      '[Files changed since your last reply. The user undid your earlier changes to b.txt: those files are back as they were before your changes. ' +
        'The user redid your earlier changes to a.txt: those files are back as they were after your changes. ' +
        'These files were left as the user had them: c.txt. Read a file again before relying on its content.]',
    );
    assert.equal(
      note([{ kind: 'undo', undoId: 'u1', restored: ['a.txt'], kept: [] }, { kind: 'redo', undoId: 'u1', restored: ['a.txt'], kept: [] }, { kind: 'undo', undoId: 'u2', restored: ['a.txt'], kept: [] }]),
      '[Files changed since your last reply. The user undid your earlier changes to a.txt: those files are back as they were before your changes. ' +
        'Read a file again before relying on its content.]',
      'undone, redone, undone again: said once, as it ends',
    );
  });

  it('says what an undo or redo did in words: put back, removed (created by the agent), created again, left', () => {
    const file = (path: string, outcome: PlannedFile['outcome'], found: FileImage, target: FileImage): PlannedFile => ({ path, outcome, found, target });
    assert.equal(restoreOutcomeWords('Undo', [file('a', 'restored', img('x'), img('y'))], 0), 'Undo: put back 1 file.');
    assert.equal(restoreOutcomeWords('Undo', [file('n', 'restored', img('x'), ABSENT)], 0), 'Undo: removed 1 file the agent had created.', 'a created file is removed, not "put back"');
    assert.equal(restoreOutcomeWords('Redo', [file('n', 'restored', ABSENT, img('x')), file('a', 'conflict_restored', img('x'), img('y'))], 0), 'Redo: put back 1 file; created 1 file again.');
    assert.equal(
      restoreOutcomeWords('Undo', [file('a', 'restored', img('x'), img('y')), file('b', 'restored', img('x'), img('z')), file('c', 'conflict_kept', img('u'), img('u')), file('d', 'not_checkpointed', img('v'), img('v'))], 1),
      'Undo: put back 2 files; left 1 file as you changed them; left 1 file as they are (over 5 MB, not checkpointed); left 1 file changed during the undo as they are.',
    );
    assert.equal(restoreOutcomeWords('Undo', [file('c', 'conflict_kept', img('u'), img('u'))], 0), 'Undo: put back 0 files; left 1 file as you changed them.');
  });

  it('a restore did all it was asked only when no file was left: not as the user changed it, too large, or changed meanwhile', () => {
    const file = (outcome: PlannedFile['outcome']): PlannedFile => ({ path: outcome, outcome, found: img('x'), target: img('y') });
    assert.equal(restoreDidAll([file('restored'), file('unchanged'), file('conflict_restored')], 0), true);
    assert.equal(restoreDidAll([file('restored')], 1), false, 'one changed during the restore');
    assert.equal(restoreDidAll([file('restored'), file('conflict_kept')], 0), false);
    assert.equal(restoreDidAll([file('not_checkpointed')], 0), false);
  });

  it('line counts come from a diff\'s body: a removed line reading "-- x" counts, the headers do not', () => {
    assert.equal(lineCounts(undefined), null);
    assert.deepEqual(lineCounts('--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n--- x\n+y\n+z\n same\n'), { added: 2, removed: 1 });
  });
});
