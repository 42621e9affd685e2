/**
 * Export All Chats… without VS Code (src/runtime/chatExport.ts): one file per chat and an index,
 * newest first; a chat with a row this build cannot read is written with what can be read and a
 * note, and the others still are; a cancel stops between chats and the index lists what was written.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { SessionRecord } from '../../src/core/events';
import { EXPORT_INDEX_FILE } from '../../src/core/exportFiles';
import { exportAllChats, type ExportSink } from '../../src/runtime/chatExport';
import { openLocal, type RuntimeHarness } from './harness';
import { editJournalFile, steppingClock, trackedTempDir } from './helpers';

/** A sink writing into a fresh folder; `written` lists the file names in order. */
function folderSink(): ExportSink & { dir: string; written: string[] } {
  const dir = trackedTempDir('nac-export-');
  const written: string[] = [];
  return { dir, written, write: async (name, text) => void (fs.writeFileSync(path.join(dir, name), text), written.push(name)) };
}

/** Three chats (oldest first: "Alpha", "Beta", "Alpha" again), each with the prompts given. */
async function threeChats(h: RuntimeHarness): Promise<SessionRecord[]> {
  const out: SessionRecord[] = [];
  for (const [title, prompts] of [['Alpha', ['help']], ['Beta', ['run ls', 'help']], ['Alpha', ['help']]] as const) {
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    for (const prompt of prompts) {
      assert.ok((await h.runtime.send(s.value.id, prompt)).ok);
      await h.runtime.whenIdle(s.value.id);
    }
    const renamed = await h.runtime.renameSession(s.value.id, title);
    assert.ok(renamed.ok);
    out.push(renamed.value);
  }
  return out;
}

describe('Export All Chats', () => {
  it('writes every chat and an index newest first; a chat with an unreadable row is written with a note, the others whole', async () => {
    let h = await openLocal({ now: steppingClock() });
    const [, beta] = await threeChats(h);
    const file = h.file;
    await h.close();
    // A turn row of a newer build (a status this build does not know) fences Beta.
    await editJournalFile(file, (db) => db.run("UPDATE turns SET status = 'hibernating' WHERE session_id = ? AND prompt = 'run ls'", [beta!.id]));
    h = await openLocal({ file, now: steppingClock(1_800_000_000_000) });
    try {
      const sink = folderSink();
      // Oldest first: the index still lists them newest first.
      const sessions = (await h.runtime.listSessions()).reverse();
      const seen: string[] = [];
      const result = await exportAllChats(h.runtime, sessions, sink, { cancelled: () => false, progress: (done, total, s) => seen.push(`${done}/${total} ${s.title}`), exportedAt: 0 });
      assert.equal(result.cancelled, false);
      assert.deepEqual(seen, ['0/3 Alpha', '1/3 Beta', '2/3 Alpha']);
      assert.deepEqual(sink.written, ['Alpha.md', 'Beta.md', 'Alpha-2.md', EXPORT_INDEX_FILE]);
      const betaDoc = fs.readFileSync(path.join(sink.dir, 'Beta.md'), 'utf8');
      assert.match(betaDoc, /> \*\*Note:\*\* This chat holds a prompt written by a newer version of Agent Chats, which this version leaves out/);
      assert.match(betaDoc, /^- \*\*Turns:\*\* 1$/m, 'the readable turn only');
      assert.match(betaDoc, /^> help$/m);
      assert.doesNotMatch(betaDoc, /run ls/);
      for (const name of ['Alpha.md', 'Alpha-2.md']) assert.doesNotMatch(fs.readFileSync(path.join(sink.dir, name), 'utf8'), /Note:/);
      const index = fs.readFileSync(path.join(sink.dir, EXPORT_INDEX_FILE), 'utf8');
      const links = [...index.matchAll(/^- \[(\w+)\]\(([^)]+)\)/gm)].map((m) => `${m[1]} ${m[2]}`);
      assert.deepEqual(links, ['Alpha Alpha-2.md', 'Beta Beta.md', 'Alpha Alpha.md'], 'newest first');
      assert.match(index, /\[Beta\]\(Beta\.md\) — Local agent, last active [^\n]*, 1 turn — This chat holds a prompt written by a newer version/);
    } finally {
      await h.close();
    }
  });

  it('a cancel stops between chats; the index lists the chats written', async () => {
    const h = await openLocal({ now: steppingClock() });
    try {
      await threeChats(h);
      const sink = folderSink();
      const result = await exportAllChats(h.runtime, await h.runtime.listSessions(), sink, { cancelled: () => sink.written.length >= 2, exportedAt: 0 });
      assert.equal(result.cancelled, true);
      assert.equal(result.total, 3);
      assert.deepEqual(sink.written, ['Alpha.md', 'Beta.md', EXPORT_INDEX_FILE]);
      assert.match(fs.readFileSync(path.join(sink.dir, EXPORT_INDEX_FILE), 'utf8'), /^2 chats, exported/m);
    } finally {
      await h.close();
    }
  });
});
