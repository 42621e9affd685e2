/**
 * `JournalCore`: every read and write of the journal as synchronous operations on one open sql.js
 * database. It knows SQL and row shapes, nothing about files, processes or threads: `journal.ts`
 * wraps it with persistence and the async interface callers use.
 *
 * It is a composition, not a hierarchy: one object per concern (`Concerns` below names them),
 * each a class in `operations/` given through its constructor what it uses: the database
 * (`JournalDb`, operations/database.ts), the touched sessions and fences (`ChatFences`,
 * operations/fences.ts) and the other concerns it calls (`peers`). The concerns: the content store
 * (contents.ts), checkpoints, attachments, sessions, turns and runs, invocations and events,
 * boundary requests, tabs, instances, pages of long chats, full-text search, the chat list, the
 * outbox (queued messages and delivery states), Check Journal's reads (check.ts), chats recovered
 * from a moved-aside journal (recovered.ts), Repair Journal's evidence and release (repair.ts) and
 * settlement of a prompt left running (repairSettle.ts); row decoding is rows.ts.
 *
 * The core answers every operation by name (`core.getSession(id)`, as the worker's
 * `runOperation` calls it): `OPERATION_OWNERS` names the concern that runs each one, checked by
 * the compiler (each name is an operation of `ops.ts`, each owner has a public method of that
 * name, and every operation has an owner). `ops.ts` lists which are reads and which writes.
 *
 * Each write method runs inside a transaction opened by the caller (`Journal.write`); write methods
 * are idempotent where recovery needs them to be: a settle of a request that is no longer pending,
 * or the finish of a run or invocation that is already terminal, changes nothing and says so.
 */
import type { Database } from 'sql.js';
import type { CoreOp } from './ops';
import { AttachmentOps } from './operations/attachments';
import { BoundaryRequestOps } from './operations/boundaryRequests';
import { ChatListOps } from './operations/chatList';
import { CheckOps } from './operations/check';
import { CheckpointOps } from './operations/checkpoints';
import { ContentOps } from './operations/contents';
import { JournalDb, type StatementRecorder } from './operations/database';
import { ChatFences } from './operations/fences';
import { InstanceOps } from './operations/instances';
import { InvocationEventOps } from './operations/invocationsAndEvents';
import { OutboxOps } from './operations/outbox';
import { PageOps } from './operations/pages';
import { RecoveredChatOps } from './operations/recovered';
import { RepairOps } from './operations/repair';
import { RepairSettleOps } from './operations/repairSettle';
import { SearchOps } from './operations/search';
import { SessionOps } from './operations/sessions';
import { TabOps } from './operations/tabs';
import { TurnRunOps } from './operations/turnsAndRuns';

export type { StatementRecorder } from './operations/database';
export type { FenceDetail } from './operations/fences';
export type { StoredContent } from './operations/contents';
export type { AttachmentInput, AttachmentRecord, ResolveAttachmentInput } from './operations/attachments';
export type { CreateBoundaryRequestInput, SettleBoundaryRequestInput } from './operations/boundaryRequests';
export type { FinishInvocationInput } from './operations/invocationsAndEvents';
export { UnreadableRowError } from './operations/rows';
export type { FinishRunInput, NextTurnIds, QueueMove, StartTurnInput } from './operations/turnsAndRuns';
export type { QueueEditResult, SendQueuedResult, SubmitPromptInput, SubmitPromptResult } from './operations/outbox';
export type { ChangeMark, ChatChanges, TurnPage } from './operations/pages';
export type { SearchHitKind, SearchOptions, SearchRefusal, SearchResult } from './operations/search';
export type { ListChatsOptions } from './operations/chatList';
export type { CheckChunk, CheckedTable, CheckedTableSize } from './operations/check';
export type { RecoveredChatImport, RecoveredChatInput } from './operations/recovered';
export type { QuarantinedRowRecord, ReleaseChatInput, ReleaseChatResult } from './operations/repair';
export type { SettleTurnResult } from './operations/repairSettle';

/** The concerns that have a public method named `K`. */
type OwnersOf<K extends string> = {
  [N in keyof Concerns]: K extends keyof Concerns[N] ? (Concerns[N][K] extends (...args: never[]) => unknown ? N : never) : never;
}[keyof Concerns];

/**
 * The concern that runs each operation (see module docstring): every name of `READ_OPS`,
 * `WRITE_OPS` and `INTERNAL_OPS` (ops.ts), none other, each owned by a concern with that method.
 */
export const OPERATION_OWNERS = {
  migrateOne: 'db', userVersion: 'db',
  getFence: 'fences', getFenceDetail: 'fences', takeTouched: 'fences',
  getContent: 'contents',
  listFileChanges: 'checkpoints', listUndos: 'checkpoints', recordFileChanges: 'checkpoints', recordUndo: 'checkpoints', recordRedo: 'checkpoints',
  listAttachments: 'attachments', resolveAttachment: 'attachments',
  getProviderState: 'sessions', getSession: 'sessions', listSessions: 'sessions', titlesLike: 'sessions', createSession: 'sessions',
  renameSession: 'sessions', deleteSession: 'sessions', setProviderState: 'sessions', assignWorkspace: 'sessions', setSessionModel: 'sessions',
  getTurn: 'turns', listTurns: 'turns', getRun: 'turns', listRunsInFlight: 'turns', startTurn: 'turns', finishRun: 'turns',
  stopRequested: 'events', listEvents: 'events', getInvocation: 'events', listOpenInvocations: 'events', listProcessGroups: 'events',
  appendEvents: 'events', requestStop: 'events', startInvocation: 'events', setInvocationStatus: 'events', finishInvocation: 'events',
  getBoundaryRequest: 'boundaries', listPendingBoundaryRequests: 'boundaries', listSessionPendingBoundaryRequests: 'boundaries',
  listRestartClosures: 'boundaries', hasSessionGrant: 'boundaries', createBoundaryRequest: 'boundaries', settleBoundaryRequest: 'boundaries',
  listTabs: 'tabs', recordTab: 'tabs', removeTab: 'tabs',
  getInstance: 'instances', listInstances: 'instances', registerInstance: 'instances', removeInstance: 'instances',
  readTurnPage: 'pages', readChangesSince: 'pages', listHistory: 'pages', isFollowedUp: 'pages',
  searchChats: 'search',
  listChats: 'chatList', getChatListItem: 'chatList',
  listQueuedPrompts: 'outbox', getQueuedPrompt: 'outbox', replaceProblemOf: 'outbox', submitPrompt: 'outbox', editQueuedPrompt: 'outbox',
  discardQueuedPrompt: 'outbox', sendQueuedPrompt: 'outbox', markDelivered: 'outbox',
  checkTables: 'check', checkRows: 'check', checkStructure: 'check',
  recoveryStatus: 'recovered', importRecoveredChat: 'recovered',
  repairContext: 'repair', repairEvidence: 'repair', listQuarantinedRows: 'repair', releaseFencedChat: 'repair',
  turnSettlementEvidence: 'settle', settleTurn: 'settle',
} as const satisfies { readonly [K in CoreOp]: OwnersOf<K> };

/** Operation `K` as its owner declares it. */
type OperationOf<K extends CoreOp> = (typeof OPERATION_OWNERS)[K] extends infer N extends keyof Concerns
  ? K extends keyof Concerns[N] ? Concerns[N][K] : never
  : never;

/** Every operation of the core, by name. */
type Operations = { readonly [K in CoreOp]: OperationOf<K> };

/**
 * The concerns of the core by name, built in an order where each one's database and fences exist.
 * A concern that calls others receives them as `peers: Pick<Concerns, …>`, naming exactly those it
 * calls, so the compiler holds each concern to its stated dependencies. The core passes itself as
 * the peers: concerns call one another both ways (a turn's end moves the queue, the queue starts a
 * turn), and every concern exists before the first operation runs.
 */
class Concerns {
  /** Statements on the database, its schema version and migrations (database.ts). */
  readonly db: JournalDb;
  /** The sessions the current write touched and the fences of chats with unreadable rows (fences.ts). */
  readonly fences: ChatFences;
  /** Byte strings kept once by their hash (contents.ts). */
  readonly contents: ContentOps;
  /** Files changed by tool invocations, undos and redos (checkpoints.ts). */
  readonly checkpoints: CheckpointOps;
  /** What the user attached to a prompt (attachments.ts). */
  readonly attachments: AttachmentOps;
  /** Chats: create, rename, delete, model, provider state (sessions.ts). */
  readonly sessions: SessionOps;
  /** Turns and their runs (turnsAndRuns.ts). */
  readonly turns: TurnRunOps;
  /** Tool invocations and the transcript's events (invocationsAndEvents.ts). */
  readonly events: InvocationEventOps;
  /** Approval requests at the sandbox's boundary (boundaryRequests.ts). */
  readonly boundaries: BoundaryRequestOps;
  /** Chats with open tabs (tabs.ts). */
  readonly tabs: TabOps;
  /** Extension-host instances that own runs (instances.ts). */
  readonly instances: InstanceOps;
  /** Pages of long chats and changes since a mark (pages.ts). */
  readonly pages: PageOps;
  /** Full-text search (search.ts). */
  readonly search: SearchOps;
  /** The chat list (chatList.ts). */
  readonly chatList: ChatListOps;
  /** Queued messages and delivery states (outbox.ts). */
  readonly outbox: OutboxOps;
  /** Check Journal's reads (check.ts). */
  readonly check: CheckOps;
  /** Chats recovered from a journal moved aside (recovered.ts). */
  readonly recovered: RecoveredChatOps;
  /** Repair Journal's evidence and release of a fenced chat (repair.ts). */
  readonly repair: RepairOps;
  /** Repair Journal's settlement of a prompt left running (repairSettle.ts). */
  readonly settle: RepairSettleOps;

  /**
   * @param database the open sql.js database.
   * @param record called with every write statement (the redo log's source).
   */
  constructor(database: Database, record?: StatementRecorder) {
    const db = (this.db = new JournalDb(database, record));
    const fences = (this.fences = new ChatFences(db));
    this.contents = new ContentOps(db);
    this.checkpoints = new CheckpointOps(db, fences, this);
    this.attachments = new AttachmentOps(db, fences, this);
    this.sessions = new SessionOps(db, fences, this);
    this.turns = new TurnRunOps(db, fences, this);
    this.events = new InvocationEventOps(db, fences, this);
    this.boundaries = new BoundaryRequestOps(db, fences, this);
    this.tabs = new TabOps(db, fences);
    this.instances = new InstanceOps(db);
    this.pages = new PageOps(db, fences, this);
    this.search = new SearchOps(db);
    this.chatList = new ChatListOps(db);
    this.outbox = new OutboxOps(db, fences, this);
    this.check = new CheckOps(db, fences);
    this.recovered = new RecoveredChatOps(db, fences, this);
    this.repair = new RepairOps(db, fences, this);
    this.settle = new RepairSettleOps(db, fences, this);
  }
}

// Each operation, once on the prototype: a call forwards to the method of its owner.
for (const [op, owner] of Object.entries(OPERATION_OWNERS)) {
  Object.defineProperty(Concerns.prototype, op, {
    value(this: Concerns, ...args: unknown[]): unknown {
      const concern = this[owner] as unknown as Record<string, (...a: unknown[]) => unknown>;
      return concern[op]!(...args);
    },
  });
}

export type { Concerns };

/**
 * Synchronous journal operations over one sql.js database (see module docstring): its concerns by
 * name (`core.sessions`, `core.turns`, …) and every operation of ops.ts (`core.getSession(id)`).
 */
export type JournalCore = Concerns & Operations;

/**
 * `new JournalCore(db, record)`: `record` is called with every write statement (the redo log's
 * source). The class is `Concerns`; its operations are defined on its prototype from
 * `OPERATION_OWNERS` above, which the compiler cannot see, so the constructor is typed here.
 */
export const JournalCore = Concerns as new (database: Database, record?: StatementRecorder) => JournalCore;
