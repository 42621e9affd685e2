/** The journal worker's and its helper thread's channel to their parent thread. */
import { parentPort } from 'node:worker_threads';
import type { FromWorker } from './workerProtocol';

/** Sends `message` to this thread's parent (only ever called inside a worker thread). */
export function post(message: FromWorker): void {
  parentPort!.postMessage(message);
}
