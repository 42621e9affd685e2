/**
 * A journal-wide read (Check Journal, a repair's dry run) under a cancellable progress notification:
 * the read reports `{done, total, step}` and checks `cancelled()` between its chunks, so the window
 * never stalls and Cancel stops it between two chunks.
 */
import * as vscode from 'vscode';

/** What a journal-wide read reports: units done of `total`, and the step in words. */
export interface JournalProgress {
  readonly done: number;
  readonly total: number;
  readonly step: string;
}

/** The hooks a journal-wide read takes (see module docstring). */
export interface JournalProgressHooks {
  readonly cancelled: () => boolean;
  readonly onProgress: (p: JournalProgress) => void;
}

/**
 * Runs `read` under a cancellable notification titled `title`; resolves what it resolves (a read
 * that saw `cancelled()` resolves undefined by its own contract).
 */
export function withJournalProgress<T>(title: string, read: (hooks: JournalProgressHooks) => Promise<T>): Thenable<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (progress, token) => {
    let shown = 0;
    return read({
      cancelled: () => token.isCancellationRequested,
      onProgress: (p) => {
        // withProgress adds up increments (percent); report only the growth since the last call.
        const percent = Math.floor((100 * p.done) / Math.max(1, p.total));
        progress.report({ message: p.step, increment: percent - shown });
        shown = percent;
      },
    });
  });
}
