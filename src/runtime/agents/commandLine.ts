/**
 * What the agents read from a shell command line. One rule for every agent, so a scope key such as
 * `claude:Bash:npm` or `codex:command:npm` names the same program for the same command.
 */
import * as path from 'node:path';
import { splitCommandLine } from '../../core/sandboxPolicy';

/**
 * The program a shell command starts: the basename of its first word after `VAR=value`
 * assignments, e.g. `npm` for `FOO=1 /usr/bin/npm test`. A command line the sandbox's splitter
 * cannot parse (an open quote) is split at whitespace. `fallback` names a command with no program
 * (empty, or assignments only).
 */
export function programOf(command: string, fallback = 'shell'): string {
  const words = splitCommandLine(command) ?? command.trim().split(/\s+/);
  const first = words.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) ?? '';
  return path.basename(first) || fallback;
}
