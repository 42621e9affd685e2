/**
 * Salvage of a moved-aside journal, as the runtime runs it: the dry run (`planSalvage`: the helper
 * thread's read, what the current journal holds of each chat, the plan; nothing written) and the
 * apply (`applySalvage`: each chat to import in one logged transaction, `importRecoveredChat`, then
 * its runs still marked running settled as recovery settles any run without a live owner: pending
 * approval requests denied `host_restarted`, the run `interrupted` with its error class, so Continue
 * and Retry work on it as on any chat). The moved-aside files are only ever read.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MovedAsideFinding } from '../core/journalCheck';
import { salvagePlan, type SalvagePlan, type SalvageRead } from '../core/salvage';
import { movedAsideAmong } from '../journal/fileCheck';
import type { Journal } from '../journal/journal';
import { recoverRun } from './recovery';

/** A dry run: what was read and the plan made from it (apply takes both). */
export interface SalvageDryRun {
  readonly read: SalvageRead;
  readonly plan: SalvagePlan;
}

/** What applying did, chat by chat. */
export interface SalvageApplied {
  readonly imported: readonly { readonly sessionId: string; readonly whole: boolean }[];
  /** Chats another window imported (or created) since the dry run: left as they are. */
  readonly skipped: readonly string[];
  /** Chats the journal refused, with its sentence. */
  readonly failed: readonly { readonly sessionId: string; readonly message: string }[];
  /** Runs left running in the moved-aside journal, settled as after a restart. */
  readonly settledRuns: number;
}

/** The journals moved aside next to the journal `file` (name, size, time), oldest first. */
export function listMovedAside(file: string): MovedAsideFinding[] {
  let names: string[];
  try {
    names = fs.readdirSync(path.dirname(file));
  } catch {
    return [];
  }
  return movedAsideAmong(file, names);
}

/**
 * The dry run of salvaging the journal moved aside as `name` (see module docstring). Changes nothing.
 * @throws when the file is not a moved-aside journal of this journal or cannot be read at all.
 */
export async function planSalvage(journal: Journal, name: string): Promise<SalvageDryRun> {
  const read = await journal.readMovedAside(name);
  const status = await journal.read('recoveryStatus', read.chats.map((c) => c.sessionId));
  return { read, plan: salvagePlan(read, new Map(status.map((s) => [s.sessionId, s.copy]))) };
}

/**
 * Applies a dry run's plan: imports each chat it would import, in the plan's order, one transaction
 * each, then settles its runs still marked running (see module docstring). A chat another window
 * imported meanwhile is skipped by the import itself (checked in its transaction). Never throws for
 * a refused chat: it is listed in `failed` and the others go on.
 */
export async function applySalvage(journal: Journal, dryRun: SalvageDryRun, options: { now: () => number; log?: (line: string) => void }): Promise<SalvageApplied> {
  const chats = new Map(dryRun.read.chats.map((c) => [c.sessionId, c]));
  const imported: { sessionId: string; whole: boolean }[] = [];
  const skipped: string[] = [];
  const failed: { sessionId: string; message: string }[] = [];
  let settledRuns = 0;
  for (const item of dryRun.plan.items) {
    const chat = chats.get(item.sessionId);
    if (item.action !== 'import' || !chat) continue;
    const input = { source: item.source, sessionId: chat.sessionId, whole: chat.whole, note: chat.problems.length > 0 ? chat.problems.join(' ') : null, at: options.now(), rows: chat.rows };
    const result = await journal.write('importRecoveredChat', input).catch((error: Error) => ({ ok: false as const, message: error.message }));
    if (!result.ok) {
      failed.push({ sessionId: chat.sessionId, message: result.message });
      continue;
    }
    if (!result.value.imported) {
      skipped.push(chat.sessionId);
      continue;
    }
    imported.push({ sessionId: chat.sessionId, whole: chat.whole });
    for (const runId of result.value.runsInFlight) {
      const run = await journal.read('getRun', runId);
      if (run && (await recoverRun(journal, run, options))) settledRuns++;
    }
    options.log?.(`[salvage] recovered chat ${chat.sessionId} from ${item.source} (${chat.whole ? 'whole' : 'partly'})`);
  }
  return { imported, skipped, failed, settledRuns };
}
