/**
 * Checkpoints for agents whose own client changes files (Claude Code's Write / Edit / MultiEdit /
 * NotebookEdit, Codex's file changes): the before image of each file is read and journaled with
 * the invocation once the tool may run and before it runs (`before`), the after image is read when
 * its result arrives and journaled with the invocation's end (`after`). A crash in between leaves
 * the before image and an unknown after image (core/checkpoints.ts: the undo then asks).
 */
import { lineCounts } from '../../core/checkpoints';
import { unifiedDiff } from '../../core/unifiedDiff';
import type { FileChangeInput } from '../../journal/operations/checkpoints';
import type { InvocationHandle } from '../agent';
import { checkpointPath, readImage, type DiskImage } from '../fileImages';

/** Largest file (bytes) whose +/- lines are counted. */
const MAX_COUNTED_BYTES = 256 * 1024;

/** The checkpoints of one agent run's tool invocations, by tool call id (see module docstring). */
export class ToolCheckpoints {
  private readonly captured = new Map<string, { path: string; before: DiskImage }[]>();

  constructor(private readonly cwd: string, private readonly log: (line: string) => void) {}

  /**
   * Reads and journals the before images of `files` (absolute or relative to the workspace) for
   * call `callId`; never throws (a failure is logged: the change is then not checkpointed).
   */
  async before(callId: string, handle: InvocationHandle | undefined, files: readonly string[]): Promise<void> {
    if (!handle?.recordFileChanges || files.length === 0 || this.captured.has(callId)) return;
    try {
      const images = await Promise.all(files.map(async (file) => ({ path: checkpointPath(this.cwd, file), before: await readImage(this.cwd, file) })));
      this.captured.set(callId, images);
      await handle.recordFileChanges(images.map((i) => ({ path: i.path, before: i.before.input })));
    } catch (error) {
      this.log(`[checkpoints] could not record the files before tool call ${callId}: ${(error as Error).message}`);
    }
  }

  /**
   * What `finish` journals for call `callId` once its result came: the after image of each file
   * captured before, with +/- lines, and whether any changed. Empty when nothing was captured.
   */
  async after(callId: string): Promise<{ fileChanges?: FileChangeInput[]; fileChangesApplied?: boolean }> {
    const captured = this.captured.get(callId);
    if (!captured) return {};
    this.captured.delete(callId);
    try {
      let changed = false;
      const fileChanges = await Promise.all(captured.map(async ({ path, before }) => {
        const after = await readImage(this.cwd, path);
        if (after.image.exists !== before.image.exists || after.image.hash !== before.image.hash) changed = true;
        return { path, after: after.input, ...countsOf(path, before, after) };
      }));
      return { fileChanges, fileChangesApplied: changed };
    } catch (error) {
      this.log(`[checkpoints] could not read the files after tool call ${callId}: ${(error as Error).message}`);
      return {};
    }
  }
}

/** +/- lines between two images of a text file (left out for large or missing bytes). */
function countsOf(path: string, before: DiskImage, after: DiskImage): { added?: number; removed?: number } {
  const text = (d: DiskImage) => (d.image.exists ? (d.bytes && d.bytes.byteLength <= MAX_COUNTED_BYTES ? Buffer.from(d.bytes).toString('utf8') : undefined) : '');
  const [a, b] = [text(before), text(after)];
  if (a === undefined || b === undefined) return {};
  const counts = lineCounts(unifiedDiff(a, b, path, path));
  return counts ? { added: counts.added, removed: counts.removed } : {};
}
