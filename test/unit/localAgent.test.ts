import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { fileNewsWords, parseLocalPrompt } from '../../src/runtime/agents/localAgent';

describe('local agent prompt parsing', () => {
  it('understands help, run, read and write', () => {
    assert.deepEqual(parseLocalPrompt('help'), { type: 'help' });
    assert.deepEqual(parseLocalPrompt('  run   npm test -- --grep x '), { type: 'run', command: 'npm test -- --grep x' });
    assert.deepEqual(parseLocalPrompt('read "docs/a b.md"'), { type: 'read', path: 'docs/a b.md' });
    assert.deepEqual(parseLocalPrompt('write notes.md\n```md\n# Title\nbody\n```'), { type: 'write', path: 'notes.md', content: '# Title\nbody\n' });
  });

  it('explains a write without a fenced block and answers anything else briefly', () => {
    assert.deepEqual(parseLocalPrompt('write notes.md'), { type: 'write_without_block', path: 'notes.md' });
    assert.deepEqual(parseLocalPrompt('please refactor everything'), { type: 'chat', text: 'please refactor everything' });
    assert.deepEqual(parseLocalPrompt('run'), { type: 'chat', text: 'run' });
  });
});

describe('the local agent on undos and redos since its last reply', () => {
  it('says in plain words, to the user, what they undid, redid or kept; nothing when nothing changed', () => {
    assert.equal(fileNewsWords({ undone: ['a.txt'], redone: [], kept: [] }), 'Since my last reply, you undid my changes to `a.txt`.\n\n');
    assert.equal(
      fileNewsWords({ undone: ['a.txt', 'b.txt', 'c.txt'], redone: ['d.txt'], kept: ['e.txt'] }),
      'Since my last reply, you undid my changes to `a.txt`, `b.txt` and `c.txt`, and you redid my changes to `d.txt`. `e.txt` stays as you had changed it.\n\n',
    );
    assert.equal(fileNewsWords({ undone: [], redone: [], kept: ['e.txt', 'f.txt'] }), 'Since my last reply, `e.txt` and `f.txt` stay as you had changed them.\n\n');
    assert.equal(fileNewsWords({ undone: [], redone: [], kept: [] }), '');
  });
});
