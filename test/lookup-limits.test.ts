/**
 * The politeness limiter and the circuit breaker count lookups, not requests: a Best Buy lookup fetches four sources
 * at once yet takes one concurrency slot, and a lookup whose every source fails is one failure for the breaker.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auth, testApp } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { expectProblem } from './support/problem.js';
import { readFixture } from './support/fixtures.js';

const read = (name: string) => readFixture(`electronics/${name}`);
const SKU = '6500001';
const SOURCES = ['/site/6500001.p', '/pricing/v1/price/item', '/priceview/query/sku', '/ugc/v2/reviews'];

describe('limits per lookup (electronics: four sources per lookup)', () => {
  const bby = new FakeUpstream();
  let app: FastifyInstance | undefined;
  const get = (sku = SKU) =>
    app!.inject({
      url: `/api/v1/scraper/electronics/product?query=${sku}`,
      headers: { ...auth, 'cache-control': 'no-cache' },
    });

  beforeAll(async () => {
    await bby.start();
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    bby.reset();
  });
  afterAll(async () => {
    await bby.stop();
  });

  it('one concurrency slot and no queue still fetch all four sources of one lookup', async () => {
    bby.serve('/', '<html><title>Best Buy</title></html>');
    bby.serve(`/site/${SKU}.p`, read('page-apollo-rehydrate.html'));
    bby.serve('/pricing/v1/price/item', JSON.parse(read('pricing-item.json')));
    bby.serve('/priceview/query/sku', JSON.parse(read('priceview.json')));
    bby.serve('/ugc/v2/reviews', JSON.parse(read('reviews.json')));
    app = await testApp({
      MARKETLENS_ELECTRONICS_ORIGIN: bby.origin,
      MARKETLENS_ELECTRONICS_CONCURRENCY: '1',
      MARKETLENS_ELECTRONICS_MAX_QUEUE: '0',
    });
    const res = await get();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-missing-parts']).toBeUndefined();
    for (const path of SOURCES) expect(bby.count(path), path).toBe(1);
  });

  it('a lookup whose four sources all fail is one breaker failure, not four', async () => {
    bby.serve('/', '<html><title>Best Buy</title></html>');
    bby.otherwise((_req, res) => void res.writeHead(500, { 'content-type': 'text/plain' }).end('oops'));
    app = await testApp({
      MARKETLENS_ELECTRONICS_ORIGIN: bby.origin,
      MARKETLENS_BREAKER_THRESHOLD: '2',
      MARKETLENS_RETRY_ATTEMPTS: '1',
      MARKETLENS_STALE_IF_ERROR: '0',
    });
    expectProblem(await get('6500002'), 502, 'upstream_error');
    // Still closed after one bad lookup: the second reaches Best Buy (and is the second failure).
    const before = bby.requests.length;
    expectProblem(await get('6500003'), 502, 'upstream_error');
    expect(bby.requests.length).toBeGreaterThan(before);
    // Two failed lookups: now open.
    expectProblem(await get('6500004'), 503, 'circuit_open');
  });
});
