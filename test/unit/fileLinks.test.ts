/**
 * File links: which text is a file reference (with its line), where a link may lead (inside the
 * workspace folders only: `../../etc/passwd`, an absolute path outside, `~`, a URI and a symlink
 * leading out are refused with a sentence), and the protocol decoder refusing malformed `openFile`
 * messages. The symlink rule runs against real files on disk.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { FILE_REFERENCE_IN_TEXT, parseFileReference, referenceOfMatch } from '../../src/core/fileLinks';
import { resolveInWorkspace } from '../../src/core/workspacePaths';
import { realPathInside } from '../../src/host/realPaths';
import { decodeWebviewMessage } from '../../src/protocol/decode';
import { trackedTempDir } from './helpers';

describe('file references', () => {
  it('reads a path and its line and column, in each way they are written', () => {
    assert.deepEqual(parseFileReference('src/app.ts'), { path: 'src/app.ts' });
    assert.deepEqual(parseFileReference('src/app.ts:12'), { path: 'src/app.ts', line: 12 });
    assert.deepEqual(parseFileReference('src/app.ts:12:5'), { path: 'src/app.ts', line: 12, column: 5 });
    assert.deepEqual(parseFileReference('src/app.ts#L12'), { path: 'src/app.ts', line: 12 });
    assert.deepEqual(parseFileReference(' README.md '), { path: 'README.md' });
    assert.deepEqual(parseFileReference('./notes.txt'), { path: './notes.txt' });
    assert.deepEqual(parseFileReference('src/app.ts:0'), { path: 'src/app.ts' }, 'line 0 is no line');
    for (const no of ['ls -la', 'npm test', 'src/', 'v1.2', 'https://example.com/a.html', 'hello', 'a b.ts', '', 'console.log', 'nativeAgentChats.openaiCompatible.model']) {
      assert.equal(parseFileReference(no), null, no);
    }
  });

  it('finds paths with a slash in running text, and not URLs, versions or bare words', () => {
    const found = (text: string) => [...text.matchAll(FILE_REFERENCE_IN_TEXT)].map((m) => referenceOfMatch(m));
    assert.deepEqual(found('I changed src/app.ts:12 and test/app.test.ts.'), [{ path: 'src/app.ts', line: 12 }, { path: 'test/app.test.ts' }]);
    assert.deepEqual(found('See ../shared/util.js#L3, then /projects/ws/a.md'), [{ path: '../shared/util.js', line: 3 }, { path: '/projects/ws/a.md' }]);
    assert.deepEqual(found('Open https://example.com/docs/page.html or e.g. version 1.2.3 and notes.txt'), []);
  });
});

describe('where a file link may lead', () => {
  const ws = '/projects/ws';
  it('resolves paths inside the workspace folders', () => {
    assert.deepEqual(resolveInWorkspace([ws], 'src/app.ts'), { ok: true, absolute: '/projects/ws/src/app.ts', root: ws });
    assert.deepEqual(resolveInWorkspace([ws], './src/../README.md'), { ok: true, absolute: '/projects/ws/README.md', root: ws });
    assert.deepEqual(resolveInWorkspace([ws, '/projects/other'], '/projects/other/b.ts'), { ok: true, absolute: '/projects/other/b.ts', root: '/projects/other' });
    assert.deepEqual(resolveInWorkspace([ws], '..notes.md'), { ok: true, absolute: '/projects/ws/..notes.md', root: ws }, 'a name starting with two dots is inside');
    assert.deepEqual(resolveInWorkspace(['C:\\ws'], 'src\\app.ts'), { ok: true, absolute: 'C:\\ws\\src\\app.ts', root: 'C:\\ws' });
  });

  it('refuses hostile paths with a clear sentence', () => {
    const refused = (roots: string[], file: string) => {
      const r = resolveInWorkspace(roots, file);
      assert.equal(r.ok, false, file);
      return r.ok ? '' : r.message;
    };
    assert.equal(refused([ws], '../../etc/passwd'), '../../etc/passwd is outside the workspace folder, so it was not opened.');
    assert.match(refused([ws], '/etc/passwd'), /outside the workspace folder/);
    assert.match(refused([ws], 'src/../../ws-evil/x.ts'), /outside/);
    assert.match(refused([ws, '/projects/other'], '/projects/third/x.ts'), /outside the workspace folders/);
    assert.match(refused([ws], '~/.ssh/id_rsa'), /not a path in the workspace/);
    assert.match(refused([ws], 'file:///etc/passwd'), /not a path in the workspace/);
    assert.match(refused([ws], 'a\0b'), /not a file path/);
    assert.match(refused([], 'src/app.ts'), /no workspace folder is open/);
    assert.match(refused(['C:\\ws'], 'C:\\Windows\\win.ini'), /outside/);
  });

  it('refuses a symlink inside the workspace that leads out, and a file that does not exist', async () => {
    const root = trackedTempDir('nac-links-');
    const outside = trackedTempDir('nac-outside-');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src', 'app.ts'), 'x');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    fs.symlinkSync(path.join(root, 'src', 'app.ts'), path.join(root, 'inner.ts'));
    assert.deepEqual(await realPathInside([root], path.join(root, 'src', 'app.ts'), 'src/app.ts'), { ok: true, real: fs.realpathSync(path.join(root, 'src', 'app.ts')), directory: false });
    assert.equal((await realPathInside([root], path.join(root, 'inner.ts'), 'inner.ts')).ok, true, 'a symlink staying inside opens');
    assert.deepEqual(await realPathInside([root], path.join(root, 'src'), 'src'), { ok: true, real: fs.realpathSync(path.join(root, 'src')), directory: true });
    assert.deepEqual(await realPathInside([root], path.join(root, 'link.txt'), 'link.txt'), {
      ok: false, reason: 'outside_workspace', message: 'link.txt leads outside the workspace (a symbolic link), so it was not opened.',
    });
    assert.deepEqual(await realPathInside([root], path.join(root, 'gone.ts'), 'gone.ts'), { ok: false, reason: 'not_found', message: 'gone.ts does not exist in the workspace.' });
  });
});

describe('the openFile message', () => {
  it('lets through a path with its line and column', () => {
    for (const m of [{ type: 'openFile', path: 'src/app.ts' }, { type: 'openFile', path: 'src/app.ts', line: 12, column: 3 }]) {
      assert.deepEqual(decodeWebviewMessage(m), { ok: true, value: m });
    }
  });

  it('refuses malformed ones, naming the field', () => {
    const cases: [unknown, RegExp][] = [
      [{ type: 'openFile' }, /at "path"/],
      [{ type: 'openFile', path: '' }, /at "path"/],
      [{ type: 'openFile', path: 'a\0b' }, /at "path"/],
      [{ type: 'openFile', path: 'x'.repeat(4097) }, /at "path"/],
      [{ type: 'openFile', path: 'a.ts', line: 0 }, /at "line"/],
      [{ type: 'openFile', path: 'a.ts', line: 1.5 }, /at "line"/],
      [{ type: 'openFile', path: 'a.ts', line: '3' }, /at "line"/],
      [{ type: 'openFile', path: 'a.ts', column: -1 }, /at "column"/],
      [{ type: 'openFile', path: 'a.ts', uri: 'file:///etc/passwd' }, /Malformed message/],
      [{ type: 'openFile', path: ['a.ts'] }, /at "path"/],
    ];
    for (const [raw, pattern] of cases) {
      const d = decodeWebviewMessage(raw);
      assert.equal(d.ok, false, JSON.stringify(raw));
      assert.match(!d.ok ? d.message : '', pattern, JSON.stringify(raw));
    }
  });
});
