/**
 * The short version of the load test (`npm run bench:load` runs the full one): a few seconds of 50 concurrent
 * connections over loopback with the mix of bench/load-mix.ts — cached, uncached (live fetch from a fake GOAT),
 * invalid and rate-limited requests — asserting that every class answers only its intended statuses (never a 5xx)
 * and that memory stays bounded: after a warm-up round, a second round must not grow the heap (after GC, past the
 * lookups' deadlines) by more than the byte-bounded cache plus a small allowance per request.
 */
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import autocannon from 'autocannon';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyHistogram, mixClasses, mixProblems, mixRequests, type MixClass } from '../bench/load-mix.js';
import { auth, testApp } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { readFixture } from './support/fixtures.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapAfterGc = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const CACHE_BYTES = 1024 * 1024;
/**
 * Heap any request may leave behind for good: well below what retaining a request's response, body or upstream
 * answer costs. (A few KB per live fetch is below this test's resolution; `npm run bench:load` bounds RSS over 30 s.)
 */
const PER_REQUEST_ALLOWANCE = 4 * 1024;
const ROUND_S = 1;
/**
 * A lookup's deadline timer keeps what the lookup touched reachable until it fires, by design; a short deadline and
 * a wait past it before each measurement leave only what is retained for good.
 */
const DEADLINE_MS = 2000;
const pastDeadlines = () => new Promise((r) => setTimeout(r, DEADLINE_MS + 200));

describe('short load: 50 connections over cached, uncached, invalid and rate-limited requests', () => {
  const goat = new FakeUpstream();
  let app: FastifyInstance;
  let base: string;
  let classes: MixClass[];

  beforeAll(async () => {
    await goat.start();
    goat.serve('/', '<!DOCTYPE html><html><head><title>GOAT</title></head><body></body></html>');
    goat.serve('/web-api/v1/product_variants/buy_bar_data', readFixture('resale-b/buy-bar-data.json'), {
      type: 'application/json',
    });
    // The request log would grow with every live fetch and count as the service's memory.
    goat.requests.push = () => 0;
    app = await testApp({
      MARKETLENS_RESALE_B_ORIGIN: goat.origin,
      MARKETLENS_RESALE_B_CONCURRENCY: '256',
      MARKETLENS_RESALE_B_MAX_QUEUE: '10000',
      MARKETLENS_CACHE_MAX_BYTES: String(CACHE_BYTES),
      MARKETLENS_DEADLINE_MS: String(DEADLINE_MS),
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    // Per minute, not per second: a 1-s round on a busy machine may send that class fewer requests than a per-second
    // limit allows, and then it never meets its 429.
    const limited = (await app.marketlens.keys.create('load-limited', { rate_limit: '2/min' })).key;
    // More live fetches than the full mix: memory a fetch leaves behind shows within seconds.
    classes = mixClasses(limited, { uncached: 4 });
    // The cached classes have their answers before the clock starts.
    for (const url of [
      '/api/v1/scraper/resale-b/prices?query=1341930',
      '/api/v2/finder/watchmarket-search?query=dial',
    ]) {
      expect((await app.inject({ url, headers: auth })).statusCode).toBe(200);
    }
  });
  afterAll(async () => {
    await app?.close();
    await goat?.stop();
  });

  async function round() {
    const hist = emptyHistogram();
    const result = await autocannon({
      url: base,
      connections: 50,
      duration: ROUND_S,
      requests: mixRequests(classes, hist),
      timeout: 10,
    });
    return { hist, result };
  }

  it('answers only intended statuses, and a second round does not grow the heap beyond the cache bound', async () => {
    const first = await round();
    expect(mixProblems(classes, first.hist, first.result)).toEqual([]);
    await pastDeadlines();
    const before = heapAfterGc();
    const second = await round();
    await pastDeadlines();
    const after = heapAfterGc();

    expect(mixProblems(classes, second.hist, second.result)).toEqual([]);
    // Every class was exercised, and no request went unanswered.
    for (const c of classes)
      expect(Object.values(second.hist.byClass[c.name] ?? {}).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(second.hist.total).toBe(second.result.requests.total);
    const liveFetches = second.hist.byClass.uncached?.['200'] ?? 0;
    expect(liveFetches).toBeGreaterThan(50);
    const growth = after - before;
    // The cache may fill up to its byte bound (entries cost more heap than the bytes it accounts) during the round.
    const bound = 3 * CACHE_BYTES + 4 * 1024 * 1024 + second.hist.total * PER_REQUEST_ALLOWANCE;
    expect(
      growth,
      `heap grew ${(growth / 1e6).toFixed(1)} MB over ${second.hist.total} requests (bound ${(bound / 1e6).toFixed(1)} MB)`,
    ).toBeLessThan(bound);
  }, 30_000);
});
