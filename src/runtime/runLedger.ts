/**
 * `RunLedger`: writes one run's runtime events to the journal in order, batching the chatty ones.
 *
 * Text deltas and command output arrive many times a second; each would otherwise be its own
 * durable transaction. The first chunk after a quiet moment is written at once (after
 * `flushIntervalMs`, default 0: the next turn of the event loop), and chunks that arrive while a
 * write is in flight are coalesced (consecutive text joined; consecutive output of one invocation
 * joined) into the next write, which starts as soon as the previous one is durable. So latency stays
 * one durable write plus queueing, and a fast stream costs one transaction per write time, not per
 * chunk. Everything is flushed before any other write of the run, so the ledger order is the order
 * the agent produced things in.
 */
import type { LedgerEvent, NewLedgerEvent, ProcessGroupRecord } from '../core/events';
import { Sequencer } from '../core/sequencer';
import type { Journal } from '../journal/journal';

/** Result of a flush: false when the journal refused the write (the events are dropped). */
export type FlushOutcome = { readonly ok: true } | { readonly ok: false; readonly message: string };

/** Batches and writes a run's coalescible events (see module docstring). */
export class RunLedger {
  private buffer: NewLedgerEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The flushes, one after another: a batch is written once the one before it is durable. */
  private readonly flushing = new Sequencer();

  /**
   * @param onStored called with events once durable (to update views).
   * @param onRefused called once per refused flush with the journal's message, and once per flush
   *                  this ledger's own timer started whose write threw (with the error's message):
   *                  nobody awaits that flush, and its batch is lost as a refused one is.
   */
  constructor(
    private readonly journal: Pick<Journal, 'write'>,
    private readonly runId: string,
    private readonly now: () => number,
    private readonly onStored: (events: readonly LedgerEvent[]) => void,
    private readonly onRefused: (message: string) => void,
    private readonly flushIntervalMs = 0,
  ) {}

  /** Queues a text delta. */
  text(delta: string): void {
    const last = this.buffer[this.buffer.length - 1];
    if (last?.kind === 'text') this.buffer[this.buffer.length - 1] = { kind: 'text', payload: { text: last.payload.text + delta } };
    else this.buffer.push({ kind: 'text', payload: { text: delta } });
    this.schedule();
  }

  /** Queues output of an invocation. */
  output(invocationId: string, chunk: string): void {
    const last = this.buffer[this.buffer.length - 1];
    if (last?.kind === 'invocation_output' && last.payload.invocationId === invocationId) {
      // The spread keeps a `processGroup` the coalesced event carries.
      this.buffer[this.buffer.length - 1] = { kind: 'invocation_output', payload: { ...last.payload, chunk: last.payload.chunk + chunk } };
    } else {
      this.buffer.push({ kind: 'invocation_output', payload: { invocationId, chunk } });
    }
    this.schedule();
  }

  /**
   * Queues the process group a `run` command of an invocation started (an `invocation_output`
   * event with an empty chunk and `processGroup`; output that follows may be coalesced into it).
   */
  processGroup(invocationId: string, group: ProcessGroupRecord): void {
    this.buffer.push({ kind: 'invocation_output', payload: { invocationId, chunk: '', processGroup: group } });
    this.schedule();
  }

  /**
   * Writes everything queued so far (waits for an earlier flush first). Rejects with what the
   * journal's write threw (that batch is lost); later flushes still write theirs.
   */
  flush(): Promise<FlushOutcome> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.buffer;
    this.buffer = [];
    return this.flushing.run(async (): Promise<FlushOutcome> => {
      if (batch.length === 0) return { ok: true } as const;
      this.inFlight = true;
      const result = await this.journal.write('appendEvents', this.runId, batch, this.now()).finally(() => {
        this.inFlight = false;
        if (this.pendingAfterFlight) {
          this.pendingAfterFlight = false;
          this.schedule();
        }
      });
      if (!result.ok) {
        this.onRefused(result.message);
        return { ok: false, message: result.message } as const;
      }
      this.onStored(result.value);
      return { ok: true } as const;
    });
  }

  private schedule(): void {
    if (this.timer) return;
    if (this.inFlight) {
      this.pendingAfterFlight = true;
      return;
    }
    // Nobody awaits this flush: a write that throws would otherwise vanish (the flushes' Sequencer
    // settles it), leaving a hole in the transcript that no log or outcome tells of.
    this.timer = setTimeout(() => void this.flush().catch((error: unknown) => this.onRefused(error instanceof Error ? error.message : String(error))), this.flushIntervalMs);
  }

  private inFlight = false;
  private pendingAfterFlight = false;
}
