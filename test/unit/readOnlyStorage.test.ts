/**
 * A storage folder the journal cannot write (mounted read-only: EROFS; files it may not change:
 * EPERM/EACCES): the journal opens read-only, its chats and their turns read back, every write is
 * refused in plain words that name the folder and the reason (never the raw system error with a
 * path), and nothing on disk changes.
 *
 * The folders are made unwritable for real, not simulated: a read-only bind mount of the folder onto
 * itself (EROFS), and the immutable attribute on the folder and its files (EPERM: the tests run as
 * root, whom permission bits do not stop). Both need privileges (CAP_SYS_ADMIN, CAP_LINUX_IMMUTABLE):
 * as root a folder that cannot be made unwritable fails the test; run by another user, it is skipped
 * and says why.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it, type TestContext } from 'node:test';
import { logPath } from '../../src/journal/logFile';
import { unwritableFolderMessage } from '../../src/journal/plainErrors';
import { openLocal } from './harness';
import { openJournal, openStore, trackedTempDir } from './helpers';

/** Undoes every read-only mount and immutable attribute still in place (a failed test's too). */
const undo: (() => void)[] = [];
after(() => {
  while (undo.length > 0) undo.pop()!();
});
// Before the helpers remove the temporary folders at exit (a folder still mounted read-only could not be).
process.prependListener('exit', () => {
  while (undo.length > 0) undo.pop()!();
});

/** Runs `command args`; its combined output, or the error's text when it fails. */
function run(command: string, args: readonly string[]): { ok: boolean; out: string } {
  try {
    return { ok: true, out: execFileSync(command, args, { stdio: 'pipe', encoding: 'utf8' }) };
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    return { ok: false, out: (e.stderr || e.message).trim() };
  }
}

/**
 * Mounts `dir` read-only onto itself (a bind mount), undone by the returned function (also at the
 * end of this file's tests); null, with the reason, when this machine does not allow it.
 */
function mountReadOnly(dir: string): (() => void) | string {
  const mounted = run('mount', ['--bind', '-o', 'ro', dir, dir]);
  if (!mounted.ok) return `mount --bind -o ro failed: ${mounted.out}`;
  let done = false;
  const unmount = () => {
    if (done) return;
    done = true;
    const r = run('umount', [dir]);
    if (!r.ok) throw new Error(`umount ${dir} failed: ${r.out}`);
  };
  undo.push(unmount);
  try {
    fs.writeFileSync(path.join(dir, 'probe'), '');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EROFS') return unmount;
  }
  unmount();
  return 'the bind mount took writes (not read-only)';
}

/**
 * Makes every file in `dir` immutable (writes to them fail with EPERM), and `dir` itself too unless
 * `filesOnly`; undone by the returned function (also at the end of this file's tests). A string,
 * the reason, when this machine does not allow it.
 */
function makeImmutable(dir: string, filesOnly = false): (() => void) | string {
  const files = fs.readdirSync(dir).map((n) => path.join(dir, n));
  const targets = filesOnly ? files : [dir, ...files];
  const set = run('chattr', ['+i', ...targets]);
  if (!set.ok) {
    run('chattr', ['-i', ...targets]);
    return `chattr +i failed: ${set.out}`;
  }
  let done = false;
  const clear = () => {
    if (done) return;
    done = true;
    const r = run('chattr', ['-i', ...targets]);
    if (!r.ok) throw new Error(`chattr -i failed: ${r.out}`);
  };
  undo.push(clear);
  try {
    fs.appendFileSync(files[0]!, '');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EPERM') return clear;
  }
  clear();
  return 'the immutable file took writes';
}

/**
 * Runs `body` while a folder is unwritable (`made`: the undo of `mountReadOnly` or `makeImmutable`),
 * then undoes it. When the folder could not be made unwritable (`made` is the reason): a failure as
 * root, who can here (`npm test` and CI run as root), else a skip that says why.
 */
async function whileUnwritable(t: TestContext, made: (() => void) | string, body: () => Promise<void>): Promise<void> {
  if (typeof made === 'string') {
    if (process.getuid?.() === 0) assert.fail(made);
    t.skip(made);
    return;
  }
  try {
    await body();
  } finally {
    made();
  }
}

/** Each file of `dir`: name → size, mtime and SHA-256 of its bytes. */
function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    const stat = fs.statSync(full);
    out[name] = `${stat.size} ${stat.mtimeMs} ${createHash('sha256').update(fs.readFileSync(full)).digest('hex')}`;
  }
  return out;
}

const session = (id: string) => ({ id, title: `chat ${id}`, provider: 'local', createdAt: 1, updatedAt: 1 });

/** A journal in a fresh folder with two chats, the first with two turns; returns its file (closed). */
async function journalWithChats(): Promise<string> {
  const file = path.join(trackedTempDir(), 'journal.sqlite');
  const j = await openJournal(file);
  try {
    for (const id of ['a', 'b']) assert.ok((await j.write('createSession', session(id))).ok);
    for (const [n, at] of [[1, 2], [2, 3]] as const) {
      assert.ok((await j.write('startTurn', {
        turn: { id: `t${n}`, sessionId: 'a', prompt: `prompt ${n}`, origin: 'prompt', parentTurnId: null, createdAt: at },
        run: { id: `r${n}`, instanceId: 'i', provider: 'local' },
      })).ok);
      assert.ok((await j.write('finishRun', { runId: `r${n}`, status: 'completed', turnStatus: 'completed', at: at + 0.5 })).ok);
    }
  } finally {
    await j.close();
  }
  return file;
}

/** What an error with a path in it looks like (`EROFS: read-only file system, open '/…'`). */
const RAW_ERROR = /E(ROFS|PERM|ACCES)\b|open '/;

/**
 * The check both kinds of unwritable folder share: opens read-only, reads back, refuses a write in
 * plain words naming the folder and `reason`, changes nothing on disk.
 */
async function opensReadOnly(file: string, reason: RegExp): Promise<void> {
  const dir = path.dirname(file);
  const before = fingerprint(dir);
  const j = await openJournal(file);
  try {
    assert.ok(j.readOnlyReason, 'the journal opened read-only');
    assert.match(j.readOnlyReason, reason);
    assert.ok(j.readOnlyReason.includes(dir), `the reason names the folder: ${j.readOnlyReason}`);
    assert.doesNotMatch(j.readOnlyReason, RAW_ERROR);
    assert.deepEqual((await j.read('listSessions')).map((s) => s.id).sort(), ['a', 'b']);
    assert.deepEqual((await j.read('listTurns', 'a')).map((t) => t.prompt), ['prompt 1', 'prompt 2']);
    const refused = await j.write('createSession', session('c'));
    assert.equal(refused.ok, false);
    assert.equal(!refused.ok && refused.reason, 'read_only');
    assert.equal(!refused.ok && refused.message, j.readOnlyReason);
  } finally {
    await j.close();
  }
  assert.deepEqual(fingerprint(dir), before, 'nothing on disk changed');
}

describe('a storage folder the journal cannot write', () => {
  it('mounted read-only (EROFS): the journal opens read-only, chats and turns read back, writes are refused in plain words', async (t: TestContext) => {
    const file = await journalWithChats();
    await whileUnwritable(t, mountReadOnly(path.dirname(file)), async () => {
      await opensReadOnly(file, /storage folder .* is read-only/);
    });
  });

  it('files it may not change (EPERM: immutable): the same, with a reason that says so', async (t: TestContext) => {
    const file = await journalWithChats();
    await whileUnwritable(t, makeImmutable(path.dirname(file)), async () => {
      await opensReadOnly(file, /not allowed to write to its storage folder/);
    });
  });

  it('a torn tail in a read-only folder is left in place, not cut: the journal still opens read-only', async (t: TestContext) => {
    const file = await journalWithChats();
    // A record torn by a crash: a frame header and part of its payload, nothing valid after it.
    const bare = await openStore(file);
    const { generation, logBytes } = bare.store;
    bare.done();
    const torn = Buffer.alloc(8 + 20, 'x');
    torn.writeUInt32LE(100, 0);
    torn.writeUInt32LE(12345, 4);
    const fd = fs.openSync(logPath(file, generation), 'r+');
    fs.writeSync(fd, torn, 0, torn.length, logBytes);
    fs.closeSync(fd);
    await whileUnwritable(t, mountReadOnly(path.dirname(file)), async () => {
      await opensReadOnly(file, /storage folder .* is read-only/);
    });
  });

  it('log files it may not change in a folder it may: the same, and no lock or other file is made', async (t: TestContext) => {
    const file = await journalWithChats();
    await whileUnwritable(t, makeImmutable(path.dirname(file), true), async () => {
      await opensReadOnly(file, /not allowed to write to its storage folder/);
    });
  });

  it('an empty read-only folder (nothing saved yet) and a missing folder under a read-only one: no chats, read-only, the same reason', async (t: TestContext) => {
    const dir = trackedTempDir();
    fs.mkdirSync(path.join(dir, 'empty'));
    await whileUnwritable(t, mountReadOnly(dir), async () => {
      for (const folder of [path.join(dir, 'empty'), path.join(dir, 'missing')]) {
        const j = await openJournal(path.join(folder, 'journal.sqlite'));
        try {
          assert.match(j.readOnlyReason ?? '', /storage folder .* is read-only/);
          assert.doesNotMatch(j.readOnlyReason ?? '', RAW_ERROR);
          assert.deepEqual(await j.read('listSessions'), []);
        } finally {
          await j.close();
        }
      }
      assert.deepEqual(fs.readdirSync(dir), ['empty']);
      assert.deepEqual(fs.readdirSync(path.join(dir, 'empty')), []);
    });
  });

  it('the runtime on it starts, and New Chat is refused with the reason instead of a raw error', async (t: TestContext) => {
    const file = await journalWithChats();
    await whileUnwritable(t, mountReadOnly(path.dirname(file)), async () => {
      const h = await openLocal({ file });
      try {
        const created = await h.runtime.createSession('local');
        assert.equal(created.ok, false);
        assert.equal(!created.ok && created.reason, 'read_only');
        assert.match(!created.ok ? created.message : '', /can show your chats but cannot save them: its storage folder .* is read-only/);
        assert.doesNotMatch(!created.ok ? created.message : '', RAW_ERROR);
        assert.deepEqual((await h.runtime.listSessions()).map((s) => s.id).sort(), ['a', 'b']);
        // Opening an existing chat records its tab: refused, logged, never thrown at the user.
        await h.runtime.recordTab('a');
      } finally {
        await h.close();
      }
    });
  });
});

describe('unwritableFolderMessage', () => {
  it('says which folder and why, in plain words, for each code', () => {
    const dir = '/home/u/.config/Code/User/globalStorage/x';
    const text = (code: string) => unwritableFolderMessage(Object.assign(new Error(`${code}: nope, open '${dir}/journal.sqlite.log.2'`), { code }), dir);
    assert.match(text('EROFS'), /^Agent Chats can show your chats but cannot save them: its storage folder \(.*\) is read-only\./);
    assert.match(text('EACCES'), /you are not allowed to write to its storage folder \(.*\)/);
    assert.match(text('EPERM'), /you are not allowed to write to its storage folder \(.*\)/);
    for (const code of ['EROFS', 'EACCES', 'EPERM']) {
      assert.ok(text(code).includes(dir), code);
      assert.doesNotMatch(text(code), RAW_ERROR, code);
    }
  });
});
