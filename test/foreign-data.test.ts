/**
 * Foreign data from a hostile origin (issue 20, item 5): when Best Buy's sources answer an unrelated JSON array, the
 * product must not be made of all-null records. A source of the wrong shape is a failed part, named in
 * X-Missing-Parts; with nothing usable left the answer is 502 upstream_changed. Issue 27 (item 6): also when the
 * foreign items share key names with the source's own (`{userId, id, title, body}` against review topics).
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auth, testApp } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { expectProblem } from './support/problem.js';
import { readFixture } from './support/fixtures.js';

const PRODUCT = '/api/v1/scraper/electronics/product';
const FIXTURE_SKU = '6500001';
/** An unrelated JSON array of 9 entries, as the adversarial run's origin answered to every source. */
const FOREIGN = JSON.stringify(
  Array.from({ length: 9 }, (_, i) => ({ userId: i, completed: i % 2 === 0, slug: `item-${i}` })),
);
/** Foreign arrays whose items share key names with a review topic (`id`, `title`), as issue 27 (item 6) sent. */
const POSTS = JSON.stringify(
  Array.from({ length: 10 }, (_, i) => ({ userId: 1, id: i + 1, title: `post ${i}`, body: `text ${i}` })),
);
const TODOS = JSON.stringify(
  Array.from({ length: 9 }, (_, i) => ({ userId: 1, id: i + 1, title: `todo ${i}`, completed: i % 2 === 0 })),
);
const fixture = (name: string, sku: string) => readFixture(`electronics/${name}`).replaceAll(FIXTURE_SKU, sku);

describe('electronics with foreign data', () => {
  const bby = new FakeUpstream();
  let app: FastifyInstance;
  const get = (sku: string) =>
    app.inject({ url: `${PRODUCT}?query=${sku}`, headers: { ...auth, 'cache-control': 'no-cache' } });

  beforeAll(async () => {
    await bby.start();
    app = await testApp({
      MARKETLENS_ELECTRONICS_ORIGIN: bby.origin,
      MARKETLENS_DEADLINE_MS: '3000',
      MARKETLENS_BREAKER_THRESHOLD: '10000',
      MARKETLENS_RETRY_BASE_MS: '0',
    });
  });
  afterAll(async () => {
    await app.close();
    await bby.stop();
  });
  beforeEach(() => {
    bby.reset();
    bby.serve('/', '<!DOCTYPE html><html><head><title>Best Buy</title></head><body></body></html>');
  });

  it('every JSON source foreign, the page healthy: 200 without invented topics, the failed parts named', async () => {
    const sku = '6500101';
    bby.serve(`/site/${sku}.p`, fixture('page-apollo-rehydrate.html', sku));
    bby.otherwise((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(FOREIGN));
    const res = await get(sku);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    const topics: Array<Record<string, unknown>> = body.reviews?.reviews?.topics ?? [];
    for (const t of topics)
      expect(Object.values(t).some((v) => v !== null && !(Array.isArray(v) && v.length === 0))).toBe(true);
    expect(body.reviews?.reviews ?? null).toBeNull();
    expect(String(res.headers['x-missing-parts'])).toMatch(/reviews/);
  });

  it('the reviews API alone answering foreign data: its part is missing, the rest intact', async () => {
    const sku = '6500102';
    bby.serve(`/site/${sku}.p`, fixture('page-apollo-rehydrate.html', sku));
    bby.serve('/pricing/v1/price/item', JSON.parse(fixture('pricing-item.json', sku)));
    bby.serve('/priceview/query/sku', JSON.parse(fixture('priceview.json', sku)));
    bby.serve('/ugc/v2/reviews', FOREIGN, { type: 'application/json' });
    const res = await get(sku);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().reviews?.reviews ?? null).toBeNull();
    expect(res.json().pricing.sku_price_domain).not.toBeNull();
    // `reviews` itself when no other source gave review data, else `reviews.reviews`.
    const missing = String(res.headers['x-missing-parts'])
      .split(',')
      .map((s) => s.trim());
    expect(missing.filter((m) => m === 'reviews' || m === 'reviews.reviews')).toHaveLength(1);
    expect(missing.some((m) => m.startsWith('pricing'))).toBe(false);
  });

  it('the reviews API answering posts with id and title: no invented topics, its part named missing', async () => {
    const sku = '6500104';
    bby.serve(`/site/${sku}.p`, fixture('page-apollo-rehydrate.html', sku));
    bby.serve('/pricing/v1/price/item', JSON.parse(fixture('pricing-item.json', sku)));
    bby.serve('/priceview/query/sku', JSON.parse(fixture('priceview.json', sku)));
    bby.serve('/ugc/v2/reviews', POSTS, { type: 'application/json' });
    const res = await get(sku);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().reviews?.reviews ?? null).toBeNull();
    const missing = String(res.headers['x-missing-parts'])
      .split(',')
      .map((m) => m.trim());
    expect(missing.filter((m) => m === 'reviews' || m === 'reviews.reviews')).toHaveLength(1);
    expect(res.json().pricing.sku_price_domain).not.toBeNull();
  });

  it('every source answering todos with id and title (the page too): 502 upstream_changed', async () => {
    bby.otherwise((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(TODOS));
    expectProblem(await get('6500105'), 502, 'upstream_changed');
  });

  it('the real reviews answer still makes topics (the shape check is not refusing everything)', async () => {
    const sku = '6500106';
    bby.serve(`/site/${sku}.p`, fixture('page-apollo-rehydrate.html', sku));
    bby.serve('/pricing/v1/price/item', JSON.parse(fixture('pricing-item.json', sku)));
    bby.serve('/priceview/query/sku', JSON.parse(fixture('priceview.json', sku)));
    bby.serve('/ugc/v2/reviews', JSON.parse(fixture('reviews.json', sku)));
    const res = await get(sku);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-missing-parts']).toBeUndefined();
    expect(res.json().reviews.reviews.topics).toHaveLength(2);
    expect(res.json().reviews.reviews.topics[0].id).toBe('00000001-aaaa-3bbb-8ccc-000000000001');
  });

  it('every source foreign (the page too): 502 upstream_changed, never a record of nulls', async () => {
    bby.otherwise((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(FOREIGN));
    const res = await get('6500103');
    expectProblem(res, 502, 'upstream_changed');
  });
});

describe('resale-a product with foreign market data', () => {
  const stockx = new FakeUpstream();
  let app: FastifyInstance;
  const page = readFixture('resale-a/product-page.html');

  beforeAll(async () => {
    await stockx.start();
    app = await testApp({
      MARKETLENS_RESALE_A_ORIGIN: stockx.origin,
      MARKETLENS_BREAKER_THRESHOLD: '10000',
      MARKETLENS_RETRY_BASE_MS: '0',
    });
  });
  afterAll(async () => {
    await app.close();
    await stockx.stop();
  });

  it('GetMarketData answering an unrelated JSON array: the catalog with market null and X-Missing-Parts: market', async () => {
    stockx.serve('/', '<!DOCTYPE html><html><head><title>StockX</title></head><body></body></html>');
    stockx.serve('/market-foreign', page);
    stockx.on('/api/p/e', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(FOREIGN));
    const res = await app.inject({
      url: '/api/v1/scraper/resale-a/product?query=market-foreign',
      headers: { ...auth, 'cache-control': 'no-cache' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-missing-parts']).toBe('market');
    const body = res.json();
    expect(body.market).toBeNull();
    expect(body.name).toBeTruthy();
  });
});
