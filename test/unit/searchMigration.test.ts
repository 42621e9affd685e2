/**
 * Migration 4 on a schema-3 journal (built with the first three migrations, as the previous build
 * wrote it): every row is kept, the index is built for the rows already there, the opener is told
 * the progress, the chats' workspace is unknown, and a damaged row neither fails the migration nor
 * gets indexed.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { MigrationProgress } from '../../src/journal/journal';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/journal/schema';
import { loadSqlJs } from '../../src/journal/sqljs';
import { editJournalFile, openJournal, tempDir, WASM_PATH } from './helpers';

const TABLES = ['sessions', 'turns', 'runs', 'events'] as const;

/** Writes a schema-3 journal of 50 chats, 500 turns and 3,950 events (5,000 rows); returns its row counts. */
async function writeSchema3Journal(file: string): Promise<Record<string, number>> {
  const SQL = await loadSqlJs(WASM_PATH);
  const db = new SQL.Database();
  for (const m of MIGRATIONS.filter((m) => m.version <= 3)) db.exec(`${m.sql}; PRAGMA user_version = ${m.version};`);
  db.exec('BEGIN');
  let events = 0;
  for (let s = 0; s < 50; s++) {
    db.run('INSERT INTO sessions (id, title, provider, created_at, updated_at) VALUES (?, ?, ?, ?, ?)', [`s${s}`, `Chat ${s}`, 'local', s, s]);
    for (let t = 0; t < 10; t++) {
      const turn = `s${s}t${t}`;
      db.run("INSERT INTO turns (id, session_id, prompt, origin, status, created_at) VALUES (?, ?, ?, 'prompt', 'completed', ?)", [turn, `s${s}`, `prompt ${turn}p`, s * 100 + t]);
      db.run("INSERT INTO runs (id, turn_id, session_id, instance_id, provider, status, started_at) VALUES (?, ?, ?, 'i', 'local', 'completed', ?)", [`${turn}r`, turn, `s${s}`, s * 100 + t]);
      for (let e = 0; e < 9 && events < 3950; e++, events++) {
        const [kind, payload] = e % 3 === 0 ? ['invocation_output', { invocationId: 'x', chunk: `output ${turn}e${e}` }] : ['text', { text: `reply ${turn}e${e}` }];
        db.run('INSERT INTO events (run_id, seq, session_id, turn_id, kind, payload, at) VALUES (?, ?, ?, ?, ?, ?, ?)', [`${turn}r`, e + 1, `s${s}`, turn, kind, JSON.stringify(payload), s * 100 + t]);
      }
    }
  }
  // A damaged row (not JSON): kept, not indexed, and it must not fail the migration.
  db.run("UPDATE events SET payload = 'not json s0t0e1' WHERE run_id = 's0t0r' AND seq = 2");
  db.exec('COMMIT');
  const counts = Object.fromEntries(TABLES.map((t) => [t, Number(db.exec(`SELECT COUNT(*) FROM ${t}`)[0]!.values[0]![0])]));
  fs.writeFileSync(file, db.export());
  db.close();
  return counts;
}

describe('journal: migration 4 (chat workspace, search index)', () => {
  it('keeps every row of a schema-3 journal, indexes them, reports progress, and leaves workspaces unknown', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const before = await writeSchema3Journal(file);
    assert.equal(Object.values(before).reduce((a, b) => a + b), 5000);
    const progress: MigrationProgress[] = [];
    const journal = await openJournal(file, { onMigrationProgress: (p) => progress.push(p) });
    try {
      assert.equal(journal.report.versionFound, 3);
      assert.equal(journal.report.version, SCHEMA_VERSION);
      assert.equal(journal.readOnlyReason, null);
      assert.ok(progress.length > 0, 'progress was reported');
      const end = progress[progress.length - 1]!;
      assert.equal(end.version, 4);
      assert.equal(end.done, end.total);
      assert.ok(end.total >= 500 + 3950, `the backfill covered every turn and event (total ${end.total})`);
      const search = async (q: string) => {
        const r = await journal.read('searchChats', q, {});
        assert.ok(r.ok);
        return r.value.map((x) => [x.turnId, x.kind]);
      };
      assert.deepEqual(await search('s7t3p'), [['s7t3', 'prompt']]);
      assert.deepEqual(await search('s40t9e4'), [['s40t9', 'reply']]);
      assert.deepEqual(await search('s12t0e3'), [['s12t0', 'output']]);
      assert.deepEqual(await search('s0t0e1'), [], 'the damaged row is not indexed');
      const chats = await journal.read('listChats', {});
      assert.equal(chats.length, 50);
      assert.ok(chats.every((c) => c.workspace === null), 'chats made before the migration have no known workspace');
      // New rows after the migration are indexed by the triggers.
      await journal.write('appendEvents', 's3t3r', [{ kind: 'text', payload: { text: 'after the migration: wagtail' } }], 9999);
      assert.deepEqual(await search('wagtail'), [['s3t3', 'reply']]);
    } finally {
      await journal.close();
    }
    await editJournalFile(file, (db) => {
      for (const t of TABLES) {
        const n = Number(db.exec(`SELECT COUNT(*) FROM ${t}`)[0]!.values[0]![0]);
        assert.equal(n, before[t]! + (t === 'events' ? 1 : 0), `rows of ${t}`);
      }
      const indexed = (table: string) => Number(db.exec(`SELECT COUNT(*) FROM ${table} WHERE ${table} MATCH 'reply OR output OR prompt OR wagtail'`)[0]!.values[0]![0]);
      const pending = Number(db.exec('SELECT COUNT(*) FROM event_search_pending')[0]!.values[0]![0]);
      assert.equal(indexed('event_search') + pending, before.events! - 1 + 1, 'every readable event is indexed (or waits to be)');
      assert.equal(indexed('prompt_search'), before.turns, 'every prompt is indexed');
      db.exec("INSERT INTO event_search(event_search) VALUES ('integrity-check')");
      db.exec("INSERT INTO prompt_search(prompt_search) VALUES ('integrity-check')");
    });
  });
});
