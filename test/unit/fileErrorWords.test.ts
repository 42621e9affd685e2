/**
 * A tool's failed file read or write in plain words: the pure sentences by error code, and the local
 * agent's `read` of a missing file through the real runtime and journal (before, the chat showed
 * Node's `ENOENT: no such file or directory, stat '/tmp/…/it'`).
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { fileErrorWords } from '../../src/core/fileErrorWords';
import { chatMarkdown } from '../../src/runtime/chatExport';
import { openLocal } from './harness';

const err = (code: string) => Object.assign(new Error(`${code}: raw`), { code });

describe('file errors in plain words', () => {
  it('names the path as the tool call gave it, by error code; an unknown error keeps its message', () => {
    assert.equal(fileErrorWords(err('ENOENT'), 'read', 'it'), 'There is no file `it` in the workspace folder.');
    assert.equal(fileErrorWords(err('ENOENT'), 'write', 'a/b.txt'), '`a/b.txt` could not be written: a folder on its path is missing.');
    assert.equal(fileErrorWords(err('EISDIR'), 'read', 'src'), '`src` is a folder, not a file.');
    assert.equal(fileErrorWords(err('ENOTDIR'), 'read', 'a.txt/b'), '`a.txt/b` is not a file: part of its path is a file, not a folder.');
    assert.equal(fileErrorWords(err('EACCES'), 'write', 'x'), 'Permission denied: `x` could not be written.');
    assert.equal(fileErrorWords(err('ENOSPC'), 'write', 'x'), 'The disk is full: `x` was not written.');
    assert.equal(fileErrorWords(err('EMFILE'), 'read', 'x'), 'EMFILE: raw');
    assert.equal(fileErrorWords('odd', 'read', 'x'), 'odd');
  });

  it('the local agent reading a file that is not there says so, without Node\'s error text or the absolute path', async () => {
    const h = await openLocal();
    try {
      const chat = await h.runtime.createSession('local');
      assert.ok(chat.ok);
      await h.runtime.send(chat.value.id, 'read it');
      await h.runtime.whenIdle(chat.value.id);
      const md = (await chatMarkdown(h.runtime, (await h.runtime.getSession(chat.value.id))!)).markdown;
      assert.match(md, /There is no file `it` in the workspace folder\./);
      assert.doesNotMatch(md, /ENOENT|folder\.\./);
      assert.ok(!md.includes(h.workspace), 'the absolute path is not shown');
    } finally {
      await h.close();
    }
  });
});
