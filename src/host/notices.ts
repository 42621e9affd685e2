/**
 * What an error may show in a notification, and what only the log gets.
 *
 * A notification is read by the user: it carries the error's message, never a stack trace (a
 * worker's error can arrive with its stack inside the message text). The full error, with the
 * journal worker's own stack when `Journal.open` reported one (`JournalOpenError.detail`), goes to
 * the extension's log (Agent Chats: Show Logs).
 */
import { JournalOpenError } from '../journal/journal';

/** Lines of a V8 stack trace: "    at fn (file:line:col)". */
const STACK_LINE = /^\s+at\s/;

/**
 * The error's message for a notification: its lines up to the first stack-trace line, joined with
 * spaces, and without a leading "Error: " (the text a stack starts with). Never empty.
 */
export function noticeText(error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const lines: string[] = [];
  for (const line of raw.split('\n')) {
    if (STACK_LINE.test(line)) break;
    if (line.trim()) lines.push(line.trim());
  }
  const text = lines.join(' ').replace(/^(?:[A-Za-z]*Error: )+/, '');
  return text || 'An unexpected error occurred (Agent Chats: Show Logs has the details).';
}

/** Everything known about the error, for the log (the worker's stack for a failed open). */
export function logText(error: unknown): string {
  if (error instanceof JournalOpenError) return `${error.message}\n${error.detail}`;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
