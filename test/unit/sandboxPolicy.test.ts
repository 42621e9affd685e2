import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { classifyAction, splitCommandLine } from '../../src/core/sandboxPolicy';

const ROOT = '/home/u/project';
const verdict = (command: string) => classifyAction({ type: 'command', command }, ROOT);

describe('sandbox policy', () => {
  it('runs read-only allowlisted commands inside the workspace without asking', () => {
    for (const c of ['ls', 'ls -la src', 'cat README.md', 'grep -n foo src/a.ts', 'wc -l "a b.txt"']) {
      assert.deepEqual(verdict(c), { type: 'inside' }, c);
    }
  });

  it('asks for other commands, with the program as the session-grant scope', () => {
    const v = verdict('npm install left-pad');
    assert.equal(v.type, 'boundary');
    assert.equal(v.type === 'boundary' && v.kind, 'command');
    assert.equal(v.type === 'boundary' && v.scopeKey, 'command:npm');
    assert.equal(v.type === 'boundary' && v.subject, 'npm install left-pad');
  });

  it('asks when an allowlisted command uses shell operators or leaves the workspace', () => {
    for (const c of ['ls && rm -rf x', 'cat a > b', 'echo $(whoami)', 'cat /etc/passwd', 'ls ../other', 'cat ~/.ssh/id_rsa', 'git push', 'ls "unbalanced',
      // git runs what the repository's own config says (fsmonitor, pagers, diff drivers): never read-only.
      'git status', 'git log --oneline',
      // paths hidden in ~user, option values and globs
      'cat ~root/.profile', 'wc --files0-from=/etc/list', 'file -f/etc/list', 'cat .[.]/secret']) {
      assert.equal(verdict(c).type, 'boundary', c);
    }
  });

  it('classifies network tools as network requests, granted for the exact command only', () => {
    const v = verdict('curl https://example.com');
    assert.equal(v.type === 'boundary' && v.kind, 'network');
    assert.equal(v.type === 'boundary' && v.scopeKey, 'network-exact:curl https://example.com');
  });

  it('grants a whole program only for simple commands; chained ones are granted exactly', () => {
    const simple = verdict('node src/greet.js A');
    assert.equal(simple.type === 'boundary' && simple.scopeKey, 'command:node');
    assert.match(simple.type === 'boundary' ? simple.grants : '', /`node` commands without shell operators/);
    const chained = verdict('node src/greet.js B && touch /tmp/x');
    assert.equal(chained.type === 'boundary' && chained.scopeKey, 'command-exact:node src/greet.js B && touch /tmp/x');
    const outside = verdict('node /tmp/evil.js');
    assert.equal(outside.type === 'boundary' && outside.scopeKey, 'command-exact:node /tmp/evil.js');
  });

  it('asks before writing inside .git (hooks and config run code)', () => {
    const v = classifyAction({ type: 'write', path: '.git/hooks/pre-commit' }, ROOT);
    assert.equal(v.type === 'boundary' && v.kind, 'file_change');
  });

  it('asks for reads and writes outside the workspace only', () => {
    assert.deepEqual(classifyAction({ type: 'read', path: 'src/a.ts' }, ROOT), { type: 'inside' });
    assert.deepEqual(classifyAction({ type: 'write', path: `${ROOT}/out/x` }, ROOT), { type: 'inside' });
    const w = classifyAction({ type: 'write', path: '../escape.txt' }, ROOT);
    assert.equal(w.type === 'boundary' && w.kind, 'write_outside_workspace');
    assert.equal(w.type === 'boundary' && w.subject, '/home/u/escape.txt');
    const r = classifyAction({ type: 'read', path: '/etc/hosts' }, ROOT);
    assert.equal(r.type === 'boundary' && r.kind, 'read_outside_workspace');
    // A sibling folder sharing the prefix is outside.
    assert.equal(classifyAction({ type: 'read', path: '/home/u/project-other/a' }, ROOT).type, 'boundary');
  });

  it('splits command lines with quotes', () => {
    assert.deepEqual(splitCommandLine(`grep -n "a b" 'c d' e`), ['grep', '-n', 'a b', 'c d', 'e']);
    assert.equal(splitCommandLine('echo "open'), undefined);
  });
});
