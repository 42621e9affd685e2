/**
 * A stand-in for the journal's worker whose thread never exits after `close`, the way a worker
 * stuck in Node's teardown deadlock does (docs/ARCHITECTURE.md): it answers the open and the close,
 * then blocks in a system call, opening the FIFO `<file>.fifo` for reading. `worker.terminate()`
 * cannot interrupt a blocked system call; the test opens the FIFO for writing to let it go.
 *
 * Used by test/unit/journalClose.test.ts only.
 */
import * as fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { FromWorker, ToWorker, WorkerOpenReport } from '../../src/journal/workerProtocol';

const { file } = workerData as { file: string };
const report: WorkerOpenReport = {
  created: true,
  versionFound: 0,
  version: 0,
  readOnlyReason: null,
  quarantined: null,
  recordsReplayed: 0,
  tornTailCut: false,
  openMs: 0,
  phases: { startMs: 0, wasmMs: 0, sqljsMs: 0, readMs: 0, loadMs: 0, replayMs: 0, migrateMs: 0, workerStartedAt: performance.timeOrigin },
};
parentPort!.postMessage({ kind: 'opened', report } satisfies FromWorker);
parentPort!.on('message', (m: ToWorker) => {
  if (m.kind !== 'close') return;
  parentPort!.postMessage({ kind: 'result', id: m.id, value: null } satisfies FromWorker);
  fs.closeSync(fs.openSync(`${file}.fifo`, 'r')); // blocks until a writer opens it
});
