/**
 * Full-text search over every chat: prompts (`prompt_search`) and the text of replies, tool output,
 * tool summaries and notices (`event_search`), the FTS4 indexes migration 4 keeps in the same
 * transaction as their rows (schema.ts). One result per turn, newest first.
 *
 * Each index is read newest first (`ORDER BY docid DESC`: docids grow with insertion, which FTS4
 * returns in that order without sorting), in one statement stepped only until `limit` distinct
 * turns were found or `MAX_SCANNED` matches were read, so a word found in half the journal costs a
 * bounded read; the two lists are merged by the journal's sequence (the turn's `search_doc`, then the
 * event's id; a prompt comes before its turn's events), never by time, which the host's clock may
 * have stepped back. Rank (bm25-like) was not chosen: it needs every match scored before the
 * first is returned (a common word at 200 MB would read all of them), and a history is searched for
 * something recent far more often than for the "best" match. Snippets are cut from the row's own
 * text (core/searchQuery.ts), for the returned results only.
 */
import { fail, ok, type Result } from '../../core/result';
import { parseSearchQuery, searchQueryProblem, snippetFor, textMatches, wholeWordFirst, type SearchQuery } from '../../core/searchQuery';
import { INDEXED_EVENT_TEXT } from '../schema';
import type { SqlValue } from 'sql.js';
import type { JournalDb } from './database';

/** What a match was found in: the prompt, the agent's reply, a command's output, a tool call's summary, a notice. */
export type SearchHitKind = 'prompt' | 'reply' | 'output' | 'tool' | 'notice';

/** One search result: the newest match in one turn. Times in ms since the epoch. */
export interface SearchResult {
  readonly sessionId: string;
  /** The chat's title. */
  readonly title: string;
  readonly turnId: string;
  /** When the matched item was written (the event's time, or the turn's for a prompt). */
  readonly createdAt: number;
  readonly kind: SearchHitKind;
  /** The matched event's id (null for a prompt): where in the turn to mark the match. */
  readonly eventId: number | null;
  /** Part of the matched text around the match, on one line (see core/searchQuery.ts `snippetFor`). */
  readonly snippet: string;
  /** [start, end) offsets of each match in `snippet` (UTF-16 code units). */
  readonly matchRanges: readonly (readonly [number, number])[];
}

/** Options of `searchChats`. */
export interface SearchOptions {
  /** Most results (turns) returned; default 50, at most 200. */
  readonly limit?: number;
  /** Only chats of this workspace folder (see `SessionRecord.workspace`); unset: every chat. */
  readonly workspace?: string;
}

/** Why a search was refused: nothing in the query to search for (`searchQueryProblem` says it in words), or a journal read-only at a schema without the index (`not_indexed`). */
export type SearchRefusal = 'empty_query' | 'not_indexed';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;
/**
 * Most matches read from one index per search: bounds the cost of a word that a few turns hold
 * thousands of times (a long command output); each match read newest first is a docid, cheap.
 */
const MAX_SCANNED = 20_000;
/** Matches resolved to their turns by the first statement; each next one takes twice as many, up to MAX_CHUNK. */
const FIRST_CHUNK = 128;
const MAX_CHUNK = 4096;

const EVENT_KIND_HITS: Readonly<Record<string, SearchHitKind>> = { text: 'reply', invocation_output: 'output', invocation_started: 'tool', notice: 'notice' };

/** A match before its snippet: the newest of its turn. */
interface Hit {
  readonly sessionId: string;
  readonly turnId: string;
  /** The turn's place in the journal's sequence (`turns.search_doc`): what orders the results. */
  readonly turnSeq: number;
  readonly at: number;
  readonly kind: SearchHitKind;
  /** The matched event's id (null for a prompt). */
  readonly eventId: number | null;
  /** The matched text when it was read with the match (pending events); otherwise read once the hit is chosen. */
  readonly text: string | null;
}

/**
 * The operations of this concern (see module docstring): one object of `JournalCore`'s composition
 * (../core.ts), given the database (`db`).
 */
export class SearchOps {
  constructor(private readonly db: JournalDb) {}

  /**
   * Searches every chat's prompts, replies, command output, tool summaries and notices for the
   * words of `query` (all of them; the last also as a prefix, see core/searchQuery.ts
   * `wholeWordFirst` for a short one), newest first, one result per turn.
   * User text is never FTS syntax (core/searchQuery.ts), so no query makes this throw; a query
   * without a word to search for is refused (`empty_query`, with a sentence).
   */
  searchChats(query: string, options: SearchOptions = {}): Result<SearchResult[], SearchRefusal> {
    const parsed = parseSearchQuery(query);
    if (!parsed) return fail('empty_query', searchQueryProblem(query)!);
    // A journal read-only at a schema before 4 (a newer build's migration failed here) has no index.
    if (this.db.userVersion() < 4) return fail('not_indexed', 'Search needs the chat journal in this version\'s format, and it could not be updated (see the notification): chats can be opened, not searched.');
    const limit = Math.max(1, Math.min(MAX_LIMIT, Math.floor(options.limit ?? DEFAULT_LIMIT) || DEFAULT_LIMIT));
    const workspace = options.workspace;
    // A short last word common enough to fill the results is taken whole (core/searchQuery.ts).
    const whole = wholeWordFirst(parsed);
    let used = whole ?? parsed;
    let chosen = this.newestHits(used, limit, workspace);
    if (whole && chosen.length < limit) chosen = this.newestHits((used = parsed), limit, workspace);
    const titles = new Map<string, string>();
    const titleOf = (id: string) => titles.get(id) ?? titles.set(id, String(this.db.one('SELECT title FROM sessions WHERE id = ?', [id])?.title ?? '')).get(id)!;
    return ok(chosen.map((hit) => this.withSnippet(hit, titleOf(hit.sessionId), used)));
  }

  /** The newest match of each of the newest `limit` matching turns, newest first, without snippets. */
  private newestHits(query: SearchQuery, limit: number, workspace: string | undefined): Hit[] {
    const hits = new Map<string, Hit>();
    for (const hit of [...this.pendingHits(query, workspace), ...this.eventHits(query, limit, workspace), ...this.promptHits(query, limit, workspace)]) {
      const kept = hits.get(hit.turnId);
      // The newest match of a turn: its latest event (ids grow as events are written), else its prompt.
      if (!kept || (hit.eventId ?? 0) > (kept.eventId ?? 0)) hits.set(hit.turnId, hit);
    }
    return [...hits.values()].sort((a, b) => b.turnSeq - a.turnSeq || (b.eventId ?? 0) - (a.eventId ?? 0)).slice(0, limit);
  }

  /** The newest event match of each turn, for the newest `limit` turns (see `newestPerTurn`). */
  private eventHits(query: SearchQuery, limit: number, workspace: string | undefined): Hit[] {
    // Per turn, the row of its newest match in the chunk (SQLite gives a lone MAX()'s row to the bare columns).
    const resolve = `SELECT MAX(e.id), e.session_id, e.turn_id, e.kind, e.at, (SELECT search_doc FROM turns WHERE id = e.turn_id) FROM json_each(?1) j JOIN events e ON e.id = j.value
      ${workspace === undefined ? '' : 'JOIN sessions s ON s.id = e.session_id AND s.workspace = ?2'}
      GROUP BY e.turn_id ORDER BY 1 DESC`;
    const match = 'SELECT docid FROM event_search WHERE event_search MATCH ? ORDER BY docid DESC';
    return this.newestPerTurn(match, resolve, query, limit, workspace, ([id, sessionId, turnId, kind, at, turnSeq]) => ({
      sessionId: sessionId as string, turnId: turnId as string, turnSeq: Number(turnSeq ?? 0), at: at as number,
      kind: EVENT_KIND_HITS[kind as string] ?? 'reply', eventId: id as number, text: null,
    }));
  }

  /**
   * Matches among the events not in the index yet (at most SEARCH_BATCH, the newest: schema.ts,
   * migration 4), matched here as the index would (`textMatches`).
   */
  private pendingHits(query: SearchQuery, workspace: string | undefined): Hit[] {
    const rows = this.db.all(
      `SELECT e.id, e.session_id, e.turn_id, e.kind, e.payload, e.at, (SELECT search_doc FROM turns WHERE id = e.turn_id) AS turn_seq FROM event_search_pending p
       JOIN events e ON e.id = p.id ${workspace === undefined ? '' : 'JOIN sessions s ON s.id = e.session_id AND s.workspace = ?'}`,
      workspace === undefined ? [] : [workspace],
    );
    const hits: Hit[] = [];
    for (const r of rows) {
      const text = indexedText(r.kind, r.payload);
      if (!textMatches(text, query)) continue;
      hits.push({
        sessionId: r.session_id as string, turnId: r.turn_id as string, turnSeq: Number(r.turn_seq ?? 0), at: r.at as number,
        kind: EVENT_KIND_HITS[r.kind as string] ?? 'reply', eventId: r.id as number, text,
      });
    }
    return hits;
  }

  /** The newest prompt matches, up to `limit` turns (a turn has one prompt). */
  private promptHits(query: SearchQuery, limit: number, workspace: string | undefined): Hit[] {
    const resolve = `SELECT t.search_doc, t.session_id, t.id, t.created_at FROM json_each(?1) j JOIN turns t ON t.search_doc = j.value
      ${workspace === undefined ? '' : 'JOIN sessions s ON s.id = t.session_id AND s.workspace = ?2'}
      ORDER BY 1 DESC`;
    const match = 'SELECT docid FROM prompt_search WHERE prompt_search MATCH ? ORDER BY docid DESC';
    return this.newestPerTurn(match, resolve, query, limit, workspace, ([turnSeq, sessionId, turnId, at]) => ({
      sessionId: sessionId as string, turnId: turnId as string, turnSeq: Number(turnSeq), at: at as number,
      kind: 'prompt', eventId: null, text: null,
    }));
  }

  /**
   * Reads the docids of `match` newest first in one statement, stepped only as far as needed: an
   * FTS4 prefix term merges the doclists of all its words when the statement starts, so a query
   * run again in batches would pay that merge for every batch. The docids
   * go to `resolve` in growing chunks (a JSON array; it returns each turn's newest row among them,
   * newest first, in SQLite, not one converted row per match) until `limit` turns were found or
   * MAX_SCANNED matches read. A turn's first appearance is its newest match: chunks go newest first.
   */
  private newestPerTurn(match: string, resolve: string, query: SearchQuery, limit: number, workspace: string | undefined, toHit: (r: SqlValue[]) => Hit): Hit[] {
    const found = new Map<string, Hit>();
    let chunk: number[] = [];
    let chunkSize = FIRST_CHUNK;
    let scanned = 0;
    const resolveChunk = (): void => {
      const ids = JSON.stringify(chunk);
      for (const row of this.db.allArrays(resolve, workspace === undefined ? [ids] : [ids, workspace])) {
        const hit = toHit(row);
        if (!found.has(hit.turnId) && found.size < limit) found.set(hit.turnId, hit);
      }
      chunk = [];
      chunkSize = Math.min(chunkSize * 2, MAX_CHUNK);
    };
    this.db.eachArray(match, [query.match], ([docid]) => {
      chunk.push(docid as number);
      scanned++;
      if (chunk.length === chunkSize || scanned === MAX_SCANNED) resolveChunk();
      return found.size < limit && scanned < MAX_SCANNED;
    });
    if (chunk.length > 0) resolveChunk();
    return [...found.values()];
  }

  private withSnippet(hit: Hit, title: string, query: SearchQuery): SearchResult {
    const text = hit.text ?? (hit.eventId === null ? this.promptText(hit.turnId) : this.eventText(hit.eventId));
    const { text: snippet, matchRanges } = snippetFor(text, query);
    return { sessionId: hit.sessionId, title, turnId: hit.turnId, createdAt: hit.at, kind: hit.kind, eventId: hit.eventId, snippet, matchRanges };
  }

  /** The indexed text of an event. */
  private eventText(id: number): string {
    const row = this.db.one('SELECT kind, payload FROM events WHERE id = ?', [id]);
    return indexedText(row?.kind, row?.payload);
  }

  /** A turn's prompt. */
  private promptText(turnId: string): string {
    return String(this.db.one('SELECT prompt FROM turns WHERE id = ?', [turnId])?.prompt ?? '');
  }
}

/** The text the index holds for an event of `kind` with `payload` (as its content view reads it; parsed here, faster than SQLite's JSON functions). */
function indexedText(kind: unknown, payload: unknown): string {
  const field = INDEXED_EVENT_TEXT[kind as keyof typeof INDEXED_EVENT_TEXT]?.slice(2);
  try {
    const value: unknown = field ? (JSON.parse(payload as string) as Record<string, unknown>)[field] : '';
    return typeof value === 'string' ? value : String(value ?? '');
  } catch {
    return '';
  }
}
