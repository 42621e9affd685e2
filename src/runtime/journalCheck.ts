/**
 * Check Journal, run in order: the files on disk (in the journal's helper thread), then every row
 * of every checked table in chunks of `chunkRows` rows by rowid (each chunk one read in the
 * journal's worker, so this window's other reads and writes run between chunks), then the runs
 * still marked running and whether their owner window is alive, and the records Repair Journal set aside. Progress is reported and
 * cancellation honoured between steps and between chunks. Changes nothing on disk (a row that
 * cannot be read fences its chat in memory, as any read meeting it does).
 *
 * The findings and the report's words are src/core/journalCheck.ts and journalCheckMarkdown.ts.
 */
import type { FileCheck, JournalCheckReport, RuleFinding, RunInFlightFinding, UnreadableRowFinding } from '../core/journalCheck';
import type { Journal } from '../journal/journal';
import type { InstanceRecord } from '../journal/records';
import { isInstanceAlive } from './instance';

/** Rows per chunk by default: a few milliseconds of reading, so a write waits at most that long. */
export const CHECK_CHUNK_ROWS = 1000;

/** How far the check is: `done` of `total` units (a row read is one unit, the file check counts as `total`'s first unit). */
export interface JournalCheckProgress {
  readonly done: number;
  readonly total: number;
  /** What it is doing, in words ("Reading the journal files", "Checking prompts"). */
  readonly step: string;
}

/** Options of `checkJournal`. */
export interface JournalCheckOptions {
  /** Rows per chunk (default CHECK_CHUNK_ROWS). */
  readonly chunkRows?: number;
  readonly onProgress?: (progress: JournalCheckProgress) => void;
  /** Asked between steps and chunks: true stops the check (it then resolves `undefined`). */
  readonly cancelled?: () => boolean;
  /** This window's instance id (its runs are "this window"). */
  readonly instanceId?: string;
  /** Liveness of an instance (default `isInstanceAlive`). */
  readonly isAlive?: (instance: InstanceRecord) => boolean;
  /** Clock (ms since the epoch). */
  readonly now?: () => number;
}

/** A table's name in the progress message. */
const STEP_WORDS: Readonly<Record<string, string>> = {
  sessions: 'chats', turns: 'prompts', runs: 'replies', invocations: 'tool calls', boundary_requests: 'approval requests', events: 'replies\' events',
};

/**
 * Runs the check on `journal` (see module docstring). Resolves the report, or `undefined` when
 * cancelled. Rejects when the journal cannot be read (closed, its worker stopped).
 */
export async function checkJournal(journal: Journal, options: JournalCheckOptions = {}): Promise<JournalCheckReport | undefined> {
  const cancelled = options.cancelled ?? (() => false);
  const chunkRows = options.chunkRows ?? CHECK_CHUNK_ROWS;
  const tables = await journal.read('checkTables');
  const total = 1 + tables.reduce((n, t) => n + t.rows, 0);
  let done = 0;
  const progress = (step: string) => options.onProgress?.({ done, total, step });
  progress('Reading the journal files');
  const files = withReason(await journal.checkFiles(), journal.report.quarantined);
  const structure = await journal.read('checkStructure');
  done = 1;
  const unreadableRows: UnreadableRowFinding[] = [];
  const ruleFindings: RuleFinding[] = [];
  const rowsChecked: Record<string, number> = {};
  for (const { table } of tables) {
    rowsChecked[table] = 0;
    let after = 0;
    for (;;) {
      if (cancelled()) return undefined;
      progress(`Checking ${STEP_WORDS[table] ?? table}`);
      const chunk = await journal.read('checkRows', table, after, chunkRows);
      rowsChecked[table] += chunk.scanned;
      done += chunk.scanned;
      unreadableRows.push(...chunk.unreadable);
      ruleFindings.push(...chunk.broken);
      if (chunk.done) break;
      after = chunk.lastRowid;
    }
  }
  if (cancelled()) return undefined;
  progress('Checking replies still running');
  const runsInFlight = await runsStillRunning(journal, options);
  const setAside = await journal.read('listQuarantinedRows');
  return {
    file: journal.file, checkedAt: (options.now ?? Date.now)(), schemaVersion: journal.report.version, readOnlyReason: journal.readOnlyReason,
    files, structure, rowsChecked, unreadableRows, ruleFindings, runsInFlight, setAside,
  };
}

/** The moved-aside journals, with the reason this window's open recorded for the one it moved. */
function withReason(files: FileCheck, quarantined: { readonly path: string; readonly reason: string } | null): FileCheck {
  if (!quarantined) return files;
  return { ...files, movedAside: files.movedAside.map((a) => (a.path === quarantined.path ? { ...a, reason: quarantined.reason } : a)) };
}

/** Runs still marked running, each with its owner's liveness (recovery's rule: no record of the owner is not alive). */
async function runsStillRunning(journal: Journal, options: JournalCheckOptions): Promise<RunInFlightFinding[]> {
  const isAlive = options.isAlive ?? isInstanceAlive;
  const out: RunInFlightFinding[] = [];
  for (const run of await journal.read('listRunsInFlight')) {
    const owner = await journal.read('getInstance', run.instanceId);
    const session = await journal.read('getSession', run.sessionId);
    out.push({
      runId: run.id, turnId: run.turnId, sessionId: run.sessionId, chatTitle: session?.title ?? null, instanceId: run.instanceId,
      owner: owner === undefined ? 'unknown' : isAlive(owner) ? 'alive' : 'dead', ownedHere: run.instanceId === options.instanceId, startedAt: run.startedAt,
    });
  }
  return out;
}
