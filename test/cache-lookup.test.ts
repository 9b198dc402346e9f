/**
 * LookupCache and the stores as units: whose deadline governs a shared fetch, the byte bound of the in-process
 * store, cache keys, and the Redis wire format of an answer.
 */
import { SILENT_LOGGER } from '../src/platform/logger.js';
import { describe, expect, it } from 'vitest';
import { cacheKey } from '../src/cache/cache-key.js';
import { LookupCache, type FetchedAnswer } from '../src/cache/lookup-cache.js';
import { MemoryStore } from '../src/cache/memory-store.js';
import { decodeAnswer, encodeAnswer, toCachedAnswer, utf8Bytes } from '../src/cache/store.js';
import { isFresh, retainSeconds, staleWhileRevalidateSeconds } from '../src/cache/freshness.js';
import { MarketlensError } from '../src/errors.js';

const silent = SILENT_LOGGER;
const ttl = { prices: 60, products: 900, searches: 300, finder: 86_400 };

function cache(deadlineMs = 2000) {
  return new LookupCache({
    store: new MemoryStore(1024 * 1024),
    ttl,
    staleIfErrorSeconds: 3600,
    deadlineMs,
    log: silent,
  });
}

/** A fetch that answers after `ms`, recording the signal it was given. */
function slowFetch(ms: number, seen: AbortSignal[]) {
  return (signal: AbortSignal): Promise<FetchedAnswer> => {
    seen.push(signal);
    return new Promise((resolve, reject) => {
      const t = setTimeout(
        () =>
          resolve({
            body: utf8Bytes('{"ok":true}'),
            fetchedAt: Date.now(),
            missingParts: [],
            upstreamMs: ms,
            parseMs: 0.1,
          }),
        ms,
      );
      signal.addEventListener('abort', () => {
        clearTimeout(t);
        reject(new MarketlensError('upstream_timeout', 'aborted'));
      });
    });
  };
}

describe('shared fetch and deadlines', () => {
  it('the first caller giving up does not abort the fetch the others wait for', async () => {
    const c = cache();
    const seen: AbortSignal[] = [];
    const fetch = slowFetch(200, seen);
    const req = (signal: AbortSignal) =>
      c.lookup({ key: 'k1', cacheClass: 'prices', marketplace: 'resale-b', deadline: () => signal, fetch });
    const first = req(AbortSignal.timeout(50));
    const second = req(AbortSignal.timeout(2000));
    await expect(first).rejects.toMatchObject({ code: 'upstream_timeout' });
    const r = await second;
    expect(r.cache).toBe('shared');
    expect(r.body.toString()).toBe('{"ok":true}');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.aborted).toBe(false);
  });

  it('a fetch every caller gave up on still completes and fills the cache', async () => {
    const c = cache();
    const seen: AbortSignal[] = [];
    const fetch = slowFetch(150, seen);
    await expect(
      c.lookup({
        key: 'k2',
        cacheClass: 'prices',
        marketplace: 'resale-b',
        deadline: () => AbortSignal.timeout(30),
        fetch,
      }),
    ).rejects.toMatchObject({
      code: 'upstream_timeout',
    });
    await new Promise((r) => setTimeout(r, 250));
    const r = await c.lookup({
      key: 'k2',
      cacheClass: 'prices',
      marketplace: 'resale-b',
      deadline: () => AbortSignal.timeout(1000),
      fetch,
    });
    expect(r.cache).toBe('hit');
    expect(seen).toHaveLength(1);
  });

  it('the shared fetch has its own deadline (MARKETLENS_DEADLINE_MS)', async () => {
    const c = cache(100);
    const seen: AbortSignal[] = [];
    const r = c.lookup({
      key: 'k3',
      cacheClass: 'prices',
      marketplace: 'resale-b',
      deadline: () => AbortSignal.timeout(5000),
      fetch: slowFetch(1000, seen),
    });
    await expect(r).rejects.toMatchObject({ code: 'upstream_timeout' });
    expect(seen[0]!.aborted).toBe(true);
  });

  it('a flight ends by the deadline of the caller who started it (as a time, not the full deadline from its start)', async () => {
    const c = cache(5000);
    const seen: AbortSignal[] = [];
    const deadlineAt = Date.now() + 150;
    const t0 = Date.now();
    const r = c.lookup({
      key: 'k5',
      cacheClass: 'prices',
      marketplace: 'resale-b',
      deadline: () => AbortSignal.timeout(5000),
      deadlineAt,
      fetch: slowFetch(3000, seen),
    });
    await expect(r).rejects.toMatchObject({ code: 'upstream_timeout' });
    expect(seen[0]!.aborted).toBe(true);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('a caller whose deadline passes gets the cached answer when one exists (stale-if-error)', async () => {
    const c = cache();
    const seen: AbortSignal[] = [];
    await c.lookup({
      key: 'k4',
      cacheClass: 'prices',
      marketplace: 'resale-b',
      deadline: () => AbortSignal.timeout(1000),
      fetch: slowFetch(5, seen),
    });
    const r = await c.lookup({
      key: 'k4',
      cacheClass: 'prices',
      marketplace: 'resale-b',
      maxAgeSeconds: 0,
      deadline: () => AbortSignal.timeout(30),
      fetch: slowFetch(500, seen),
    });
    expect(r.cache).toBe('stale');
  });
});

describe('MemoryStore', () => {
  it('stays within its byte bound, evicting the least recently used answers', () => {
    const store = new MemoryStore(1024 * 1024);
    const big = 'x'.repeat(400 * 1024);
    for (const k of ['a', 'b', 'c']) store.set(k, toCachedAnswer(utf8Bytes(big), 1, []), 60);
    expect(store.sizeBytes).toBeLessThanOrEqual(1024 * 1024);
    expect(store.get('a')).toBeUndefined();
    expect(store.get('c')?.body.toString()).toBe(big);
  });

  it('keeps the encoded answer itself (a hit sends these bytes as they are)', () => {
    const store = new MemoryStore(1024 * 1024);
    const answer = toCachedAnswer(utf8Bytes('[{"a":1}]'), 1_700_000_000_000, ['reviews']);
    store.set('k', answer, 60);
    expect(store.get('k')).toBe(answer);
    expect(answer.lastModified).toBe('Tue, 14 Nov 2023 22:13:20 GMT');
  });
});

describe('cache keys and freshness rules', () => {
  it('cache keys ignore parameter order, undefined values and max_age', () => {
    expect(cacheKey('resale-b.prices', { query: '1', country: 'US' })).toBe(
      cacheKey('resale-b.prices', { country: 'US', query: '1', max_age: 5, x: undefined }),
    );
    expect(cacheKey('resale-b.prices', { query: '1', country: 'US' })).toBe('resale-b.prices?country=US&query=1');
    expect(cacheKey('resale-b.prices', { query: '1' })).not.toBe(cacheKey('resale-b.product', { query: '1' }));
    expect(cacheKey('op', { query: 'a&b=c' })).not.toBe(cacheKey('op', { query: 'a', b: 'c' }));
  });

  it('freshness: TTL, max_age in whole seconds, the stale-while-revalidate window and retention', () => {
    expect(isFresh(59_999, 60, undefined)).toBe(true);
    expect(isFresh(60_000, 60, undefined)).toBe(false);
    expect(isFresh(10_999, 60, 10)).toBe(true);
    expect(isFresh(11_000, 60, 10)).toBe(false);
    expect(isFresh(100_000, 60, 200)).toBe(true);
    expect(staleWhileRevalidateSeconds(60)).toBe(60);
    expect(staleWhileRevalidateSeconds(86_400)).toBe(300);
    expect(retainSeconds(60, 86_400)).toBe(86_400);
    expect(retainSeconds(900, 0)).toBe(1200);
  });

  it('the Redis wire format round-trips and rejects anything else', () => {
    const a = toCachedAnswer(utf8Bytes('{"x":"line\\nbreak","é":"ü"}'), 1_700_000_000_123, ['reviews', 'offers']);
    expect(decodeAnswer(encodeAnswer(a))).toEqual(a);
    const none = toCachedAnswer(utf8Bytes('[]'), 5, []);
    expect(decodeAnswer(encodeAnswer(none))).toEqual(none);
    expect(decodeAnswer(Buffer.from('{"json":1}'))).toBeUndefined();
    expect(decodeAnswer(null)).toBeUndefined();
    expect(decodeAnswer(Buffer.from('v1\nnotanumber\n\n[]'))).toBeUndefined();
    expect(decodeAnswer(Buffer.from('v1'))).toBeUndefined();
  });
});
