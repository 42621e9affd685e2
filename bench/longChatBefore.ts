/**
 * The long-chat figures of the design before issue 11 (the whole transcript in every snapshot, a
 * snapshot re-sent for every change made in another window, every turn in the DOM), kept beside the
 * new ones so the change shows: the 5,000-turn column of `npm run bench -- --long-chat` run on
 * 2026-12-01 at 17:19 UTC (load 2.5-3.8 on 2 cores), and what issue 11 measured in code-server.
 * Times in ms, sizes in MB.
 */

/** The host and reducer figures of the old design at 5,000 turns (p50 / p95, ms; MB). */
export const BEFORE_HOST = {
  when: '2026-12-01 17:19 UTC, load 2.5-3.8',
  snapshotMB: 14.0,
  open: [11082, 19598],
  serialize: [65.2, 191],
  updateHost: [10620, 14458],
  updateNotify: [23.0, 51.1],
  webviewSnapshot: [27.7, 61.6],
  webviewUpdate: [0.17, 0.30],
  rssOpenMB: 63.5,
  rssHeldMB: 249,
  heapHeldMB: 18.2,
  memoryAboveShortMB: 197,
} as const;

/** What issue 11 measured from outside in code-server with the old design and 5,000 turns. */
export const BEFORE_VIEW = {
  open: '13-20 s',
  reload: '24 s after the reload',
  frames: 'p50 16.7, p95 233, longest 267; a long task per wheel step',
  decidedA: '650 (the click)',
  clearedB: 'not after 20 s (1 trial)',
  rss: '575 vs 232 MB (another journal)',
} as const;
