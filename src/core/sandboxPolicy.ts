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
import { isInsideFolder } from './insideFolder';
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
  | {
      readonly type: 'boundary';
      readonly kind: BoundaryKind;
      readonly subject: string;
      readonly scopeKey: string;
      readonly why: string;
      /** What "Allow for this session" would approve, in words (e.g. "`npm` commands without shell operators"). */
      readonly grants: string;
    };

/** Programs that only read, run without asking when their arguments stay in the workspace. */
export const READ_ONLY_PROGRAMS: readonly string[] = [
  'ls', 'pwd', 'cat', 'head', 'tail', 'wc', 'echo', 'date', 'whoami', 'uname', 'grep', 'rg', 'stat', 'file', 'tree', 'du',
];

/**
 * git is deliberately not read-only here: a repository's own config (`core.fsmonitor`, pagers,
 * diff drivers, `--output`) can make even `git status` run commands or write files.
 */
export const READ_ONLY_GIT_SUBCOMMANDS: readonly string[] = [];

/** Programs whose purpose is to reach the network. */
export const NETWORK_PROGRAMS: readonly string[] = ['curl', 'wget', 'ssh', 'scp', 'nc', 'ping', 'ftp', 'rsync'];

const SHELL_OPERATORS = /[|;&<>`$(){}\n\\*?[\]!]/;

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

/**
 * True when `target` (absolute or relative to `workspaceRoot`) resolves inside `workspaceRoot`, by
 * the one rule of `insideFolder.ts` (`..cache/x` is inside, `../x` is not); a `~` path never is.
 */
export function isInsideWorkspace(workspaceRoot: string, target: string): boolean {
  return isInsideFolder(workspaceRoot, expandHome(target));
}

/** `~`, `~/x` and `~user/x` all lead to a home folder: outside any workspace. */
function expandHome(p: string): string {
  return p.startsWith('~') ? path.join('/__home__', p.slice(1)) : p;
}

function looksLikePath(word: string): boolean {
  return word.startsWith('/') || word.startsWith('~') || word.startsWith('..') || word.includes('/..');
}

/** An option that carries a path (`--output=/x`, `-f/x`, `--files0-from=~/x`): its path part, else undefined. */
function optionPath(word: string): string | undefined {
  if (!word.startsWith('-')) return undefined;
  const eq = word.indexOf('=');
  if (eq >= 0) return word.slice(eq + 1);
  const at = word.search(/[/~.]/);
  return at > 0 ? word.slice(at) : undefined;
}

/** True when a path names something inside a `.git` folder (hooks and config there run code). */
function touchesGitInternals(p: string): boolean {
  return p.split(/[\\/]/).includes('.git');
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
    const resolved = path.resolve(workspaceRoot, expandHome(action.path));
    if (isInsideWorkspace(workspaceRoot, action.path)) {
      if (action.type === 'write' && touchesGitInternals(path.relative(workspaceRoot, resolved))) {
        return {
          type: 'boundary',
          kind: 'file_change',
          subject: resolved,
          scopeKey: `file_change:${resolved}`,
          why: 'Writing inside .git can change what git runs (hooks, config)',
          grants: 'writing this file again in this chat',
        };
      }
      return { type: 'inside' };
    }
    const kind: BoundaryKind = action.type === 'read' ? 'read_outside_workspace' : 'write_outside_workspace';
    return {
      type: 'boundary',
      kind,
      subject: resolved,
      // A grant covers this one file, never its neighbours.
      scopeKey: `${kind}:${resolved}`,
      why: `${action.type === 'read' ? 'Reading' : 'Writing'} a file outside the workspace folder`,
      grants: `${action.type === 'read' ? 'reading' : 'writing'} this file again in this chat`,
    };
  }
  const command = action.command.trim();
  const words = splitCommandLine(command);
  const program = words?.[0] ?? command.split(/\s+/)[0] ?? '';
  const programName = path.basename(program);
  // "Allow for this session" covers every command of a program only for simple commands (no shell
  // operators, no path outside the workspace); anything else is granted for the exact command line.
  const exact: SandboxVerdict = {
    type: 'boundary',
    kind: 'command',
    subject: command,
    scopeKey: `command-exact:${command}`,
    why: 'The command uses shell operators or could not be parsed',
    grants: 'this exact command again in this chat',
  };
  if (NETWORK_PROGRAMS.includes(programName)) {
    return { ...exact, kind: 'network', scopeKey: `network-exact:${command}`, why: 'The command reaches the network' };
  }
  if (!words || words.length === 0 || SHELL_OPERATORS.test(command)) {
    const readOnlyProgram = READ_ONLY_PROGRAMS.includes(program);
    return readOnlyProgram || !words ? exact : { ...exact, why: 'The command is not on the read-only allowlist, and it uses shell operators' };
  }
  const outside = words.slice(1).find((w) => {
    const candidates = [w, optionPath(w)].filter((c): c is string => c !== undefined && c !== '');
    return candidates.some(
      (c) =>
        (looksLikePath(c) && !isInsideWorkspace(workspaceRoot, c)) ||
        (resolveArgument !== undefined && !c.startsWith('-') && !isInsideWorkspace(workspaceRoot, resolveArgument(c))),
    );
  });
  if (outside !== undefined) return { ...exact, why: `The command names a path outside the workspace (${outside})` };
  if (!READ_ONLY_PROGRAMS.includes(program)) {
    return {
      ...exact,
      scopeKey: `command:${programName}`,
      why: 'The command is not on the read-only allowlist',
      grants: `\`${programName}\` commands without shell operators or outside paths, in this chat`,
    };
  }
  return { type: 'inside' };
}
