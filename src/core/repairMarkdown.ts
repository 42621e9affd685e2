/**
 * Repair Journal's words: the dry run as a Markdown document (what a repair would change and why,
 * what it leaves and why, how it changes things) and the one-line result once applied. For someone
 * who has never heard of SQLite; the technical names stay in code spans. Pure.
 */
import { tableWords } from './journalCheck';
import { escapeText } from './markdownText';
import { itemsToApply, type ReleaseChatItem, type RepairPlan, type RuleLeftItem, type SettleTurnItem, type StaysFencedItem } from './repairPlan';
import { settledNote } from './repairSettle';
import { RELEASE_CLAUSES } from './repairRelease';
import { codeSpan, oneLine } from './words';

/** `n` with the singular or plural words. */
function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A chat named for the report: its title (escaped) and its id. */
function chatName(title: string | null, id: string | null): string {
  if (id === null) return 'no chat';
  return title === null ? `a chat whose record is missing (id ${codeSpan(id)})` : `“${escapeText(oneLine(title, 80))}” (id ${codeSpan(id)})`;
}

/** A row as the report names it: what it is, its table and key. */
function rowName(row: { readonly table: string; readonly rowKey: string; readonly rowid: number }): string {
  return `${tableWords(row.table)} (table ${codeSpan(row.table)}, row ${row.rowid}, ${codeSpan(row.rowKey)})`;
}

/** The lines of a chat the repair releases. */
function releaseLines(item: ReleaseChatItem): string[] {
  return [
    `### ${chatName(item.chatTitle, item.sessionId)}: will take changes again`, '',
    ...item.rows.map((r) => `- ${rowName(r)}: ${escapeText(oneLine(r.reason, 160))}. No version of Agent Chats writes this, so it is damaged. It moves, with its values exactly as they are, into the table ${codeSpan('quarantined_rows')}.`),
    `- The chat shows where: “${escapeText(setAsideWords(item.rows.length))}”`,
  ];
}

/** The note's words as the dry run quotes them. */
function setAsideWords(count: number): string {
  return `${plural(count, 'record of this chat could not be read and was', 'records of this chat could not be read and were')} set aside by Repair Journal (Agent Chats: Check Journal lists ${count === 1 ? 'it' : 'them'}).`;
}

/** The lines of a chat that stays fenced. */
function staysLines(item: StaysFencedItem): string[] {
  return [
    `### ${chatName(item.chatTitle, item.sessionId)}: stays as it is`, '',
    item.updateExtension
      ? 'A newer version of Agent Chats wrote part of this chat. **Update the extension**: the chat then works again, with nothing lost. Repair does not touch it.'
      : 'Repair cannot prove it safe to set this chat\'s unreadable records aside, so it changes nothing. The chat stays readable and cannot be changed; your other chats are not affected.',
    '', 'Why:',
    ...item.failures.map((f) => `- ${escapeText(oneLine(f.why, 300))} (${codeSpan(f.clause)})`),
  ];
}

/** The lines of the prompts settled to the state their reply's end recorded. */
function settleLines(items: readonly SettleTurnItem[]): string[] {
  if (items.length === 0) return [];
  return [
    '## Prompts still marked running after their reply ended: would be settled', '',
    ...items.map(({ finding: f, settle: s }) => `- A prompt in ${chatName(f.chatTitle, f.sessionId)} (table ${codeSpan('turns')}, row ${f.rowid}, ${codeSpan(f.rowKey)}): its reply's end (reply ${codeSpan(s.runId)}) recorded **${s.status}**${s.errorClass ? ` (${codeSpan(s.errorClass)})` : ''}, so the prompt is marked so. The chat shows: “${escapeText(settledNote(s.status))}”`),
    '',
  ];
}

/** The table of records that break a rule and are left as they are. */
function ruleLines(items: readonly RuleLeftItem[]): string[] {
  if (items.length === 0) return [];
  return [
    '## Records that do not fit together: left as they are', '',
    'Repair changes a record only when the journal proves what it should be. For these it cannot, so it leaves them; Agent Chats shows what it can.', '',
    '| chat | table | row id | rule | why it is left |', '| --- | --- | --- | --- | --- |',
    ...items.map(({ finding: f, why }) => `| ${chatName(f.chatTitle, f.sessionId)} | ${codeSpan(f.table)} | ${f.rowid} (${codeSpan(f.rowKey)}) | ${codeSpan(f.rule)} | ${escapeText(why)} |`),
  ];
}

/** The dry run as Markdown (see module docstring). `copyName`: the name the copy of the files will have. */
export function repairDryRunMarkdown(plan: RepairPlan, copyName: string): string {
  const release = plan.items.filter((i): i is ReleaseChatItem => i.kind === 'release_chat');
  const stays = plan.items.filter((i): i is StaysFencedItem => i.kind === 'stays_fenced');
  const rules = plan.items.filter((i): i is RuleLeftItem => i.kind === 'rule_left');
  const todo = itemsToApply(plan).length;
  const lines = ['# Agent Chats journal repair: what it would do', ''];
  lines.push(todo === 0
    ? '**Nothing to repair.** Nothing has been changed.'
    : `**Nothing has been changed yet.** Repair would make ${plural(todo, 'change', 'changes')}, listed below, and only after you confirm.`);
  lines.push('', `Journal: ${codeSpan(plan.file)}.`, '');
  if (release.length > 0) lines.push('## Would be repaired', '', ...release.flatMap((i) => [...releaseLines(i), '']));
  if (stays.length > 0) lines.push('## Chats that stay as they are', '', ...stays.flatMap((i) => [...staysLines(i), '']));
  if (release.length === 0 && stays.length === 0) lines.push('No chat is held by a record that cannot be read.', '');
  lines.push(...settleLines(plan.items.filter((i): i is SettleTurnItem => i.kind === 'settle_turn')));
  lines.push(...ruleLines(rules), ...(rules.length > 0 ? [''] : []));
  lines.push(
    '## How a repair changes the journal', '',
    `- First it copies the journal's files, unchanged, to ${codeSpan(copyName)} next to them. Nothing is deleted, now or later.`,
    '- Then each chat is one saved change, made while no other window writes; open windows pick it up at once.',
    '- Just before each change it reads the chat again: if anything differs from this report, it leaves that chat as it is and says so.',
    '', 'A chat is repaired only when all of these hold:', '',
    ...Object.entries(RELEASE_CLAUSES).map(([clause, words]) => `- ${words} (${codeSpan(clause)})`),
  );
  return `${lines.join('\n')}\n`;
}

/** The result in one sentence: changes made, those left and why, where the copy is. */
export function repairResultWords(done: number, notDone: readonly { readonly title: string | null; readonly why: string }[], copiedTo: string | null): string {
  if (copiedTo === null) return 'Nothing to repair; nothing was changed.';
  const made = done === 0 ? 'Nothing was repaired.' : `${plural(done, 'repair was', 'repairs were')} made.`;
  const left = notDone.map((n) => ` In “${oneLine(n.title ?? 'a chat', 60)}” nothing was changed: ${n.why}.`).join('');
  return `${made}${left} The journal as it was before is copied to ${copiedTo}.`;
}
