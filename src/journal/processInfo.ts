/**
 * Process identity helpers shared by the journal (lock holders) and the runtime (instances, and the
 * process groups of `run` commands). Linux `/proc`; elsewhere every answer is "cannot tell" (null,
 * or false for `processGroupRunning`).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';

/** The fields of `/proc/<pid>/stat` these helpers use. */
export interface ProcessStat {
  /** One letter: `R` running, `S` sleeping, `Z` zombie (exited, not yet reaped), … */
  readonly state: string;
  /** Process group id. */
  readonly pgrp: number;
  /** Start time as an opaque string (clock ticks since boot). */
  readonly startTime: string;
}

/**
 * Fields of `/proc/<pid>/stat`, or null where it cannot be read (no such process, not Linux).
 * The fields are read after the `)` that ends the command name (which may itself contain spaces or
 * parentheses): state is field 3, pgrp field 5, start time field 22.
 */
export function processStat(pid: number): ProcessStat | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const startTime = fields[19]; // fields[0] is field 3
    if (fields[0] === undefined || fields[2] === undefined || startTime === undefined) return null;
    return { state: fields[0], pgrp: Number(fields[2]), startTime };
  } catch {
    return null;
  }
}

/** Start time of process `pid` as an opaque string, or null where it cannot be read. */
export function processStartTime(pid: number): string | null {
  return processStat(pid)?.startTime ?? null;
}

/**
 * True when process `pid`'s environment (`/proc/<pid>/environ`, as it was at its exec) holds the
 * entry `name=value`; false where it cannot be read (exited, another user's, not Linux).
 */
export function processEnvironHas(pid: number, name: string, value: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`${name}=${value}`);
  } catch {
    return false;
  }
}

/** Pids of the members of process group `pgid` that have not exited (zombies excluded); empty where `/proc` cannot be read. */
export function processGroupMembers(pgid: number): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  return entries.filter((e) => /^\d+$/.test(e)).map(Number).filter((pid) => {
    const stat = processStat(pid);
    return stat !== null && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X';
  });
}

/**
 * True when process group `pgid` has a member that has not exited (zombies, which only wait for
 * their parent to reap them, do not count). Scans `/proc`; false where it cannot be read.
 */
export function processGroupRunning(pgid: number): boolean {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return false;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = processStat(Number(entry));
    if (stat && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') return true;
  }
  return false;
}

/**
 * True unless process `pid` on `host` is known to be gone: it is on this host and either no such
 * process exists, or one does with a start time other than `start` (the pid was reused). A process
 * on another host cannot be checked, nor one whose start time is unknown (`start` null, or not
 * readable here): those are presumed alive, so nothing a live process may still hold is taken over.
 */
export function isProcessAlive(pid: number, start: string | null, host: string): boolean {
  if (host !== os.hostname()) return true;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    // EPERM: a process exists but is not ours; the start time tells whether it is the same one.
  }
  if (start === null) return true;
  const now = processStartTime(pid);
  return now === null || now === start;
}
