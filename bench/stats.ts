/**
 * Small statistics helpers for the benchmark: nearest-rank percentiles over latency samples (ms)
 * and a compact summary of a sample set.
 */

/** Summary of a set of latency samples, in ms. */
export interface Summary {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** Nearest-rank percentile `p` (0-100) of `samples` (not modified). NaN for an empty set. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** p50, p99, max and mean of `samples` (ms). */
export function summarize(samples: readonly number[]): Summary {
  const n = samples.length;
  const mean = n === 0 ? Number.NaN : samples.reduce((a, b) => a + b, 0) / n;
  return { n, p50: percentile(samples, 50), p99: percentile(samples, 99), max: n === 0 ? Number.NaN : samples.reduce((a, b) => Math.max(a, b), -Infinity), mean };
}

/** Rounds to `digits` decimals (keeps NaN as null-friendly NaN). */
export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Formats a number of ms for a table cell ("0.42", "12.3", "1180"). */
export function fmt(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return 'n/a';
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}
