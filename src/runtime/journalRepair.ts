/**
 * Repair Journal, run: the dry run (`planRepair`: Check Journal's reads, then the evidence of every
 * fenced chat, then the plan of src/core/repairPlan.ts; nothing is written) and the repair
 * (`applyRepair`: the journal's files copied aside, then each item that changes something as one
 * logged transaction through the Journal door, so other windows replay it and lift their fences).
 *
 * Each kind of item that changes the journal has its applier in `APPLIERS`; salvage adds its own.
 */
import { fencedChats, type JournalCheckReport } from '../core/journalCheck';
import { itemsToApply, repairPlan, type RepairItem, type RepairPlan } from '../core/repairPlan';
import type { ChatRepairEvidence } from '../core/repairEvidence';
import type { TurnSettlementEvidence } from '../core/repairSettle';
import { copyJournalAside } from '../journal/copyAside';
import type { Journal } from '../journal/journal';
import { checkJournal, type JournalCheckOptions } from './journalCheck';

/** The dry run: the plan, and the check it was made from. */
export interface RepairDryRun {
  readonly plan: RepairPlan;
  readonly report: JournalCheckReport;
}

/**
 * Reads everything a repair needs and plans it (see module docstring). Resolves `undefined` when
 * cancelled (between chunks of the check, as Check Journal). Writes nothing.
 */
export async function planRepair(journal: Journal, options: JournalCheckOptions = {}): Promise<RepairDryRun | undefined> {
  const report = await checkJournal(journal, options);
  if (!report || options.cancelled?.()) return undefined;
  const context = { ...(await journal.read('repairContext')), readOnlyReason: journal.readOnlyReason };
  const chats: ChatRepairEvidence[] = [];
  for (const sessionId of fencedChats(report).keys()) chats.push(await journal.read('repairEvidence', sessionId));
  const settlements = new Map<string, TurnSettlementEvidence>();
  for (const f of report.ruleFindings) if (f.rule === 'turn_running_without_run') settlements.set(f.rowKey, await journal.read('turnSettlementEvidence', f.rowKey));
  return { plan: repairPlan(journal.file, (options.now ?? Date.now)(), context, chats, report.ruleFindings, settlements), report };
}

/** Who repairs: the extension's version and this window's instance id, and the clock (ms). */
export interface RepairActor {
  readonly build: string;
  readonly instanceId: string;
  readonly now?: () => number;
}

/** What became of one item of the plan that changes something. */
export interface AppliedItem {
  readonly item: RepairItem;
  readonly done: boolean;
  /** Why it was not done (nothing of it changed), else null. */
  readonly why: string | null;
}

/** The repair's result: where the files were copied, and each item applied or not. */
export interface RepairOutcome {
  /** The snapshot's copy (`journal.sqlite.before-repair-<ms>`); null when there was nothing to do. */
  readonly copiedTo: string | null;
  readonly applied: readonly AppliedItem[];
  /** Chats whose fence lifted. */
  readonly released: readonly string[];
  /** Every chat the repair changed (released, or a prompt of it settled), for views to re-read. */
  readonly changed: readonly string[];
}

type Applier = (journal: Journal, item: RepairItem, actor: RepairActor, at: number) => Promise<string | null>;

/** One applier per kind of item that changes the journal: resolves null when done, else why not. */
const APPLIERS: Readonly<Partial<Record<RepairItem['kind'], Applier>>> = {
  release_chat: async (journal, item, actor, at) => {
    if (item.kind !== 'release_chat') return 'not a chat to release';
    const result = await journal.write('releaseFencedChat', { sessionId: item.sessionId, rows: item.rows, at, build: actor.build, instanceId: actor.instanceId });
    if (!result.ok) return result.message;
    return result.value.released ? null : result.value.why;
  },
  settle_turn: async (journal, item) => {
    if (item.kind !== 'settle_turn') return 'not a prompt to settle';
    const result = await journal.write('settleTurn', item.settle);
    if (!result.ok) return result.message;
    return result.value.settled ? null : result.value.why;
  },
};

/**
 * Applies `plan` (a dry run the user confirmed): copies the journal's files aside first (nothing is
 * deleted; a copy that fails changes nothing), then each item that changes something, one logged
 * transaction each, in the plan's order. An item whose evidence no longer holds changes nothing and
 * says why. A plan with nothing to do copies nothing and writes nothing.
 * @throws the file system's error when the copy fails (nothing was changed).
 */
export async function applyRepair(journal: Journal, plan: RepairPlan, actor: RepairActor): Promise<RepairOutcome> {
  const items = itemsToApply(plan);
  if (items.length === 0) return { copiedTo: null, applied: [], released: [], changed: [] };
  const now = actor.now ?? Date.now;
  const copy = await copyJournalAside(journal.file, now());
  const applied: AppliedItem[] = [];
  for (const item of items) {
    // A transaction that throws is rolled back whole: that item changed nothing; the others go on.
    const why = await APPLIERS[item.kind]!(journal, item, actor, now()).catch((error: unknown) => `it could not be saved: ${(error as Error).message}`);
    applied.push({ item, done: why === null, why });
  }
  const released = applied.flatMap((a) => (a.done && a.item.kind === 'release_chat' ? [a.item.sessionId] : []));
  const settled = applied.flatMap((a) => (a.done && a.item.kind === 'settle_turn' ? [a.item.settle.sessionId] : []));
  return { copiedTo: copy.path, applied, released, changed: [...new Set([...released, ...settled])] };
}
