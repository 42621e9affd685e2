/**
 * Racing a promise against an abort signal: the agents wait for a permission decision or a tool's
 * result, and Stop must not wait for either. The losing promise is left to settle on its own (its
 * rejection is still observed, so nothing is reported as unhandled).
 */

/** What `unlessAborted` resolves with when the signal aborted first. */
export const ABORTED: unique symbol = Symbol('aborted');

/**
 * Resolves with `promise`'s value, or with `ABORTED` as soon as `signal` aborts (at once when it
 * already has). Without a signal, `promise` itself. Rejects when `promise` rejects first (a value
 * that is not an Error is wrapped in one).
 */
export function unlessAborted<T>(signal: AbortSignal | undefined, promise: Promise<T>): Promise<T | typeof ABORTED> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.resolve(ABORTED);
  }
  return new Promise<T | typeof ABORTED>((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
