/**
 * Identity and liveness of extension-host processes.
 *
 * Every VS Code window runs its own extension host, and a reload starts a new one, all against the
 * same journal. A run is owned by the instance that started it; recovery may only take over runs
 * whose owner is dead. An instance is identified by pid plus the process start time (so a reused
 * pid is not mistaken for the old process) and the hostname.
 */
import * as os from 'node:os';
import { randomUUID } from 'node:crypto';
import { isProcessAlive, processStartTime } from '../journal/processInfo';
import type { InstanceRecord } from '../journal/records';

export { processStartTime };

/** Describes this process as a new instance (fresh id). `now` in ms. */
export function describeThisInstance(now: number): InstanceRecord {
  return {
    id: randomUUID(),
    pid: process.pid,
    processStart: processStartTime(process.pid),
    hostname: os.hostname(),
    startedAt: now,
    lastSeenAt: now,
  };
}

/**
 * True when the process an instance row describes is still running. An instance on another host
 * cannot be checked and is presumed alive (never take over a run that may still be driven).
 */
export function isInstanceAlive(instance: InstanceRecord): boolean {
  return isProcessAlive(instance.pid, instance.processStart, instance.hostname);
}
