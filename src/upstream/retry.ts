/** Backoff, Retry-After and deadline-aware sleeping: retries spend from the lookup's deadline, never past it. */
/**
 * Exponential backoff with "equal jitter": half fixed, half random, so retries spread without collapsing to 0.
 * @example backoffMs(2, 100, () => 0.5) // 300 (= 200 + 0.5 × 200)
 */
export function backoffMs(retry: number, baseMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(baseMs * 2 ** (retry - 1), baseMs * 30);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** The longest upstream Retry-After we act on or pass to a client: an upstream's 99999 is not our answer. */
export const MAX_RETRY_AFTER_SECONDS = 3600;

/**
 * Seconds from a Retry-After header (delta-seconds or an HTTP date), at most MAX_RETRY_AFTER_SECONDS; undefined
 * when absent or unreadable.
 * @example retryAfterSeconds('3') // 3
 * @example retryAfterSeconds('99999') // 3600
 */
export function retryAfterSeconds(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Math.min(Number(value), MAX_RETRY_AFTER_SECONDS);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, Math.ceil((at - now) / 1000)), MAX_RETRY_AFTER_SECONDS);
}

/** Waits `ms` unless the deadline fires first (then rejects with the signal's reason). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
