/**
 * `ChatRuntime`: sessions, turns, runs and their agents, on top of the journal. The host adapts it
 * to VS Code; tests drive it directly in plain Node.
 *
 * Flow of a prompt: `send` journals the turn and its run (one transaction), then drives the agent.
 * Everything the agent does reaches the journal first and the views second: a listener sees an
 * update only after the journal acknowledged it. Boundary requests are journaled (with turn, run
 * and invocation) before they are shown, and only requests owned by a live run of this runtime are
 * actionable. `start()` registers this extension host as an instance and recovers runs orphaned by
 * dead hosts; `recoverOrphans()` repeats that check (the host calls it on a timer).
 */
import { randomUUID } from 'node:crypto';
import type { LedgerEvent, SessionRecord, TurnRecord } from '../core/events';
import { fail, ok, type Result } from '../core/result';
import { buildTranscript, isFollowedUp, type Transcript, type TranscriptUpdate } from '../core/transcript';
import type { BoundaryDecision, ErrorClass, ProviderId } from '../core/vocabulary';
import type { JournalRefusal } from '../journal/errors';
import type { Journal } from '../journal/journal';
import type { InstanceRecord, RunRecord, TabRecord } from '../journal/records';
import type { LiveState } from '../protocol/messages';
import type { Agent, AgentTurnContext, BoundaryOutcome, HistoryEntry, InvocationHandle } from './agent';
import { isInstanceAlive } from './instance';
import { recoverOrphanedRuns, type RecoveredRun } from './recovery';
import { RunLedger } from './runLedger';
import { SandboxedToolRunner } from './toolRuntime';

/** What the runtime tells its listeners. */
export type RuntimeNotification =
  | { readonly type: 'update'; readonly sessionId: string; readonly update: TranscriptUpdate }
  | { readonly type: 'live'; readonly sessionId: string }
  | { readonly type: 'session'; readonly session: SessionRecord }
  /** This window deleted the chat: its views close. */
  | { readonly type: 'deleted'; readonly sessionId: string }
  /** Another window changed this chat: views re-read it from the journal. */
  | { readonly type: 'refresh'; readonly sessionId: string };

/** Stable codes of refused runtime actions (besides journal refusals). */
export type RuntimeRefusal =
  | JournalRefusal | 'busy' | 'already_decided' | 'not_actionable' | 'not_retryable' | 'no_agent' | 'invalid';

/** Longest chat title a user may give (characters). */
export const MAX_TITLE_CHARS = 100;

/** A title as the user typed it, made one line: whitespace runs (line breaks included) become one space, trimmed. */
export function cleanTitle(title: string): string {
  return title.replace(/\s+/g, ' ').trim();
}

/** Why a title the user typed cannot be a chat's title, or undefined when it can (see `cleanTitle`). */
export function titleProblem(title: string): string | undefined {
  const clean = cleanTitle(title);
  if (!clean) return 'A chat needs a title.';
  if (clean.length > MAX_TITLE_CHARS) return `A chat title can have at most ${MAX_TITLE_CHARS} characters (this one has ${clean.length}).`;
  return undefined;
}

/** Options of the runtime. */
export interface ChatRuntimeOptions {
  readonly journal: Journal;
  /** This extension host (see `instance.ts`). */
  readonly instance: InstanceRecord;
  /** The agent for a provider id, or undefined if unavailable. */
  readonly agentFor: (provider: string) => Agent | undefined;
  /** Workspace folder (absolute) the agents work in, or undefined. */
  readonly workspaceRoot: () => string | undefined;
  /** Kill `run` commands after this many ms. */
  readonly commandTimeoutMs?: () => number;
  readonly now?: () => number;
  readonly isAlive?: (instance: InstanceRecord) => boolean;
  readonly log?: (line: string) => void;
  /** Batch interval of streamed events, ms. */
  readonly flushIntervalMs?: number;
}

interface Waiter {
  readonly sessionId: string;
  readonly resolve: (outcome: BoundaryOutcome) => void;
}

interface ActiveRun {
  readonly runId: string;
  readonly turnId: string;
  readonly sessionId: string;
  readonly abort: AbortController;
  readonly waiters: Map<string, Waiter>;
  readonly ledger: RunLedger;
  done: Promise<void>;
  refused?: string;
}

/** `refresh` target meaning every open chat. */
export const ALL_SESSIONS = '*';

/** Default title of a new chat until its first prompt names it. */
export const NEW_CHAT_TITLE = 'New chat';

/** How a run ended, as `finishRun` records it. */
type RunEnd = {
  readonly status: 'completed' | 'failed' | 'stopped';
  readonly turnStatus: 'completed' | 'failed' | 'stopped';
  readonly errorClass?: ErrorClass;
  readonly message?: string;
};

/** A run whose end is to be written (see `ChatRuntime.writeEnd`). */
interface UnfinishedRun {
  readonly runId: string;
  readonly sessionId: string;
  readonly turnId: string;
  readonly end: RunEnd;
}

/** The transcript line for a Stop pressed in a window that does not drive the run. */
export const STOP_ELSEWHERE_NOTICE = 'Stop was pressed in a VS Code window other than the one running this reply.';

/** The chat runtime (see module docstring). */
export class ChatRuntime {
  private readonly active = new Map<string, ActiveRun>();
  private readonly listeners = new Set<(n: RuntimeNotification) => void>();
  private readonly now: () => number;
  private readonly log: (line: string) => void;
  private disposed = false;

  private readonly offExternal: () => void;

  /** Runs that ended here but whose end the journal refused (full disk), by run id. */
  private readonly unfinished = new Map<string, UnfinishedRun>();

  constructor(private readonly options: ChatRuntimeOptions) {
    this.now = options.now ?? Date.now;
    this.log = options.log ?? (() => undefined);
    this.offExternal = options.journal.onExternalChange((ids) => void this.onExternalChange(ids));
  }

  /**
   * Another window committed changes to these chats: a decision taken there reaches the run waiting
   * here (exactly once: the waiter is removed as it resolves), and views re-read the chats.
   */
  private async onExternalChange(sessionIds: readonly string[]): Promise<void> {
    // No session named, or every session ('*': the journal was reloaded): refresh every open chat.
    const all = sessionIds.length === 0 || sessionIds.includes(ALL_SESSIONS);
    if (all) this.emit({ type: 'refresh', sessionId: ALL_SESSIONS });
    for (const sessionId of all ? [...this.active.keys()] : sessionIds) {
      const active = this.active.get(sessionId);
      if (active && !active.abort.signal.aborted && (await this.stopRequestedFor(active))) {
        // Only the run the request names, and only if this window still drives it: the run may have
        // ended while the request was read (then there is nothing here to stop, and a Stop must not
        // be passed on to some other window's run of the chat).
        if (this.active.get(sessionId) === active && !active.abort.signal.aborted) {
          this.log(`[runtime] chat ${sessionId}: Stop pressed in another window`);
          await this.stopLocal(active);
        }
      }
      if (active) {
        for (const [requestId, waiter] of [...active.waiters]) {
          const row = await this.options.journal.read('getBoundaryRequest', requestId);
          if (!row || row.status === 'pending' || !active.waiters.has(requestId)) continue;
          active.waiters.delete(requestId);
          waiter.resolve({ approved: row.status === 'approved', decision: row.decision ?? 'deny', requestId });
        }
      }
      if (!all) this.emit({ type: 'refresh', sessionId });
    }
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
      if (!registered.ok) this.log(`[runtime] could not register this instance: ${registered.message}`);
    }
    return this.recoverOrphans();
  }

  /** Recovers in-flight runs whose owning host is dead; notifies views of what changed. */
  async recoverOrphans(): Promise<readonly RecoveredRun[]> {
    await this.retryUnfinished();
    const recovered = await recoverOrphanedRuns(this.options.journal, {
      selfInstanceId: this.options.instance.id,
      isAlive: this.options.isAlive ?? isInstanceAlive,
      now: this.now,
      log: this.log,
    });
    for (const r of recovered) {
      this.log(`[recovery] run ${r.runId} (turn ${r.turnId}) → ${r.errorClass}; closed requests: ${r.closedRequestIds.join(', ') || 'none'}`);
      this.publish(r.sessionId, r.events);
      const turn = await this.options.journal.read('getTurn', r.turnId);
      if (turn) this.emit({ type: 'update', sessionId: r.sessionId, update: { type: 'turn', turn } });
      this.emit({ type: 'live', sessionId: r.sessionId });
    }
    return recovered;
  }

  /** Subscribes to notifications; returns an unsubscribe function. */
  onNotification(listener: (n: RuntimeNotification) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ------------------------------------------------------------------ sessions

  /** Creates a chat with `provider` (refused when the journal refuses). */
  async createSession(provider: ProviderId | string, title = NEW_CHAT_TITLE): Promise<Result<SessionRecord, RuntimeRefusal>> {
    const at = this.now();
    const created = await this.options.journal.write('createSession', { id: randomUUID(), title, provider, createdAt: at, updatedAt: at });
    if (created.ok) this.emit({ type: 'session', session: created.value });
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
    const renamed = await this.options.journal.write('renameSession', sessionId, cleanTitle(title), this.now());
    if (!renamed.ok) return renamed;
    this.emit({ type: 'session', session: renamed.value.session });
    return ok(renamed.value.session);
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
      const where = this.active.has(sessionId) ? '' : ' in another VS Code window';
      return fail('busy', `The agent is still working on this chat${where}. Stop it first, then delete the chat.`);
    }
    this.log(`[runtime] chat ${sessionId} deleted`);
    this.emit({ type: 'deleted', sessionId });
    return ok(undefined);
  }

  /** Every chat, most recently updated first. */
  listSessions(): Promise<SessionRecord[]> {
    return this.options.journal.read('listSessions');
  }

  /** One chat or undefined. */
  getSession(id: string): Promise<SessionRecord | undefined> {
    return this.options.journal.read('getSession', id);
  }

  /** The chat's transcript rebuilt from the journal. */
  async transcript(sessionId: string): Promise<Transcript> {
    const [turns, events] = await Promise.all([
      this.options.journal.read('listTurns', sessionId),
      this.options.journal.read('listEvents', sessionId),
    ]);
    return buildTranscript(turns, events);
  }

  /**
   * Live facts of a chat: whether a run is in flight (here or in another live window) and which
   * pending requests may be answered from this window — those a live run waits on, here or in
   * another window. A pending request whose owner is dead is never actionable.
   */
  async liveState(sessionId: string): Promise<LiveState> {
    const run = this.active.get(sessionId);
    const actionable = new Set(run ? run.waiters.keys() : []);
    let running = run !== undefined;
    const pending = await this.options.journal.read('listSessionPendingBoundaryRequests', sessionId);
    const elsewhere = new Set((await this.runsElsewhere(sessionId)).map((r) => r.id));
    running ||= elsewhere.size > 0;
    for (const request of pending) if (request.runId && elsewhere.has(request.runId)) actionable.add(request.id);
    const fence = await this.options.journal.read('getFence', sessionId);
    return {
      running,
      actionableRequestIds: [...actionable],
      readOnlyReason: this.options.journal.readOnlyReason ?? fence,
    };
  }

  /** The chat's in-flight runs that another live window drives (a dead owner's run is not one). */
  private async runsElsewhere(sessionId: string): Promise<RunRecord[]> {
    const inFlight = (await this.options.journal.read('listRunsInFlight')).filter((r) => r.sessionId === sessionId && r.instanceId !== this.options.instance.id);
    const live: RunRecord[] = [];
    for (const r of inFlight) {
      const owner = await this.options.journal.read('getInstance', r.instanceId);
      if (owner && (this.options.isAlive ?? isInstanceAlive)(owner)) live.push(r);
    }
    return live;
  }

  /** How many other extension hosts (windows) are alive now, by the journal's `instances` table. */
  async otherLiveInstances(): Promise<number> {
    const alive = this.options.isAlive ?? isInstanceAlive;
    return (await this.options.journal.read('listInstances')).filter((i) => i.id !== this.options.instance.id && alive(i)).length;
  }

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
    const r = await this.options.journal.write('recordTab', sessionId, this.now(), this.workspaceKey);
    if (!r.ok) this.log(`[tabs] could not record tab of ${sessionId}: ${r.message}`);
  }

  /** Forgets a chat's tab (closed by the user). */
  async removeTab(sessionId: string): Promise<void> {
    const r = await this.options.journal.write('removeTab', sessionId);
    if (!r.ok) this.log(`[tabs] could not remove tab of ${sessionId}: ${r.message}`);
  }

  // ------------------------------------------------------------------ turns

  /** Sends a prompt: a new turn and run, driven by the chat's agent. */
  send(sessionId: string, prompt: string): Promise<Result<{ turnId: string }, RuntimeRefusal>> {
    return this.startTurn(sessionId, prompt, 'prompt', null);
  }

  /** Retries a failed turn: a new turn with the same prompt, linked to it. */
  async retry(sessionId: string, turnId: string): Promise<Result<{ turnId: string }, RuntimeRefusal>> {
    const turn = await this.followUpTarget(sessionId, turnId);
    if (!turn.ok) return turn;
    return this.startTurn(sessionId, turn.value.prompt, 'retry', turnId);
  }

  /** Continues a turn interrupted by a plain restart (`app_restarted`). */
  async continueTurn(sessionId: string, turnId: string): Promise<Result<{ turnId: string }, RuntimeRefusal>> {
    const turn = await this.followUpTarget(sessionId, turnId);
    if (!turn.ok) return turn;
    if (turn.value.errorClass !== 'app_restarted') return fail('not_retryable', 'Only a reply interrupted by a restart can be continued; use Retry.');
    return this.startTurn(sessionId, turn.value.prompt, 'continue', turnId);
  }

  private async followUpTarget(sessionId: string, turnId: string): Promise<Result<TurnRecord, RuntimeRefusal>> {
    const turn = await this.options.journal.read('getTurn', turnId);
    if (!turn || turn.sessionId !== sessionId) return fail('not_found', 'That turn is not part of this chat.');
    if (turn.status !== 'failed') return fail('not_retryable', 'Only a failed turn can be retried or continued.');
    if (isFollowedUp(await this.transcript(sessionId), turnId)) return fail('not_retryable', 'That turn was already retried or continued.');
    return ok(turn);
  }

  private async startTurn(
    sessionId: string,
    prompt: string,
    origin: TurnRecord['origin'],
    parentTurnId: string | null,
  ): Promise<Result<{ turnId: string }, RuntimeRefusal>> {
    const journal = this.options.journal;
    if (this.active.has(sessionId)) return fail('busy', 'The agent is still working on this chat. Wait for it or press Stop.');
    const session = await journal.read('getSession', sessionId);
    if (!session) return fail('not_found', 'This chat no longer exists in the journal.');
    const agent = this.options.agentFor(session.provider);
    if (!agent) return fail('no_agent', `The agent "${session.provider}" is not available in this version.`);
    const history = historyOf(await this.transcript(sessionId));
    const providerState = await journal.read('getProviderState', sessionId);
    const turnId = randomUUID();
    const runId = randomUUID();
    const at = this.now();
    // Reserve the session before the first await that could interleave with another send.
    if (this.active.has(sessionId)) return fail('busy', 'The agent is still working on this chat.');
    const abort = new AbortController();
    const active: ActiveRun = {
      runId, turnId, sessionId, abort, waiters: new Map(), done: Promise.resolve(),
      ledger: new RunLedger(
        this.runJournal(), runId, this.now,
        (events) => this.publish(sessionId, events),
        (message) => this.onRefused(active, message),
        this.options.flushIntervalMs,
      ),
    };
    this.active.set(sessionId, active);
    const started = await journal.write('startTurn', {
      turn: { id: turnId, sessionId, prompt, origin, parentTurnId, createdAt: at },
      run: { id: runId, instanceId: this.options.instance.id, provider: session.provider },
    });
    if (!started.ok) {
      this.active.delete(sessionId);
      return started;
    }
    this.log(`[runtime] chat ${sessionId}: turn ${turnId} (${origin}${parentTurnId ? ` of ${parentTurnId}` : ''}) started, run ${runId} with ${session.provider}`);
    this.emit({ type: 'update', sessionId, update: { type: 'turn', turn: started.value.turn } });
    this.emit({ type: 'live', sessionId });
    if (session.title === NEW_CHAT_TITLE && origin === 'prompt') void this.nameSession(session, prompt);
    active.done = this.drive(active, agent, { sessionId, turnId, prompt, origin, history, providerState, cwd: this.options.workspaceRoot() ?? process.cwd() });
    return ok({ turnId });
  }

  /** Resolves when the chat's current run (if any) has ended. */
  async whenIdle(sessionId: string): Promise<void> {
    await this.active.get(sessionId)?.done;
  }

  private async nameSession(session: SessionRecord, prompt: string): Promise<void> {
    // By code points: a cut through a surrogate pair (an emoji) was stored as replacement characters.
    const firstLine = [...(prompt.trim().split('\n')[0] ?? '')];
    const title = firstLine.length > 48 ? `${firstLine.slice(0, 47).join('')}…` : firstLine.join('');
    // Only while the chat still has the default title: the user may have renamed it meanwhile.
    const named = await this.options.journal.write('renameSession', session.id, title || NEW_CHAT_TITLE, this.now(), NEW_CHAT_TITLE);
    if (named.ok && named.value.renamed) this.emit({ type: 'session', session: named.value.session });
  }

  private async drive(active: ActiveRun, agent: Agent, request: Parameters<Agent['runTurn']>[0]): Promise<void> {
    const ctx = this.contextFor(active);
    let outcome: Awaited<ReturnType<Agent['runTurn']>>;
    try {
      outcome = await agent.runTurn(request, ctx);
    } catch (error) {
      outcome = { status: 'failed', errorClass: 'agent_error', message: `The agent failed: ${(error as Error).message}` };
    }
    // A host shutting down leaves the run as it is: the next host's recovery settles it honestly.
    if (this.disposed) return;
    try {
      await this.finishDrive(active, outcome);
    } catch (error) {
      this.log(`[runtime] ending run ${active.runId} failed: ${(error as Error).message}`);
      this.active.delete(active.sessionId);
      this.emit({ type: 'live', sessionId: active.sessionId });
    }
  }

  private async finishDrive(active: ActiveRun, outcome: Awaited<ReturnType<Agent['runTurn']>>): Promise<void> {
    await active.ledger.flush();
    // A refused write aborts the run too (`onRefused`): that run ends as journal_refused, not as a Stop.
    const stopped = active.abort.signal.aborted && !active.refused;
    // Nothing the run left waiting stays pending or running after it ends.
    await this.closeWaiters(active, stopped ? 'run_stopped' : 'run_ended');
    const finish: RunEnd = stopped
      ? { status: 'stopped', turnStatus: 'stopped', message: 'Stopped.' }
      : active.refused
        ? { status: 'failed', turnStatus: 'failed', errorClass: 'journal_refused', message: active.refused }
        : outcome.status === 'completed'
          ? { status: 'completed', turnStatus: 'completed' }
          : { status: 'failed', turnStatus: 'failed', errorClass: outcome.errorClass, message: outcome.message };
    const run = { runId: active.runId, sessionId: active.sessionId, turnId: active.turnId, end: finish };
    const ended = await this.writeEnd(run, () => this.active.delete(active.sessionId));
    if (!ended) {
      // Kept to be written again (`recoverOrphans`, every few seconds): left in flight in the
      // journal, the run would look live to every other window for as long as this one lives.
      this.unfinished.set(active.runId, run);
      this.emit({ type: 'live', sessionId: active.sessionId });
    }
  }

  /**
   * Writes a run's end: closes its open invocations, then `finishRun`. `onDurable` runs as soon as
   * the end is durable, before anything is published (nothing may read "ended" yet find it live).
   * False when the journal refused the end (it was logged).
   */
  private async writeEnd(run: UnfinishedRun, onDurable: () => void = () => undefined): Promise<boolean> {
    const journal = this.options.journal;
    const stopped = run.end.status === 'stopped';
    for (const inv of await journal.read('listOpenInvocations', run.runId)) {
      const r = await journal.write('finishInvocation', stopped
        ? { id: inv.id, status: 'stopped', message: 'Stopped.', at: this.now() }
        : { id: inv.id, status: 'failed', message: 'The run ended first.', at: this.now() });
      if (r.ok) this.publish(run.sessionId, r.value.events);
    }
    const finished = await journal.write('finishRun', { runId: run.runId, ...run.end, at: this.now() });
    onDurable();
    if (!finished.ok) {
      this.log(`[runtime] could not finish run ${run.runId}: ${finished.message}`);
      return false;
    }
    this.log(`[runtime] run ${run.runId} ${run.end.status}${run.end.errorClass ? ` (${run.end.errorClass})` : ''}`);
    this.publish(run.sessionId, finished.value.events);
    this.emit({ type: 'live', sessionId: run.sessionId });
    const turn = await journal.read('getTurn', run.turnId);
    if (turn) this.emit({ type: 'update', sessionId: run.sessionId, update: { type: 'turn', turn } });
    return true;
  }

  /** Writes again the ends of runs the journal refused earlier (see `finishDrive`). */
  private async retryUnfinished(): Promise<void> {
    for (const run of [...this.unfinished.values()]) {
      if (this.disposed) return;
      if (await this.writeEnd(run)) this.unfinished.delete(run.runId);
      else return; // still refused: try again at the next check
    }
  }

  /**
   * The journal as a run sees it: once this host is shutting down (`dispose`), every write answers
   * `closed` and changes nothing, so aborting a running tool on the way out is never journaled as a
   * user's Stop; the next host's recovery settles the run instead.
   */
  private runJournal(): Pick<Journal, 'read' | 'write'> {
    const journal = this.options.journal;
    return {
      read: (op, ...args) => journal.read(op, ...args),
      write: (op, ...args) =>
        this.disposed ? Promise.resolve(fail('closed', 'The extension host is shutting down.')) : journal.write(op, ...args),
    };
  }

  private contextFor(active: ActiveRun): AgentTurnContext {
    const journal = this.runJournal();
    const ctx: AgentTurnContext = {
      signal: active.abort.signal,
      text: (delta) => active.ledger.text(delta),
      tools: undefined as never,
      startInvocation: async (tool, input, summary, diff): Promise<InvocationHandle> => {
        await active.ledger.flush();
        const id = randomUUID();
        const started = await journal.write('startInvocation', {
          id, runId: active.runId, tool, input: JSON.stringify(input ?? null), summary, ...(diff ? { diff } : {}), at: this.now(),
        });
        if (started.ok) this.publish(active.sessionId, started.value);
        else this.onRefused(active, started.message);
        return {
          id,
          output: (chunk) => active.ledger.output(id, chunk),
          processStarted: (group) => active.ledger.processGroup(id, group),
          finish: async (result) => {
            await active.ledger.flush();
            const finished = await journal.write('finishInvocation', { id, ...result, at: this.now() });
            if (finished.ok) this.publish(active.sessionId, finished.value.events);
          },
        };
      },
      requestBoundary: async (request) => {
        await active.ledger.flush();
        const requestId = randomUUID();
        const denied: BoundaryOutcome = { approved: false, decision: 'deny', requestId };
        if (active.abort.signal.aborted || active.refused) return denied;
        const granted = !request.ignoreSessionGrant && (await journal.read('hasSessionGrant', active.sessionId, request.scopeKey));
        const created = await journal.write('createBoundaryRequest', {
          id: requestId, runId: active.runId, invocationId: request.invocationId ?? null, kind: request.kind,
          subject: request.subject, why: request.why, detail: request.detail ?? null, scopeKey: request.scopeKey,
          ...(request.grants ? { grants: request.grants } : {}),
          at: this.now(), autoApproved: granted,
        });
        if (!created.ok) {
          this.onRefused(active, created.message);
          return denied;
        }
        this.publish(active.sessionId, created.value.events);
        if (granted) return { approved: true, decision: 'allow_session', requestId };
        const outcome = new Promise<BoundaryOutcome>((resolve) => active.waiters.set(requestId, { sessionId: active.sessionId, resolve }));
        this.emit({ type: 'live', sessionId: active.sessionId });
        return outcome;
      },
      setProviderState: async (state) => {
        const r = await journal.write('setProviderState', active.sessionId, state, this.now());
        if (!r.ok) this.onRefused(active, r.message);
      },
    };
    return {
      ...ctx,
      tools: new SandboxedToolRunner(ctx, {
        workspaceRoot: this.options.workspaceRoot(),
        commandTimeoutMs: this.options.commandTimeoutMs?.() ?? 30_000,
      }),
    };
  }

  /** A journal write of a run was refused: stop the run and remember why (shown on the turn). */
  private onRefused(active: ActiveRun, message: string): void {
    this.log(`[runtime] journal refused a write of run ${active.runId}: ${message}`);
    if (!active.abort.signal.aborted) active.refused ??= message; // after a Stop, it stays a Stop
    active.abort.abort();
  }

  // ------------------------------------------------------------------ decisions and stop

  /**
   * Decides a pending boundary request owned by a live run of this runtime. The decision reaches
   * the agent exactly once: a second decision (or one for a request already settled elsewhere)
   * is refused with `already_decided`.
   */
  async decide(sessionId: string, requestId: string, decision: BoundaryDecision): Promise<Result<{ approved: boolean }, RuntimeRefusal>> {
    const journal = this.options.journal;
    const active = this.active.get(sessionId);
    const waiter = active?.waiters.get(requestId);
    if (!active || !waiter) {
      const row = await journal.read('getBoundaryRequest', requestId);
      if (!row || row.sessionId !== sessionId) return fail('not_found', 'That request is not part of this chat.');
      if (row.status !== 'pending') return fail('already_decided', describeSettled(row.status));
      if (!(await this.liveState(sessionId)).actionableRequestIds.includes(requestId)) {
        return fail('not_actionable', 'No running agent is waiting for this request any more, so it cannot be answered.');
      }
      // Owned by a live run in another window: the decision goes through the journal, which that
      // window reads within its poll interval and hands to its agent.
      const approvedElsewhere = decision !== 'deny';
      const settledElsewhere = await journal.write('settleBoundaryRequest', {
        id: requestId, status: approvedElsewhere ? 'approved' : 'denied', decision, closureReason: 'user_decision', at: this.now(),
      });
      if (!settledElsewhere.ok) return settledElsewhere;
      if (!settledElsewhere.value.settled) return fail('already_decided', describeSettled(settledElsewhere.value.request.status));
      this.publish(sessionId, settledElsewhere.value.events);
      this.emit({ type: 'live', sessionId });
      return ok({ approved: approvedElsewhere });
    }
    const approved = decision !== 'deny';
    const settled = await journal.write('settleBoundaryRequest', {
      id: requestId, status: approved ? 'approved' : 'denied', decision, closureReason: 'user_decision', at: this.now(),
    });
    if (!settled.ok) return settled;
    if (!settled.value.settled) {
      // Another window decided first: hand its decision to the waiting agent, then say so here.
      active.waiters.delete(requestId);
      const row = settled.value.request;
      waiter.resolve({ approved: row.status === 'approved', decision: row.decision ?? 'deny', requestId });
      this.emit({ type: 'live', sessionId });
      return fail('already_decided', describeSettled(row.status));
    }
    active.waiters.delete(requestId);
    this.log(`[runtime] request ${requestId}: ${decision}`);
    this.publish(sessionId, settled.value.events);
    this.emit({ type: 'live', sessionId });
    waiter.resolve({ approved, decision, requestId });
    return ok({ approved });
  }

  /**
   * Stops the chat's run: aborts the agent and closes its waiting requests. When another live
   * window drives the run, asks that window through the journal (`requestStop`, a notice in the
   * transcript); it stops the run when it sees the request (within its poll interval, 50 ms), as
   * if Stop had been pressed there. `stopped` is false when there was nothing to stop.
   */
  async stop(sessionId: string): Promise<Result<{ stopped: boolean }, RuntimeRefusal>> {
    const active = this.active.get(sessionId);
    if (!active) return this.askOwnerToStop(sessionId);
    return ok({ stopped: await this.stopLocal(active) });
  }

  /** Stops a run this window drives; false when it was already stopping (a replayed Stop). */
  private async stopLocal(active: ActiveRun): Promise<boolean> {
    // A replayed Stop (already stopping) never interrupts twice.
    if (active.abort.signal.aborted) return false;
    // The interrupt comes first: bookkeeping writes below may fail (full disk) without blocking it.
    active.abort.abort();
    this.log(`[runtime] chat ${active.sessionId}: Stop (run ${active.runId})`);
    await this.closeWaiters(active, 'run_stopped');
    return true;
  }

  /** Whether another window asked to stop `active`'s run; a failed read is logged and answers no. */
  private async stopRequestedFor(active: ActiveRun): Promise<boolean> {
    try {
      return await this.options.journal.read('stopRequested', active.runId);
    } catch (error) {
      this.log(`[runtime] could not read stop requests of run ${active.runId}: ${(error as Error).message}`);
      return false;
    }
  }

  /**
   * Asks every other live window's in-flight run of the chat to stop (`requestStop` is once per
   * run). Every run, not just the first: a run its owner could not finish (full disk) stays in
   * flight in the journal, and asking only it would leave the reply actually running unstoppable.
   */
  private async askOwnerToStop(sessionId: string): Promise<Result<{ stopped: boolean }, RuntimeRefusal>> {
    let stopped = false;
    for (const run of await this.runsElsewhere(sessionId)) {
      const asked = await this.options.journal.write('requestStop', run.id, this.options.instance.id, STOP_ELSEWHERE_NOTICE, this.now());
      if (!asked.ok) return asked;
      if (asked.value.length === 0) continue; // it ended, or was asked already
      this.log(`[runtime] chat ${sessionId}: Stop asked of the window driving run ${run.id}`);
      this.publish(sessionId, asked.value);
      stopped = true;
    }
    if (stopped) this.emit({ type: 'live', sessionId });
    return ok({ stopped });
  }

  private async closeWaiters(active: ActiveRun, closureReason: 'run_stopped' | 'run_ended'): Promise<void> {
    for (const [requestId, waiter] of [...active.waiters]) {
      active.waiters.delete(requestId);
      const settled = await this.options.journal.write('settleBoundaryRequest', {
        id: requestId, status: 'denied', decision: 'deny', closureReason, at: this.now(),
      });
      if (settled.ok) this.publish(active.sessionId, settled.value.events);
      waiter.resolve({ approved: false, decision: 'deny', requestId });
    }
    this.emit({ type: 'live', sessionId: active.sessionId });
  }

  /**
   * The host is shutting down: kill running tools, write nothing more. Runs and their pending
   * boundary requests stay as the journal has them, so the next host's recovery settles them
   * (`host_restarted`) rather than this host calling them stopped.
   */
  dispose(): void {
    this.disposed = true;
    this.offExternal();
    for (const active of this.active.values()) active.abort.abort();
    this.listeners.clear();
  }

  // ------------------------------------------------------------------ notifications

  private publish(sessionId: string, events: readonly LedgerEvent[]): void {
    for (const event of events) this.emit({ type: 'update', sessionId, update: { type: 'event', event } });
  }

  private emit(n: RuntimeNotification): void {
    for (const listener of this.listeners) {
      try {
        listener(n);
      } catch (error) {
        this.log(`[runtime] listener failed: ${(error as Error).message}`);
      }
    }
  }
}

/** Earlier exchanges of a transcript, for agents without their own history. */
export function historyOf(transcript: Transcript): HistoryEntry[] {
  const history: HistoryEntry[] = [];
  for (const turn of transcript.turns) {
    history.push({ role: 'user', text: turn.prompt });
    const text = turn.items.filter((i) => i.type === 'text').map((i) => (i as { text: string }).text).join('');
    if (text) history.push({ role: 'assistant', text });
  }
  return history;
}

/** The `already_decided` refusal; why it was settled is the closure reason its card words (webview/errorClassView.ts). */
function describeSettled(status: string): string {
  return `This request was already decided (${status}); its card says why.`;
}
