/**
 * Repair Journal's settlement of a prompt still marked running after its reply ended (the rule is
 * src/core/repairSettle.ts): the evidence (`turnSettlementEvidence`, a read) and the settlement
 * (`settleTurn`, a write that reads the evidence again in its own transaction and acts only when it
 * proves the same state; otherwise it changes nothing and says why).
 */
import { settledNote, turnSettlement, type TurnSettlement, type TurnSettlementEvidence } from '../../core/repairSettle';
import type { Concerns } from '../core';
import type { JournalDb } from './database';
import type { ChatFences } from './fences';

/** What `settleTurn` did: settled, or nothing changed and why. */
export type SettleTurnResult = { readonly settled: true } | { readonly settled: false; readonly why: string };

/**
 * Repair Journal's settlement operations (see module docstring): one object of `JournalCore`'s
 * composition (../core.ts), given the database (`db`), the fences (`fences`) and the concerns it
 * calls (`peers`: events).
 */
export class RepairSettleOps {
  constructor(private readonly db: JournalDb, private readonly fences: ChatFences, private readonly peers: Pick<Concerns, 'events'>) {}

  /** What the journal says of prompt `turnId` for its settlement (read-only). */
  turnSettlementEvidence(turnId: string): TurnSettlementEvidence {
    const turn = this.db.one('SELECT session_id, status FROM turns WHERE id = ?', [turnId]);
    const sessionId = typeof turn?.session_id === 'string' ? turn.session_id : '';
    const runs = this.db.all('SELECT id, status FROM runs WHERE turn_id = ? ORDER BY rowid', [turnId]).map((r) => ({ id: r.id as string, status: String(r.status) }));
    const ends = this.db.all("SELECT run_id, payload, at FROM events WHERE turn_id = ? AND kind = 'run_finished' ORDER BY id", [turnId])
      .map((e) => ({ runId: e.run_id as string, payload: String(e.payload), at: Number(e.at) }));
    return { turnId, sessionId, status: typeof turn?.status === 'string' ? turn.status : null, fenced: sessionId !== '' && this.fences.getFence(sessionId) !== null, runs, ends };
  }

  /**
   * Settles prompt `input.turnId` to the state its reply's end recorded, with a note in that
   * reply's transcript, when the evidence read now proves exactly `input`; else changes nothing.
   * @throws JournalRefusedError('row_unreadable') when the chat is fenced.
   */
  settleTurn(input: TurnSettlement): SettleTurnResult {
    const proof = turnSettlement(this.turnSettlementEvidence(input.turnId));
    if ('failures' in proof) return { settled: false, why: proof.failures.map((f) => f.why).join('; ') };
    const s = proof.settle;
    if (s.status !== input.status || s.errorClass !== input.errorClass || s.runId !== input.runId || s.finishedAt !== input.finishedAt) {
      return { settled: false, why: 'the prompt changed since the dry run; run Repair Journal again' };
    }
    this.fences.touch(s.sessionId);
    this.db.run("UPDATE turns SET status = ?, error_class = ?, finished_at = ? WHERE id = ? AND status = 'running'", [s.status, s.errorClass, s.finishedAt, s.turnId]);
    this.peers.events.appendEvents(s.runId, [{ kind: 'notice', payload: { level: 'info', message: settledNote(s.status) } }], input.finishedAt);
    return { settled: true };
  }
}
