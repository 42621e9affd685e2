/**
 * The journal worker thread's script: owns the sql.js database and its persistence (`LogStore`),
 * so no journal operation — opening a 200 MB journal, a durable commit, a compaction — runs on the
 * extension host's thread, which every extension of the window shares.
 *
 * Roles (`workerData.role`), each in its own file:
 * - `journal`: the journal worker (journalWorker.ts): opens the journal (workerOpen.ts), then serves
 *   the door's reads and writes through its queue (writeQueue.ts);
 * - `helper`: the journal worker's helper thread (helperThread.ts), started by it from this same
 *   script, for compactions and the integrity check.
 * A failure to open is reported as `openFailed`.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { runHelper } from './helperThread';
import { JournalWorker } from './journalWorker';
import { post } from './workerPort';
import type { WorkerOpenOptions } from './workerProtocol';

if (!isMainThread && parentPort) {
  const data = workerData as ({ role: 'journal' } & WorkerOpenOptions) | { role: 'helper'; wasmPath: string; wasm: WebAssembly.Module | null };
  const run = data.role === 'helper' ? runHelper(data) : JournalWorker.start(data, __filename);
  run.catch((error: unknown) => post({ kind: 'openFailed', message: (error as Error).message ?? String(error), detail: (error as Error).stack ?? String(error) }));
}
