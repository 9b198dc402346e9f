/**
 * Where answers are kept between lookups. Two implementations behind one interface: in-process (default, bounded by
 * bytes) and Redis (shared by every instance). A store never throws to its caller: a failing store is a miss.
 */

/**
 * One cached answer: the record already serialised and UTF-8 encoded, so a hit sends these bytes as they are (no
 * re-serialising, no string-to-bytes copy per answer).
 */
export interface CachedAnswer {
  body: Buffer;
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
  /** A store in this process answers synchronously here too (the fresh-hit path); a shared one has no `peek`. */
  peek?(key: string): CachedAnswer | undefined;
  /** Keeps `answer` for `retainSeconds` (long enough for stale-while-revalidate and stale-if-error). */
  set(key: string, answer: CachedAnswer, retainSeconds: number): MaybePromise<void>;
}

/**
 * The UTF-8 bytes of `text` in an allocation of their own. `Buffer.from` takes small buffers from a shared 8 KB
 * pool slab; a cached answer holding such a slice would keep the whole slab alive (and the cache would not know).
 * @example utf8Bytes('{"a":1}').length // 7
 */
export function utf8Bytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

/**
 * Builds a cached answer from the parts of a fresh fetch.
 * @example toCachedAnswer(utf8Bytes('[]'), Date.now(), []).lastModified // 'Sat, 21 Nov 2026 20:00:00 GMT'
 */
export function toCachedAnswer(body: Buffer, fetchedAt: number, missingParts: string[]): CachedAnswer {
  return { body, fetchedAt, missingParts, lastModified: new Date(fetchedAt).toUTCString() };
}

/**
 * The wire form of an answer in Redis: `v1\n<fetchedAt>\n<missing parts, comma-separated>\n<json>`. A header line
 * rather than a JSON envelope, so neither side re-parses or re-escapes the record.
 * @example encodeAnswer(toCachedAnswer(utf8Bytes('{"a":1}'), 0, [])).toString() // 'v1\n0\n\n{"a":1}'
 */
export function encodeAnswer(a: CachedAnswer): Buffer {
  return Buffer.concat([Buffer.from(`v1\n${a.fetchedAt}\n${a.missingParts.join(',')}\n`), a.body]);
}

const NEWLINE = 0x0a;

/** The inverse of `encodeAnswer`; undefined for anything else (an older format is simply a miss). */
export function decodeAnswer(raw: Buffer | null | undefined): CachedAnswer | undefined {
  if (!raw || raw.length < 3 || raw.toString('latin1', 0, 3) !== 'v1\n') return undefined;
  const a = raw.indexOf(NEWLINE, 3);
  const b = a < 0 ? -1 : raw.indexOf(NEWLINE, a + 1);
  if (b < 0) return undefined;
  const fetchedAt = Number(raw.toString('latin1', 3, a));
  if (!Number.isFinite(fetchedAt)) return undefined;
  const parts = raw.toString('utf8', a + 1, b);
  // A view into the reply's own buffer: the reply was allocated for this answer alone.
  return toCachedAnswer(raw.subarray(b + 1), fetchedAt, parts === '' ? [] : parts.split(','));
}
