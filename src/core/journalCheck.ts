/**
 * Check Journal, the pure part: what a check of the chat journal found (the finding types, each
 * with its evidence: table, row id, why it could not be read, since when, which build wrote it),
 * the schema's rules it checks rows against, and the one-line verdict (the report as Markdown, for
 * someone who has never heard of SQLite, is journalCheckMarkdown.ts). The journal layer gathers the evidence
 * (`src/journal/operations/check.ts`, `src/journal/fileCheck.ts`), the runtime runs the steps
 * (`src/runtime/journalCheck.ts`), the host shows the report.
 *
 * The findings are shaped for the repair that will build on them: every row finding names its table
 * and SQLite rowid (the row's address, stable while the row exists) and its chat.
 */

/** The schema's rules a row is checked against (each a fact the runtime's writes always keep). */
export const JOURNAL_RULES = {
  turn_chat_missing: 'Every prompt belongs to a chat that exists (a turn\'s `session_id` names a session).',
  turn_without_run: 'Every prompt has its run (`startTurn` writes the turn and its run in one transaction).',
  turn_running_without_run: 'A prompt still running has a run still running (`finishRun` ends the run and its turn together).',
  turn_two_ends: 'A prompt ends once: at most one `run_finished` event per turn (the first is listed).',
  run_turn_missing: 'Every run belongs to a prompt that exists (a run\'s `turn_id` names a turn).',
  run_running_turn_ended: 'A run still running belongs to a prompt still running.',
  invocation_turn_missing: 'Every tool call belongs to a prompt that exists.',
  invocation_run_missing: 'Every tool call belongs to a run that exists.',
  boundary_turn_missing: 'Every approval request belongs to a prompt that exists.',
  boundary_run_missing: 'An approval request that names a run names one that exists.',
  event_run_missing: 'Every event of a reply belongs to a run that exists.',
  queued_prompt_turn_missing: 'A queued message marked sent names the prompt it became, and that prompt exists.',
} as const;

/** A rule of `JOURNAL_RULES`. */
export type JournalRule = keyof typeof JOURNAL_RULES;

/** A row this build cannot read: it fences its chat (writes to the chat are refused). */
export interface UnreadableRowFinding {
  readonly table: string;
  /** The row's SQLite rowid. */
  readonly rowid: number;
  /** The row's own key as the decoder names it (`turns`: its id; `events`: `run#seq`). */
  readonly rowKey: string;
  readonly sessionId: string;
  /** The chat's title, when its session row exists. */
  readonly chatTitle: string | null;
  /** The decoder's reason (e.g. `its payload is not valid JSON`, `unknown status "hibernating"`). */
  readonly reason: string;
  /** Which build wrote it: `newer` (a value a newer version writes), or `damaged` (no version writes it). */
  readonly writtenBy: 'newer' | 'damaged';
  /** The row's own time (ms since the epoch: a turn's creation, an event's time…), when it has one. */
  readonly since: number | null;
}

/** A row that breaks one of `JOURNAL_RULES`. */
export interface RuleFinding {
  readonly rule: JournalRule;
  readonly table: string;
  readonly rowid: number;
  readonly rowKey: string;
  /** The chat the row belongs to (null when the row names none). */
  readonly sessionId: string | null;
  readonly chatTitle: string | null;
  /** What exactly is wrong, with the ids it names. */
  readonly detail: string;
  readonly since: number | null;
}

/** A run still marked running, and whether the window that started it is still alive. */
export interface RunInFlightFinding {
  readonly runId: string;
  readonly turnId: string;
  readonly sessionId: string;
  readonly chatTitle: string | null;
  readonly instanceId: string;
  /** `alive`: its window still runs (it may be working); `dead`: its window is gone; `unknown`: no record of it. */
  readonly owner: 'alive' | 'dead' | 'unknown';
  /** True when this window owns it. */
  readonly ownedHere: boolean;
  readonly startedAt: number;
}

/** What `PRAGMA integrity_check` said of the snapshot file as it is on disk. */
export interface SnapshotFinding {
  readonly path: string;
  /** Bytes on disk; null when there is no snapshot file (a new journal not compacted yet). */
  readonly bytes: number | null;
  /** SQLite's answer lines (empty: `ok`); at most 20. */
  readonly problems: readonly string[];
}

/** One log generation read frame by frame to its end. */
export interface LogGenerationFinding {
  readonly generation: number;
  readonly path: string;
  readonly bytes: number;
  /** Valid records read. */
  readonly records: number;
  /** Sequence numbers of the first and last valid record (null: none). */
  readonly firstSeq: number | null;
  readonly lastSeq: number | null;
  /** Where reading stopped before the explicit end, or null when it reached it. */
  readonly damage: {
    /** Byte offset in the file of the first bad frame (or of the header: 0). */
    readonly offset: number;
    readonly why: string;
    /** `torn`: nothing valid follows (a write cut short by a crash; opening cuts it). `middle`: valid records follow it. `header`: the file's header is damaged. */
    readonly kind: 'torn' | 'middle' | 'header';
  } | null;
}

/** A journal moved aside next to the journal file (`journal.sqlite.unreadable-<ms>`). */
export interface MovedAsideFinding {
  readonly name: string;
  readonly path: string;
  readonly bytes: number;
  /** When it was moved aside (ms since the epoch, from its name). */
  readonly movedAt: number;
  /** Its log generations moved with it: file names and sizes (bytes). */
  readonly logs: readonly { readonly name: string; readonly bytes: number }[];
  /** Why it was moved aside, when recorded (this window's open moved it); else null. */
  readonly reason: string | null;
}

/** What the files on disk look like (gathered in the journal's helper thread). */
export interface FileCheck {
  readonly snapshot: SnapshotFinding;
  readonly logs: readonly LogGenerationFinding[];
  readonly movedAside: readonly MovedAsideFinding[];
}

/** Everything a check found. Times in ms since the epoch. */
/**
 * The journal's structure against this build's migrations at its `user_version`: the schema objects
 * (`type`: table, view, index, trigger) it lacks. `checked` false for a newer schema than the build knows.
 */
export interface StructureCheck {
  readonly version: number;
  readonly checked: boolean;
  readonly missing: readonly { readonly type: string; readonly name: string }[];
}

export interface JournalCheckReport {
  readonly file: string;
  readonly checkedAt: number;
  /** The schema version (`user_version`) of the journal as open. */
  readonly schemaVersion: number;
  /** Why the journal takes no changes now, or null. */
  readonly readOnlyReason: string | null;
  readonly files: FileCheck;
  /** The journal's tables, views, indexes and triggers against this build's (absent: not checked). */
  readonly structure?: StructureCheck;
  /** Rows read per table. */
  readonly rowsChecked: Readonly<Record<string, number>>;
  readonly unreadableRows: readonly UnreadableRowFinding[];
  readonly ruleFindings: readonly RuleFinding[];
  readonly runsInFlight: readonly RunInFlightFinding[];
  /** Records Repair Journal set aside (table `quarantined_rows`), oldest first; absent in reports made before it existed. */
  readonly setAside?: readonly SetAsideFinding[];
}

/** A record Repair Journal moved out of its table into `quarantined_rows`, with its original values. */
export interface SetAsideFinding {
  readonly table: string;
  /** Its rowid in its table then. */
  readonly rowid: number;
  readonly rowKey: string;
  readonly sessionId: string;
  /** Why it could not be read. */
  readonly reason: string;
  /** When it was set aside (ms since the epoch). */
  readonly at: number;
  /** The version of Agent Chats that set it aside. */
  readonly build: string;
}

/** Chats fenced by unreadable rows: chat id → its rows, in the order found. */
export function fencedChats(report: JournalCheckReport): Map<string, UnreadableRowFinding[]> {
  const chats = new Map<string, UnreadableRowFinding[]>();
  for (const row of report.unreadableRows) chats.set(row.sessionId, [...(chats.get(row.sessionId) ?? []), row]);
  return chats;
}

/** Runs still marked running whose window is gone (the next restart of Agent Chats ends them). */
function orphanedRuns(report: JournalCheckReport): RunInFlightFinding[] {
  return report.runsInFlight.filter((r) => r.owner !== 'alive');
}

/**
 * The one-line verdict: "Healthy." when nothing is wrong, else one sentence per kind of finding saying what to do, the most pressing first
 * (damaged files or else why the journal is read-only, then a newer version's rows, then damaged rows, then broken rules, then runs left
 * running by a window that is gone).
 */
export function journalVerdict(report: JournalCheckReport): string {
  const { files } = report;
  const todo: string[] = [];
  // Keeping what is left comes first; then the quickest step (a reload); then the rest, each with
  // the command that does it and the chats it concerns.
  const damagedFiles = files.snapshot.problems.length > 0 || files.logs.some((l) => l.damage && l.damage.kind !== 'torn');
  const missingParts = report.structure?.missing.length ?? 0;
  if (damagedFiles) todo.push('part of the journal file is damaged: keep a copy of the folder shown below and do not delete anything');
  else if (missingParts > 0) todo.push(`the journal lacks ${plural(missingParts, 'part', 'parts')} of its structure, so chats may fail to save: keep a copy of the folder shown below and do not delete anything`);
  // Read-only for another reason (a newer version's format, a full disk at open): its own sentence says what to do.
  else if (report.readOnlyReason) todo.push(report.readOnlyReason.replace(/\.$/, ''));
  const orphaned = orphanedRuns(report);
  if (orphaned.length > 0) {
    todo.push(`reload the window: ${plural(orphaned.length, 'reply was', 'replies were')} left running by a window that closed (${chatTitles(orphaned)}); a reload ends ${orphaned.length === 1 ? 'it' : 'them'} and offers Continue`);
  }
  const damaged = report.unreadableRows.filter((r) => r.writtenBy === 'damaged');
  if (damaged.length > 0) {
    const n = new Set(damaged.map((r) => r.sessionId)).size;
    todo.push(`${plural(n, 'chat holds', 'chats hold')} damaged data and ${n === 1 ? 'takes' : 'take'} no new messages (${chatTitles(damaged)}): Agent Chats: Repair Journal… can set it aside; the other chats are fine`);
  }
  const newer = report.unreadableRows.filter((r) => r.writtenBy === 'newer');
  if (newer.length > 0) todo.push(`update the extension: ${plural(new Set(newer.map((r) => r.sessionId)).size, 'chat holds', 'chats hold')} data from a newer version of Agent Chats (${chatTitles(newer)})`);
  if (files.movedAside.length > 0) {
    const n = files.movedAside.length;
    todo.push(`${plural(n, 'journal that could not be read was', 'journals that could not be read were')} moved aside: Agent Chats: Recover Chats from a Moved-Aside Journal… brings ${n === 1 ? 'its' : 'their'} chats back`);
  }
  if (report.ruleFindings.length > 0) todo.push(`${plural(report.ruleFindings.length, 'record does', 'records do')} not fit together; nothing to do now, keep this report`);
  if (todo.length === 0) return 'Healthy.';
  return todo.map((t) => `${t[0]!.toUpperCase()}${t.slice(1)}.`).join(' ');
}

/** The chats of `items` by title, at most 3 (“A”, “B”, “C” and 2 more), in order of first mention. */
function chatTitles(items: readonly { readonly sessionId: string | null; readonly chatTitle: string | null }[]): string {
  const titles = new Map<string, string>();
  for (const i of items) if (i.sessionId !== null && !titles.has(i.sessionId)) titles.set(i.sessionId, i.chatTitle === null ? `chat ${i.sessionId}` : `“${i.chatTitle}”`);
  const names = [...titles.values()];
  const shown = names.slice(0, 3).join(', ');
  return names.length > 3 ? `${shown} and ${names.length - 3} more` : shown;
}

/** `n` with the singular or plural words. */
function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Bytes in words (`3.2 MB`, `812 bytes`). */
export function sizeWords(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

/** A time as `2026-12-01 22:17 UTC` (reports are read long after; UTC says so unambiguously). */
export function timeWords(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return 'unknown time';
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** What a row of each table is, in the chat's own words. */
const TABLE_WORDS: Readonly<Record<string, string>> = {
  sessions: 'the chat itself', turns: 'a prompt', runs: 'a reply', events: 'part of a reply', invocations: 'a tool call',
  boundary_requests: 'an approval request', queued_prompts: 'a queued message',
};

/** What a row of `table` is, in the user's words. */
export function tableWords(table: string): string {
  return TABLE_WORDS[table] ?? 'a record';
}
