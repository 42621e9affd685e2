/**
 * The least engine the constraints allow, as a baseline for the p50 target (a worker
 * thread: `new Worker('out/bench/minimalEngine.js', { workerData: { file, log, wasmPath } })`).
 *
 * sql.js runs in this worker thread (the calling thread never runs SQLite) and every write is made
 * durable before it is answered. Per message `{ text, at }` it runs the engine's appendEvents
 * transaction in sql.js (read the run, read its last seq, INSERT, COMMIT), appends the transaction's
 * parameters as one JSON line to a preallocated file with one pwrite, fdatasyncs, and answers
 * `{ seq }`. Nothing else: no lock, no fence, no checksum, no recovery, no second process, no
 * statement recording. It is not a journal, only what this stack costs on this machine before any
 * of the journal's own safety; the bench times it in the same interleaved blocks as the engine and
 * native SQLite.
 */
import * as fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { loadSqlJs } from '../src/journal/sqljs';
import { LIVE } from './build';

interface MinimalEngineData {
  /** A copy of the bench journal's snapshot (read into sql.js once). */
  readonly file: string;
  /** The append-only file to create and preallocate (64 MiB of zeros). */
  readonly log: string;
  readonly wasmPath: string;
}

async function main(data: MinimalEngineData): Promise<void> {
  const SQL = await loadSqlJs(data.wasmPath);
  const db = new SQL.Database(fs.readFileSync(data.file));
  db.exec('PRAGMA journal_mode = MEMORY; PRAGMA locking_mode = EXCLUSIVE');
  const getRun = db.prepare('SELECT session_id, turn_id FROM runs WHERE id = ?');
  const lastSeq = db.prepare('SELECT COALESCE(MAX(seq), 0) FROM events WHERE run_id = ?');
  const insert = db.prepare('INSERT INTO events (run_id, seq, session_id, turn_id, kind, payload, at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const fd = fs.openSync(data.log, 'w+');
  const room = 64 * 1024 * 1024;
  fs.writeSync(fd, Buffer.alloc(room), 0, room, 0);
  fs.fsyncSync(fd);
  let offset = 0;
  parentPort!.on('message', (m: { text: string; at: number } | 'close') => {
    if (m === 'close') {
      fs.closeSync(fd);
      db.close();
      parentPort!.close();
      return;
    }
    db.exec('BEGIN');
    getRun.bind([LIVE.runId]);
    getRun.step();
    const [sessionId, turnId] = getRun.get() as [string, string];
    getRun.reset();
    lastSeq.bind([LIVE.runId]);
    lastSeq.step();
    const seq = Number(lastSeq.get()[0]) + 1;
    lastSeq.reset();
    const params = [LIVE.runId, seq, sessionId, turnId, 'text', JSON.stringify({ text: m.text }), m.at];
    insert.run(params);
    const line = Buffer.from(`${JSON.stringify(params)}\n`);
    if (offset + line.length > room) offset = 0; // the bench never writes 64 MiB; wrap rather than grow
    fs.writeSync(fd, line, 0, line.length, offset);
    fs.fdatasyncSync(fd);
    offset += line.length;
    parentPort!.postMessage({ seq }); // durable: answer, then COMMIT in memory (as the engine does)
    db.exec('COMMIT');
  });
  parentPort!.postMessage('ready');
}

if (parentPort) void main(workerData as MinimalEngineData);
