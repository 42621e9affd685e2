/**
 * Process identity helpers shared by the journal (lock holders) and the runtime (instances).
 */
import * as fs from 'node:fs';

/**
 * Start time of process `pid` as an opaque string, or null where it cannot be read.
 * Linux: field 22 of `/proc/<pid>/stat` (clock ticks since boot), read after the `)` that ends the
 * command name (which may itself contain spaces or parentheses).
 */
export function processStartTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null; // field 22 overall; fields[0] is field 3
  } catch {
    return null;
  }
}
