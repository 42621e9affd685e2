/**
 * The sandbox policy shared by every agent whose tools run in this product's own tool runtime
 * (the local agent, OpenAI-compatible servers, VS Code language models).
 *
 * Inside the sandbox, without asking: read-only commands from a small allowlist, and reads/writes of
 * files inside the workspace folder. Everything else needs a sandbox boundary request: any other
 * command (or an allowlisted one with shell operators or a path outside the workspace), a network
 * tool, or a path outside the workspace.
 *
 * Pure: uses `node:path` for path arithmetic only; never touches the file system.
 */
import * as path from 'node:path';
import type { BoundaryKind } from './vocabulary';

/** What a tool call wants to do, as the policy sees it. */
export type SandboxAction =
  | { readonly type: 'command'; readonly command: string }
  | { readonly type: 'read'; readonly path: string }
  | { readonly type: 'write'; readonly path: string };

/**
 * The policy's verdict. `inside`: run without asking. `boundary`: ask first; `scopeKey` is what an
 * "Allow for this session" grant covers (e.g. `command:npm`), `subject` is what the user is shown.
 */
export type SandboxVerdict =
  | { readonly type: 'inside' }
  | { readonly type: 'boundary'; readonly kind: BoundaryKind; readonly subject: string; readonly scopeKey: string; readonly why: string };

/** Programs that only read, run without asking when their arguments stay in the workspace. */
export const READ_ONLY_PROGRAMS: readonly string[] = [
  'ls', 'pwd', 'cat', 'head', 'tail', 'wc', 'echo', 'date', 'whoami', 'uname', 'grep', 'rg', 'stat', 'file', 'tree', 'du',
];

/** git subcommands that only read. */
export const READ_ONLY_GIT_SUBCOMMANDS: readonly string[] = ['status', 'log', 'diff', 'show', 'branch', 'rev-parse', 'ls-files'];

/** Programs whose purpose is to reach the network. */
export const NETWORK_PROGRAMS: readonly string[] = ['curl', 'wget', 'ssh', 'scp', 'nc', 'ping', 'ftp', 'rsync'];

const SHELL_OPERATORS = /[|;&<>`$(){}\n\\*?]/;

/**
 * Splits a command line into words, honouring single and double quotes.
 * Returns `undefined` for an unbalanced quote (the policy then treats the command as unknown).
 */
export function splitCommandLine(command: string): string[] | undefined {
  const words: string[] = [];
  let current = '';
  let quote: '"' | "'" | undefined;
  let inWord = false;
  for (const ch of command.trim()) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (quote) return undefined;
  if (inWord) words.push(current);
  return words;
}

/** True when `target` (absolute or relative to `workspaceRoot`) resolves inside `workspaceRoot`. */
export function isInsideWorkspace(workspaceRoot: string, target: string): boolean {
  const resolved = path.resolve(workspaceRoot, expandHome(target));
  const rel = path.relative(path.resolve(workspaceRoot), resolved);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? path.join('/__home__', p.slice(1)) : p;
}

function looksLikePath(word: string): boolean {
  return word.startsWith('/') || word.startsWith('~') || word.startsWith('..') || word.includes('/..');
}

/**
 * Classifies one action against a workspace root (absolute path). `resolveArgument` lets the caller
 * judge command arguments by where they really lead (the tool runtime resolves symlinks with it).
 * Never throws; an unparsable command is a `command` boundary.
 */
export function classifyAction(
  action: SandboxAction,
  workspaceRoot: string,
  /** Where a command argument really leads (e.g. through symlinks); identity when omitted. */
  resolveArgument?: (word: string) => string,
): SandboxVerdict {
  if (action.type === 'read' || action.type === 'write') {
    if (isInsideWorkspace(workspaceRoot, action.path)) return { type: 'inside' };
    const resolved = path.resolve(workspaceRoot, action.path);
    const kind: BoundaryKind = action.type === 'read' ? 'read_outside_workspace' : 'write_outside_workspace';
    return {
      type: 'boundary',
      kind,
      subject: resolved,
      scopeKey: `${kind}:${path.dirname(resolved)}`,
      why: `${action.type === 'read' ? 'Reading' : 'Writing'} a file outside the workspace folder`,
    };
  }
  const command = action.command.trim();
  const words = splitCommandLine(command);
  const program = words?.[0] ?? command.split(/\s+/)[0] ?? '';
  const programName = path.basename(program);
  if (NETWORK_PROGRAMS.includes(programName)) {
    return { type: 'boundary', kind: 'network', subject: command, scopeKey: `network:${programName}`, why: 'The command reaches the network' };
  }
  const boundary: SandboxVerdict = {
    type: 'boundary',
    kind: 'command',
    subject: command,
    scopeKey: `command:${programName}`,
    why: 'The command is not on the read-only allowlist',
  };
  if (!words || words.length === 0 || SHELL_OPERATORS.test(command)) {
    return { ...boundary, why: 'The command uses shell operators or could not be parsed' };
  }
  const readOnly =
    READ_ONLY_PROGRAMS.includes(program) ||
    (program === 'git' && words.length >= 2 && READ_ONLY_GIT_SUBCOMMANDS.includes(words[1] ?? ''));
  if (!readOnly) return boundary;
  const outside = words.slice(1).find(
    (w) => (looksLikePath(w) && !isInsideWorkspace(workspaceRoot, w)) || (resolveArgument !== undefined && !w.startsWith('-') && !isInsideWorkspace(workspaceRoot, resolveArgument(w))),
  );
  if (outside !== undefined) return { ...boundary, why: `The command names a path outside the workspace (${outside})` };
  return { type: 'inside' };
}
