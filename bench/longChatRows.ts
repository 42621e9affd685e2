/**
 * The long-chat benchmark's row builder: one chat of N turns, each what the local agent journals for
 * the prompt `run ls` (a `text` line, the `run` invocation started, its output, finished with exit
 * code 0, a closing `text`, `run_finished`), written through the journal's own write operations
 * (`JournalCore.createSession`, `startTurn`, `appendEvents`, `startInvocation`, `finishInvocation`,
 * `finishRun`) on an in-memory sql.js database with the product's schema, one transaction per turn,
 * then exported as a snapshot file the engine opens as is (generation 1, seq 0).
 *
 * The `ls` output is a fixed listing of LS_ENTRIES names (~2.5 KB), so a turn's transcript is about
 * 3 KB of JSON, as in the 5,000-turn chat the issue measured from outside (14.8 MB snapshot).
 * Deterministic: ids and times come from the turn index, so a chat of N turns is the same every build.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { JournalCore } from '../src/journal/core';
import { applySchema } from './build';

/** Bump when the generated rows change, so stale cached long chats are rebuilt. */
export const LONG_CHAT_VERSION = 4;

/** The chat's session id (the same in every long-chat journal). */
export const LONG_CHAT_SESSION = '00000000-long-4000-a000-chat0session';
/** Instance that "ran" the turns (not alive in any bench process, as after a restart). */
export const LONG_CHAT_INSTANCE = '00000000-long-4000-a000-instance0000';
/** Names in the `ls` output of every turn. */
export const LS_ENTRIES = 140;

const START = 1_700_000_000_000;

/**
 * One chat the builder writes: its session id, the 4-character id space of its turns, runs and
 * invocations (unique per chat of one journal), its title, its number of turns and, optionally, a
 * prompt of its own for the first turn (so a user scrolling to the top can tell it from the others).
 */
export interface LongChatSpec {
  readonly session: string;
  readonly space: string;
  readonly title: string;
  readonly turns: number;
  readonly firstPrompt?: string;
}

/** The bench's long chat of `turns` turns (the one every long-chat journal of the bench holds). */
export function longChatSpec(turns: number): LongChatSpec {
  return { session: LONG_CHAT_SESSION, space: 'long', title: `Long chat (${turns} turns of run ls)`, turns };
}

/**
 * Id of turn `index`'s turn, run or invocation in the chat of id space `space` (default the bench's
 * long chat): fixed-width and sortable, unique per kind and chat.
 */
export function longChatId(kind: 'turn' | 'run' | 'inv', index: number, space = 'long'): string {
  const code = { turn: 'a001', run: 'a002', inv: 'a003' }[kind];
  return `00000000-${space}-4000-${code}-${String(index).padStart(12, '0')}`;
}

/** The `ls` listing every turn's invocation prints: LS_ENTRIES names, one a line, sorted. */
export function lsListing(entries = LS_ENTRIES): string {
  const stems = ['README', 'package', 'tsconfig', 'chatRuntime', 'journal', 'worker', 'transcript', 'render', 'scroll', 'layout', 'labels'];
  const exts = ['.md', '.json', '.ts', '.js', '.mjs', '.test.ts', '.d.ts', ''];
  const names: string[] = [];
  for (let i = 0; i < entries; i++) names.push(`${stems[i % stems.length]}-${String(i).padStart(3, '0')}${exts[i % exts.length]}`);
  return `${names.sort().join('\n')}\n`;
}

/** One journal write of a turn, in order: the operation and its arguments. */
export type LongChatWrite =
  | { readonly op: 'startTurn'; readonly args: Parameters<JournalCore['startTurn']> }
  | { readonly op: 'appendEvents'; readonly args: Parameters<JournalCore['appendEvents']> }
  | { readonly op: 'startInvocation'; readonly args: Parameters<JournalCore['startInvocation']> }
  | { readonly op: 'finishInvocation'; readonly args: Parameters<JournalCore['finishInvocation']> }
  | { readonly op: 'finishRun'; readonly args: Parameters<JournalCore['finishRun']> };

/**
 * The writes of turn `index` (0-based) of the long chat, as the runtime makes them for the local
 * agent's `run ls`: six ledger events on one run. Times are ms, a minute apart per turn.
 */
export function longChatTurnWrites(index: number, listing = lsListing(), chat: LongChatSpec = longChatSpec(0)): LongChatWrite[] {
  const turnId = longChatId('turn', index, chat.space);
  const runId = longChatId('run', index, chat.space);
  const invocationId = longChatId('inv', index, chat.space);
  const at = START + 60_000 * (index + 1);
  const prompt = index === 0 && chat.firstPrompt !== undefined ? chat.firstPrompt : 'run ls';
  return [
    {
      op: 'startTurn',
      args: [{ turn: { id: turnId, sessionId: chat.session, prompt, origin: 'prompt', parentTurnId: null, createdAt: at }, run: { id: runId, instanceId: LONG_CHAT_INSTANCE, provider: 'local' } }],
    },
    { op: 'appendEvents', args: [runId, [{ kind: 'text', payload: { text: "I'll run `ls`.\n\n" } }], at + 5] },
    { op: 'startInvocation', args: [{ id: invocationId, runId, tool: 'run', input: JSON.stringify({ command: 'ls' }), summary: 'ls', at: at + 10 }] },
    { op: 'appendEvents', args: [runId, [{ kind: 'invocation_output', payload: { invocationId, chunk: listing } }], at + 25] },
    { op: 'finishInvocation', args: [{ id: invocationId, status: 'completed', exitCode: 0, at: at + 30 }] },
    { op: 'appendEvents', args: [runId, [{ kind: 'text', payload: { text: 'The command finished (exit code 0).' } }], at + 32] },
    { op: 'finishRun', args: [{ runId, status: 'completed', turnStatus: 'completed', at: at + 35 }] },
  ];
}

/** Runs one write on `core` (the operation named by `write.op`). */
function apply(core: JournalCore, write: LongChatWrite): void {
  switch (write.op) {
    case 'startTurn': core.startTurn(...write.args); break;
    case 'appendEvents': core.appendEvents(...write.args); break;
    case 'startInvocation': core.startInvocation(...write.args); break;
    case 'finishInvocation': core.finishInvocation(...write.args); break;
    case 'finishRun': core.finishRun(...write.args); break;
  }
}

/**
 * Builds the long chat of `turns` turns in memory (schema, the session, its open tab, then each
 * turn's writes in a transaction) and returns the exported database image.
 * @throws Error when a write is refused (a builder bug: the journal's checks stay on).
 */
export function buildLongChat(SQL: SqlJsStatic, turns: number): Uint8Array {
  return buildChats(SQL, [longChatSpec(turns)], { tabs: true });
}

/**
 * Builds a journal holding `chats` in memory (schema, then per chat its session, its open tab when
 * `tabs`, and each turn's writes in a transaction) and returns the exported database image. Without
 * tab records no window reopens the chats when it starts (tab repair opens recorded tabs).
 * @throws Error when a write is refused, e.g. two chats sharing an id space.
 */
export function buildChats(SQL: SqlJsStatic, chats: readonly LongChatSpec[], options: { readonly tabs: boolean }): Uint8Array {
  const db = new SQL.Database();
  try {
    applySchema(db);
    const core = new JournalCore(db);
    const listing = lsListing();
    for (const chat of chats) {
      core.createSession({ id: chat.session, title: chat.title, provider: 'local', createdAt: START, updatedAt: START });
      if (options.tabs) core.recordTab(chat.session, START);
      for (let i = 0; i < chat.turns; i++) {
        db.exec('BEGIN');
        for (const write of longChatTurnWrites(i, listing, chat)) apply(core, write);
        db.exec('COMMIT');
      }
    }
    return db.export();
  } finally {
    db.close();
  }
}

/** A cached long-chat journal file and its size. */
export interface LongChatFile {
  readonly turns: number;
  readonly file: string;
  readonly bytes: number;
  /** Build time, ms (0 when it came from the cache). */
  readonly buildMs: number;
}

/**
 * Returns the cached long chat of `turns` turns under `dir` (the bench's cache folder), building it
 * first when missing. The file must be copied before a journal opens it (opening writes beside it).
 */
export async function ensureLongChat(SQL: () => Promise<SqlJsStatic>, dir: string, turns: number): Promise<LongChatFile> {
  const file = path.join(dir, `long-chat-${turns}-v${LONG_CHAT_VERSION}.sqlite`);
  if (fs.existsSync(file)) return { turns, file, bytes: fs.statSync(file).size, buildMs: 0 };
  fs.mkdirSync(dir, { recursive: true });
  const ignore = path.join(dir, '.gitignore');
  if (!fs.existsSync(ignore)) fs.writeFileSync(ignore, '# Benchmark journals (bench/build.ts): never commit.\n*\n');
  const started = performance.now();
  const image = buildLongChat(await SQL(), turns);
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, image);
  fs.renameSync(tmp, file);
  return { turns, file, bytes: image.length, buildMs: Math.round(performance.now() - started) };
}
