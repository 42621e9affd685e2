/**
 * Group commit, the in-memory half: several transactions run in one SQLite transaction (a SAVEPOINT
 * each when there are several, so one that throws is rolled back alone and logs nothing), each
 * recording the write statements it ran into one log record; the records are then framed as one
 * append. The store (logStore.ts) takes the lock, appends, fdatasyncs and COMMITs around this.
 */
import { JournalRefusedError } from './errors';
import { FRAME_BYTES, MAX_RECORD_BYTES, encodePayload, type LogRecord, type LoggedStatement } from './logFormat';

/** One transaction's outcome in a write group: its value, or what it threw (it was rolled back). */
export type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/** Collects the write statements of the transaction running now (JournalCore reports each one). */
export class StatementRecorder {
  private recording: LoggedStatement[] | undefined;

  /** Records one statement; outside a transaction of a write group, does nothing. */
  record(sql: string, params: readonly (string | number | null)[]): void {
    this.recording?.push([sql, params]);
  }

  /** Starts recording a transaction. */
  start(): void {
    this.recording = [];
  }

  /** What the transaction recorded so far. */
  get statements(): LoggedStatement[] {
    return this.recording ?? [];
  }

  /** Stops recording. */
  stop(): void {
    this.recording = undefined;
  }
}

/**
 * Runs `transactions` after BEGIN IMMEDIATE (the caller COMMITs or rolls back), numbering their
 * records from `firstSeq`. `touched()` names the sessions a transaction changed (read after it ran;
 * also read after one that threw, to clear them). `control` runs BEGIN/SAVEPOINT/RELEASE/ROLLBACK TO.
 * Returns each transaction's outcome and the payloads of those that changed something.
 * A record over MAX_RECORD_BYTES fails its transaction with JournalRefusedError('storage_failed').
 */
export function runGroup(
  transactions: readonly (() => unknown)[],
  touched: () => readonly string[],
  control: (sql: string) => void,
  recorder: StatementRecorder,
  firstSeq: number,
): { outcomes: Outcome[]; records: Buffer[] } {
  const outcomes: Outcome[] = [];
  const records: Buffer[] = [];
  // One transaction alone needs no SAVEPOINT: if it throws, the whole BEGIN is rolled back.
  const savepoints = transactions.length > 1;
  control('BEGIN IMMEDIATE');
  for (const transaction of transactions) {
    recorder.start();
    if (savepoints) control('SAVEPOINT tx');
    try {
      const value = transaction();
      const statements = recorder.statements;
      if (statements.length > 0) records.push(payloadOf({ s: firstSeq + records.length, t: statements, x: [...touched()] }));
      if (savepoints) control('RELEASE tx');
      outcomes.push({ ok: true, value });
    } catch (error) {
      if (savepoints) {
        control('ROLLBACK TO tx');
        control('RELEASE tx');
      }
      touched();
      outcomes.push({ ok: false, error });
    } finally {
      recorder.stop();
    }
  }
  return { outcomes, records };
}

/** A record's payload. @throws JournalRefusedError('storage_failed') past MAX_RECORD_BYTES. */
function payloadOf(record: LogRecord): Buffer {
  const payload = Buffer.from(JSON.stringify(record), 'utf8');
  if (payload.length > MAX_RECORD_BYTES) {
    throw new JournalRefusedError(
      'storage_failed',
      `A change of ${(payload.length / 1048576).toFixed(0)} MB is larger than the chat journal takes (${MAX_RECORD_BYTES / 1048576} MB). Nothing was changed.`,
    );
  }
  return payload;
}

/**
 * The bytes of one append of `records`: each framed record without its terminator, then the last
 * one's terminator (which the next append overwrites).
 */
export function frameGroup(records: readonly Buffer[]): Buffer {
  const frames = records.map(encodePayload);
  return frames.length === 1 ? frames[0]! : Buffer.concat(frames.map((f, i) => (i === frames.length - 1 ? f : f.subarray(0, f.length - FRAME_BYTES))));
}

/** The refusal every transaction of a group gets when its append failed (`error`: the I/O error). */
export function appendRefusal(error: unknown): JournalRefusedError {
  const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
  return new JournalRefusedError(
    'storage_failed',
    `The chat journal could not be saved (${code}${code === 'ENOSPC' ? ': the disk is full' : ''}). Nothing was changed.`,
  );
}
