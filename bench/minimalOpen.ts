/**
 * The least open the constraints allow, as a baseline for the activation target (a worker
 * thread: `new Worker('out/bench/minimalOpen.js', { workerData: { file, wasmPath } })`, whose first
 * message is sql.js's WASM module compiled by the opener, as `Journal.open` does).
 *
 * It instantiates sql.js from that module, reads the snapshot, builds the database and runs one
 * query (`SELECT count(*) FROM sessions`), then posts the count. No log, no lock, no migrations,
 * none of the engine's own code: what starting a worker thread with sql.js and a first query over
 * the file costs on this machine. The bench times it in fresh processes next to the real open.
 */
import * as fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { loadSqlJs } from '../src/journal/sqljs';

if (parentPort) {
  const data = workerData as { file: string; wasmPath: string };
  parentPort.once('message', (module: WebAssembly.Module) => {
    void loadSqlJs(data.wasmPath, module).then((SQL) => {
      const db = new SQL.Database(fs.readFileSync(data.file));
      const count = Number(db.exec('SELECT count(*) FROM sessions')[0]!.values[0]![0]);
      parentPort!.postMessage({ count });
    });
  });
}
