/**
 * The in-process cache over HTTP (issue 4): de-duplication of concurrent identical lookups, hits with the
 * CONTRACT §4 headers, max_age / Cache-Control: no-cache, stale-while-revalidate and stale-if-error.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { auth, testApp } from './support/app.js';
import { PRICES, startSlowGoat, type SlowGoat } from './support/slow-goat.js';

let goat: SlowGoat;
let app: FastifyInstance;
let nextId = 5000;
/** A product id no earlier test has looked up: every test starts cold. */
const freshId = () => String(nextId++);
/**
 * The upstream's usual answer delay: nothing here depends on a slow answer except where a test says so (the
 * de-duplication test sets its own; stale-while-revalidate holds the answer instead), and each cold lookup waits it.
 */
const DELAY_MS = 5;

beforeAll(async () => {
  goat = await startSlowGoat(DELAY_MS);
  app = await testApp({
    MARKETLENS_RESALE_B_ORIGIN: goat.upstream.origin,
    MARKETLENS_RATE_LIMIT: '0',
    MARKETLENS_TTL_PRICES: '60',
    MARKETLENS_STALE_IF_ERROR: '3600',
  });
});
afterAll(async () => {
  await app.close();
  await goat.stop();
});
afterEach(() => {
  goat.release();
  goat.failWith = undefined;
  goat.delayMs = DELAY_MS;
  goat.priceBump = 0;
  vi.useRealTimers();
});

const get = (url: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url, headers: { ...auth, ...headers } });

describe('in-flight de-duplication (memory)', () => {
  it('100 concurrent identical cold lookups make exactly 1 upstream request', async () => {
    const id = freshId();
    goat.delayMs = 1000; // every request arrives while the one fetch is still running, even on a busy machine
    const before = goat.count();
    const results = await Promise.all(Array.from({ length: 100 }, () => get(`${PRICES}?query=${id}`)));
    expect(goat.count() - before).toBe(1);
    expect(results.every((r) => r.statusCode === 200)).toBe(true);
    expect(new Set(results.map((r) => r.body)).size).toBe(1);
    const statuses = results.map((r) => r.headers['x-cache']);
    expect(statuses.filter((s) => s === 'miss')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'shared')).toHaveLength(99);
    const joiner = results.find((r) => r.headers['x-cache'] === 'shared')!;
    expect(String(joiner.headers['server-timing'])).toMatch(/^shared;desc="[^"]+";dur=\d+(\.\d)?$/);
    const leader = results.find((r) => r.headers['x-cache'] === 'miss')!;
    expect(String(leader.headers['server-timing'])).toMatch(/^upstream;dur=\d+(\.\d)?, parse;dur=\d+(\.\d)?$/);
    expect(JSON.parse(leader.body)[0].lowestPriceCents.amount).toBe(20000 + Number(id));
    const metrics = (await get('/metrics')).body;
    expect(metrics).toMatch(
      /marketlens_cache_results_total\{operation="resale-b\.prices",result="shared"\} (99|[1-9]\d{2,})/,
    );
  });

  it('different parameters are different lookups', async () => {
    const [a, b] = [freshId(), freshId()];
    const before = goat.count();
    const results = await Promise.all([
      get(`${PRICES}?query=${a}`),
      get(`${PRICES}?query=${b}`),
      get(`${PRICES}?query=${a}&country=FR`),
    ]);
    expect(goat.count() - before).toBe(3);
    expect(results.map((r) => r.headers['x-cache'])).toEqual(['miss', 'miss', 'miss']);
  });
});

describe('hits', () => {
  it('answers a repeated lookup from cache with X-Cache, Age and Last-Modified, without Server-Timing', async () => {
    const id = freshId();
    const first = await get(`${PRICES}?query=${id}`);
    expect(first.headers['x-cache']).toBe('miss');
    const before = goat.count();
    const second = await get(`${PRICES}?query=${id}`);
    expect(goat.count()).toBe(before);
    expect(second.statusCode).toBe(200);
    expect(second.headers['x-cache']).toBe('hit');
    expect(second.body).toBe(first.body);
    expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(second.headers.age)).toBeGreaterThanOrEqual(0);
    expect(Number(second.headers.age)).toBeLessThanOrEqual(1);
    expect(second.headers['last-modified']).toBe(first.headers['last-modified']);
    expect(Date.parse(String(second.headers['last-modified']))).toBeLessThanOrEqual(Date.now());
    expect(second.headers['server-timing']).toBeUndefined();
  });

  it('normalised parameters share an entry (country=us is country=US; parameter order does not matter)', async () => {
    const id = freshId();
    await get(`${PRICES}?query=${id}&country=US`);
    const before = goat.count();
    const r1 = await get(`${PRICES}?country=us&query=${id}`);
    const r2 = await get(`${PRICES}?query=${id}`);
    const r3 = await get(`/api/v1/scraper/goat/prices?query=${id}&max_age=600`);
    expect([r1, r2, r3].map((r) => r.headers['x-cache'])).toEqual(['hit', 'hit', 'hit']);
    expect(goat.count()).toBe(before);
  });

  it('Age grows with the answer and the TTL (60 s for prices here) ends freshness', async () => {
    const id = freshId();
    await get(`${PRICES}?query=${id}`);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 42_000);
    const hit = await get(`${PRICES}?query=${id}`);
    expect(hit.headers['x-cache']).toBe('hit');
    expect(Number(hit.headers.age)).toBe(42);
    // Past TTL + the stale-while-revalidate window (60 s): a blocking live fetch.
    vi.setSystemTime(Date.now() + 90_000);
    const before = goat.count();
    const miss = await get(`${PRICES}?query=${id}`);
    expect(miss.headers['x-cache']).toBe('miss');
    expect(Number(miss.headers.age)).toBe(0);
    expect(goat.count() - before).toBe(1);
  });
});

describe('max_age and Cache-Control: no-cache', () => {
  it('max_age=0 forces a live fetch', async () => {
    const id = freshId();
    await get(`${PRICES}?query=${id}`);
    const before = goat.count();
    const r = await get(`${PRICES}?query=${id}&max_age=0`);
    expect(r.statusCode).toBe(200);
    expect(r.headers['x-cache']).toBe('miss');
    expect(goat.count() - before).toBe(1);
  });

  it('Cache-Control: no-cache forces a live fetch and refreshes the entry for later hits', async () => {
    const id = freshId();
    const first = await get(`${PRICES}?query=${id}`);
    goat.priceBump = 7;
    const before = goat.count();
    const live = await get(`${PRICES}?query=${id}`, { 'cache-control': 'no-cache' });
    expect(live.headers['x-cache']).toBe('miss');
    expect(goat.count() - before).toBe(1);
    expect(live.body).not.toBe(first.body);
    const after = await get(`${PRICES}?query=${id}`);
    expect(after.headers['x-cache']).toBe('hit');
    expect(after.body).toBe(live.body);
  });

  it('max_age bounds the age of a cached answer in whole seconds, also beyond the TTL', async () => {
    const id = freshId();
    await get(`${PRICES}?query=${id}`);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 10_500);
    const before = goat.count();
    expect((await get(`${PRICES}?query=${id}&max_age=10`)).headers['x-cache']).toBe('hit');
    expect((await get(`${PRICES}?query=${id}&max_age=9`)).headers['x-cache']).toBe('miss');
    expect(goat.count() - before).toBe(1);
    // An hour later: past the 60 s TTL, but the caller accepts two hours.
    vi.setSystemTime(Date.now() + 3_600_000);
    const old = await get(`${PRICES}?query=${id}&max_age=7200`);
    expect(old.headers['x-cache']).toBe('hit');
    expect(Number(old.headers.age)).toBe(3600);
  });

  it('rejects a negative or non-integer max_age with 400 naming it', async () => {
    for (const bad of ['-1', '1.5', 'soon']) {
      const r = await get(`${PRICES}?query=${freshId()}&max_age=${bad}`);
      expect(r.statusCode).toBe(400);
      expect(JSON.parse(r.body).errors[0].param).toBe('max_age');
    }
  });
});

describe('stale-while-revalidate', () => {
  it('past the TTL but within the window: answers stale at once and refreshes once in the background', async () => {
    const id = freshId();
    const first = await get(`${PRICES}?query=${id}`);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 70_000); // TTL 60 s, window 60 s
    goat.priceBump = 1;
    // The refresh's upstream answer is held until both stale answers are in: they did not wait for it, however long
    // anything took (waiting for it would never end, and the test would time out).
    goat.hold();
    const before = goat.count();
    const stale = await Promise.all([get(`${PRICES}?query=${id}`), get(`${PRICES}?query=${id}`)]);
    expect(stale.map((r) => r.headers['x-cache'])).toEqual(['stale', 'stale']);
    expect(stale[0].body).toBe(first.body);
    expect(Number(stale[0].headers.age)).toBe(70);
    await vi.waitFor(() => expect(goat.count() - before).toBe(1), { timeout: 4000, interval: 20 });
    goat.release();
    await vi.waitFor(async () => expect((await get(`${PRICES}?query=${id}`)).headers['x-cache']).toBe('hit'), {
      timeout: 4000,
      interval: 50,
    });
    const refreshed = await get(`${PRICES}?query=${id}`);
    expect(refreshed.body).not.toBe(first.body);
    expect(Number(refreshed.headers.age)).toBe(0);
    expect(goat.count() - before).toBe(1);
  });
});

describe('stale-if-error', () => {
  it('a failing live fetch (upstream 500) answers the cached record with 200 and X-Cache: stale', async () => {
    const id = freshId();
    const first = await get(`${PRICES}?query=${id}`);
    goat.failWith = 500;
    goat.delayMs = 10;
    const r = await get(`${PRICES}?query=${id}&max_age=0`);
    expect(r.statusCode).toBe(200);
    expect(r.headers['x-cache']).toBe('stale');
    expect(r.body).toBe(first.body);
    expect(r.headers['last-modified']).toBe(first.headers['last-modified']);
  });

  it('without a cached answer the error stands (502 upstream_error)', async () => {
    goat.failWith = 500;
    goat.delayMs = 10;
    const r = await get(`${PRICES}?query=${freshId()}`);
    expect(r.statusCode).toBe(502);
    expect(JSON.parse(r.body).code).toBe('upstream_error');
  });

  it('never for 404: a product that no longer exists is not answered from cache', async () => {
    const id = freshId();
    await get(`${PRICES}?query=${id}`);
    goat.failWith = 404;
    goat.delayMs = 10;
    const r = await get(`${PRICES}?query=${id}&max_age=0`);
    expect(r.statusCode).toBe(404);
    expect(JSON.parse(r.body).code).toBe('not_found');
  });

  it('not beyond MARKETLENS_STALE_IF_ERROR (3600 s here)', async () => {
    const id = freshId();
    await get(`${PRICES}?query=${id}`);
    goat.failWith = 503;
    goat.delayMs = 10;
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 3_000_000);
    expect((await get(`${PRICES}?query=${id}`)).headers['x-cache']).toBe('stale');
    vi.setSystemTime(Date.now() + 700_000);
    const r = await get(`${PRICES}?query=${id}`);
    expect(r.statusCode).toBe(502);
  });
});
