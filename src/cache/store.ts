/**
 * Where answers are kept between lookups. Two implementations behind one interface: in-process (default, bounded by
 * bytes) and Redis (shared by every instance). A store never throws to its caller: a failing store is a miss.
 */

/** One cached answer: the record already serialised, so a hit sends these bytes without re-serialising. */
export interface CachedAnswer {
  json: string;
  /** When the upstream fetch happened (ms since epoch). */
  fetchedAt: number;
  /** Record parts left null because their source failed. */
  missingParts: string[];
  /** `Last-Modified` value, computed once per answer rather than once per hit. */
  lastModified: string;
}

export type MaybePromise<T> = T | Promise<T>;

export interface Store {
  /** `memory` or `redis`, for logs and /readyz. */
  readonly kind: 'memory' | 'redis';
  /** The answer under `key`, or undefined (absent, expired, or the store is unavailable). May answer synchronously. */
  get(key: string): MaybePromise<CachedAnswer | undefined>;
  /** Keeps `answer` for `retainSeconds` (long enough for stale-while-revalidate and stale-if-error). */
  set(key: string, answer: CachedAnswer, retainSeconds: number): MaybePromise<void>;
}

/**
 * Builds a cached answer from the parts of a fresh fetch.
 * @example toCachedAnswer('[]', Date.now(), []).lastModified // 'Sat, 21 Nov 2026 20:00:00 GMT'
 */
export function toCachedAnswer(json: string, fetchedAt: number, missingParts: string[]): CachedAnswer {
  return { json, fetchedAt, missingParts, lastModified: new Date(fetchedAt).toUTCString() };
}

/**
 * The wire form of an answer in Redis: `v1\n<fetchedAt>\n<missing parts, comma-separated>\n<json>`. A header line
 * rather than a JSON envelope, so neither side re-parses or re-escapes the record.
 * @example encodeAnswer(toCachedAnswer('{"a":1}', 0, [])) // 'v1\n0\n\n{"a":1}'
 */
export function encodeAnswer(a: CachedAnswer): string {
  return `v1\n${a.fetchedAt}\n${a.missingParts.join(',')}\n${a.json}`;
}

/** The inverse of `encodeAnswer`; undefined for anything else (an older format is simply a miss). */
export function decodeAnswer(raw: string | null | undefined): CachedAnswer | undefined {
  if (!raw || !raw.startsWith('v1\n')) return undefined;
  const a = raw.indexOf('\n', 3);
  const b = a < 0 ? -1 : raw.indexOf('\n', a + 1);
  if (b < 0) return undefined;
  const fetchedAt = Number(raw.slice(3, a));
  if (!Number.isFinite(fetchedAt)) return undefined;
  const parts = raw.slice(a + 1, b);
  return toCachedAnswer(raw.slice(b + 1), fetchedAt, parts === '' ? [] : parts.split(','));
}
