/**
 * Which `JournalCore` operations go through the `Journal` door, and how: reads run on the current
 * state and change nothing; writes run as one logged, durable transaction each. The two lists are
 * `as const` tuples, so `Journal.read` accepts only a read and `Journal.write` only a write (checked
 * by the compiler), and the worker refuses at run time a message whose operation is not in the list
 * of its kind (`refusalOf`): a write run as a read would change this window's in-memory database
 * without logging it, so this window would diverge from the log and from every other window.
 *
 * Every operation of `JournalCore` is in exactly one of `READ_OPS`, `WRITE_OPS` and
 * `INTERNAL_OPS` (the worker's own calls, never reachable through the door). The core's operations
 * are those `OPERATION_OWNERS` (core.ts) gives a concern: a name listed here without an owner, or
 * owned there but listed in none here, fails to compile there (its `satisfies` clause); a name both
 * a read and a write fails here (`OpsClassified`). A concern's method that no owner entry names is
 * no operation: nothing outside the core reaches it.
 */
import type { JournalCore } from './core';

/** Operations that only read. */
export const READ_OPS = [
  'getFence', 'getFenceDetail', 'getProviderState', 'getSession', 'listSessions', 'titlesLike', 'getTurn', 'listTurns', 'getRun', 'listRunsInFlight',
  'stopRequested', 'listEvents', 'getInvocation', 'listOpenInvocations', 'getBoundaryRequest', 'listPendingBoundaryRequests',
  'listSessionPendingBoundaryRequests', 'listRestartClosures', 'hasSessionGrant', 'listTabs', 'getInstance', 'listInstances', 'listProcessGroups',
  'readTurnPage', 'readChangesSince', 'listHistory', 'isFollowedUp', 'searchChats', 'listChats', 'getChatListItem',
  'checkTables', 'checkRows', 'checkStructure', 'repairContext', 'repairEvidence', 'listQuarantinedRows', 'turnSettlementEvidence',
  'listQueuedPrompts', 'getQueuedPrompt', 'replaceProblemOf', 'getContent', 'recoveryStatus', 'listFileChanges', 'listUndos', 'listAttachments',
] as const;

/** Operations that write: each runs as a logged transaction under the write lock. */
export const WRITE_OPS = [
  'createSession', 'renameSession', 'deleteSession', 'setProviderState', 'startTurn', 'finishRun', 'appendEvents', 'requestStop',
  'startInvocation', 'setInvocationStatus', 'finishInvocation', 'createBoundaryRequest', 'settleBoundaryRequest', 'recordTab',
  'removeTab', 'registerInstance', 'removeInstance', 'assignWorkspace',
  'setSessionModel', 'submitPrompt', 'editQueuedPrompt', 'discardQueuedPrompt', 'sendQueuedPrompt', 'markDelivered', 'importRecoveredChat',
  'releaseFencedChat', 'settleTurn', 'recordFileChanges', 'recordUndo', 'recordRedo', 'resolveAttachment',
] as const;

/** Methods only the worker calls (write-group bookkeeping, migrations): not operations of the door. */
export const INTERNAL_OPS = ['takeTouched', 'migrateOne', 'userVersion'] as const;

/** A read operation's name. */
export type ReadOp = (typeof READ_OPS)[number];
/** A write operation's name. */
export type WriteOp = (typeof WRITE_OPS)[number];
/** Any operation the door runs. */
export type JournalOp = ReadOp | WriteOp;
/** Any operation of `JournalCore`: the door's and the worker's own (each has an owner in core.ts `OPERATION_OWNERS`). */
export type CoreOp = JournalOp | (typeof INTERNAL_OPS)[number];

type OpFn<K extends JournalOp> = JournalCore[K] extends (...args: infer A) => infer R ? (...args: A) => R : never;
/** Arguments of operation K. */
export type OpArgs<K extends JournalOp> = Parameters<OpFn<K>>;
/** Result of operation K. */
export type OpResult<K extends JournalOp> = ReturnType<OpFn<K>>;

type None<T extends never> = T;
/**
 * Compile-time check, naming the offending operation when it fails: no name is both a read and a
 * write. (That every listed name is an operation of JournalCore and every operation is listed is
 * `OPERATION_OWNERS`' own check in core.ts: the core's operations are exactly its keys.)
 */
export type OpsClassified = None<Extract<ReadOp, WriteOp>>;

const READS: ReadonlySet<string> = new Set(READ_OPS);
const WRITES: ReadonlySet<string> = new Set(WRITE_OPS);
const INTERNAL: ReadonlySet<string> = new Set(INTERNAL_OPS);

/**
 * Why the worker refuses to run `op` as a message of `kind`, or null when it may: an unknown
 * operation, or one of the other kind (a write sent as a read, a read or a worker-internal method
 * sent as a write). Messages arrive untyped, so the types of `Journal` alone cannot promise this.
 */
export function refusalOf(kind: 'read' | 'write', op: string): string | null {
  if ((kind === 'read' ? READS : WRITES).has(op)) return null;
  return READS.has(op) || WRITES.has(op) || INTERNAL.has(op) ? `${op} is not a ${kind} operation of the journal` : `unknown journal operation ${op}`;
}

/** Runs operation `op` of `core` with `args` (call `refusalOf` first: `args` are not checked here). */
export function runOperation(core: JournalCore, op: JournalOp, args: readonly unknown[]): unknown {
  return (core[op] as (...a: readonly unknown[]) => unknown).apply(core, args as unknown[]);
}
