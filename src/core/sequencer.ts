/**
 * `Sequencer`: runs tasks one at a time, in the order they were handed in. Every "one after
 * another" queue of the extension is one (a panel's ordered outbox and its `send` handling, the
 * runtime's live notifications, a run's ledger flushes, a Codex turn's journal work, the journal's
 * helper-thread jobs, the search for undrawn chat tabs), so the rule is written once: a task starts
 * only after every earlier task has settled, and a task that fails, by rejecting or by throwing
 * synchronously, fails only its own caller; the tasks after it still run.
 *
 * Pure (promises only): every layer, the journal's threads included, may import it.
 */

/** Tasks run one at a time, in call order (see module docstring). */
export class Sequencer {
  /** Settles once every task handed in so far has settled; never rejects. */
  private tail: Promise<void> = Promise.resolve();

  /**
   * Queues `task` after every task handed in before it and returns its outcome: the promise
   * resolves with what the task returned (or what its promise resolved to) and rejects with what it
   * threw or rejected with. The caller handles that rejection (catch it, log it, or pass it on); the
   * queue itself has already moved on to the next task.
   */
  run<T>(task: () => Promise<T> | T): Promise<T> {
    const result = this.tail.then(() => task());
    this.tail = result.then(settled, settled);
    return result;
  }

  /**
   * Resolves once every task handed in before this call has settled, whether it succeeded or
   * failed; never rejects. Tasks handed in later are not waited for.
   */
  idle(): Promise<void> {
    return this.tail;
  }
}

function settled(): void {}
