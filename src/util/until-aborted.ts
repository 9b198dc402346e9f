/**
 * Settles like `work`, or rejects with `reason()` as soon as `signal` fires — whichever comes first. The work itself
 * carries on (its owner cleans it up): this only stops *waiting* for it, e.g. a caller whose deadline passed while a
 * shared fetch goes on for the others.
 * @example await untilAborted(sharedFetch, ctx.signal, () => new MarketlensError('upstream_timeout', '…'))
 */
export function untilAborted<T>(
  work: Promise<T>,
  signal: AbortSignal,
  reason: () => unknown = () => signal.reason,
): Promise<T> {
  if (signal.aborted) return Promise.reject(reason());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
