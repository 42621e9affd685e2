/**
 * The journal the long-chat view bench (longChatView.ts) and the long-chat end-to-end journey seed
 * into a code-server's user data before it starts: a long chat (LONG_TURNS `run ls` turns, its first
 * prompt told apart) and a short one (SHORT_TURNS turns), written with the journal's own operations
 * (longChatRows.ts) and no tab records, so no window reopens them by itself.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadSqlJs } from '../src/journal/sqljs';
import { cacheDir } from './build';
import { LONG_CHAT_SESSION, LONG_CHAT_VERSION, buildChats, longChatId, type LongChatSpec } from './longChatRows';

/** The extension's globalStorage folder under a user-data folder (where its journal lives). */
export function journalFolder(userDataDir: string): string {
  return path.join(userDataDir, 'User', 'globalStorage', 'native-agent-chats.native-agent-chats');
}

/** The long chat's first prompt (every other prompt is `run ls`). */
export const FIRST_PROMPT = 'run ls (the first prompt of this chat)';

/** The chats seeded: the long one of `longTurns` turns and a short one of `shortTurns`. */
export function seededChats(longTurns: number, shortTurns: number): { long: LongChatSpec; short: LongChatSpec } {
  return {
    long: { session: LONG_CHAT_SESSION, space: 'long', title: `Long chat of ${longTurns} turns`, turns: longTurns, firstPrompt: FIRST_PROMPT },
    short: { session: '00000000-shrt-4000-a000-chat0session', space: 'shrt', title: `Short chat of ${shortTurns} turns`, turns: shortTurns },
  };
}

/** Id of the last turn of a seeded chat. */
export function lastTurnId(chat: LongChatSpec): string {
  return longChatId('turn', chat.turns - 1, chat.space);
}

/** Id of the first turn of a seeded chat. */
export function firstTurnId(chat: LongChatSpec): string {
  return longChatId('turn', 0, chat.space);
}

/**
 * Writes the journal holding both chats as `journal.sqlite` in the extension's globalStorage under
 * `userDataDir` (created). Returns the file's size in bytes. Building 5,000 turns takes ~30 s on 2
 * busy cores (the full-text index), so the image is kept in the bench's cache folder (`.bench-cache/`
 * or $NAC_BENCH_CACHE, which ignores itself for git) and copied from there next time.
 */
export async function seedLongChats(userDataDir: string, longTurns: number, shortTurns: number): Promise<number> {
  const dir = journalFolder(userDataDir);
  fs.mkdirSync(dir, { recursive: true });
  const cache = cacheDir(path.resolve(__dirname, '../..'));
  const cached = path.join(cache, `seed-${longTurns}-${shortTurns}-v${LONG_CHAT_VERSION}.sqlite`);
  if (!fs.existsSync(cached)) {
    const SQL = await loadSqlJs(path.join(path.dirname(require.resolve('sql.js')), 'sql-wasm.wasm'));
    const { long, short } = seededChats(longTurns, shortTurns);
    fs.mkdirSync(cache, { recursive: true });
    const ignore = path.join(cache, '.gitignore');
    if (!fs.existsSync(ignore)) fs.writeFileSync(ignore, '# Benchmark journals (bench/build.ts): never commit.\n*\n');
    const tmp = `${cached}.tmp-${process.pid}`;
    fs.writeFileSync(tmp, buildChats(SQL, [long, short], { tabs: false }));
    fs.renameSync(tmp, cached);
  }
  const file = path.join(dir, 'journal.sqlite');
  fs.copyFileSync(cached, file);
  return fs.statSync(file).size;
}
