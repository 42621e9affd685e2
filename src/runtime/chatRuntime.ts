/**
 * `ChatRuntime`: sessions, turns, runs and their agents, on top of the journal. The host adapts it
 * to VS Code; tests drive it directly in plain Node.
 *
 * A small coordinator: each rule lives in a module named for it, sharing one `RuntimeScope`
 * (`scope.ts`) — titles (`titles.ts`), turns (`turns.ts`), the run context and the one owner of
 * its boundary waiters (`runContext.ts`), what an agent may do during a run (`agentContext.ts`),
 * boundary decisions (`boundaryDecisions.ts`), Stop across windows (`stopAcrossWindows.ts`), live
 * state (`liveState.ts`), the end of a run (`runEnd.ts`) and notifications (`notifications.ts`).
 *
 * Flow of a prompt: `send` journals the turn and its run (one transaction), then drives the agent.
 * Everything the agent does reaches the journal first and the views second: a listener sees an
 * update only after the journal acknowledged it. Boundary requests are journaled (with turn, run
 * and invocation) before they are shown, and only requests owned by a live run of this runtime are
 * actionable. `start()` registers this extension host as an instance and recovers runs orphaned by
 * dead hosts; `recoverOrphans()` repeats that check (the host calls it on a timer).
 */
import { FileUndo } from './fileUndo';
import { randomUUID } from 'node:crypto';
import type { SessionRecord } from '../core/events';
import { fail, ok, type Result } from '../core/result';
import type { Transcript, TurnCursor } from '../core/transcript';
import type { BoundaryDecision, ProviderId } from '../core/vocabulary';
import type { Journal } from '../journal/journal';
import type { SearchOptions, SearchRefusal, SearchResult } from '../journal/operations/search';
import type { InstanceRecord, TabRecord } from '../journal/records';
import type { LiveState } from '../protocol/messages';
import { decide, deliverDecidedElsewhere } from './boundaryDecisions';
import { isInstanceAlive } from './instance';
import { liveStateOf, otherLiveInstances } from './liveState';
import type { ChatListEntry } from '../core/chatList';
import type { QueuedPromptView } from '../core/outbox';
import { discardQueued, editQueued, type OutgoingMessage, queueOf, sendOrBusy, sendQueued, startDriving, submit, type OutboxDeps, type SendQueuedOutcome, type SubmitOutcome } from './outbox';
import { chatListEntryOf, chatListOf } from './chatList';
import { ALL_SESSIONS, Notifier, type RuntimeNotification } from './notifications';
import { changesOf, pageOf, turnCursorOf, type ChangeMark, type TranscriptChanges, type TranscriptPage } from './pages';
import { recoverOrphanedRuns, type RecoveredRun } from './recovery';
import type { RuntimeRefusal } from './refusals';
import type { RunContext } from './runContext';
import { RunEnds } from './runEnd';
import type { RuntimeScope } from './scope';
import { stop, stopIfAskedElsewhere } from './stopAcrossWindows';
import { cleanTitle, NEW_CHAT_TITLE, titleProblem } from './titles';
import { setChatModel } from './modelChoice';
import { followUpTarget, startTurn, transcriptOf, type TurnSettings } from './turns';

export { ALL_SESSIONS, type RuntimeNotification } from './notifications';
export type { RuntimeRefusal } from './refusals';
export type { SearchOptions, SearchRefusal, SearchResult } from '../journal/operations/search';
export { STOP_ELSEWHERE_NOTICE } from './stopAcrossWindows';
export { cleanTitle, MAX_TITLE_CHARS, NEW_CHAT_TITLE, titleProblem } from './titles';
export { historyFrom } from './turns';
export type { OutgoingMessage, SendQueuedOutcome, SubmitOutcome } from './outbox';
export { MAX_CHANGE_EVENTS, type ChangeMark, type TranscriptChanges, type TranscriptPage } from './pages';

/** Options of the runtime. */
export interface ChatRuntimeOptions extends TurnSettings {
  readonly journal: Journal;
  /** This extension host (see `instance.ts`). */
  readonly instance: InstanceRecord;
  readonly now?: () => number;
  readonly isAlive?: (instance: InstanceRecord) => boolean;
  readonly log?: (line: string) => void;
}

/** The chat runtime (see module docstring). */
export class ChatRuntime {
  private readonly scope: RuntimeScope;
  private readonly ends: RunEnds;
  /** What the outbox's functions share (outbox.ts). */
  private get outbox(): OutboxDeps {
    return { scope: this.scope, settings: this.options, ends: this.ends };
  }
  private disposed = false;
  private readonly offExternal: () => void;
  /** Checkpoints: each turn's file changes, Undo, Restore and Redo (fileUndo.ts). */
  readonly files: FileUndo;

  constructor(private readonly options: ChatRuntimeOptions) {
    const log = options.log ?? (() => undefined);
    this.scope = {
      journal: options.journal,
      instance: options.instance,
      now: options.now ?? Date.now,
      log,
      isAlive: options.isAlive ?? isInstanceAlive,
      notifier: new Notifier((sessionId) => this.liveState(sessionId), log),
      active: new Map<string, RunContext>(),
      disposed: () => this.disposed,
      defaultModel: (provider) => options.defaultModel?.(provider) ?? null,
    };
    this.ends = new RunEnds(this.scope, (claimed) => startDriving(this.outbox, claimed));
    this.files = new FileUndo(this.scope, options.workspaceRoot);
    this.offExternal = options.journal.onExternalChange((ids) => void this.onExternalChange(ids));
  }

  /**
   * Another window committed changes to these chats: a Stop pressed there stops the run driven
   * here, a decision taken there reaches the run waiting here, and views re-read the chats.
   */
  private async onExternalChange(sessionIds: readonly string[]): Promise<void> {
    const { active, notifier } = this.scope;
    // No session named, or every session ('*': the journal was reloaded): refresh every open chat.
    const all = sessionIds.length === 0 || sessionIds.includes(ALL_SESSIONS);
    // Views hear first, before this window acts on the change: what it writes then (a Stop's
    // closing of a request) must reach a view after the other window's event, or the view, which
    // drops an event whose seq is not above its run's last, would never show that one.
    if (all) notifier.emit({ type: 'refresh', sessionId: ALL_SESSIONS });
    else for (const sessionId of sessionIds) notifier.emit({ type: 'refresh', sessionId });
    for (const sessionId of all ? [...active.keys()] : sessionIds) {
      const run = active.get(sessionId);
      if (run) {
        await stopIfAskedElsewhere(this.scope, run);
        await deliverDecidedElsewhere(this.scope, run);
      }
    }
  }

  /** This window changed these chats outside the runtime (Repair Journal): views re-read them, as after another window's change. */
  chatsChanged(sessionIds: readonly string[]): void {
    for (const sessionId of sessionIds) this.scope.notifier.emit({ type: 'refresh', sessionId });
  }

  /** This extension host's instance id. */
  get instanceId(): string {
    return this.options.instance.id;
  }

  /** The journal behind this runtime. */
  get journal(): Journal {
    return this.options.journal;
  }

  /** Registers this instance and recovers runs orphaned by dead hosts. */
  async start(): Promise<readonly RecoveredRun[]> {
    const journal = this.options.journal;
    if (!journal.readOnly) {
      const registered = await journal.write('registerInstance', this.options.instance);
      if (!registered.ok) this.scope.log(`[runtime] could not register this instance: ${registered.message}`);
    }
    return this.recoverOrphans();
  }

  /** Recovers in-flight runs whose owning host is dead (after writing again run ends refused here); notifies views. */
  async recoverOrphans(): Promise<readonly RecoveredRun[]> {
    const { journal, notifier, log } = this.scope;
    await this.ends.retryUnfinished();
    const recovered = await recoverOrphanedRuns(journal, {
      selfInstanceId: this.options.instance.id, isAlive: this.scope.isAlive, now: this.scope.now, log,
    });
    for (const r of recovered) {
      log(`[recovery] run ${r.runId} (turn ${r.turnId}) → ${r.errorClass}; closed requests: ${r.closedRequestIds.join(', ') || 'none'}`);
      notifier.publish(r.sessionId, r.events);
      const turn = await journal.read('getTurn', r.turnId);
      if (turn) notifier.emit({ type: 'update', sessionId: r.sessionId, update: { type: 'turn', turn } });
      if (r.queueHeld > 0) notifier.emit({ type: 'queue', sessionId: r.sessionId });
      notifier.live(r.sessionId);
    }
    return recovered;
  }

  /** Subscribes to notifications; returns an unsubscribe function. */
  onNotification(listener: (n: RuntimeNotification) => void): () => void {
    return this.scope.notifier.on(listener);
  }

  // ------------------------------------------------------------------ sessions

  /** Creates a chat with `provider` (refused when the journal refuses). */
  async createSession(provider: ProviderId | string, title = NEW_CHAT_TITLE): Promise<Result<SessionRecord, RuntimeRefusal>> {
    const at = this.scope.now();
    const created = await this.options.journal.write('createSession', { id: randomUUID(), title, provider, createdAt: at, updatedAt: at, workspace: this.workspaceKey });
    if (created.ok) this.scope.notifier.emit({ type: 'session', session: created.value });
    return created;
  }

  /**
   * Renames a chat to `title` as typed by the user: trimmed, its line breaks made spaces. The new
   * title reaches this window's tabs at once and other windows' with their next refresh.
   * @returns the renamed session, or a refusal: `invalid` (empty, or over MAX_TITLE_CHARS),
   *          `not_found`, or the journal's own refusal.
   */
  async renameSession(sessionId: string, title: string): Promise<Result<SessionRecord, RuntimeRefusal>> {
    const problem = titleProblem(title);
    if (problem) return fail('invalid', problem);
    const renamed = await this.options.journal.write('renameSession', sessionId, cleanTitle(title));
    if (!renamed.ok) return renamed;
    this.scope.notifier.emit({ type: 'session', session: renamed.value.session });
    return ok(renamed.value.session);
  }

  /** Picks the chat's model (`null`: the provider's setting) for its next turns, in every window (modelChoice.ts). */
  setModel(sessionId: string, model: string | null): Promise<Result<SessionRecord, RuntimeRefusal>> {
    return setChatModel(this.scope, sessionId, model);
  }

  /**
   * Deletes a chat and its whole record from the journal (see `JournalCore.deleteSession`); this
   * window's views of it close. Refused while its agent is working, in this window or another.
   * @returns a refusal: `busy`, `not_found`, or the journal's own refusal.
   */
  async deleteSession(sessionId: string): Promise<Result<void, RuntimeRefusal>> {
    const result = await this.options.journal.write('deleteSession', sessionId);
    if (!result.ok) return result;
    if (!result.value.deleted) {
      const where = this.scope.active.has(sessionId) ? '' : ' in another VS Code window';
      return fail('busy', `The agent is still working on this chat${where}. Stop it first, then delete the chat.`);
    }
    this.scope.log(`[runtime] chat ${sessionId} deleted`);
    this.scope.notifier.emit({ type: 'deleted', sessionId });
    return ok(undefined);
  }

  /**
   * Records this window's folder as the workspace of those chats whose folder is unknown (chats of an
   * older version); views hear of each. Refused when the journal refuses.
   */
  async assignWorkspace(sessionIds: readonly string[]): Promise<Result<{ assigned: string[] }, RuntimeRefusal>> {
    const result = await this.options.journal.write('assignWorkspace', sessionIds, this.workspaceKey);
    if (!result.ok) return result;
    for (const id of result.value.assigned) {
      const session = await this.getSession(id);
      if (session) this.scope.notifier.emit({ type: 'session', session });
    }
    return result;
  }

  /** Every chat, most recently updated first. */
  listSessions(): Promise<SessionRecord[]> {
    return this.options.journal.read('listSessions');
  }

  /**
   * Every chat as the chat list shows it (src/core/chatList.ts), with its state now; with `first`,
   * only the newest `first.newest` of all and of `first.workspace` (a first page, see `chatListOf`).
   */
  chatList(first?: { readonly newest: number; readonly workspace: string }): Promise<ChatListEntry[]> {
    return chatListOf(this.scope, first);
  }

  /** One chat as the chat list shows it, or undefined when it is gone. */
  chatListEntry(sessionId: string): Promise<ChatListEntry | undefined> {
    return chatListEntryOf(this.scope, sessionId);
  }

  /** One chat or undefined. */
  getSession(id: string): Promise<SessionRecord | undefined> {
    return this.options.journal.read('getSession', id);
  }

  /** The chat's whole transcript rebuilt from the journal (views read pages: `transcriptPage`). */
  transcript(sessionId: string): Promise<Transcript> {
    return transcriptOf(this.scope, sessionId);
  }

  /** The page of turns before `before`, or the chat's last page, with its change mark (see `pages.ts`). */
  transcriptPage(sessionId: string, before?: TurnCursor): Promise<TranscriptPage> {
    return pageOf(this.scope, sessionId, before);
  }

  /** What changed in the chat since `mark`, or undefined when too much did (read a page instead). */
  changesSince(sessionId: string, mark: ChangeMark): Promise<TranscriptChanges | undefined> {
    return changesOf(this.scope, sessionId, mark);
  }

  /**
   * `changesSince` and the chat's session row (undefined: deleted), asked at once: the journal
   * worker answers them back to back, one wait instead of two (a view's update after another window's change).
   */
  async changesWithSession(sessionId: string, mark: ChangeMark): Promise<{ changes: TranscriptChanges | undefined; session: SessionRecord | undefined }> {
    const [changes, session] = await Promise.all([this.changesSince(sessionId, mark), this.getSession(sessionId)]);
    return { changes, session };
  }

  /** Where turn `turnId` of chat `sessionId` sits (a search result to reveal); undefined: not a turn of that chat. */
  turnCursor(sessionId: string, turnId: string): Promise<TurnCursor | undefined> {
    return turnCursorOf(this.scope, sessionId, turnId);
  }

  /** Live facts of a chat (see `liveState.ts`); `live` notifications carry the same. */
  liveState(sessionId: string): Promise<LiveState> {
    return liveStateOf(this.scope, sessionId);
  }

  /** How many other extension hosts (windows) are alive now, by the journal's `instances` table. */
  otherLiveInstances(): Promise<number> {
    return otherLiveInstances(this.scope);
  }

  // ------------------------------------------------------------------ tabs

  /** Journaled open tabs (of every workspace folder). */
  listTabs(): Promise<TabRecord[]> {
    return this.options.journal.read('listTabs');
  }

  /**
   * The workspace folder tab records of this window carry (`workspaceRoot`); '' without one, as null
   * in a record means an older build's, which any window may reopen (`isTabOfWindow`).
   */
  get workspaceKey(): string {
    return this.options.workspaceRoot() ?? '';
  }

  /** Records that a chat has an open tab in this window's workspace folder. */
  async recordTab(sessionId: string): Promise<void> {
    const r = await this.options.journal.write('recordTab', sessionId, this.scope.now(), this.workspaceKey);
    if (!r.ok) this.scope.log(`[tabs] could not record tab of ${sessionId}: ${r.message}`);
  }

  /** Forgets a chat's tab (closed by the user). */
  async removeTab(sessionId: string): Promise<void> {
    const r = await this.options.journal.write('removeTab', sessionId);
    if (!r.ok) this.scope.log(`[tabs] could not remove tab of ${sessionId}: ${r.message}`);
  }

  // ------------------------------------------------------------------ turns

  /**
   * Sends a prompt now: a new turn and run, driven by the chat's agent. Refused with `busy` while
   * the chat's agent works (in any window) or messages wait in its queue; never queued (`submit` queues).
   */
  send(sessionId: string, prompt: string): Promise<Result<{ turnId: string }, RuntimeRefusal>> {
    return sendOrBusy(this.outbox, sessionId, prompt);
  }

  // ------------------------------------------------------------------ the outbox (docs/ARCHITECTURE.md, "Prompts")

  /**
   * The user sent a message: it becomes a turn at once, or waits in the chat's queue while a run is
   * live (in any window) or messages wait before it — decided in one journal transaction. A
   * `clientId` seen before makes nothing new (`duplicate`); seen with another text it is refused
   * (`conflict`). Its attachments are read and journaled with it (src/runtime/attachments/). Also
   * refused: `invalid` (a full queue, an attachment that cannot be read), `not_found`, `no_agent`, the journal's refusals.
   */
  submit(sessionId: string, message: OutgoingMessage): Promise<Result<SubmitOutcome, RuntimeRefusal>> {
    return submit(this.outbox, sessionId, message);
  }

  /** The chat's messages still queued, in the order they go out (`compareQueued`). */
  queue(sessionId: string): Promise<QueuedPromptView[]> {
    return queueOf(this.scope, sessionId);
  }

  /** Changes a queued message's text; refused with `not_actionable` once it was sent or discarded, `invalid` when empty or too long. */
  editQueued(sessionId: string, clientId: string, text: string): Promise<Result<QueuedPromptView, RuntimeRefusal>> {
    return editQueued(this.scope, sessionId, clientId, text);
  }

  /** Removes a queued message (Discard); refused with `not_actionable` once it was sent. Discarding twice is not an error. */
  discardQueued(sessionId: string, clientId: string): Promise<Result<void, RuntimeRefusal>> {
    return discardQueued(this.scope, sessionId, clientId);
  }

  /**
   * The user's Send (a held message) or Send now (while a reply runs): with no run live the message
   * becomes a turn at once (`started`); otherwise it goes next and the running reply is stopped, in
   * this window or through the journal in the one driving it (`stopping`). Refused with
   * `not_actionable` once it was sent or discarded.
   */
  sendQueued(sessionId: string, clientId: string): Promise<Result<SendQueuedOutcome, RuntimeRefusal>> {
    return sendQueued(this.outbox, sessionId, clientId);
  }

  /** Retries a failed turn: a new turn with the same prompt, linked to it. */
  async retry(sessionId: string, turnId: string): Promise<Result<{ turnId: string }, RuntimeRefusal>> {
    const turn = await followUpTarget(this.scope, sessionId, turnId);
    if (!turn.ok) return turn;
    return startTurn(this.scope, this.options, this.ends, sessionId, turn.value.prompt, { origin: 'retry', parentTurnId: turnId });
  }

  /** Continues a turn interrupted by a plain restart (`app_restarted`). */
  async continueTurn(sessionId: string, turnId: string): Promise<Result<{ turnId: string }, RuntimeRefusal>> {
    const turn = await followUpTarget(this.scope, sessionId, turnId);
    if (!turn.ok) return turn;
    if (turn.value.errorClass !== 'app_restarted') return fail('not_retryable', 'Only a reply interrupted by a restart can be continued; use Retry.');
    return startTurn(this.scope, this.options, this.ends, sessionId, turn.value.prompt, { origin: 'continue', parentTurnId: turnId });
  }

  /** Resolves when the chat's current run (if any) has ended. */
  async whenIdle(sessionId: string): Promise<void> {
    await this.scope.active.get(sessionId)?.done;
  }

  // ------------------------------------------------------------------ search

  /**
   * Searches every chat's transcript (the journal's full-text index: `JournalCore.searchChats`, see
   * docs/ARCHITECTURE.md "Full-text search"): one result per turn, newest first, at most
   * `options.limit` (default 50, at most 200), only `options.workspace`'s chats when set. Refused
   * with `empty_query` (nothing to search for in `query`) or `not_indexed` (a journal read-only at
   * a schema without the index), with a sentence.
   */
  searchChats(query: string, options: SearchOptions = {}): Promise<Result<SearchResult[], SearchRefusal>> {
    return this.options.journal.read('searchChats', query, options);
  }

  // ------------------------------------------------------------------ decisions and stop

  /** Decides a pending boundary request (see `boundaryDecisions.ts`); a second decision is `already_decided`. */
  decide(sessionId: string, requestId: string, decision: BoundaryDecision): Promise<Result<{ approved: boolean }, RuntimeRefusal>> {
    return decide(this.scope, sessionId, requestId, decision);
  }

  /**
   * Stops the chat's run: aborts the agent and closes its waiting requests; when another live
   * window drives the run, asks it through the journal (see `stopAcrossWindows.ts`). `stopped` is
   * false when there was nothing to stop.
   */
  stop(sessionId: string): Promise<Result<{ stopped: boolean }, RuntimeRefusal>> {
    return stop(this.scope, sessionId);
  }

  /**
   * The host is shutting down: kill running tools, write nothing more. Runs and their pending
   * boundary requests stay as the journal has them, so the next host's recovery settles them
   * (`host_restarted`) rather than this host calling them stopped.
   */
  dispose(): void {
    this.disposed = true;
    this.offExternal();
    for (const run of this.scope.active.values()) run.abort.abort();
    this.scope.notifier.clear();
  }
}
