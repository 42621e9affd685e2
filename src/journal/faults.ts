/**
 * Fault injection, for tests only: the one owner of the `.fault-*` seams. While a file
 * `<snapshot>.fault-<name>` exists, the named point of the write path fails as a full disk does
 * (ENOSPC), so the refusal paths run for real, against real files:
 * - `append` (`.fault-enospc`): every log append of a write group;
 * - `rotate` (`.fault-enospc-rotate`): creating a new log generation (after its header is written);
 * - `lock` (`.fault-enospc-lock`): taking the write lock.
 * The write path asks `check(point)` at those points; with injection off (the product), it answers
 * without touching the disk.
 */
import * as fs from 'node:fs';

/** A named point of the write path where a fault can be injected. */
export type FaultPoint = 'append' | 'rotate' | 'lock';

const SUFFIX: Record<FaultPoint, string> = { append: '.fault-enospc', rotate: '.fault-enospc-rotate', lock: '.fault-enospc-lock' };

/** What the injected failure says (the lock's reads as the failed write of its lock file). */
const MESSAGE: Record<FaultPoint, string> = {
  append: 'ENOSPC: no space left on device (injected)',
  rotate: 'ENOSPC: no space left on device (injected)',
  lock: 'ENOSPC: no space left on device, write (injected)',
};

/** The fault seams of one journal file. */
export class FaultSeams {
  /** `enabled` false (the product): `check` never throws and never looks at the disk. */
  constructor(
    private readonly file: string,
    private readonly enabled: boolean,
  ) {}

  /** No seams at all (compaction, tools). */
  static readonly none = new FaultSeams('', false);

  /** @throws an ENOSPC error (`code: 'ENOSPC'`) while the seam's file of `point` exists. */
  check(point: FaultPoint): void {
    if (this.enabled && fs.existsSync(`${this.file}${SUFFIX[point]}`)) {
      throw Object.assign(new Error(MESSAGE[point]), { code: 'ENOSPC' });
    }
  }
}
