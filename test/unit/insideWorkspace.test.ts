/**
 * "Inside the workspace" is one rule (src/core/insideFolder.ts), asked by the sandbox policy, file
 * links, the host's real-path check, the tool runtime and attachments. A folder whose name starts
 * with two dots (`..cache/`) is inside for every one of them (the sandbox policy used to call it
 * outside, by a `startsWith('..')` test, while the others called it inside); `..` and `../x` are
 * outside. Symlinks are judged by where they lead, with real links in a temp folder: one inside the
 * workspace pointing outside is outside, one outside pointing inside is inside.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { isInsideFolder, relativeInside } from '../../src/core/insideFolder';
import { classifyAction, isInsideWorkspace } from '../../src/core/sandboxPolicy';
import { resolveInWorkspace } from '../../src/core/workspacePaths';
import { realPathInside } from '../../src/host/realPaths';
import { relativeTo } from '../../src/runtime/agents/codex/codexItems';
import { isOutsideWorkspace } from '../../src/runtime/attachments/readAttachments';
import { checkpointPath } from '../../src/runtime/fileImages';
import { classifyWhereItLeads } from '../../src/runtime/whereItLeads';
import { tempDir } from './helpers';

const ROOT = '/home/u/project';

describe('inside the workspace: the rule', () => {
  it('a name starting with two dots is inside; .. and ../x are not', () => {
    const cases: [string, boolean][] = [
      ['..cache/x', true], ['..cache', true], ['...', true], ['a/../..cache/x', true], [`${ROOT}/..cache/x`, true], ['.', true], ['', true], [ROOT, true],
      ['..', false], ['../x', false], ['a/../../x', false], ['/home/u/other', false], ['/home/u/project-b/x', false],
    ];
    for (const [target, inside] of cases) assert.equal(isInsideFolder(ROOT, target), inside, target);
    assert.equal(relativeInside(ROOT, '..cache/x'), '..cache/x');
    assert.equal(relativeInside(ROOT, ROOT), '');
    assert.equal(relativeInside(ROOT, '../x'), undefined);
  });

  it('judges Windows paths by Windows rules, another drive outside', () => {
    const root = 'C:\\Users\\u\\project';
    assert.equal(isInsideFolder(root, '..cache\\x', path.win32), true);
    assert.equal(isInsideFolder(root, '..\\x', path.win32), false);
    assert.equal(isInsideFolder(root, 'D:\\Users\\u\\project\\x', path.win32), false);
  });
});

describe('inside the workspace: every caller agrees on ..cache/', () => {
  it('the sandbox policy', () => {
    assert.equal(isInsideWorkspace(ROOT, '..cache/x'), true);
    assert.equal(isInsideWorkspace(ROOT, '../x'), false);
    assert.deepEqual(classifyAction({ type: 'read', path: '..cache/x' }, ROOT), { type: 'inside' });
    assert.deepEqual(classifyAction({ type: 'write', path: '..cache/x' }, ROOT), { type: 'inside' });
    assert.deepEqual(classifyAction({ type: 'command', command: 'cat ..cache/x' }, ROOT), { type: 'inside' });
    assert.equal(classifyAction({ type: 'read', path: '../x' }, ROOT).type, 'boundary');
    assert.equal(classifyAction({ type: 'command', command: 'cat ../x' }, ROOT).type, 'boundary');
  });

  it('file links', () => {
    assert.deepEqual(resolveInWorkspace([ROOT], '..cache/x'), { ok: true, absolute: `${ROOT}/..cache/x`, root: ROOT });
    assert.equal(resolveInWorkspace([ROOT], '../x').ok, false);
  });

  it('the paths checkpoints and Codex show', () => {
    assert.equal(checkpointPath(ROOT, '..cache/x'), '..cache/x');
    assert.equal(checkpointPath(ROOT, '../x'), '/home/u/x');
    assert.equal(relativeTo(ROOT, `${ROOT}/..cache/x`), '..cache/x');
    assert.equal(relativeTo(ROOT, '/home/u/x'), '/home/u/x');
  });

  it('the real-path checks, on real files', async () => {
    const base = tempDir('nac-inside-');
    const ws = path.join(base, 'ws');
    fs.mkdirSync(path.join(ws, '..cache'), { recursive: true });
    fs.writeFileSync(path.join(ws, '..cache', 'x'), 'inside');
    fs.writeFileSync(path.join(base, 'x'), 'outside');
    const wsReal = fs.realpathSync(ws);
    assert.deepEqual(await realPathInside([ws], path.join(ws, '..cache', 'x'), '..cache/x'), { ok: true, real: path.join(wsReal, '..cache', 'x'), directory: false });
    assert.equal((await realPathInside([ws], path.join(ws, '..', 'x'), '../x')).ok, false);
    assert.deepEqual(classifyWhereItLeads({ type: 'read', path: '..cache/x' }, ws), { type: 'inside' });
    assert.equal(classifyWhereItLeads({ type: 'read', path: '../x' }, ws).type, 'boundary');
    assert.equal(isOutsideWorkspace(ws, '..cache/x'), false);
    assert.equal(isOutsideWorkspace(ws, '../x'), true);
  });
});

describe('inside the workspace: symlinks are judged by where they lead', () => {
  /** `ws/` with `leaks` (a link to a file outside) and `outside/` with `comesIn` (a link to a file in ws). */
  function linkedFolders() {
    const base = tempDir('nac-inside-links-');
    const ws = path.join(base, 'ws');
    const outside = path.join(base, 'outside');
    fs.mkdirSync(ws);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(ws, 'mine.txt'), 'in');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'out');
    const leaks = path.join(ws, 'leaks');
    const comesIn = path.join(outside, 'comesIn');
    fs.symlinkSync(path.join(outside, 'secret.txt'), leaks);
    fs.symlinkSync(path.join(ws, 'mine.txt'), comesIn);
    return { ws, leaks, comesIn };
  }

  it('a link inside the workspace that points outside is outside', async () => {
    const { ws, leaks } = linkedFolders();
    assert.equal((await realPathInside([ws], leaks, 'leaks')).ok, false);
    assert.equal(classifyWhereItLeads({ type: 'read', path: 'leaks' }, ws).type, 'boundary');
    assert.equal(classifyWhereItLeads({ type: 'write', path: 'leaks' }, ws).type, 'boundary');
    assert.equal(classifyWhereItLeads({ type: 'command', command: 'cat leaks' }, ws).type, 'boundary');
    assert.equal(isOutsideWorkspace(ws, 'leaks'), true);
  });

  it('a link outside the workspace that points inside is inside', async () => {
    const { ws, comesIn } = linkedFolders();
    assert.deepEqual(await realPathInside([ws], comesIn, 'comesIn'), { ok: true, real: path.join(fs.realpathSync(ws), 'mine.txt'), directory: false });
    assert.deepEqual(classifyWhereItLeads({ type: 'read', path: comesIn }, ws), { type: 'inside' });
    assert.equal(classifyWhereItLeads({ type: 'command', command: `cat ${comesIn}` }, ws).type, 'boundary', 'an absolute path in a command is judged as written too (the policy\'s own rule)');
    assert.equal(isOutsideWorkspace(ws, comesIn), false);
  });
});
