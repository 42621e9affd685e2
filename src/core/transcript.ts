/**
 * The transcript projection: turns plus their runs' ledger events folded into what the chat shows.
 *
 * One reducer serves both sides: the host builds a snapshot from the journal with it, and the webview
 * applies live updates with the same function, so a restored tab and a live tab can never disagree.
 * Pure and immutable: every call returns new objects and never mutates its input.
 */
import type { EventPayloads, LedgerEvent, TurnRecord } from './events';
import type {
  BoundaryDecision, BoundaryStatus, ClosureReason, ErrorClass, InvocationStatus, TurnStatus,
} from './vocabulary';

/** A rendered piece of a turn, in ledger order. */
export type TranscriptItem =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'invocation';
      readonly id: string;
      readonly tool: string;
      readonly summary: string;
      readonly status: InvocationStatus;
      readonly output: string;
      readonly diff?: string;
      readonly failureClass?: ErrorClass;
      readonly exitCode?: number | null;
      readonly message?: string;
      /** Recovery found its command still running after its host died and stopped it. */
      readonly processGroupStopped?: boolean;
      /** When it last started running (ms since the epoch, the host's clock): started, or approved. */
      readonly runningSince?: number;
      /** When it finished (ms since the epoch, the host's clock): its `invocation_finished` event. */
      readonly finishedAt?: number;
      /** Its output outgrew `MAX_INVOCATION_OUTPUT_CHARS`: `output` holds only the end of it. */
      readonly outputCut?: true;
    }
  /** A boundary request's card: what was asked (as journaled) and how it was settled. */
  | (Omit<EventPayloads['boundary_requested'], 'requestId'> & {
      readonly type: 'boundary';
      readonly id: string;
      readonly status: BoundaryStatus;
      readonly decision?: BoundaryDecision;
      readonly closureReason?: ClosureReason;
    })
  | { readonly type: 'notice'; readonly level: 'info' | 'warning' | 'error'; readonly message: string };

/** A turn with its items. */
export interface TranscriptTurn extends TurnRecord {
  readonly items: readonly TranscriptItem[];
  /** Highest ledger seq applied per run id (dedupes replays of the same event). */
  readonly applied: Readonly<Record<string, number>>;
}

/** The whole transcript of a session, oldest turn first. */
export interface Transcript {
  readonly turns: readonly TranscriptTurn[];
}

/**
 * A turn's place in its chat's order (its journal sequence `seq`, then id): a page cursor. Stable
 * while turns are added, since a new turn's sequence is above every turn's that existed when it was
 * written, whatever the host's clock said (a clock stepped back never moves a turn up).
 */
export interface TurnCursor {
  readonly seq: number;
  readonly id: string;
}

/** The cursor of a turn. */
export function cursorOf(turn: Pick<TurnRecord, 'seq' | 'id'>): TurnCursor {
  return { seq: turn.seq, id: turn.id };
}

/** Negative when `a` sorts before `b` in a chat's order, 0 when they are the same turn, else positive. */
export function compareCursors(a: TurnCursor, b: TurnCursor): number {
  return a.seq - b.seq || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Updates the reducer accepts. */
export type TranscriptUpdate =
  | { readonly type: 'turn'; readonly turn: TurnRecord }
  | { readonly type: 'event'; readonly event: LedgerEvent };

/** The empty transcript. */
export const EMPTY_TRANSCRIPT: Transcript = { turns: [] };

/** Most characters of invocation output kept in the projection (older output is cut from the front). */
export const MAX_INVOCATION_OUTPUT_CHARS = 64 * 1024;

/**
 * Applies one update. A `turn` update inserts or replaces the turn's record (keeping its items);
 * an `event` whose turn is unknown is ignored, and an event with a seq already applied for its run
 * is ignored (idempotent replays).
 */
export function applyUpdate(transcript: Transcript, update: TranscriptUpdate): Transcript {
  if (update.type === 'turn') {
    const index = turnIndex(transcript.turns, update.turn.id);
    if (index < 0) {
      const turns = [...transcript.turns, { ...update.turn, items: [], applied: {} }];
      turns.sort(compareCursors);
      return { turns };
    }
    const existing = transcript.turns[index]!;
    // A turn only moves from running to a terminal state: an older record never undoes a newer one.
    if (existing.status !== 'running' && update.turn.status === 'running') return transcript;
    return replaceTurn(transcript, index, { ...existing, ...update.turn, items: existing.items, applied: existing.applied });
  }
  const event = update.event;
  const index = turnIndex(transcript.turns, event.turnId);
  if (index < 0) return transcript;
  const turn = transcript.turns[index]!;
  if ((turn.applied[event.runId] ?? 0) >= event.seq) return transcript;
  const applied = { ...turn.applied, [event.runId]: event.seq };
  return replaceTurn(transcript, index, { ...applyEventToTurn(turn, event), applied });
}

/**
 * The transcript of `turns` and `events`: the same as applying every turn record, then every event,
 * with `applyUpdate` in order, in time linear in their number. (A turn keeps its sequence: a
 * later record of a turn with another one would be ordered by the new one here, by the old there.) (The fold copied and searched the whole
 * turn list per update: a 5,000-turn chat took seconds; docs/BENCHMARKS.md, long chats.)
 */
export function buildTranscript(turns: readonly TurnRecord[], events: readonly LedgerEvent[]): Transcript {
  const byId = new Map<string, TranscriptTurn>();
  for (const record of turns) {
    const existing = byId.get(record.id);
    if (!existing) byId.set(record.id, { ...record, items: [], applied: {} });
    // A turn only moves from running to a terminal state: an older record never undoes a newer one.
    else if (existing.status === 'running' || record.status !== 'running') byId.set(record.id, { ...existing, ...record, items: existing.items, applied: existing.applied });
  }
  for (const event of events) {
    const turn = byId.get(event.turnId);
    if (!turn || (turn.applied[event.runId] ?? 0) >= event.seq) continue;
    byId.set(event.turnId, { ...applyEventToTurn(turn, event), applied: { ...turn.applied, [event.runId]: event.seq } });
  }
  // The chat's order (journal sequence, then id), as inserting one turn at a time and sorting after each does.
  return { turns: [...byId.values()].sort(compareCursors) };
}

/** The index of turn `id` in `turns` (-1: none), searched from the newest: the turn an update is about almost always is. */
function turnIndex(turns: readonly TranscriptTurn[], id: string): number {
  for (let i = turns.length - 1; i >= 0; i--) if (turns[i]!.id === id) return i;
  return -1;
}

function replaceTurn(transcript: Transcript, index: number, turn: TranscriptTurn): Transcript {
  const turns = transcript.turns.slice();
  turns[index] = turn;
  return { turns };
}

function mapItem<T extends TranscriptItem['type']>(
  items: readonly TranscriptItem[],
  type: T,
  id: string,
  change: (item: Extract<TranscriptItem, { type: T }>) => TranscriptItem,
): readonly TranscriptItem[] {
  return items.map((item) => (item.type === type && 'id' in item && item.id === id ? change(item as Extract<TranscriptItem, { type: T }>) : item));
}

function applyEventToTurn(turn: TranscriptTurn, event: LedgerEvent): TranscriptTurn {
  switch (event.kind) {
    case 'text': {
      const last = turn.items[turn.items.length - 1];
      if (last && last.type === 'text') {
        return { ...turn, items: [...turn.items.slice(0, -1), { type: 'text', text: last.text + event.payload.text }] };
      }
      return { ...turn, items: [...turn.items, { type: 'text', text: event.payload.text }] };
    }
    case 'invocation_started': {
      const p = event.payload;
      return {
        ...turn,
        items: [...turn.items, { type: 'invocation', id: p.invocationId, tool: p.tool, summary: p.summary, status: 'running', output: '', runningSince: event.at, ...(p.diff ? { diff: p.diff } : {}) }],
      };
    }
    case 'invocation_output': {
      const p = event.payload;
      return {
        ...turn,
        items: mapItem(turn.items, 'invocation', p.invocationId, (item) => {
          const whole = item.output + p.chunk;
          const output = whole.slice(-MAX_INVOCATION_OUTPUT_CHARS);
          return { ...item, output, ...(output.length < whole.length ? { outputCut: true as const } : {}) };
        }),
      };
    }
    case 'invocation_finished': {
      const p = event.payload;
      return {
        ...turn,
        items: mapItem(turn.items, 'invocation', p.invocationId, (item) => ({
          ...item,
          status: p.status,
          finishedAt: event.at,
          ...(p.failureClass ? { failureClass: p.failureClass } : {}),
          ...(p.exitCode !== undefined ? { exitCode: p.exitCode } : {}),
          ...(p.message ? { message: p.message } : {}),
          ...(p.processGroupStopped ? { processGroupStopped: true } : {}),
        })),
      };
    }
    case 'boundary_requested':
      return withBoundaryRequested(turn, event);
    case 'boundary_decided':
      return withBoundaryDecided(turn, event);
    case 'run_finished': {
      const p = event.payload;
      return { ...turn, status: p.turnStatus, errorClass: p.errorClass ?? null, ...(p.message ? { items: [...turn.items, { type: 'notice', level: p.turnStatus === 'failed' ? 'error' : 'info', message: p.message }] } : {}) };
    }
    case 'notice':
      return { ...turn, items: [...turn.items, { type: 'notice', level: event.payload.level, message: event.payload.message }] };
  }
}

/** A boundary request's card joins the turn; the invocation that asked waits for the answer. */
function withBoundaryRequested(turn: TranscriptTurn, event: Extract<LedgerEvent, { kind: 'boundary_requested' }>): TranscriptTurn {
  const p = event.payload;
  const items = p.invocationId
    ? mapItem(turn.items, 'invocation', p.invocationId, (item) => ({ ...item, status: 'awaiting_approval' as const }))
    : turn.items;
  return {
    ...turn,
    items: [
      ...items,
      {
        type: 'boundary',
        id: p.requestId,
        ...(p.invocationId ? { invocationId: p.invocationId } : {}),
        kind: p.kind,
        subject: p.subject,
        why: p.why,
        ...(p.diff ? { diff: p.diff } : {}),
        ...(p.grants ? { grants: p.grants } : {}),
        status: 'pending',
      },
    ],
  };
}

/** A decided request's card says how; an approved invocation runs from the moment of the approval. */
function withBoundaryDecided(turn: TranscriptTurn, event: Extract<LedgerEvent, { kind: 'boundary_decided' }>): TranscriptTurn {
  const p = event.payload;
  let items = mapItem(turn.items, 'boundary', p.requestId, (item) => ({
    ...item,
    status: p.status,
    decision: p.decision,
    closureReason: p.closureReason,
  }));
  const request = items.find((i) => i.type === 'boundary' && i.id === p.requestId);
  if (p.status === 'approved' && request && request.type === 'boundary' && request.invocationId) {
    items = mapItem(items, 'invocation', request.invocationId, (item) => (item.status === 'awaiting_approval' ? { ...item, status: 'running', runningSince: event.at } : item));
  }
  return { ...turn, items };
}

/** Status helpers the webview uses. */
export function isTurnTerminal(status: TurnStatus): boolean {
  return status !== 'running';
}

/**
 * The boundary request a restart closed in this turn, if any (the one the banner names):
 * the last `boundary` item denied with closure reason `host_restarted`.
 */
export function restartClosedRequest(turn: TranscriptTurn): Extract<TranscriptItem, { type: 'boundary' }> | undefined {
  for (let i = turn.items.length - 1; i >= 0; i--) {
    const item = turn.items[i]!;
    if (item.type === 'boundary' && item.status === 'denied' && item.closureReason === 'host_restarted') return item;
  }
  return undefined;
}

/** True when a later turn already retries or continues `turnId` (its Retry/Continue is spent). */
export function isFollowedUp(transcript: Transcript, turnId: string): boolean {
  return transcript.turns.some((t) => t.parentTurnId === turnId);
}
