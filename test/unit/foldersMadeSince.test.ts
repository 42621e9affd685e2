/**
 * Which folders an undo removes with a file the agent created (`removeFoldersMadeSince`), judged by
 * the folder's birth time against the turn's start: the file system stamps a folder with its coarse
 * clock, which runs behind `Date.now()` by up to a few ms, so a folder the agent made in the first
 * moments of its turn must still count as made since the turn started.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { FILE_CLOCK_LAG_MS, removeFoldersMadeSince } from '../../src/runtime/fileImages';
import { tempDir } from './helpers';

/**
 * Makes `root/made` with a file in it, then removes the file after `gapMs`, so the folder's change
 * time is later than its birth. Fails when the file system keeps no birth time (the rule has nothing
 * to judge there; ext4, where `npm test` and CI run, keeps one).
 */
async function emptiedFolder(root: string, gapMs: number): Promise<{ birthMs: number }> {
  const dir = path.join(root, 'made');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'f.txt'), 'x');
  await new Promise((resolve) => setTimeout(resolve, gapMs));
  fs.unlinkSync(path.join(dir, 'f.txt'));
  const birthMs = fs.statSync(dir).birthtimeMs;
  assert.ok(birthMs > 0, `${root}: this file system keeps no birth time for folders`);
  return { birthMs };
}

describe('the folders made since a turn started', () => {
  it('takes a folder stamped a little before the turn began by the file system\'s coarse clock', async () => {
    const root = tempDir('nac-folders-');
    const { birthMs } = await emptiedFolder(root, 30);
    // The turn "began" 5 ms after the stamp: the same moment, as the coarse clock tells it.
    assert.deepEqual(await removeFoldersMadeSince(root, 'made/f.txt', birthMs + 5), ['made']);
    assert.equal(fs.existsSync(path.join(root, 'made')), false);
  });

  it('keeps a folder made before the turn by more than the clock\'s lag (the user\'s)', async () => {
    const root = tempDir('nac-folders-');
    const { birthMs } = await emptiedFolder(root, 30);
    assert.deepEqual(await removeFoldersMadeSince(root, 'made/f.txt', birthMs + FILE_CLOCK_LAG_MS + 1), []);
    assert.equal(fs.existsSync(path.join(root, 'made')), true);
  });
});
