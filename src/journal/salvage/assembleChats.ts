/**
 * The last step of a salvage read: the chats in the scratch database (snapshot rows plus the log
 * replayed), each made consistent under the journal's rules (`JOURNAL_RULES`) so that it imports as
 * a chat like any other, and what is missing from each and why.
 *
 * Consistency, fail-closed: rows whose parent is missing are left out (a run of a missing prompt, a
 * prompt whose run is missing, a tool call, approval request or event of a missing run), each
 * counted as a problem; a chat whose own row is missing is rebuilt from its prompts (title from the
 * first prompt, agent from its runs); a queued message not sent is held as after a restart (the
 * windows of the moved-aside journal are gone). Runs still running are imported as they are: the
 * import's caller settles them as recovery settles any run without a live owner.
 */
import type { Database } from 'sql.js';
import { SALVAGED_TABLES, type SalvageRow, type SalvagedChat, type SalvagedTable } from '../../core/salvage';

/** Evidence of missing rows gathered by the earlier steps, by chat. */
export interface ChatEvidence {
  /** Rows that could not be read from the snapshot, by table. */
  readonly lost: ReadonlyMap<string, ReadonlyMap<SalvagedTable, number>>;
  /** Log records naming the chat that were not applied (after damage) or failed to apply. */
  readonly notApplied: ReadonlyMap<string, number>;
  readonly failed: ReadonlyMap<string, number>;
}

/** How each table's missing rows read in a problem sentence. */
const WORDS: Record<SalvagedTable, string> = {
  sessions: 'chat record', turns: 'prompt', runs: 'reply record', invocations: 'tool call', boundary_requests: 'approval request',
  events: 'event of its replies', queued_prompts: 'queued message',
};

/** The columns that hold JSON, by table (what the journal's decoders parse). */
const JSON_COLUMNS: readonly [SalvagedTable, string][] = [['events', 'payload'], ['invocations', 'input'], ['sessions', 'provider_state']];

function isJson(value: unknown): boolean {
  try {
    JSON.parse(String(value));
    return true;
  } catch {
    return false;
  }
}

/** The table's rows in their order of import (events and turns in the order they were written). */
const ORDER: Partial<Record<SalvagedTable, string>> = { turns: 'created_at, id', events: 'id', runs: 'started_at, id' };

/** Every chat in `db` (see module docstring), newest first. */
export function assembleChats(db: Database, evidence: ChatEvidence): SalvagedChat[] {
  const bySession = new Map<string, Record<SalvagedTable, SalvageRow[]>>();
  // A journal of an older schema (queued messages came with 5) or a file that is no journal at all
  // lacks some tables: they hold nothing to recover, rather than failing the whole read.
  const present = new Set((db.exec("SELECT name FROM sqlite_master WHERE type = 'table'")[0]?.values ?? []).map((r) => String(r[0])));
  for (const table of SALVAGED_TABLES) {
    if (!present.has(table)) continue;
    const result = db.exec(`SELECT * FROM "${table}"${ORDER[table] ? ` ORDER BY ${ORDER[table]}` : ''}`)[0];
    for (const values of result?.values ?? []) {
      const row = Object.fromEntries(result!.columns.map((c, i) => [c, values[i] as string | number | null]));
      const session = String(table === 'sessions' ? row.id : row.session_id);
      let rows = bySession.get(session);
      if (!rows) bySession.set(session, (rows = Object.fromEntries(SALVAGED_TABLES.map((t) => [t, [] as SalvageRow[]])) as Record<SalvagedTable, SalvageRow[]>));
      rows[table].push(row);
    }
  }
  const chats: SalvagedChat[] = [];
  for (const [sessionId, rows] of bySession) {
    const chat = consistentChat(sessionId, rows, evidence);
    if (chat) chats.push(chat);
  }
  return chats.sort((a, b) => b.updatedAt - a.updatedAt || a.sessionId.localeCompare(b.sessionId));
}

/** One chat made consistent (see module docstring), or null when nothing of it is left to show. */
function consistentChat(sessionId: string, rows: Record<SalvagedTable, SalvageRow[]>, evidence: ChatEvidence): SalvagedChat | null {
  const problems: string[] = [];
  const dropped = new Map<SalvagedTable, number>();
  const keep = (table: SalvagedTable, ok: (r: SalvageRow) => boolean) => {
    const kept = rows[table].filter(ok);
    if (kept.length < rows[table].length) dropped.set(table, rows[table].length - kept.length);
    rows[table] = kept;
  };
  // A damaged overflow page gives no error: the row reads with garbage in its text. JSON columns
  // show it (random bytes are almost never valid JSON); such rows are left out as damaged.
  const damaged = new Map<SalvagedTable, number>();
  for (const [table, column] of JSON_COLUMNS) {
    const kept = rows[table].filter((r) => r[column] === null || r[column] === undefined || isJson(r[column]));
    if (kept.length < rows[table].length) damaged.set(table, rows[table].length - kept.length);
    rows[table] = kept;
  }
  const turnIds = new Set(rows.turns.map((t) => t.id));
  keep('runs', (r) => turnIds.has(r.turn_id ?? null));
  const withRun = new Set(rows.runs.map((r) => r.turn_id));
  keep('turns', (t) => withRun.has(t.id ?? null));
  const keptTurns = new Set(rows.turns.map((t) => t.id));
  const runIds = new Set(rows.runs.map((r) => r.id));
  keep('invocations', (i) => runIds.has(i.run_id ?? null) && keptTurns.has(i.turn_id ?? null));
  keep('boundary_requests', (b) => keptTurns.has(b.turn_id ?? null) && (b.run_id === null || b.run_id === undefined || runIds.has(b.run_id)));
  keep('events', (e) => runIds.has(e.run_id ?? null));
  keep('queued_prompts', (q) => q.state !== 'sent' || keptTurns.has(q.turn_id ?? null));
  rows.queued_prompts = rows.queued_prompts.map((q) => (q.state === 'queued' && q.hold === null ? { ...q, hold: 'restarted', send_now: 0 } : q));
  settleTurnsWithoutRunningRun(rows);
  if (rows.turns.length === 0 && rows.sessions.length === 0) return null;
  if (rows.sessions.length === 0) {
    rows.sessions = [rebuiltSession(sessionId, rows)];
    problems.push('Its chat record could not be read: its title is taken from its first prompt, and its agent\'s own session is lost (Continue and Retry give the agent the chat\'s history instead).');
  }
  for (const [table, n] of evidence.lost.get(sessionId) ?? []) if (table !== 'sessions') problems.push(`${n} ${WORDS[table]}${n === 1 ? '' : 's'} could not be read.`);
  for (const [table, n] of damaged) problems.push(`${n} ${WORDS[table]}${n === 1 ? ' was' : 's were'} damaged and ${n === 1 ? 'is' : 'are'} left out.`);
  for (const [table, n] of dropped) problems.push(`${n} ${WORDS[table]}${n === 1 ? '' : 's'} left out: ${table === 'turns' ? 'its reply record' : 'the prompt or reply it belongs to'} could not be read.`);
  for (const [table, n] of missingNamedByEvents(rows)) {
    if (!evidence.lost.get(sessionId)?.has(table)) problems.push(`${n} ${WORDS[table]}${n === 1 ? '' : 's'} could not be read.`);
  }
  const gaps = eventGaps(rows.events);
  if (gaps > 0 && !evidence.lost.get(sessionId)?.has('events')) problems.push(`${gaps} ${WORDS.events}${gaps === 1 ? '' : 's'} missing (gaps in their order).`);
  const notApplied = evidence.notApplied.get(sessionId) ?? 0;
  if (notApplied > 0) problems.push(`Its last ${notApplied} change${notApplied === 1 ? '' : 's'} in the log could not be applied (the log is damaged before ${notApplied === 1 ? 'it' : 'them'}): it is recovered as it was before.`);
  const failed = evidence.failed.get(sessionId) ?? 0;
  if (failed > 0) problems.push(`${failed} change${failed === 1 ? '' : 's'} from the log could not be applied to what was read of it.`);
  const session = rows.sessions[0]!;
  return {
    sessionId, title: String(session.title), provider: String(session.provider), createdAt: Number(session.created_at), updatedAt: Number(session.updated_at),
    turns: rows.turns.length, events: rows.events.length, whole: problems.length === 0, problems, rows,
  };
}

/** A prompt still marked running with no run still running (its run's end was read, its own was not): failed as its run ended. */
function settleTurnsWithoutRunningRun(rows: Record<SalvagedTable, SalvageRow[]>): void {
  const running = new Set(rows.runs.filter((r) => r.status === 'running').map((r) => r.turn_id));
  rows.turns = rows.turns.map((t) => {
    if (t.status !== 'running' || running.has(t.id ?? null)) return t;
    const last = rows.runs.filter((r) => r.turn_id === t.id).pop();
    return { ...t, status: 'failed', error_class: last?.error_class ?? 'app_restarted', finished_at: last?.finished_at ?? t.created_at ?? null };
  });
}

/** A chat row rebuilt from its prompts and runs (its own row could not be read). */
function rebuiltSession(sessionId: string, rows: Record<SalvagedTable, SalvageRow[]>): SalvageRow {
  const first = String(rows.turns[0]?.prompt ?? '').split('\n')[0]!.trim();
  const times = [...rows.turns.map((t) => Number(t.created_at)), ...rows.runs.map((r) => Number(r.finished_at ?? r.started_at))].filter(Number.isFinite);
  return {
    id: sessionId, title: first ? `${first.slice(0, 60)}${first.length > 60 ? '…' : ''} (recovered)` : 'Recovered chat',
    provider: String(rows.runs[0]?.provider ?? 'local'), provider_state: null,
    created_at: Math.min(...times), updated_at: Math.max(...times), workspace: null,
  };
}

/**
 * Tool calls and approval requests the chat's events name (`invocation_started`,
 * `boundary_requested`) whose rows are missing: those tables have no index by chat, so their lost
 * rows are matched to the chat through its events instead.
 */
function missingNamedByEvents(rows: Record<SalvagedTable, SalvageRow[]>): Map<SalvagedTable, number> {
  const named = { invocations: new Set<string>(), boundary_requests: new Set<string>() };
  for (const e of rows.events) {
    if (e.kind !== 'invocation_started' && e.kind !== 'boundary_requested') continue;
    try {
      const payload = JSON.parse(String(e.payload)) as { invocationId?: unknown; requestId?: unknown };
      if (e.kind === 'invocation_started' && typeof payload.invocationId === 'string') named.invocations.add(payload.invocationId);
      if (e.kind === 'boundary_requested' && typeof payload.requestId === 'string') named.boundary_requests.add(payload.requestId);
    } catch {
      /* a damaged payload names nothing */
    }
  }
  const missing = new Map<SalvagedTable, number>();
  for (const table of ['invocations', 'boundary_requests'] as const) {
    const have = new Set(rows[table].map((r) => r.id));
    const n = [...named[table]].filter((id) => !have.has(id)).length;
    if (n > 0) missing.set(table, n);
  }
  return missing;
}

/** Events missing inside the runs' sequences (1, 2, … with holes). */
function eventGaps(events: readonly SalvageRow[]): number {
  const byRun = new Map<unknown, number[]>();
  for (const e of events) {
    const seqs = byRun.get(e.run_id);
    if (seqs) seqs.push(Number(e.seq));
    else byRun.set(e.run_id, [Number(e.seq)]);
  }
  let missing = 0;
  for (const seqs of byRun.values()) missing += Math.max(...seqs) - seqs.length;
  return missing;
}
