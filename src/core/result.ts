/**
 * A discriminated result for operations whose failure is an expected outcome the UI shows
 * (a refused journal write, a rejected message), not an exception.
 * `reason` is a stable machine code; `message` is a sentence for people.
 */
export type Result<T, R extends string = string> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reason: R; readonly message: string };

/** Builds a success. */
export function ok<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value };
}

/** Builds a failure with a machine `reason` and a human `message`. */
export function fail<R extends string>(reason: R, message: string): { readonly ok: false; readonly reason: R; readonly message: string } {
  return { ok: false, reason, message };
}
