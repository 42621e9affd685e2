/**
 * The shapes of the `codex app-server` protocol this agent reads (typed after the bindings of
 * codex 0.171.0), and what it makes of them for the user: a command without Codex's shell wrapper,
 * paths relative to the workspace, a unified diff of a file change.
 */
import * as path from 'node:path';
import { relativeInside } from '../../../core/insideFolder';
import { splitCommandLine } from '../../../core/sandboxPolicy';

/** One file of a `fileChange` item: `diff` is hunks for an update, the content for an add or a delete. */
export interface FileUpdateChange {
  readonly path: string;
  readonly kind: { readonly type: 'add' | 'delete' | 'update'; readonly move_path?: string | null };
  readonly diff: string;
}

/** An item of a turn (`item/started`, `item/completed`): agent message, command execution, file change, MCP tool call, … */
export interface ThreadItem {
  readonly type: string;
  readonly id: string;
  readonly text?: string;
  readonly command?: string;
  readonly cwd?: string;
  readonly status?: string;
  readonly exitCode?: number | null;
  readonly aggregatedOutput?: string | null;
  readonly changes?: readonly FileUpdateChange[];
  readonly server?: string;
  readonly tool?: string;
  readonly arguments?: unknown;
  readonly error?: { readonly message?: string } | null;
}

/** Why a turn failed (`turn.error`, or the `error` notification). */
export interface TurnError {
  readonly message: string;
  readonly codexErrorInfo?: unknown;
  readonly additionalDetails?: string | null;
}

/** The turn of a `turn/completed` notification. */
export interface CompletedTurn {
  readonly id: string;
  readonly status: 'completed' | 'interrupted' | 'failed' | 'inProgress';
  readonly error: TurnError | null;
}

/** The params of `item/commandExecution/requestApproval`. */
export interface CommandApprovalParams {
  readonly itemId: string;
  readonly reason?: string | null;
  readonly command?: string | null;
  readonly cwd?: string | null;
  readonly networkApprovalContext?: { readonly host: string; readonly protocol: string } | null;
}

/** The params of `item/fileChange/requestApproval`. */
export interface FileChangeApprovalParams {
  readonly itemId: string;
  readonly reason?: string | null;
  readonly grantRoot?: string | null;
}

/**
 * The command as the user typed it, without Codex's shell wrapper: `/bin/bash -lc 'touch a'` →
 * `touch a`. Anything else is returned unchanged.
 */
export function displayCommand(command: string): string {
  const words = splitCommandLine(command);
  if (words && words.length === 3 && /^(ba|z|da)?sh$/.test(path.basename(words[0]!)) && /^-l?c$/.test(words[1]!)) return words[2]!;
  return command;
}

/** `file` (absolute, or relative to `cwd`) relative to `cwd` when under it (`insideFolder.ts`), else as given. */
export function relativeTo(cwd: string, file: string): string {
  return relativeInside(cwd, file) || file;
}

/**
 * A unified diff of Codex's file changes. Codex gives an `update` as hunks, an `add` as the new
 * content and a `delete` as the old content; each becomes a `---/+++` file section.
 */
export function unifiedDiff(changes: readonly FileUpdateChange[], cwd: string): string {
  const out: string[] = [];
  for (const change of changes) {
    const file = relativeTo(cwd, change.path);
    const body = change.diff.endsWith('\n') ? change.diff.slice(0, -1) : change.diff;
    const lines = body === '' ? [] : body.split('\n');
    if (change.kind.type === 'add') {
      out.push('--- /dev/null', `+++ b/${file}`, `@@ -0,0 +1,${lines.length} @@`, ...lines.map((l) => `+${l}`));
    } else if (change.kind.type === 'delete') {
      out.push(`--- a/${file}`, '+++ /dev/null', `@@ -1,${lines.length} +0,0 @@`, ...lines.map((l) => `-${l}`));
    } else {
      const target = change.kind.move_path ? relativeTo(cwd, change.kind.move_path) : file;
      out.push(`--- a/${file}`, `+++ b/${target}`, ...lines);
    }
  }
  return out.length ? `${out.join('\n')}\n` : '';
}
