/**
 * Ending a `run` command that outlived its extension host.
 *
 * A command runs in a process group of its own (`runCommand`), journaled when it started with its
 * leader's pid and start time (`ProcessGroupRecord`). When a host dies (a crash, `kill -9`), its
 * commands keep running, re-parented to init, while the transcript says they were interrupted.
 * Recovery ends them with `stopOrphanedProcessGroup`:
 * - only on the machine the command ran on (`hostname`);
 * - only if the pid still belongs to the same process: the start time read from `/proc` now must
 *   equal the journaled one, so a pid the system gave to another process since is never signalled;
 *   or, when the leader has exited (a shell that left a background process running), only if a
 *   running member of the group carries the command's mark in its environment (`COMMAND_MARK_ENV`):
 *   while such a member runs, the group id cannot have been given to another group;
 * - SIGTERM to the whole group, then SIGKILL if a member is still running after `graceMs`.
 * Between the check and the SIGKILL the group id cannot be given to another group while one of its
 * members is still running (Linux does not reuse a pid that is some group's id), and the group is
 * polled every `pollMs`, so the SIGKILL goes to the group that was checked.
 */
import * as os from 'node:os';
import type { ProcessGroupRecord } from '../core/events';
import { processEnvironHas, processGroupMembers, processGroupRunning, processStat } from '../journal/processInfo';

/**
 * The environment variable `runCommand` sets to the command's `marker` (`ProcessGroupRecord`): the
 * processes the command starts inherit it, so its group is told ours after its leader exited.
 */
export const COMMAND_MARK_ENV = 'NATIVE_AGENT_CHATS_COMMAND';

/**
 * What `stopOrphanedProcessGroup` did:
 * - `stopped`: the group was still running and was signalled until no member ran;
 * - `not_running`: nothing of it runs any more (or it cannot be checked here);
 * - `pid_reused`: the pid now belongs to another process (start time differs): nothing signalled;
 * - `other_host`: journaled on another machine: nothing signalled;
 * - `failed`: a signal was refused (e.g. EPERM) or members still ran after SIGKILL.
 */
export type OrphanStopOutcome = 'stopped' | 'not_running' | 'pid_reused' | 'other_host' | 'failed';

/** Options of `stopOrphanedProcessGroup`. Times in ms. */
export interface OrphanStopOptions {
  /** How long members get to exit after SIGTERM before SIGKILL (default 1000). */
  readonly graceMs?: number;
  /** How often the group is checked while waiting (default 50). */
  readonly pollMs?: number;
  /** Receives a line per signal refused (never throws). */
  readonly log?: (line: string) => void;
}

/** Ends a still-running process group a dead host's command left (see module docstring). */
export async function stopOrphanedProcessGroup(group: ProcessGroupRecord, options: OrphanStopOptions = {}): Promise<OrphanStopOutcome> {
  if (group.hostname !== os.hostname()) return 'other_host';
  const leader = processStat(group.pid);
  if (!leader) {
    // The leader exited: its pid may already be another process's, so only a member carrying our mark tells the group ours.
    const mark = group.marker;
    if (!mark || !processGroupMembers(group.pid).some((pid) => processEnvironHas(pid, COMMAND_MARK_ENV, mark))) return 'not_running';
  } else if (leader.startTime !== group.startTime) return 'pid_reused';
  if (!processGroupRunning(group.pid)) return 'not_running';
  const log = options.log ?? (() => undefined);
  const term = signalGroup(group.pid, 'SIGTERM', log);
  if (term === 'refused') return 'failed';
  if (term === 'gone' || (await waitUntilGone(group.pid, options.graceMs ?? 1000, options.pollMs ?? 50))) return 'stopped';
  const kill = signalGroup(group.pid, 'SIGKILL', log);
  if (kill === 'refused') return 'failed';
  if (kill === 'gone' || (await waitUntilGone(group.pid, options.graceMs ?? 1000, options.pollMs ?? 50))) return 'stopped';
  log(`[recovery] process group ${group.pid} still runs after SIGKILL`);
  return 'failed';
}

/** Sends `signal` to group `pgid`: `sent`, `gone` (ESRCH: no member left) or `refused` (logged). */
function signalGroup(pgid: number, signal: NodeJS.Signals, log: (line: string) => void): 'sent' | 'gone' | 'refused' {
  try {
    process.kill(-pgid, signal);
    return 'sent';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return 'gone';
    log(`[recovery] could not send ${signal} to process group ${pgid}: ${code ?? (error as Error).message}`);
    return 'refused';
  }
}

/** Polls until no member of group `pgid` runs; false if some still runs after `timeoutMs`. */
async function waitUntilGone(pgid: number, timeoutMs: number, pollMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (!processGroupRunning(pgid)) return true;
    if (Date.now() >= end) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
