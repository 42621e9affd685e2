/**
 * `RuntimeScope`: what the runtime's modules share — the journal, this extension host, the clock,
 * the log, the notifier and the runs this window drives. `ChatRuntime` builds one and hands it to
 * each module; no module keeps state of another.
 */
import { fail } from '../core/result';
import type { Journal } from '../journal/journal';
import type { InstanceRecord } from '../journal/records';
import type { Notifier } from './notifications';
import type { RunContext } from './runContext';

/** What the runtime's modules share (see module docstring). */
export interface RuntimeScope {
  readonly journal: Journal;
  /** This extension host (see `instance.ts`). */
  readonly instance: InstanceRecord;
  /** Wall clock, ms since the epoch. */
  readonly now: () => number;
  readonly log: (line: string) => void;
  /** Whether an instance's process is alive (see `instance.ts`). */
  readonly isAlive: (instance: InstanceRecord) => boolean;
  readonly notifier: Notifier;
  /** The runs this window drives, by session id (at most one per chat). */
  readonly active: Map<string, RunContext>;
  /** True once the host is shutting down (`ChatRuntime.dispose`). */
  readonly disposed: () => boolean;
  /**
   * The model this window's settings name for a provider (null: none, the provider picks), recorded
   * with a turn of a chat that has no model of its own (`TurnSettings.defaultModel`).
   */
  readonly defaultModel: (provider: string) => string | null;
}

/**
 * The journal as a run sees it: once this host is shutting down (`dispose`), every write answers
 * `closed` and changes nothing, so aborting a running tool on the way out is never journaled as a
 * user's Stop; the next host's recovery settles the run instead.
 */
export function runJournal(scope: RuntimeScope): Pick<Journal, 'read' | 'write'> {
  const journal = scope.journal;
  return {
    read: (op, ...args) => journal.read(op, ...args),
    write: (op, ...args) =>
      scope.disposed() ? Promise.resolve(fail('closed', 'The extension host is shutting down.')) : journal.write(op, ...args),
  };
}
