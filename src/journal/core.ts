/**
 * `JournalCore`: every read and write of the journal as synchronous operations on one open sql.js
 * database. It knows SQL and row shapes, nothing about files, processes or threads: `journal.ts`
 * wraps it with persistence and the async interface callers use.
 *
 * Its operations live in `operations/`, one concern per file, each a class building on the one
 * before: the database access (base.ts), the content store (contents.ts), checkpoints (checkpoints.ts), attachments (attachments.ts), sessions, turns and runs, invocations and events, boundary
 * requests, tabs, instances, pages of long chats, full-text search, the chat list, the outbox (queued
 * messages and delivery states), Check Journal's reads (check.ts), chats recovered from a moved-aside
 * journal (recovered.ts), Repair Journal's evidence and release (repair.ts) and settlement of a prompt
 * left running (repairSettle.ts); row decoding is rows.ts. `ops.ts`
 * lists which are reads and which writes.
 *
 * Each write method runs inside a transaction opened by the caller (`Journal.write`); write methods
 * are idempotent where recovery needs them to be: a settle of a request that is no longer pending,
 * or the finish of a run or invocation that is already terminal, changes nothing and says so.
 */
import { RepairSettleOps } from './operations/repairSettle';

export type { FenceDetail, StatementRecorder } from './operations/base';
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

/**
 * Synchronous journal operations over one sql.js database (see module docstring).
 * `new JournalCore(db, record)`: `record` is called with every write statement (the redo log's source).
 */
export class JournalCore extends RepairSettleOps {}
