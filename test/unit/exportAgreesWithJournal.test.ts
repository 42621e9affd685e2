/**
 * A chat exported as Markdown: the export of a chat with every item kind (built with the real
 * runtime, the local agent and recovery: exportScenario.ts) matches the reviewed golden file
 * `test/fixtures/export/chat.md`, and what the export says agrees with the journal's rows: every
 * prompt, every invocation's status, every boundary request's decision and closure reason, every
 * failed turn's error class, in words.
 *
 * `NAC_UPDATE_GOLDEN=1` rewrites the golden file (then review its diff before committing it).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { describeErrorClass, settledRequestText } from '../../src/core/errorClassWords';
import { chatToMarkdown } from '../../src/core/exportMarkdown';
import { codeSpan, DECISION_LABELS, invocationStatusLabel, oneLine } from '../../src/core/labels';
import { markdownWithoutHtml, quote } from '../../src/core/markdownText';
import type { SessionRecord } from '../../src/core/events';
import type { Transcript } from '../../src/core/transcript';
import { buildExportScenario, type ExportScenario } from './exportScenario';
import { editJournalFile } from './helpers';

const GOLDEN = path.resolve(__dirname, '../../../test/fixtures/export/chat.md');

describe('a chat exported as Markdown', () => {
  let scenario: ExportScenario;
  let session: SessionRecord;
  let transcript: Transcript;
  let markdown: string;
  before(async () => {
    scenario = await buildExportScenario();
    session = (await scenario.h.runtime.getSession(scenario.sessionId))!;
    transcript = await scenario.h.runtime.transcript(scenario.sessionId);
    // The workspace is a fresh temporary folder: the golden file names it /workspace.
    markdown = chatToMarkdown(session, transcript, { utcOffsetMinutes: () => 60 }).split(scenario.h.workspace).join('/workspace');
  });
  let closed = false;
  const closeScenario = async () => {
    if (!closed) await scenario?.h.close();
    closed = true;
  };
  after(closeScenario);

  it('matches the reviewed golden file', () => {
    if (process.env.NAC_UPDATE_GOLDEN === '1') {
      fs.mkdirSync(path.dirname(GOLDEN), { recursive: true });
      fs.writeFileSync(GOLDEN, markdown);
    }
    assert.equal(markdown, fs.readFileSync(GOLDEN, 'utf8'));
  });

  it('holds every kind of item the scenario is meant to produce', () => {
    const items = transcript.turns.flatMap((t) => t.items);
    const kinds = new Set(items.map((i) => i.type));
    assert.deepEqual([...kinds].sort(), ['boundary', 'invocation', 'notice', 'text']);
    const closures = new Set(items.flatMap((i) => (i.type === 'boundary' ? [i.closureReason] : [])));
    assert.deepEqual([...closures].sort(), ['host_restarted', 'run_stopped', 'session_grant', 'user_decision']);
    assert.deepEqual(transcript.turns.map((t) => t.origin).filter((o) => o !== 'prompt').sort(), ['continue', 'retry']);
    assert.deepEqual(transcript.turns.flatMap((t) => (t.errorClass ? [t.errorClass] : [])).sort(), ['agent_error', 'app_restarted', 'sandbox_boundary_closed_by_restart']);
    assert.ok(items.some((i) => i.type === 'invocation' && i.diff), 'a diff');
    assert.ok(items.some((i) => i.type === 'invocation' && i.status === 'failed' && i.exitCode === 1), 'a command that failed');
  });

  it('agrees with the journal rows: prompts, invocation statuses, decisions, closure reasons, error classes', async () => {
    const { journal } = scenario.h;
    const turns = await journal.read('listTurns', scenario.sessionId);
    const events = await journal.read('listEvents', scenario.sessionId);
    assert.ok(turns.length >= 14);
    for (const [i, turn] of turns.entries()) {
      const section = turnSection(markdown, i + 1);
      assert.ok(section.includes(quote(markdownWithoutHtml(turn.prompt, true))), `turn ${i + 1}'s prompt`);
      if (turn.errorClass) assert.ok(section.includes(describeErrorClass(turn.errorClass, transcript.turns[i]!).title), `turn ${i + 1}'s error class`);
    }
    const requestIds = events.flatMap((e) => (e.kind === 'boundary_requested' ? [{ id: e.payload.requestId, turnId: e.turnId }] : []));
    for (const { id, turnId } of requestIds) {
      const row = (await journal.read('getBoundaryRequest', id))!;
      assert.ok(row.status !== 'pending' && row.decision && row.closureReason);
      const section = turnSection(markdown, turns.findIndex((t) => t.id === turnId) + 1);
      const expected = `Decision: ${DECISION_LABELS[row.decision]} — ${settledRequestText(row.status, row.decision, row.closureReason)}`;
      assert.ok(section.includes(expected), `request ${row.subject}: ${expected}`);
      assert.ok(section.includes(codeSpan(oneLine(row.subject, Infinity))), `request ${row.subject}: its subject`);
    }
    const invocations = events.flatMap((e) => (e.kind === 'invocation_started' ? [{ id: e.payload.invocationId, turnId: e.turnId }] : []));
    for (const { id, turnId } of invocations) {
      const row = (await journal.read('getInvocation', id))!;
      const section = turnSection(markdown, turns.findIndex((t) => t.id === turnId) + 1);
      const head = new RegExp(`\\*\\*Tool \`${row.tool}\`:\\*\\* [^\\n]*\\\\\\n${escapeRegExp(invocationStatusLabel({ status: row.status, failureClass: row.failureClass ?? undefined }))}`);
      assert.match(section, head, `invocation ${id}: its status ${row.status}`);
    }
    // Every row of the chat was checked: none without its event (read from the file, log folded in).
    await closeScenario();
    const rows = await rowCounts(scenario.h.file, scenario.sessionId);
    assert.deepEqual(rows, { turns: turns.length, boundary_requests: requestIds.length, invocations: invocations.length });
  });
});

/** The text of `## Turn n` up to the next turn's rule. */
function turnSection(markdown: string, n: number): string {
  const start = markdown.indexOf(`\n## Turn ${n}\n`);
  assert.ok(start >= 0, `turn ${n} has its heading`);
  const end = markdown.indexOf('\n---\n', start);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/** `text` matched literally in a RegExp. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** How many rows of each table the chat has in the journal file (closed: its log is folded in first). */
async function rowCounts(file: string, sessionId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  await editJournalFile(file, (db) => {
    for (const table of ['turns', 'boundary_requests', 'invocations']) {
      counts[table] = Number(db.exec(`SELECT COUNT(*) FROM ${table} WHERE session_id = ?`, [sessionId])[0]!.values[0]![0]);
    }
  });
  return counts;
}
