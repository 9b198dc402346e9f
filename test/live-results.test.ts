/**
 * The after-fetch seam and lookup identity (issue 14): a LiveResult after every successful live fetch (never for a
 * hit), a LiveFailure after a failed one, canonical parameters shared by every spelling of one product (a GOAT URL
 * and its slug → one cache entry, one upstream fetch), and a bad `query` refused before any upstream request.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LiveFailure, LiveResult } from '../src/operations/live-results.js';
import { wrapAsNextDataPage } from '../src/util/next-data.js';
import { auth, testApp } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { expectProblem } from './support/problem.js';
import { readFixture } from './support/fixtures.js';

const template = JSON.parse(readFixture('resale-b/product-template.json'));
const SLUG = template.slug as string;
const page = wrapAsNextDataPage({
  props: { pageProps: { productTemplate: template, offers: { offerData: null } }, __N_SSP: true },
  page: '/sneakers/[slug]',
  query: { slug: SLUG },
  buildId: 'fixture-build',
});
const buyBar = readFixture('resale-b/buy-bar-data.json');

describe('live results and lookup identity', () => {
  const goat = new FakeUpstream();
  const stockx = new FakeUpstream();
  let app: FastifyInstance;
  let results: LiveResult[] = [];
  let failures: LiveFailure[] = [];
  const get = (url: string) => app.inject({ url, headers: auth });
  const upstreamCalls = (f: FakeUpstream) => f.requests.filter((r) => r.path !== '/').length;

  beforeAll(async () => {
    await goat.start();
    await stockx.start();
    app = await testApp({
      MARKETLENS_RESALE_B_ORIGIN: goat.origin,
      MARKETLENS_RESALE_A_ORIGIN: stockx.origin,
      MARKETLENS_DEADLINE_MS: '3000',
      MARKETLENS_RETRY_ATTEMPTS: '1',
    });
    app.marketlens.liveResults.onResult((r) => results.push(r));
    app.marketlens.liveResults.onFailure((f) => failures.push(f));
  });
  afterAll(async () => {
    await app.close();
    await goat.stop();
    await stockx.stop();
  });
  beforeEach(() => {
    goat.reset();
    stockx.reset();
    results = [];
    failures = [];
    goat.serve('/', '<!DOCTYPE html><html><head><title>GOAT</title></head><body></body></html>');
    stockx.serve('/', '<!DOCTYPE html><html><head><title>StockX</title></head><body></body></html>');
  });

  it('a GOAT URL then the same product by slug: one upstream fetch, one live result with the canonical params', async () => {
    goat.serve(`/sneakers/${SLUG}`, page);
    const byUrl = await get(
      `/api/v1/scraper/resale-b/product?query=${encodeURIComponent(`https://www.goat.com/sneakers/${SLUG}?utm=x`)}`,
    );
    expect(byUrl.statusCode, byUrl.body).toBe(200);
    expect(byUrl.headers['x-cache']).toBe('miss');
    const bySlug = await get(`/api/v1/scraper/resale-b/product?query=${SLUG.toUpperCase()}`);
    expect(bySlug.statusCode, bySlug.body).toBe(200);
    expect(bySlug.headers['x-cache']).toBe('hit');
    expect(bySlug.body).toBe(byUrl.body);
    expect(upstreamCalls(goat)).toBe(1);

    expect(results).toHaveLength(1); // the hit is not a live fetch
    const [r] = results;
    expect(r?.params).toEqual({ query: SLUG });
    expect(r?.identity).toEqual({
      marketplace: 'resale-b',
      operation: 'resale-b.product',
      id: String(template.id),
      country: null,
      currency: null,
      locale: null,
    });
    expect(r?.missing).toEqual([]);
    expect((r?.record as { slug: string } | undefined)?.slug).toBe(SLUG);
    expect(r?.fetchedAt).toBeGreaterThan(Date.now() - 10_000);
  });

  it('prices carry the ISO 4217 currency and ISO country of the request (UK → GB, GBP), and share the product id', async () => {
    goat.serve('/web-api/v1/product_variants/buy_bar_data', buyBar, { type: 'application/json' });
    const res = await get(`/api/v1/scraper/resale-b/prices?query=${template.id}&country=uk`);
    expect(res.statusCode, res.body).toBe(200);
    expect(results.map((r) => r.identity)).toEqual([
      {
        marketplace: 'resale-b',
        operation: 'resale-b.prices',
        id: String(template.id),
        country: 'GB',
        currency: 'GBP',
        locale: null,
      },
    ]);
  });

  it('a failed live fetch is a LiveFailure (and no LiveResult)', async () => {
    goat.serve('/web-api/v1/product_variants/buy_bar_data', 'oops', { status: 500, type: 'text/plain' });
    const res = await get('/api/v1/scraper/resale-b/prices?query=42&max_age=0');
    expectProblem(res, 502, 'upstream_error');
    expect(results).toHaveLength(0);
    expect(failures).toHaveLength(1);
    expect(failures[0]?.operation).toBe('resale-b.prices');
    expect(failures[0]?.params).toEqual({ query: '42', country: 'US' });
    expect(failures[0]?.error.code).toBe('upstream_error');
  });

  it('a StockX product query on another host is a 400 naming query, before any upstream request', async () => {
    const res = await get(
      `/api/v1/scraper/resale-a/product?query=${encodeURIComponent('https://evil.example/nike-dunk')}`,
    );
    const body = expectProblem(res, 400, 'invalid_parameter');
    expect(body.errors.map((e: { param: string }) => e.param)).toEqual(['query']);
    expect(stockx.requests).toHaveLength(0);
    expect(failures).toHaveLength(0);
  });

  it('a Best Buy query that names no product is a 400 naming query, before any upstream request', async () => {
    const res = await get(
      `/api/v1/scraper/electronics/product?query=${encodeURIComponent('https://www.bestbuy.com/site/searchpage.jsp')}`,
    );
    const body = expectProblem(res, 400, 'invalid_parameter');
    expect(body.errors[0].param).toBe('query');
  });

  it('a listener that throws never fails the lookup', async () => {
    goat.serve(`/sneakers/${SLUG}`, page);
    const off = app.marketlens.liveResults.onResult(() => {
      throw new Error('listener bug');
    });
    try {
      const res = await get(`/api/v1/scraper/resale-b/product?query=${SLUG}&max_age=0`);
      expect(res.statusCode, res.body).toBe(200);
      expect(results).toHaveLength(1);
    } finally {
      off();
    }
  });
});
