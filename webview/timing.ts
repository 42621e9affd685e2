/**
 * User Timing of the view: DevTools' Performance panel shows these entries, and the long-chat view
 * bench reads them from the chat's frame. Besides the marks of a view's start (`nac:main`,
 * `nac:toolkit`, set in main.ts; `nac:ready`, `nac:snapshot`, `nac:snapshot-rendered`, set by `ChatView`), each render
 * (`nac:render`), each pass of the virtualized transcript that a scroll or a resize scheduled
 * (`nac:layout`) and each host message's handling (`nac:message`) is a measure. The browser keeps
 * every User Timing entry until it is cleared, so each name keeps at most `MAX_MEASURES` (then its
 * measures are cleared and counting starts again).
 */

/** The most measures of one name kept. */
const MAX_MEASURES = 200;
const counts = new Map<string, number>();

/** Runs `work` and records its duration as a measure named `name`; returns what `work` returns (a throw goes on, measured). */
export function timed<T>(name: string, work: () => T): T {
  const start = performance.now();
  try {
    return work();
  } finally {
    const n = (counts.get(name) ?? 0) + 1;
    if (n > MAX_MEASURES) performance.clearMeasures(name);
    counts.set(name, n > MAX_MEASURES ? 1 : n);
    performance.measure(name, { start });
  }
}
