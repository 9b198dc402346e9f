/**
 * electronics (Best Buy) product over HTTP against a fake bestbuy.com: every URL form and the bare SKU, resolution
 * of SKU-less canonical URLs, sources fetched in parallel, partial answers with X-Missing-Parts, total failure, not
 * found, Akamai blocks, the SSRF rules on `query`, the alias path, and the optional official Products API.
 */
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { electronicsProductSchema } from '../src/marketplaces/electronics/schema.js';
import { SPEC, fieldProblems } from './fixtures/electronics/spec-fields.js';
import { auth, testApp } from './support/app.js';
import { FakeUpstream, type FakeHandler } from './support/fake-upstream.js';
import { expectProblem } from './support/problem.js';
import { readFixture } from './support/fixtures.js';

const PRODUCT = '/api/v1/scraper/electronics/product';
const ALIAS = '/api/v1/scraper/bestbuy/product';
const PRICING = '/pricing/v1/price/item';
const PRICEVIEW = '/priceview/query/sku';
const REVIEWS = '/ugc/v2/reviews';
const SKU = '6500001';

const fixture = (name: string) => readFixture(`electronics/${name}`);
/** A fixture rewritten for another SKU, so each test has its own cache entry. */
const forSku = (name: string, sku: string) => fixture(name).replaceAll(SKU, sku);
const AKAMAI = fixture('akamai-access-denied.html');

/**
 * The failure tests fail many upstream requests on purpose: keep the circuit breaker from opening between tests
 * and retry without waiting.
 */
const QUIET_CLIENT = {
  MARKETLENS_DEADLINE_MS: '3000',
  MARKETLENS_BREAKER_THRESHOLD: '10000',
  MARKETLENS_RETRY_BASE_MS: '0',
};

const q = (query: string) => `${PRODUCT}?query=${encodeURIComponent(query)}`;

describe('electronics product over HTTP', () => {
  const bby = new FakeUpstream();
  let app: FastifyInstance;
  const get = (url: string) => app.inject({ url, headers: { ...auth, 'cache-control': 'no-cache' } });

  /** Serves a whole healthy Best Buy for `sku`: the page at its legacy path, the pricing, price view and reviews APIs. */
  function serveHealthy(sku: string, page = 'page-apollo-rehydrate.html'): void {
    bby.serve(`/site/${sku}.p`, forSku(page, sku));
    bby.serve(PRICING, JSON.parse(forSku('pricing-item.json', sku)));
    bby.serve(PRICEVIEW, JSON.parse(forSku('priceview.json', sku)));
    bby.serve(REVIEWS, JSON.parse(forSku('reviews.json', sku)));
  }

  beforeAll(async () => {
    await bby.start();
    app = await testApp({ MARKETLENS_ELECTRONICS_ORIGIN: bby.origin, ...QUIET_CLIENT });
  });
  afterAll(async () => {
    await app.close();
    await bby.stop();
  });
  beforeEach(() => {
    bby.reset();
    // reset() keeps the fallback: put back the plain 404 of an unknown path.
    bby.otherwise(
      (_req, res) =>
        void res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>'),
    );
    // The HTTP client may visit the home page first, as a browser would (a session warm-up).
    bby.serve('/', '<!DOCTYPE html><html><head><title>Best Buy</title></head><body></body></html>');
  });

  it.each([
    ['bare SKU', SKU],
    ['legacy URL', `https://www.bestbuy.com/site/examplebrand-65-class-qled/${SKU}.p?skuId=${SKU}`],
    ['legacy URL without skuId', `https://www.bestbuy.com/site/examplebrand-65-class-qled/${SKU}.p`],
    ['new URL with /sku/', `https://www.bestbuy.com/product/examplebrand-65-class-qled/J3K4L6JSFL/sku/${SKU}`],
    ['open-box URL', `https://www.bestbuy.com/product/examplebrand-65-class-qled/${SKU}/openbox?condition=excellent`],
    ['URL without scheme', `bestbuy.com/site/examplebrand-65-class-qled/${SKU}.p?skuId=${SKU}`],
  ])('%s → the SKU is looked up at every source', async (_name, query) => {
    serveHealthy(SKU);
    const res = await get(q(query));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-missing-parts']).toBeUndefined();
    const page = bby.requests.find((r) => r.path === `/site/${SKU}.p`);
    expect(page?.query.get('skuId')).toBe(SKU);
    expect(page?.headers.cookie).toContain('intl_splash=false');
    expect(bby.requests.find((r) => r.path === PRICING)?.query.get('skuId')).toBe(SKU);
    expect(bby.requests.find((r) => r.path === PRICING)?.headers['x-client-id']).toBe('lib-price-browser');
    expect(bby.requests.find((r) => r.path === PRICEVIEW)?.query.get('skuId')).toBe(SKU);
    const reviews = bby.requests.find((r) => r.path === REVIEWS);
    expect(reviews?.query.get('sku')).toBe(SKU);
    expect(reviews?.query.get('sort')).toBe('BEST_REVIEW');
    const record = JSON.parse(res.body);
    expect(record.pricing.sku_price_domain.sku_id).toBe(SKU);
  });

  it('the whole record: every spec field with the spec type, and the values of each source', async () => {
    serveHealthy(SKU);
    const res = await get(q(SKU));
    expect(res.statusCode, res.body).toBe(200);
    const r = JSON.parse(res.body);
    expect(electronicsProductSchema.safeParse(r).success).toBe(true);
    expect(fieldProblems(r, SPEC.product, ['pricing', 'reviews', 'specification_groups'])).toEqual([]);
    expect(r.specifications).toBeNull(); // pages since 2025 carry no specification display settings
    expect(
      fieldProblems(
        r.pricing,
        SPEC.pricing,
        Object.keys(SPEC.pricing).filter((k) => !['membership_by_type', 'query_params_to_be_removed'].includes(k)),
      ),
    ).toEqual([]);
    expect(fieldProblems(r.pricing.sku_price_domain, SPEC.sku_price_domain, 'all')).toEqual([]);
    expect(fieldProblems(r.pricing.sku_price_domain.finance_option, SPEC.finance_option, 'all')).toEqual([]);
    expect(fieldProblems(r.pricing.sku_price_domain.offer_qualifiers[0], SPEC.offer_qualifier, 'all')).toEqual([]);
    expect(r.pricing.sku_price_domain.is_m_a_p).toBe(true);
    expect(r.pricing.monthly_payment).toBe('61.11');
    expect(r.pricing).toMatchObject({ show_regular_price: true, has_buy_now_pay_later: true }); // display flags pass through
    expect(fieldProblems(r.reviews, SPEC.reviews, ['page', 'sort', 'photos', 'sku_id', 'reviews'])).toEqual([]);
    expect(r.reviews.reviews.topics).toHaveLength(2);
    for (const t of r.reviews.reviews.topics)
      expect(fieldProblems(t, SPEC.topic, ['id', 'rating', 'title', 'text', 'submission_time'])).toEqual([]);
    expect(r.specification_groups[0]).toEqual({
      display_name: 'Key Specs',
      specifications: [
        {
          id: null,
          value: '65 inches',
          definition: 'Size of the screen, measured diagonally.',
          display_name: 'Screen Size',
        },
        { id: null, value: 'Google TV', definition: null, display_name: 'Smart Platform' },
      ],
    });
  });

  it('old page generations parse too (component JSON scripts, initializer scripts)', async () => {
    for (const [sku, page] of [
      ['6500101', 'page-component-json.html'],
      ['6500102', 'page-initializer.html'],
    ] as const) {
      serveHealthy(sku, page);
      const res = await get(q(sku));
      expect(res.statusCode, res.body).toBe(200);
      const r = JSON.parse(res.body);
      expect(fieldProblems(r.specifications, SPEC.specifications, 'all')).toEqual([]);
      expect(r.specification_groups[0].specifications[0].id).toBe('aB3dE5gH7j');
      expect(r.reviews.stats.verified_purchase_count).toBe(101);
    }
  });

  it('a canonical URL without SKU is resolved through the page, then the APIs are asked for that SKU', async () => {
    const path = '/product/examplebrand-14-2-in-1-laptop/J3K4L6JSFL';
    bby.serve(path, fixture('page-apollo-events.html'));
    bby.serve(PRICING, JSON.parse(forSku('pricing-item.json', '6576719')));
    bby.serve(PRICEVIEW, JSON.parse(forSku('priceview.json', '6576719')));
    bby.serve(REVIEWS, JSON.parse(forSku('reviews.json', '6576719')));
    const res = await get(q(`https://www.bestbuy.com${path}`));
    expect(res.statusCode, res.body).toBe(200);
    expect(bby.count(path)).toBe(1); // the page fetched to resolve the SKU is the page used
    expect(bby.count('/site/6576719.p')).toBe(0);
    expect(bby.requests.find((r) => r.path === REVIEWS)?.query.get('sku')).toBe('6576719');
    const r = JSON.parse(res.body);
    expect(r.reviews.stats).toMatchObject({ average_overall_rating: 4.5, total_review_count: 580 });
    expect(r.pricing.sku_price_domain.sku_id).toBe('6576719');
  });

  it('a canonical URL without SKU whose page is gone → 404, no API asked', async () => {
    const res = await get(q('https://www.bestbuy.com/product/gone-product/ABCDE12345'));
    expectProblem(res, 404, 'not_found');
    expect(bby.count('/product/gone-product/ABCDE12345')).toBe(1);
    expect(bby.count(PRICING) + bby.count(PRICEVIEW) + bby.count(REVIEWS)).toBe(0);
  });

  it('fetches the sources in parallel', async () => {
    let inFlight = 0;
    let most = 0;
    const slow =
      (body: string, type: string): FakeHandler =>
      async (_req, res) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, 200));
        inFlight--;
        res.writeHead(200, { 'content-type': type }).end(body);
      };
    bby.on(`/site/6500201.p`, slow(forSku('page-apollo-rehydrate.html', '6500201'), 'text/html'));
    bby.on(PRICING, slow(forSku('pricing-item.json', '6500201'), 'application/json'));
    bby.on(PRICEVIEW, slow(forSku('priceview.json', '6500201'), 'application/json'));
    bby.on(REVIEWS, slow(forSku('reviews.json', '6500201'), 'application/json'));
    const res = await get(q('6500201'));
    expect(res.statusCode, res.body).toBe(200);
    expect(most).toBe(4);
  });

  it('reviews source down → 200, reviews null, X-Missing-Parts: reviews', async () => {
    const sku = '6500301';
    serveHealthy(sku);
    bby.serve(REVIEWS, { error: 'internal' }, { status: 500 });
    const res = await get(q(sku));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-missing-parts']).toBe('reviews');
    const r = JSON.parse(res.body);
    expect(r.reviews).toBeNull();
    expect(r.pricing.sku_price_domain.sku_id).toBe(sku);
    expect(r.specification_groups).toHaveLength(2);
  });

  it('product page blocked, APIs answering → 200 without the page parts, named in X-Missing-Parts', async () => {
    const sku = '6500302';
    serveHealthy(sku);
    bby.serve(`/site/${sku}.p`, AKAMAI, { status: 403 });
    const res = await get(q(sku));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-missing-parts']).toBe('specification_groups,specifications');
    const r = JSON.parse(res.body);
    expect(r.specification_groups).toBeNull();
    expect(r.pricing.customer_price).toBe(1099.99);
    expect(r.reviews.reviews.topics).toHaveLength(2);
  });

  it('every source failing → 502 upstream_error', async () => {
    bby.otherwise((_req, res) => void res.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable'));
    const body = expectProblem(await get(q('6500401')), 502, 'upstream_error');
    expect(body.detail).toMatch(/every source failed/);
  });

  it('product page 404 → 404 not_found', async () => {
    bby.serve(PRICING, { error: 'not found' }, { status: 404 });
    bby.serve(PRICEVIEW, { error: 'not found' }, { status: 404 });
    bby.serve(REVIEWS, { totalPages: 0, totalResults: 0, topics: [] });
    // /site/<sku>.p falls through to the fake's 404
    expectProblem(await get(q('6500501')), 404, 'not_found');
  });

  it('Akamai "Access Denied … Reference #" 403 pages everywhere → 503 upstream_blocked', async () => {
    bby.otherwise((_req, res) => void res.writeHead(403, { 'content-type': 'text/html' }).end(AKAMAI));
    expectProblem(await get(q('6500601')), 503, 'upstream_blocked');
  });

  it('HTML with 200 where JSON is expected and a blocked page → 503 upstream_blocked', async () => {
    bby.serve('/site/6500602.p', AKAMAI, { status: 403 });
    for (const path of [PRICING, PRICEVIEW, REVIEWS]) bby.serve(path, AKAMAI, { status: 200 });
    expectProblem(await get(q('6500602')), 503, 'upstream_blocked');
  });

  it.each([
    ['foreign host', 'https://www.amazon.com/site/x/6500001.p?skuId=6500001'],
    ['Best Buy Canada', 'https://www.bestbuy.ca/en-ca/product/x/17123456'],
    ['IP literal', 'https://127.0.0.1/site/x/6500001.p'],
    ['not a product page', 'https://www.bestbuy.com/site/promo/tv-deals'],
    ['too short a number', '12'],
  ])('%s → 400 naming query, no upstream request', async (_name, query) => {
    const body = expectProblem(await get(q(query)), 400, 'invalid_parameter');
    expect(body.errors).toEqual([expect.objectContaining({ param: 'query' })]);
    expect(bby.count()).toBe(0);
  });

  it('missing query → 400; unknown parameter → 400', async () => {
    expectProblem(await get(PRODUCT), 400, 'invalid_parameter');
    const body = expectProblem(await get(`${PRODUCT}?query=${SKU}&sku=1`), 400, 'invalid_parameter');
    expect(body.errors).toEqual([expect.objectContaining({ param: 'sku' })]);
  });

  it('alias path /api/v1/scraper/bestbuy/product answers the same record', async () => {
    const sku = '6500701';
    serveHealthy(sku);
    const canonical = await get(q(sku));
    serveHealthy(sku);
    const alias = await get(`${ALIAS}?query=${sku}`);
    expect(alias.statusCode, alias.body).toBe(200);
    expect(JSON.parse(alias.body)).toEqual(JSON.parse(canonical.body));
  });
});

describe('electronics product with the official Products API key', () => {
  const bby = new FakeUpstream();
  const KEY = 'bby-test-key-0123456789abcdef';
  let app: FastifyInstance;
  let logs = '';
  const get = (url: string) => app.inject({ url, headers: { ...auth, 'cache-control': 'no-cache' } });

  beforeAll(async () => {
    await bby.start();
    const logStream = new PassThrough();
    logStream.on('data', (c: Buffer) => (logs += c.toString()));
    app = await testApp(
      {
        MARKETLENS_ELECTRONICS_ORIGIN: bby.origin,
        ...QUIET_CLIENT,
        MARKETLENS_BESTBUY_API_KEY: KEY,
        MARKETLENS_LOG_LEVEL: 'debug',
      },
      { logStream },
    );
  });
  afterAll(async () => {
    await app.close();
    await bby.stop();
  });
  beforeEach(() => {
    bby.reset();
    bby.serve('/', '<!DOCTYPE html><html><head><title>Best Buy</title></head><body></body></html>');
  });

  it('web sources blocked, official API answering → 200 from the official API alone', async () => {
    const sku = '6500801';
    bby.otherwise((_req, res) => void res.writeHead(403, { 'content-type': 'text/html' }).end(AKAMAI));
    bby.serve(`/v1/products/${sku}.json`, JSON.parse(forSku('official-product.json', sku)));
    const res = await get(q(sku));
    expect(res.statusCode, res.body).toBe(200);
    const official = bby.requests.find((r) => r.path === `/v1/products/${sku}.json`);
    expect(official?.query.get('apiKey')).toBe(KEY);
    const r = JSON.parse(res.body);
    expect(r.pricing.sku_price_domain).toMatchObject({
      sku_id: sku,
      regular_price: 1299.99,
      current_price: 1099.99,
      is_m_a_p: true,
    });
    expect(r.reviews.stats).toMatchObject({ average_overall_rating: 4.6, total_review_count: 130 });
    expect(r.reviews.reviews).toBeNull();
    expect(String(res.headers['x-missing-parts'])).toBe('reviews.reviews,specification_groups,specifications');
  });

  it('official API refusing the key, every other source failing → error without the key anywhere', async () => {
    bby.otherwise((_req, res) => void res.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable'));
    bby.serve(
      '/v1/products/6500802.json',
      { errorCode: '403', errorMessage: 'The provided API Key is invalid.' },
      { status: 403 },
    );
    const res = await get(q('6500802'));
    expectProblem(res, 502, 'upstream_error');
    expect(res.body).not.toContain(KEY);
    expect(logs).not.toContain(KEY);
  });
});

describe('electronics product against the deadline', () => {
  const bby = new FakeUpstream();
  let app: FastifyInstance;

  beforeAll(async () => {
    await bby.start();
    app = await testApp({ MARKETLENS_ELECTRONICS_ORIGIN: bby.origin, ...QUIET_CLIENT, MARKETLENS_DEADLINE_MS: '1000' });
  });
  afterAll(async () => {
    await app.close();
    await bby.stop();
  });

  it('a source that never answers costs only its part: 200 within the deadline, reviews missing', async () => {
    const sku = '6500901';
    bby.serve('/', '<!DOCTYPE html><html><head><title>Best Buy</title></head><body></body></html>');
    bby.serve(`/site/${sku}.p`, forSku('page-apollo-rehydrate.html', sku));
    bby.serve(PRICING, JSON.parse(forSku('pricing-item.json', sku)));
    bby.serve(PRICEVIEW, JSON.parse(forSku('priceview.json', sku)));
    bby.on(REVIEWS, () => undefined); // hangs until the server closes
    const started = Date.now();
    const res = await app.inject({ url: q(sku), headers: { ...auth, 'cache-control': 'no-cache' } });
    expect(Date.now() - started).toBeLessThan(2500);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-missing-parts']).toBe('reviews');
    expect(JSON.parse(res.body).pricing.customer_price).toBe(1099.99);
  });
});
