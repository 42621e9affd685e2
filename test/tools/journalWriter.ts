/**
 * A journal writer process for the crash harness and the two-process tests.
 *
 *   node out/test/tools/journalWriter.js <journal file> <mode> <count> <tag> [rotateAtBytes]
 *
 * Modes:
 *   sessions  — creates sessions `<tag>-<i>`, printing `ack <i>` after each acknowledged write;
 *   counter   — appends to run `shared-run` (created if missing) events whose payload names the
 *               previous event's seq as read inside the same transaction (state-dependent writes),
 *               printing `ack <seq>`;
 *   texts     — appends to run `shared-run` `text` events holding the word `<tag>w<i>z`, printing `ack <i>`;
 *   queue     — starts run `<tag>-run-0` of chat `shared` with `count` messages queued behind it, then
 *               ends each run as completed, each end claiming the next message as run `<tag>-run-<i>`
 *               (one `finishRun` transaction each), printing `ack <i>`;
 *   sending   — journals turn `<tag>-turn` with its run (delivery `sending`), prints `ack 0`, then
 *               waits to be killed (a host that died before its agent acknowledged the prompt).
 * Exits 0 after `count` writes; prints `refused <reason>` and exits 2 on a refusal.
 * Environment: NAC_LOCK_TIMEOUT_MS (the journal's lockTimeoutMs) and NAC_LEASE_MS (its leaseMs).
 */
import * as path from 'node:path';
import { Journal } from '../../src/journal/journal';

async function main(): Promise<void> {
  const [file, mode, countText, tag, rotate] = process.argv.slice(2);
  if (!file || !mode || !countText || !tag) throw new Error('usage: journalWriter <file> <sessions|counter|texts> <count> <tag> [rotateAtBytes]');
  const journal = await Journal.open({
    file,
    wasmPath: path.join(path.dirname(require.resolve('sql.js')), 'sql-wasm.wasm'),
    workerPath: path.resolve(__dirname, '../../src/journal/worker.js'),
    ...(rotate ? { rotateAtBytes: Number(rotate) } : {}),
    ...(process.env.NAC_LOCK_TIMEOUT_MS ? { lockTimeoutMs: Number(process.env.NAC_LOCK_TIMEOUT_MS) } : {}),
    ...(process.env.NAC_LEASE_MS ? { leaseMs: Number(process.env.NAC_LEASE_MS) } : {}),
  });
  const count = Number(countText);
  if (mode === 'queue' || mode === 'sending') return outboxMode(journal, mode, count, tag);
  if (mode === 'counter' || mode === 'texts') {
    await journal.write('createSession', { id: 'shared', title: 'shared', provider: 'local', createdAt: 1, updatedAt: 1 }).catch(() => undefined);
    await journal.write('startTurn', {
      turn: { id: 'shared-turn', sessionId: 'shared', prompt: 'p', origin: 'prompt', parentTurnId: null, createdAt: 1 },
      run: { id: 'shared-run', instanceId: 'writer', provider: 'local' },
    }).catch(() => undefined);
  }
  for (let i = 0; i < count; i++) {
    const result =
      mode === 'sessions'
        ? await journal.write('createSession', { id: `${tag}-${i}`, title: `${tag} ${i}`, provider: 'local', createdAt: i, updatedAt: i })
        : mode === 'texts'
          ? await journal.write('appendEvents', 'shared-run', [{ kind: 'text', payload: { text: `Acknowledged reply ${tag}w${i}z.` } }], i)
          : await journal.write('appendEvents', 'shared-run', [{ kind: 'notice', payload: { level: 'info', message: `${tag}-${i}` } }], i);
    if (!result.ok) {
      process.stdout.write(`refused ${result.reason} ${result.message}\n`);
      process.exit(2);
    }
    const ack = mode !== 'counter' ? i : (result.value as { seq: number }[])[0]!.seq;
    process.stdout.write(`ack ${ack}\n`);
  }
  await journal.close();
}

/** The outbox modes (see module docstring). */
async function outboxMode(journal: Journal, mode: 'queue' | 'sending', count: number, tag: string): Promise<void> {
  const must = <T>(r: { ok: true; value: T } | { ok: false; reason: string; message: string }): T => {
    if (r.ok) return r.value;
    process.stdout.write(`refused ${r.reason} ${r.message}\n`);
    process.exit(2);
  };
  must(await journal.write('createSession', { id: 'shared', title: 'shared', provider: 'local', createdAt: 1, updatedAt: 1 }));
  const ids = (i: number) => ({ turnId: `${tag}-turn-${i}`, runId: `${tag}-run-${i}`, instanceId: 'writer' });
  must(await journal.write('submitPrompt', { sessionId: 'shared', clientId: `${tag}-msg-0`, text: 'first', at: 1, next: ids(0), queue: true }));
  if (mode === 'sending') {
    process.stdout.write('ack 0\n');
    await new Promise(() => undefined); // killed here
  }
  for (let i = 1; i <= count; i++) must(await journal.write('submitPrompt', { sessionId: 'shared', clientId: `${tag}-msg-${i}`, text: `message ${i}`, at: 1 + i, next: ids(i), queue: true }));
  for (let i = 1; i <= count; i++) {
    must(await journal.write('finishRun', { runId: `${tag}-run-${i - 1}`, status: 'completed', turnStatus: 'completed', at: 100 + i, next: ids(i) }));
    process.stdout.write(`ack ${i}\n`);
  }
  await journal.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
