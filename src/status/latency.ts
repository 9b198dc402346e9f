/**
 * Upstream latency as a fixed log-scale histogram: bucket i holds answers of at most 10 ms × 1.25^i (10 ms … ~70 s), so
 * percentiles are exact to one bucket (25 %) and windows from several instances merge by adding counts.
 */
export const LATENCY_BUCKETS = 40;
const FIRST_MS = 10;
const STEP = Math.log(1.25);

/** @example latencyBucket(0.012) // 1 (≤ 12.5 ms) */
export function latencyBucket(seconds: number): number {
  const ms = seconds * 1000;
  if (!(ms > FIRST_MS)) return 0;
  return Math.min(LATENCY_BUCKETS - 1, Math.ceil(Math.log(ms / FIRST_MS) / STEP));
}

/** Upper bound of bucket i, in whole ms. */
export function bucketUpperMs(i: number): number {
  return Math.round(FIRST_MS * Math.pow(1.25, i));
}

/** The q-quantile's bucket bound in ms, or null when the histogram is empty. */
export function quantileMs(histogram: readonly number[], q: number): number | null {
  let total = 0;
  for (const c of histogram) total += c;
  if (total === 0) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i]!;
    if (seen >= rank) return bucketUpperMs(i);
  }
  return bucketUpperMs(histogram.length - 1);
}
