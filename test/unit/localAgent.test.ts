import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { parseLocalPrompt } from '../../src/runtime/agents/localAgent';

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
