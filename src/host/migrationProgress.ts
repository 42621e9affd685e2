/**
 * A progress notification while the journal migrates at open (migration 4 indexes every chat for
 * search: seconds on a large journal). Shown only once the journal reports progress, so an open with
 * nothing to migrate shows nothing; it ends when the open ends, however it ends.
 */
import * as vscode from 'vscode';
import type { MigrationProgress } from '../journal/journal';

/** What a migration of each schema version does, in words for the notification. */
const WHAT: Record<number, string> = { 4: 'Indexing your chats for search' };

/**
 * Returns the `onMigrationProgress` callback to pass to `Journal.open` and `done`, to call once the
 * open has ended (resolved or rejected).
 */
export function migrationProgress(): { report: (p: MigrationProgress) => void; done: () => void } {
  let latest: MigrationProgress | undefined;
  let show: ((p: MigrationProgress) => void) | undefined;
  let finish: (() => void) | undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  let last = 0;
  return {
    report(p) {
      latest = p;
      if (show) return show(p);
      if (finish === undefined) return; // the open has ended
      // Reports may come before VS Code runs the task below: the task shows the latest one first.
      show = () => undefined;
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Agent Chats: ${WHAT[p.version] ?? 'Updating the chat journal'}` }, (progress) => {
        show = (q) => {
          const percent = q.total > 0 ? Math.floor((100 * q.done) / q.total) : 0;
          progress.report({ increment: percent - last, message: `${q.done.toLocaleString()} of ${q.total.toLocaleString()}` });
          last = percent;
        };
        if (latest) show(latest);
        return finished;
      });
    },
    done: () => {
      finish?.();
      finish = undefined;
    },
  };
}
