/**
 * Salvage of a moved-aside journal through the runtime and the journal door: the dry run changes no
 * file (sha256 before and after), applying imports every chat once (a second run finds nothing to
 * do), a chat already in the current journal is never overwritten, imported chats are consistent
 * (Check Journal finds no broken rule; the chat list and search show them) and their runs left
 * running are settled as a restart settles them, so Retry and Continue work on them.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { salvageCounts } from '../../src/core/salvage';
import { salvageMarkdown } from '../../src/core/salvageMarkdown';
import { loadSqlJs } from '../../src/journal/sqljs';
import { checkJournal } from '../../src/runtime/journalCheck';
import { applySalvage, listMovedAside, planSalvage } from '../../src/runtime/salvage';
import { openLocal } from './harness';
import { WASM_PATH, trackedTempDir, waitFor } from './helpers';
import { buildCorpus, chatId, damagePage } from './salvageCorpus';

/** sha256 of every file in `dir`, by name. */
function hashes(dir: string): Record<string, string> {
  return Object.fromEntries(fs.readdirSync(dir).filter((n) => n.includes('unreadable')).sort().map((n) => [n, createHash('sha256').update(fs.readFileSync(path.join(dir, n))).digest('hex')]));
}

describe('salvage of a moved-aside journal', () => {
  it('dry run changes no file; apply imports each chat once, settles runs left running, and Retry / Continue work on them', async () => {
    const sql = await loadSqlJs(WASM_PATH);
    const corpus = await buildCorpus(sql, trackedTempDir('nac-salvage-'), { chats: 30, logChats: 6 });
    const h = await openLocal({ file: corpus.file });
    try {
      const before = hashes(corpus.dir);
      const [aside] = listMovedAside(corpus.file);
      assert.equal(aside?.name, path.basename(corpus.aside));
      const dry = await planSalvage(h.journal, aside!.name);
      assert.deepEqual(hashes(corpus.dir), before);
      assert.deepEqual(salvageCounts(dry.plan), { whole: 36, partial: 0, skipped: 0, found: 36 });
      assert.equal((await h.journal.read('listSessions')).length, 0, 'the dry run wrote nothing');
      assert.match(salvageMarkdown(dry.plan), /\*\*36 chats can be recovered \(36 whole\)\.\*\*/);

      const applied = await applySalvage(h.journal, dry, { now: Date.now });
      assert.equal(applied.imported.length, 36);
      assert.deepEqual(applied.failed, []);
      // Chat 3 waited on an approval, 8 and 33 were mid-reply (33 only in the log).
      assert.equal(applied.settledRuns, 3);
      assert.deepEqual(hashes(corpus.dir), before, 'the moved-aside files stay byte-identical');

      const again = await planSalvage(h.journal, aside!.name);
      assert.deepEqual(salvageCounts(again.plan), { whole: 0, partial: 0, skipped: 36, found: 36 });
      assert.ok(again.plan.items.every((i) => i.skip === 'recovered_before'));
      assert.equal((await applySalvage(h.journal, again, { now: Date.now })).imported.length, 0);
      assert.equal((await h.journal.read('listSessions')).length, 36);

      // Consistent under the current schema: listed, searchable, no rule broken, nothing in flight.
      assert.equal((await h.runtime.chatList()).length, 36);
      const found = await h.journal.read('searchChats', 'number 12.0', {});
      assert.ok(found.ok && found.value.some((r) => r.sessionId === chatId(12)), JSON.stringify(found).slice(0, 300));
      const report = await checkJournal(h.journal);
      assert.deepEqual(report?.ruleFindings, []);
      assert.deepEqual(report?.unreadableRows, []);
      assert.deepEqual(report?.runsInFlight, []);

      // Settled as a restart settles: the approval's run needs Retry, the cut-off reply Continue.
      const waited = (await h.journal.read('listTurns', chatId(3))).at(-1)!;
      assert.equal(waited.errorClass, 'sandbox_boundary_closed_by_restart');
      const cut = (await h.journal.read('listTurns', chatId(8))).at(-1)!;
      assert.equal(cut.errorClass, 'app_restarted');
      const retried = await h.runtime.retry(chatId(3), waited.id);
      assert.ok(retried.ok, JSON.stringify(retried));
      const continued = await h.runtime.continueTurn(chatId(8), cut.id);
      assert.ok(continued.ok, JSON.stringify(continued));
      for (const [chat, turnId] of [[chatId(3), retried.ok && retried.value.turnId], [chatId(8), continued.ok && continued.value.turnId]] as const) {
        await waitFor(`the new turn of ${chat} to end`, async () => (await h.journal.read('getTurn', turnId as string))?.status !== 'running');
        const turn = await h.journal.read('getTurn', turnId as string);
        assert.equal(turn?.status, 'completed', `${chat}: ${JSON.stringify(turn)}`);
      }
    } finally {
      await h.close();
    }
  });

  it('never overwrites a copy already in the current journal', async () => {
    const sql = await loadSqlJs(WASM_PATH);
    const corpus = await buildCorpus(sql, trackedTempDir('nac-salvage-'), { chats: 6 });
    const h = await openLocal({ file: corpus.file });
    try {
      const newer = { id: chatId(2), title: 'Newer copy', provider: 'local', createdAt: 1, updatedAt: 1_800_000_000_000, workspace: null };
      assert.ok((await h.journal.write('createSession', newer)).ok);
      const dry = await planSalvage(h.journal, path.basename(corpus.aside));
      const item = dry.plan.items.find((i) => i.sessionId === chatId(2))!;
      assert.equal(item.skip, 'present');
      assert.match(salvageMarkdown(dry.plan), /already in your chats .*that copy is kept, never overwritten/);
      const applied = await applySalvage(h.journal, dry, { now: Date.now });
      assert.equal(applied.imported.length, 5);
      assert.equal((await h.journal.read('getSession', chatId(2)))?.title, 'Newer copy');
      assert.deepEqual(await h.journal.read('listTurns', chatId(2)), []);
      // The import refuses it in its own transaction too (another window may have made it since the dry run).
      const direct = await h.journal.write('importRecoveredChat', { source: 'x.unreadable-1', sessionId: chatId(2), whole: true, note: null, at: 1, rows: dry.read.chats.find((c) => c.sessionId === chatId(2))!.rows });
      assert.deepEqual(direct.ok && direct.value, { imported: false, skip: 'present' });
    } finally {
      await h.close();
    }
  });

  it('imports a chat partly when its pages are damaged, consistent under the journal\'s rules', async () => {
    const sql = await loadSqlJs(WASM_PATH);
    const corpus = await buildCorpus(sql, trackedTempDir('nac-salvage-'), { chats: 40 });
    // The runs table's last page: the newest chats lose reply records, so their prompts are left out.
    const db = new sql.Database(fs.readFileSync(corpus.aside));
    const root = Number(db.exec("SELECT rootpage FROM sqlite_master WHERE name = 'runs'")[0]!.values[0]![0]);
    db.close();
    damagePage(corpus.aside, root, 4096);
    const h = await openLocal({ file: corpus.file });
    try {
      const dry = await planSalvage(h.journal, path.basename(corpus.aside));
      const counts = salvageCounts(dry.plan);
      assert.ok(counts.partial > 0, JSON.stringify(counts));
      assert.match(salvageMarkdown(dry.plan), /## Chats recovered partly/);
      const applied = await applySalvage(h.journal, dry, { now: Date.now });
      assert.deepEqual(applied.failed, []);
      const report = await checkJournal(h.journal);
      assert.deepEqual(report?.ruleFindings, []);
      assert.deepEqual(report?.unreadableRows, []);
    } finally {
      await h.close();
    }
  });

  it('refuses malformed input to the import with a clear error, writing nothing', async () => {
    const h = await openLocal();
    try {
      const session = { id: 's1', title: 'T', provider: 'local', provider_state: null, created_at: 1, updated_at: 1, workspace: null };
      const empty = { sessions: [session], turns: [], runs: [], invocations: [], boundary_requests: [], events: [], queued_prompts: [] };
      const input = { source: 'journal.sqlite.unreadable-1', sessionId: 's1', whole: true, note: null, at: 1, rows: empty };
      const foreign = { ...input, rows: { ...empty, turns: [{ id: 't', session_id: 'other', prompt: 'p' }] } };
      await assert.rejects(h.journal.write('importRecoveredChat', foreign), /A recovered chat cannot be imported: a turns row belongs to another chat \(other\)\./);
      const blob = { ...input, rows: { ...empty, sessions: [{ ...session, title: { not: 'text' } as unknown as string }] } };
      await assert.rejects(h.journal.write('importRecoveredChat', blob), /a sessions value is neither text nor a number/);
      assert.deepEqual(await h.journal.read('listSessions'), []);
      const ok = await h.journal.write('importRecoveredChat', input);
      assert.deepEqual(ok.ok && ok.value, { imported: true, runsInFlight: [] });
      assert.deepEqual(await h.journal.read('recoveryStatus', ['s1', 'nope']), [{ sessionId: 's1', copy: { present: { updatedAt: 1 }, recovered: { source: 'journal.sqlite.unreadable-1', at: 1 } } }]);
    } finally {
      await h.close();
    }
  });

  it('refuses a name that is not a journal moved aside next to this one', async () => {
    const h = await openLocal();
    try {
      await assert.rejects(planSalvage(h.journal, '../../etc/passwd'), /is not a journal moved aside/);
      await assert.rejects(planSalvage(h.journal, 'journal.sqlite.unreadable-1'), /could not be read/);
    } finally {
      await h.close();
    }
  });
});
