/**
 * Unified diffs for people: what a file change will do, shown on approval cards and invocations.
 * The diffing is jsdiff's (`diff` package, `structuredPatch`); this module only formats its hunks
 * with `--- a/<from>` / `+++ b/<to>` headers (`/dev/null` for a new file) and 3 lines of context.
 */
import { structuredPatch } from 'diff';

/**
 * A unified diff between two texts. `fromLabel` `/dev/null` marks a new file. Relative labels get
 * git's `a/` and `b/` prefixes; absolute ones (a file outside the workspace) are shown as they are.
 */
export function unifiedDiff(before: string, after: string, fromLabel: string, toLabel: string): string {
  const side = (prefix: string, label: string) => (label === '/dev/null' || label.startsWith('/') || /^[A-Za-z]:[\\/]/.test(label) ? label : `${prefix}${label}`);
  const header = `--- ${side('a/', fromLabel)}\n+++ ${side('b/', toLabel)}\n`;
  const patch = structuredPatch(fromLabel, toLabel, before, after, '', '', { context: 3 });
  const out: string[] = [header];
  for (const hunk of patch.hunks) {
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 + (hunk.oldStart === 0 ? 1 : 0) : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 + (hunk.newStart === 0 ? 1 : 0) : hunk.newStart;
    out.push(`@@ -${Math.max(0, oldStart)},${hunk.oldLines} +${Math.max(0, newStart)},${hunk.newLines} @@\n`);
    for (const line of hunk.lines) if (!line.startsWith('\\')) out.push(`${line}\n`);
  }
  return out.join('');
}
