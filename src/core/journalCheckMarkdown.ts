/**
 * The Check Journal report as Markdown: the verdict first, then what was checked and what was
 * found, each finding with what it means for the user and what to do, then the evidence (tables,
 * row ids, file offsets) for whoever repairs it, and the rules checked in the footer. Plain words
 * for someone who has never heard of SQLite; the technical names stay in code spans. Pure.
 */
import {
  JOURNAL_RULES, fencedChats, journalVerdict, sizeWords, tableWords, timeWords,
  type JournalCheckReport, type LogGenerationFinding, type RunInFlightFinding,
} from './journalCheck';
import { escapeText } from './markdownText';
import { codeSpan, oneLine } from './words';

/** A chat named for the report: its title (escaped) and its id. */
function chatName(title: string | null, id: string | null): string {
  if (id === null) return 'no chat';
  return title === null ? `a chat whose record is missing (id ${codeSpan(id)})` : `“${escapeText(oneLine(title, 80))}” (id ${codeSpan(id)})`;
}

/** The section on the files: the snapshot's integrity and each log generation. */
function filesSection(report: JournalCheckReport): string[] {
  const { snapshot, logs } = report.files;
  const out = ['## The journal files', ''];
  if (snapshot.bytes === null) out.push(`- ${codeSpan(snapshot.path)}: not written yet (a new journal keeps its chats in the log files below until then). Nothing to do.`);
  else if (snapshot.problems.length === 0) out.push(`- ${codeSpan(snapshot.path)} (${sizeWords(snapshot.bytes)}): SQLite's full integrity check found nothing wrong.`);
  else {
    out.push(`- ${codeSpan(snapshot.path)} (${sizeWords(snapshot.bytes)}): **damaged.** Part of the file cannot be read, so some chats may be incomplete and Agent Chats takes no changes. Keep a copy of the folder; do not delete the file. SQLite's integrity check said:`);
    for (const p of snapshot.problems) out.push(`  - ${codeSpan(oneLine(p, 200))}`);
  }
  out.push(...structureLines(report));
  if (logs.length === 0) out.push('- No log files (every change is in the file above).');
  for (const log of logs) out.push(`- ${logLine(log)}`);
  return out;
}

/** The structure's line under the files: every part there, or the parts missing. */
function structureLines(report: JournalCheckReport): string[] {
  const s = report.structure;
  if (!s) return [];
  if (!s.checked) return [`- Its structure was not compared: it is version ${s.version}, newer than this version of Agent Chats knows.`];
  if (s.missing.length === 0) return [`- Its structure (version ${s.version}): every table, index, view and trigger is there.`];
  return [
    `- Its structure (version ${s.version}): **incomplete.** ${s.missing.length === 1 ? 'One part is' : `${s.missing.length} parts are`} missing, so saving some changes fails. Keep a copy of the folder; do not delete anything. Missing:`,
    ...s.missing.map((m) => `  - ${m.type} ${codeSpan(m.name)}`),
  ];
}

/** One log generation in words. */
function logLine(log: LogGenerationFinding): string {
  const head = `${codeSpan(log.path)} (${sizeWords(log.bytes)}): ${log.records} recorded ${log.records === 1 ? 'change' : 'changes'}${log.firstSeq === null ? '' : ` (${log.firstSeq}–${log.lastSeq})`}`;
  if (!log.damage) return `${head}, read to its end. Nothing wrong.`;
  const at = `at byte ${log.damage.offset} (${log.damage.why})`;
  if (log.damage.kind === 'torn') return `${head}, then an unfinished change ${at}: a write cut short, e.g. by a crash. Opening the journal discards it; nothing saved is lost. Nothing to do.`;
  if (log.damage.kind === 'header') return `${head}; the file's header is damaged ${at}, so none of it can be read. Changes in it are missing and Agent Chats takes no changes. Keep a copy of the folder.`;
  return `${head}, then damage ${at} with saved changes after it. Changes from there on cannot be read and Agent Chats takes no changes. Keep a copy of the folder.`;
}

/** The section on chats that cannot be changed and the rows that hold them. */
function fencedSection(report: JournalCheckReport): string[] {
  const chats = fencedChats(report);
  const out = ['## Chats that cannot be changed', ''];
  if (chats.size === 0) return [...out, 'None: every record of every chat could be read.'];
  out.pop(); // each chat's heading brings its own blank line
  for (const rows of chats.values()) {
    const first = rows[0]!;
    const newer = rows.some((r) => r.writtenBy === 'newer');
    out.push('', `### ${chatName(first.chatTitle, first.sessionId)}`, '');
    out.push(newer
      ? 'This chat holds data written by a newer version of Agent Chats. This version cannot show that part and will not change the chat, so it does not spoil it. **Update the extension**; the chat then works again.'
      : 'This chat holds data that is damaged: no version of Agent Chats can read it. The chat is shown without it and takes no new messages, so nothing more is lost; you can still read and export it. Your other chats are not affected. **Agent Chats: Repair Journal…** shows whether it can set the damaged data aside so the chat takes messages again (it changes nothing before you confirm).');
    out.push('', '| what | table | row id | written | written by | why it cannot be read |', '| --- | --- | --- | --- | --- | --- |');
    for (const r of rows) {
      out.push(`| ${tableWords(r.table)} | ${codeSpan(r.table)} | ${r.rowid} (${codeSpan(r.rowKey)}) | ${timeWords(r.since)} | ${r.writtenBy === 'newer' ? 'a newer version' : 'unknown (damaged)'} | ${escapeText(oneLine(r.reason, 160)).replace(/\|/g, '\\|')} |`);
    }
  }
  return out;
}

/** The section on records that do not fit together. */
function rulesSection(report: JournalCheckReport): string[] {
  const out = ['## Records that do not fit together', ''];
  if (report.ruleFindings.length === 0) return [...out, 'None: every record fits the rules listed at the end.'];
  out.push('These records contradict each other (for example an approval request for a reply that does not exist). Agent Chats shows what it can; nothing to do now, keep this report.', '');
  out.push('| chat | table | row id | written | rule | what is wrong |', '| --- | --- | --- | --- | --- | --- |');
  for (const f of report.ruleFindings) {
    out.push(`| ${chatName(f.chatTitle, f.sessionId)} | ${codeSpan(f.table)} | ${f.rowid} (${codeSpan(f.rowKey)}) | ${timeWords(f.since)} | ${codeSpan(f.rule)} | ${escapeText(oneLine(f.detail, 200)).replace(/\|/g, '\\|')} |`);
  }
  return out;
}

/** A run in flight in words. */
function runLine(r: RunInFlightFinding): string {
  const what = `- A reply in ${chatName(r.chatTitle, r.sessionId)}, started ${timeWords(r.startedAt)} (run ${codeSpan(r.runId)}, window ${codeSpan(r.instanceId)}): `;
  if (r.owner === 'alive') return `${what}${r.ownedHere ? 'this window' : 'another open window'} is still working on it. Nothing to do.`;
  const gone = r.owner === 'dead' ? 'the window that started it has closed' : 'the window that started it is gone (it is not among the windows Agent Chats knows)';
  return `${what}${gone}, so it will never finish by itself. Reload any window (**Developer: Reload Window**) or restart VS Code: the reply then ends as interrupted and the chat offers **Continue**.`;
}

/** The section on records Repair Journal set aside (none: no section). */
function setAsideSection(report: JournalCheckReport): string[] {
  const rows = report.setAside ?? [];
  if (rows.length === 0) return [];
  return [
    '## Records set aside by Repair Journal', '',
    'These records could not be read, and a repair moved them out of their chats into the table `quarantined_rows`, with their values exactly as they were. Nothing was deleted. Nothing to do.', '',
    '| what | chat | table | row id | set aside | by version | why it could not be read |', '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${tableWords(r.table)} | ${codeSpan(r.sessionId)} | ${codeSpan(r.table)} | ${r.rowid} (${codeSpan(r.rowKey)}) | ${timeWords(r.at)} | ${codeSpan(r.build)} | ${escapeText(oneLine(r.reason, 160)).replace(/\|/g, '\\|')} |`),
    '',
  ];
}

/** The section on moved-aside journals. */
function movedAsideSection(report: JournalCheckReport): string[] {
  const out = ['## Journals moved aside', ''];
  const aside = report.files.movedAside;
  if (aside.length === 0) return [...out, 'None.'];
  out.push('Agent Chats could not read these journals when it started, so it moved them aside (it never deletes them) and started a new, empty one. Their chats are not shown until you recover them: **Agent Chats: Recover Chats from a Moved-Aside Journal…** shows what it can bring back before it changes anything. Do not delete these files.', '');
  for (const a of aside) {
    const logs = a.logs.length === 0 ? '' : ` with ${a.logs.map((l) => `${codeSpan(l.name)} (${sizeWords(l.bytes)})`).join(', ')}`;
    out.push(`- ${codeSpan(a.path)}: ${sizeWords(a.bytes)}, moved aside ${timeWords(a.movedAt)}${logs}.${a.reason === null ? '' : ` Why: ${escapeText(oneLine(a.reason, 300))}.`}`);
  }
  return out;
}

/**
 * The whole report (see module docstring): `# Agent Chats journal check`, the verdict, then one
 * section per kind of finding, then the rules checked.
 */
export function journalCheckMarkdown(report: JournalCheckReport): string {
  const rows = Object.entries(report.rowsChecked);
  const total = rows.reduce((n, [, c]) => n + c, 0);
  const lines = [
    '# Agent Chats journal check',
    '',
    `**Verdict: ${escapeText(journalVerdict(report))}**`,
    '',
    `Agent Chats keeps every chat in a journal: the file ${codeSpan(report.file)} and its log files next to it. ` +
      `This check read them on ${timeWords(report.checkedAt)} without changing anything: the files themselves, every record of every chat (${total} in all), replies still running, and journals moved aside.`,
    '',
  ];
  if (report.readOnlyReason) lines.push(`**Agent Chats takes no changes now:** ${escapeText(report.readOnlyReason)}`, '');
  lines.push(...filesSection(report), '', ...fencedSection(report), '', ...setAsideSection(report), ...rulesSection(report), '');
  lines.push('## Replies still running', '');
  if (report.runsInFlight.length === 0) lines.push('None.');
  for (const r of report.runsInFlight) lines.push(runLine(r));
  lines.push('', ...movedAsideSection(report), '', '---', '', '## Details for bug reports', '', 'To report a problem, save this document (File > Save As) and attach it; keep the journal\'s folder as it is.', '', `Journal format: schema ${report.schemaVersion}. Records read: ${rows.map(([t, c]) => `${codeSpan(t)} ${c}`).join(', ')}.`, '', 'Rules each record was checked against:', '');
  for (const [rule, words] of Object.entries(JOURNAL_RULES)) lines.push(`- ${codeSpan(rule)}: ${words}`);
  return `${lines.join('\n')}\n`;
}
