/** A lookup's answer as the cache stores it and routes send it (below both operations/lookup and cache/). */
export type CacheStatus = 'hit' | 'miss' | 'stale' | 'shared';

export interface LookupResult {
  /** The record, serialised and UTF-8 encoded once: cached answers are sent as these bytes. */
  body: Buffer;
  /** When the upstream fetch happened (ms since epoch). */
  fetchedAt: number;
  /** `fetchedAt` as an HTTP date, when already computed (cached answers keep it). */
  lastModified?: string;
  cache: CacheStatus;
  /** Timings of this request's own work (absent on cache hits). */
  upstreamMs?: number;
  parseMs?: number;
  /** Time spent waiting for an identical in-flight fetch (X-Cache: shared). */
  waitMs?: number;
  /** Record parts left null because their source failed. */
  missingParts: string[];
}
