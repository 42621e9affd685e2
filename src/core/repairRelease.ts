/**
 * Repair Journal's release rule: a fenced chat is released (its unreadable rows set aside into
 * `quarantined_rows`, its fence lifted) only when every clause below holds, each a separate check
 * on durable evidence (repairEvidence.ts). A clause that fails keeps the chat fenced and says why;
 * there is no other way out. Pure.
 *
 * The clauses prove two things: the row is malformed (no version of Agent Chats writes it: text
 * that is not JSON, a value where a name belongs) and not a newer build's row (which an update makes
 * readable: setting it aside would lose data a newer version can read); and setting it aside breaks
 * nothing (no row depends on it, no reply is writing to the chat, its values are kept exactly).
 */
import type { ChatRepairEvidence, JournalRepairContext, UnreadableRowEvidence } from './repairEvidence';

/** Every release clause, with what it requires (the dry run's report and the docs list them). */
export const RELEASE_CLAUSES = {
  journal_writable: 'The journal takes changes (it is not read-only).',
  schema_known: 'The journal\'s format is this version\'s or older, so this version knows every value it may hold.',
  chat_exists: 'The chat itself exists.',
  no_run_running: 'No reply of the chat is marked running, in any window.',
  row_not_newer: 'No unreadable record of the chat is one a newer version could have written.',
  row_malformed: 'Each unreadable record is malformed in a way no version writes (text that is not JSON, not an object, a value where a name belongs).',
  row_values_exact: 'Each unreadable record\'s values can be kept exactly as they are.',
  row_nothing_depends: 'No other record names an unreadable record (setting it aside orphans nothing).',
} as const;

/** A clause of `RELEASE_CLAUSES`. */
export type ReleaseClause = keyof typeof RELEASE_CLAUSES;

/** A clause that does not hold, and why (with the ids it concerns). */
export interface ClauseFailure {
  readonly clause: ReleaseClause;
  readonly why: string;
}

/** How a decoder's reason shows a malformation no build writes, or null when it shows none this rule knows. */
export function malformation(row: Pick<UnreadableRowEvidence, 'reason' | 'newer'>): 'not_json' | 'not_object' | 'impossible_value' | null {
  if (row.reason === 'its payload is not valid JSON') return 'not_json';
  if (row.reason === 'its payload is not an object') return 'not_object';
  // An unknown value the decoder judged no name (NULL, a number, other bytes): never a newer build's.
  if (!row.newer && /^unknown [a-z ]+ ".*"$/s.test(row.reason)) return 'impossible_value';
  return null;
}

const ROW = (r: UnreadableRowEvidence) => `\`${r.table}\` row \`${r.rowKey}\``;

type ChatClause = (context: JournalRepairContext, chat: ChatRepairEvidence) => string | null;
type RowClause = (row: UnreadableRowEvidence) => string | null;

/** The chat-wide clauses: each returns why it fails, or null. */
const CHAT_CLAUSES: Readonly<Partial<Record<ReleaseClause, ChatClause>>> = {
  journal_writable: (c) => (c.readOnlyReason === null ? null : `the journal is read-only: ${c.readOnlyReason}`),
  schema_known: (c) => (c.journalSchema <= c.buildSchema ? null : `the journal's format (${c.journalSchema}) is newer than this version's (${c.buildSchema}); update the extension`),
  chat_exists: (_c, chat) => (chat.chatExists ? null : `the chat ${chat.sessionId} itself is not in the journal`),
  no_run_running: (_c, chat) => (chat.runsRunning === 0 ? null : `${chat.runsRunning === 1 ? 'a reply is' : `${chat.runsRunning} replies are`} still marked running`),
};

/** The per-row clauses: each returns why it fails for `row`, or null. */
const ROW_CLAUSES: Readonly<Partial<Record<ReleaseClause, RowClause>>> = {
  row_not_newer: (r) => (r.newer ? `${ROW(r)} holds a value a newer version writes (${r.reason}); update the extension` : null),
  row_malformed: (r) => (r.newer || malformation(r) ? null : `${ROW(r)}: "${r.reason}" is not a malformation this version can prove`),
  row_values_exact: (r) => (r.values !== null ? null : `${ROW(r)} cannot be kept exactly: ${r.notExact ?? 'unknown reason'}`),
  row_nothing_depends: (r) => (r.dependents === 0 ? null : `${r.dependents} other ${r.dependents === 1 ? 'record names' : 'records name'} ${ROW(r)}`),
};

/**
 * Every clause that fails for `chat` (empty: the chat may be released), in `RELEASE_CLAUSES` order.
 * A chat with no unreadable row at all is not released either (nothing fences it: nothing to do).
 */
export function releaseFailures(context: JournalRepairContext, chat: ChatRepairEvidence): ClauseFailure[] {
  const failures: ClauseFailure[] = [];
  for (const clause of Object.keys(RELEASE_CLAUSES) as ReleaseClause[]) {
    const chatCheck = CHAT_CLAUSES[clause];
    const why = chatCheck?.(context, chat);
    if (why) failures.push({ clause, why });
    const rowCheck = ROW_CLAUSES[clause];
    if (rowCheck) for (const row of chat.rows) {
      const rowWhy = rowCheck(row);
      if (rowWhy) failures.push({ clause, why: rowWhy });
    }
  }
  return failures;
}
