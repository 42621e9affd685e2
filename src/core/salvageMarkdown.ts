/**
 * A salvage's dry run as Markdown: what recovering chats from a moved-aside journal would do (one
 * line per chat, whole or partly and what is missing, or why it is left), then what could not be
 * read and why, for someone who has never heard of SQLite (the technical names in code spans), and
 * what applying does and does not change. Pure.
 */
import { salvageCounts, type SalvagePlan, type SalvagePlanItem } from './salvage';
import { sizeWords, timeWords } from './journalCheck';
import { escapeText } from './markdownText';
import { codeSpan, oneLine } from './words';

/** How a chat is named in the plan: its title (escaped), id and size. */
function chatLine(item: SalvagePlanItem): string {
  return `“${escapeText(oneLine(item.title, 80))}” (${item.turns} prompt${item.turns === 1 ? '' : 's'}; id ${codeSpan(item.sessionId)})`;
}

/** Why an item is left, in words. */
function skipWords(item: SalvagePlanItem): string {
  if (item.skip === 'recovered_before') {
    const r = item.current?.recovered;
    return `recovered before${r ? ` (from ${codeSpan(r.source)}, ${timeWords(r.at)})` : ''}${item.current?.present ? '' : ', and deleted since: it is not brought back'}`;
  }
  if (item.skip === 'present') return `already in your chats (last active ${timeWords(item.current?.present?.updatedAt ?? null)}): that copy is kept, never overwritten`;
  return 'written by a newer version of Agent Chats: update the extension, then recover it';
}

/** The one-line verdict: what applying would do. */
export function salvageVerdict(plan: SalvagePlan): string {
  const c = salvageCounts(plan);
  if (plan.read.openError) return 'Nothing can be recovered from this file: it cannot be opened at all.';
  if (plan.read.newer) return 'This journal was written by a newer version of Agent Chats: update the extension, then recover its chats.';
  if (c.whole + c.partial === 0) return c.found === 0 ? 'No chat could be read from this file.' : 'Nothing to do: every chat found is already in your chats.';
  const parts = [c.whole > 0 ? `${c.whole} whole` : '', c.partial > 0 ? `${c.partial} partly` : ''].filter(Boolean).join(' and ');
  return `${c.whole + c.partial} chat${c.whole + c.partial === 1 ? '' : 's'} can be recovered (${parts})${c.skipped > 0 ? `; ${c.skipped} already in your chats ${c.skipped === 1 ? 'is' : 'are'} left as ${c.skipped === 1 ? 'it is' : 'they are'}` : ''}.`;
}

/** The whole dry run (see module docstring). */
export function salvageMarkdown(plan: SalvagePlan): string {
  const { read } = plan;
  const out = [`# Recover chats from ${codeSpan(read.source.name)}`, '', `**${salvageVerdict(plan)}**`, ''];
  out.push(`This journal was moved aside on ${timeWords(read.source.movedAt)} because it could not be read (${sizeWords(read.source.bytes)}, ${codeSpan(read.source.path)}). Nothing has been changed yet: this is what recovering would do.`, '');
  const whole = plan.items.filter((i) => i.action === 'import' && i.whole);
  const partial = plan.items.filter((i) => i.action === 'import' && !i.whole);
  const skipped = plan.items.filter((i) => i.action === 'skip');
  if (whole.length > 0) out.push('## Chats recovered whole', '', ...whole.map((i) => `- ${chatLine(i)}`), '');
  if (partial.length > 0) {
    out.push('## Chats recovered partly', '', 'What could be read of them is recovered; what is missing is said under each.', '');
    for (const i of partial) out.push(`- ${chatLine(i)}`, ...i.problems.map((p) => `  - ${escapeText(p)}`));
    out.push('');
  }
  if (skipped.length > 0) out.push('## Chats left as they are', '', ...skipped.map((i) => `- ${chatLine(i)}: ${skipWords(i)}.`), '');
  out.push(...unreadSection(plan), '## What recovering does', '');
  out.push(
    '- Each chat is added to your chats in one saved step, marked as recovered from this file, and shows in the Agent Chats view, Open Chat… and Search Chats… like any chat.',
    '- A reply that was still running, or an approval still waiting, when this journal was last used is ended as after a restart: **Continue** or **Retry** carries on.',
    '- A chat already in your chats is never overwritten; running the recovery again adds nothing twice, and a recovered chat you delete later is not brought back.',
    `- ${codeSpan(read.source.name)} and its log files stay exactly as they are.`,
  );
  return `${out.join('\n')}\n`;
}

/** What could not be read: tables with lost rows, damaged logs, notes. */
function unreadSection(plan: SalvagePlan): string[] {
  const { read } = plan;
  const lines: string[] = [];
  if (read.openError) lines.push(`- The file cannot be opened: ${escapeText(read.openError)}.`);
  for (const t of read.tables) {
    if (t.error) lines.push(`- Table ${codeSpan(t.table)}: ${escapeText(t.error)}.`);
    if (t.lost.length > 0) {
      const ranges = t.lost.slice(0, 5).map((r) => (r.from === r.to ? `${r.from}` : `${r.from}–${r.to}`)).join(', ');
      lines.push(`- Table ${codeSpan(t.table)}: ${t.rows} rows read; rows with row ids ${ranges}${t.lost.length > 5 ? ', …' : ''} are on damaged pages and could not be read.`);
    }
  }
  for (const log of read.logs) {
    if (log.damage) lines.push(`- Log ${codeSpan(log.name)}: ${log.applied} change${log.applied === 1 ? '' : 's'} applied, then damage at byte ${log.damage.offset} (${escapeText(log.damage.why)}).`);
    if (log.notApplied > 0) lines.push(`- Log ${codeSpan(log.name)}: ${log.notApplied} later change${log.notApplied === 1 ? '' : 's'} not applied (they come after the damage and may depend on what was lost).`);
    if (log.failed > 0) lines.push(`- Log ${codeSpan(log.name)}: ${log.failed} change${log.failed === 1 ? '' : 's'} could not be applied to what was read.`);
  }
  for (const note of read.notes) lines.push(`- ${escapeText(note)}`);
  if (lines.length === 0) return ['## What could not be read', '', 'Nothing: every page and every log record could be read.', ''];
  return ['## What could not be read', '', ...lines, ''];
}
