/**
 * Repair Journal's plan (its dry run): from the evidence, what a repair would change and why, item
 * by item, and what it leaves as it is and why. Pure; the runtime gathers the evidence
 * (src/runtime/journalRepair.ts) and applies the items that change something, each as one logged
 * transaction.
 *
 * The plan is a list of items of several kinds, so that other repairs (salvaging a journal that was
 * moved aside) join the same dry run as items of their own kinds: `APPLIED_KINDS` names the kinds
 * that change the journal, and each has its own applier in the runtime.
 */
import type { JournalRule, RuleFinding } from './journalCheck';
import { plannedRows, type ChatRepairEvidence, type JournalRepairContext, type PlannedRow, type UnreadableRowEvidence } from './repairEvidence';
import { releaseFailures, type ClauseFailure } from './repairRelease';
import { turnSettlement, type TurnSettlement, type TurnSettlementEvidence } from './repairSettle';

/** A fenced chat every release clause holds for: its rows are set aside and its fence lifts. */
export interface ReleaseChatItem {
  readonly kind: 'release_chat';
  readonly sessionId: string;
  readonly chatTitle: string | null;
  readonly rows: readonly PlannedRow[];
  /** The run each note goes to, with how many of the rows it tells of (rows outside a run: the chat's latest run). */
  readonly notes: readonly { readonly runId: string; readonly count: number }[];
}

/** A fenced chat that stays fenced: the clauses that do not hold. */
export interface StaysFencedItem {
  readonly kind: 'stays_fenced';
  readonly sessionId: string;
  readonly chatTitle: string | null;
  readonly rows: readonly UnreadableRowEvidence[];
  readonly failures: readonly ClauseFailure[];
  /** True when an update of the extension would make its rows readable (a newer version wrote one). */
  readonly updateExtension: boolean;
}

/** A record that breaks a schema rule and is left as it is: no state the rules allow can be proven for it. */
export interface RuleLeftItem {
  readonly kind: 'rule_left';
  readonly finding: RuleFinding;
  readonly why: string;
}

/** A prompt still marked running after its reply ended, settled to the status the reply's end recorded. */
export interface SettleTurnItem {
  readonly kind: 'settle_turn';
  readonly finding: RuleFinding;
  readonly settle: TurnSettlement;
}

/** One item of the plan. Salvage adds its kinds here. */
export type RepairItem = ReleaseChatItem | StaysFencedItem | RuleLeftItem | SettleTurnItem;

/** The kinds of item that change the journal when the plan is applied. */
export const APPLIED_KINDS: readonly RepairItem['kind'][] = ['release_chat', 'settle_turn'];

/** The dry run: every item, in the order they would be applied and reported. */
export interface RepairPlan {
  readonly file: string;
  /** When the evidence was read (ms since the epoch). */
  readonly plannedAt: number;
  readonly items: readonly RepairItem[];
}

/** Why a record breaking each rule is left as it is (no state the rules allow is provable from the journal). */
const LEFT_WHY: Readonly<Record<JournalRule, string>> = {
  turn_chat_missing: 'the chat it names is gone, and nothing says which chat it belonged to',
  turn_without_run: 'its reply was never recorded, so how the prompt ended cannot be known',
  turn_running_without_run: 'how its reply ended cannot be proven',
  turn_two_ends: 'nothing in the journal proves which of its ends is the right one',
  run_turn_missing: 'the prompt it names is gone',
  run_running_turn_ended: 'its window may still be writing it; the next reload ends it if that window is gone',
  invocation_turn_missing: 'the prompt it names is gone',
  invocation_run_missing: 'the reply it names is gone',
  boundary_turn_missing: 'the prompt it names is gone',
  boundary_run_missing: 'the reply it names is gone',
  event_run_missing: 'the reply it names is gone',
  queued_prompt_turn_missing: 'the prompt it became is gone',
};

/** Where the notes of a released chat go: its rows' runs, else the chat's latest run (no run at all: no note). */
function notesOf(chat: ChatRepairEvidence): { runId: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const row of chat.rows) {
    const runId = row.runId ?? chat.latestRunId;
    if (runId !== null) counts.set(runId, (counts.get(runId) ?? 0) + 1);
  }
  return [...counts].map(([runId, count]) => ({ runId, count }));
}

/** The item of one fenced chat: released when every clause holds, else it stays fenced with the clauses that fail. */
export function chatItem(context: JournalRepairContext, chat: ChatRepairEvidence): ReleaseChatItem | StaysFencedItem | undefined {
  if (chat.rows.length === 0) return undefined; // nothing fences it any more
  const failures = releaseFailures(context, chat);
  if (failures.length === 0) return { kind: 'release_chat', sessionId: chat.sessionId, chatTitle: chat.chatTitle, rows: plannedRows(chat), notes: notesOf(chat) };
  return {
    kind: 'stays_fenced', sessionId: chat.sessionId, chatTitle: chat.chatTitle, rows: chat.rows, failures,
    updateExtension: failures.some((f) => f.clause === 'row_not_newer' || f.clause === 'schema_known'),
  };
}

/** The item of a record breaking a rule: settled when its evidence proves a state the rules allow, else left with why. */
function ruleItem(finding: RuleFinding, settlements: ReadonlyMap<string, TurnSettlementEvidence>): RuleLeftItem | SettleTurnItem {
  const evidence = finding.rule === 'turn_running_without_run' ? settlements.get(finding.rowKey) : undefined;
  if (!evidence) return { kind: 'rule_left', finding, why: LEFT_WHY[finding.rule] };
  const proof = turnSettlement(evidence);
  if ('settle' in proof) return { kind: 'settle_turn', finding, settle: proof.settle };
  return { kind: 'rule_left', finding, why: `${LEFT_WHY[finding.rule]}: ${proof.failures.map((f) => f.why).join('; ')}` };
}

/**
 * The plan from the evidence: one item per fenced chat (released or staying fenced), then one per
 * record breaking a schema rule (settled when `settlements` — the evidence of prompts still marked
 * running, by turn id — proves a state, else left, with why). `plannedAt` in ms since the epoch.
 */
export function repairPlan(
  file: string, plannedAt: number, context: JournalRepairContext, chats: readonly ChatRepairEvidence[], rules: readonly RuleFinding[],
  settlements: ReadonlyMap<string, TurnSettlementEvidence> = new Map(),
): RepairPlan {
  const items: RepairItem[] = [];
  for (const chat of chats) {
    const item = chatItem(context, chat);
    if (item) items.push(item);
  }
  for (const finding of rules) items.push(ruleItem(finding, settlements));
  return { file, plannedAt, items };
}

/** The items that change the journal when applied (empty: nothing to do). */
export function itemsToApply(plan: RepairPlan): RepairItem[] {
  return plan.items.filter((i) => APPLIED_KINDS.includes(i.kind));
}

/** The note a released chat's transcript shows for `count` rows set aside (in the run that held them). */
export function setAsideNote(count: number): string {
  return count === 1
    ? '1 record of this chat could not be read and was set aside by Repair Journal (Agent Chats: Check Journal lists it).'
    : `${count} records of this chat could not be read and were set aside by Repair Journal (Agent Chats: Check Journal lists them).`;
}
