/**
 * Why the journal refused a write. Refusals are returned (`Result`), never thrown, so the UI can
 * show them; only programming errors throw.
 * - `read_only`: the journal was written by a newer schema version (update the extension).
 * - `storage_failed`: the disk refused the write (full disk, I/O error); nothing was acknowledged.
 * - `not_found`: the row the write depends on does not exist.
 * - `closed`: the journal was closed (the extension host is shutting down).
 * - `row_unreadable`: the chat has a row this build cannot read; writes to that chat only are refused.
 * - `busy`: a Retry or Continue found a run of the chat still running (in any window).
 * - `not_retryable`: a Retry or Continue of a turn that already has a follow-up (in any window).
 */
export const JOURNAL_REFUSALS = ['read_only', 'storage_failed', 'not_found', 'closed', 'row_unreadable', 'busy', 'not_retryable'] as const;
export type JournalRefusal = (typeof JOURNAL_REFUSALS)[number];

/** Thrown inside a write to abort its transaction with a refusal (caught by the journal). */
export class JournalRefusedError extends Error {
  constructor(readonly reason: JournalRefusal, message: string) {
    super(message);
    this.name = 'JournalRefusedError';
  }
}
