/**
 * Repair Journal's rule for a prompt still marked running whose reply has ended (Check Journal's
 * `turn_running_without_run`): the reply's end (`run_finished` event) records the status the prompt
 * took, so the prompt is settled to it, with a note in its transcript. Only on proof: each clause
 * below is a separate check, and any that fails leaves the prompt as it is, listed with why. Pure.
 */
import { ERROR_CLASSES, TURN_STATUSES, isOneOf, type ErrorClass, type TurnStatus } from './vocabulary';

/** What the journal says of one prompt still marked running (read by `turnSettlementEvidence`). */
export interface TurnSettlementEvidence {
  readonly turnId: string;
  readonly sessionId: string;
  /** The prompt's status now (null: the prompt is gone). */
  readonly status: string | null;
  /** True when the chat is fenced (a row of it cannot be read). */
  readonly fenced: boolean;
  /** The prompt's runs, oldest first. */
  readonly runs: readonly { readonly id: string; readonly status: string }[];
  /** Every `run_finished` event of the prompt's runs: its run, its payload as stored, its time (ms). */
  readonly ends: readonly { readonly runId: string; readonly payload: string; readonly at: number }[];
}

/** The state the rules allow, proven by the reply's end. */
export interface TurnSettlement {
  readonly turnId: string;
  readonly sessionId: string;
  readonly runId: string;
  readonly status: Exclude<TurnStatus, 'running'>;
  readonly errorClass: ErrorClass | null;
  /** The end's time (ms since the epoch): when the prompt ended. */
  readonly finishedAt: number;
}

/** The settlement's clauses, each with what it requires (the dry run lists those that fail). */
export const SETTLE_CLAUSES = {
  turn_running: 'The prompt is still marked running.',
  chat_not_fenced: 'Every record of the chat can be read.',
  no_run_running: 'None of the prompt\'s replies is marked running.',
  one_end: 'Exactly one reply end is recorded for the prompt, on its latest reply.',
  end_readable: 'That end names a status a prompt ends with (and a known error class, if any).',
} as const;

/** The recorded end's payload, when it names a final prompt status and a known error class (or none). */
function endState(payload: string): { status: Exclude<TurnStatus, 'running'>; errorClass: ErrorClass | null } | null {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  const p = value as { turnStatus?: unknown; errorClass?: unknown } | null;
  if (!p || typeof p !== 'object' || !isOneOf(TURN_STATUSES, p.turnStatus) || p.turnStatus === 'running') return null;
  if (p.errorClass !== undefined && !isOneOf(ERROR_CLASSES, p.errorClass)) return null;
  return { status: p.turnStatus as Exclude<TurnStatus, 'running'>, errorClass: (p.errorClass as ErrorClass | undefined) ?? null };
}

/** The settlement, or the clauses that fail (each with why). */
export function turnSettlement(e: TurnSettlementEvidence): { settle: TurnSettlement } | { failures: { clause: keyof typeof SETTLE_CLAUSES; why: string }[] } {
  const failures: { clause: keyof typeof SETTLE_CLAUSES; why: string }[] = [];
  if (e.status !== 'running') failures.push({ clause: 'turn_running', why: e.status === null ? 'the prompt is gone' : `the prompt is ${e.status} now` });
  if (e.fenced) failures.push({ clause: 'chat_not_fenced', why: 'a record of the chat cannot be read' });
  if (e.runs.some((r) => r.status === 'running')) failures.push({ clause: 'no_run_running', why: 'a reply of the prompt is still marked running' });
  const latest = e.runs[e.runs.length - 1];
  const end = e.ends.length === 1 ? e.ends[0]! : undefined;
  if (!end || !latest || end.runId !== latest.id) failures.push({ clause: 'one_end', why: `${e.ends.length} reply ends are recorded${end && latest && end.runId !== latest.id ? ', not on the latest reply' : ''}` });
  const state = end ? endState(end.payload) : null;
  if (end && !state) failures.push({ clause: 'end_readable', why: 'the recorded end names no status a prompt ends with' });
  if (failures.length > 0 || !end || !state) return { failures };
  return { settle: { turnId: e.turnId, sessionId: e.sessionId, runId: end.runId, status: state.status, errorClass: state.errorClass, finishedAt: end.at } };
}

/** The note the settled prompt's transcript shows. */
export function settledNote(status: Exclude<TurnStatus, 'running'>): string {
  return `This prompt was still marked running after its reply had ended; Repair Journal marked it ${status}, as the reply's end recorded.`;
}
