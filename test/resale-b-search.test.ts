/**
 * resale-b.search over HTTP against a fake GOAT (consumer search) and fake Constructor.io (both on the fake origin):
 * route and alias, the fallback and its failures, and prices/product taking a SKU or slug through the search.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findGoatProduct } from '../src/marketplaces/resale-b/find.js';
import { wrapAsNextDataPage } from '../src/util/next-data.js';
import { auth, testApp } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { readFixture } from './support/fixtures.js';
import { expectProblem } from './support/problem.js';

const SEARCH = '/api/v1/scraper/resale-b/search';
const PRICES = '/api/v1/scraper/resale-b/prices';
const PRODUCT = '/api/v1/scraper/resale-b/product';
const CONSUMER = '/web-api/consumer-search/get-product-search-results';
const BUY_BAR = '/web-api/v1/product_variants/buy_bar_data';
const CHALLENGE = '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body></body></html>';

const consumerAnswer = JSON.parse(readFixture('resale-b/consumer-search.json'));
const constructorAnswer = JSON.parse(readFixture('resale-b/constructor-search.json'));
const buyBar = JSON.parse(readFixture('resale-b/buy-bar-data.json'));
const template = JSON.parse(readFixture('resale-b/product-template.json'));
const SLUG = template.slug as string;

function productPage(t: Record<string, unknown>): string {
  return wrapAsNextDataPage({
    props: { pageProps: { productTemplate: t, offers: { offerData: null } }, __N_SSP: true },
    page: '/sneakers/[slug]',
    query: { slug: t.slug },
    buildId: 'fixture-build',
  });
}

describe('resale-b.search over HTTP', () => {
  const goat = new FakeUpstream();
  let app: FastifyInstance;
  const live = (url: string) => app.inject({ url, headers: { ...auth, 'cache-control': 'no-cache' } });
  const cached = (url: string) => app.inject({ url, headers: auth });
  /** Requests other than the home-page warm-up, by path. */
  const calls = () => goat.requests.filter((r) => r.path !== '/').map((r) => r.path);
  const constructorCalls = () => calls().filter((p) => p.startsWith('/search/'));

  beforeAll(async () => {
    await goat.start();
    app = await testApp({ MARKETLENS_RESALE_B_ORIGIN: goat.origin, MARKETLENS_DEADLINE_MS: '3000' });
  });
  afterAll(async () => {
    await app.close();
    await goat.stop();
  });
  beforeEach(() => {
    goat.reset();
    goat.serve('/', '<!DOCTYPE html><html><head><title>GOAT</title></head><body></body></html>');
    // Constructor.io: any `/search/{term}`.
    goat.otherwise((req, res) => {
      if (!req.path.startsWith('/search/')) return void res.writeHead(404).end('not found');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(constructorAnswer));
    });
  });

  describe('search', () => {
    it.each([SEARCH, '/api/v1/scraper/goat/search'])('%s answers from the consumer search', async (path) => {
      goat.serve(CONSUMER, consumerAnswer);
      const res = await live(`${path}?query=${encodeURIComponent('fixture runner')}&limit=5&page=2`);
      expect(res.statusCode, res.body).toBe(200);
      const hits = JSON.parse(res.body);
      expect(hits.map((h: { id: string }) => h.id)).toEqual(['2000001', '2000002']);
      expect(hits[0]).toEqual({
        id: '2000001',
        slug: SLUG,
        url: `https://www.goat.com/sneakers/${SLUG}`,
        name: "Fixture Runner 2 'Slate'",
        sku: null,
        brand: 'Fixture',
        image: consumerAnswer.data.productsList[0].pictureUrl,
        release_date: '2025-03-08',
        lowest_price: 174.5,
        currency: 'USD',
      });
      expect(calls()).toEqual([CONSUMER]);
      const sent = goat.requests.find((r) => r.path === CONSUMER)!.query;
      expect(Object.fromEntries(sent)).toEqual({
        queryString: 'fixture runner',
        pageLimit: '5',
        pageNumber: '2',
        sortType: '1',
      });
    });

    it('a real "no results" answer is an empty list, not an error nor a fallback', async () => {
      goat.serve(CONSUMER, { data: { productsList: [], totalResults: 0 } });
      const res = await live(`${SEARCH}?query=nothing-like-this`);
      expect(res.statusCode, res.body).toBe(200);
      expect(JSON.parse(res.body)).toEqual([]);
      expect(constructorCalls()).toEqual([]);
    });

    it.each([
      ['5xx', () => goat.serve(CONSUMER, 'oops', { status: 500, type: 'text/plain' })],
      ['blocked', () => goat.serve(CONSUMER, CHALLENGE)],
      ['malformed', () => goat.serve(CONSUMER, { error: 'internal', code: 13 })],
      ['gone (404)', () => goat.serve(CONSUMER, { message: 'Not Found' }, { status: 404 })],
    ])('consumer search %s → Constructor.io answers', async (name, breakIt) => {
      breakIt();
      const res = await live(`${SEARCH}?query=${encodeURIComponent(`FR2001 ${name}`)}`);
      expect(res.statusCode, res.body).toBe(200);
      const hits = JSON.parse(res.body);
      expect(hits[0]).toMatchObject({ id: '2000001', sku: 'FR2001 020', name: "Fixture Runner 2 'Slate'" });
      expect(hits[0]).toMatchObject({ lowest_price: 175, currency: 'USD', brand: null });
      const sent = goat.requests.find((r) => r.path.startsWith('/search/'))!;
      expect(decodeURIComponent(sent.path)).toBe(`/search/FR2001 ${name}`);
      expect(sent.query.get('key')).toBe('key_XT7bjdbvjgECO5d8');
      expect(sent.query.get('num_results_per_page')).toBe('12');
    });

    it('both failing → the more telling error', async () => {
      goat.serve(CONSUMER, CHALLENGE);
      goat.otherwise((_req, res) => void res.writeHead(500, { 'content-type': 'text/plain' }).end('down'));
      const blocked = expectProblem(await live(`${SEARCH}?query=both-down-1`), 503, 'upstream_blocked');
      expect(blocked.detail).toMatch(/consumer_search: .*constructor: /);
      goat.serve(CONSUMER, 'oops', { status: 502, type: 'text/plain' });
      goat.otherwise((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"oops":1}'));
      expectProblem(await live(`${SEARCH}?query=both-down-2`), 502, 'upstream_error');
    });

    it('rejects a missing query and a bad limit with 400 naming the parameter, without calling GOAT', async () => {
      expect(expectProblem(await live(SEARCH), 400, 'invalid_parameter').errors[0].param).toBe('query');
      expect(expectProblem(await live(`${SEARCH}?query=x&limit=0`), 400, 'invalid_parameter').errors[0].param).toBe(
        'limit',
      );
      expect(calls()).toEqual([]);
    });
  });

  describe('prices and product by SKU or slug', () => {
    it('prices by SKU: one search, then buy_bar_data by the id; again: no search and no prices request', async () => {
      goat.serve(CONSUMER, consumerAnswer);
      goat.serve(BUY_BAR, buyBar);
      const first = await cached(`${PRICES}?query=fr2001-020`);
      expect(first.statusCode, first.body).toBe(200);
      expect(JSON.parse(first.body)).toEqual(buyBar);
      expect(calls()).toEqual([CONSUMER, BUY_BAR]);
      expect(goat.requests.find((r) => r.path === BUY_BAR)!.query.get('productTemplateId')).toBe('2000001');

      goat.requests.length = 0;
      const again = await cached(`${PRICES}?query=fr2001-020`);
      expect(again.statusCode).toBe(200);
      expect(again.headers['x-cache']).toBe('hit');
      expect(calls()).toEqual([]);

      // A forced live price lookup refetches the prices, not the search (which template a SKU names does not change).
      const forced = await live(`${PRICES}?query=fr2001-020`);
      expect(forced.statusCode).toBe(200);
      expect(calls()).toEqual([BUY_BAR]);
    });

    it('prices by slug resolve through the search too; a numeric id never searches', async () => {
      goat.serve(CONSUMER, consumerAnswer);
      goat.serve(BUY_BAR, buyBar);
      expect((await live(`${PRICES}?query=fixture-logo-tee-black-ft2002-001`)).statusCode).toBe(200);
      expect(goat.requests.find((r) => r.path === BUY_BAR)!.query.get('productTemplateId')).toBe('2000002');
      goat.requests.length = 0;
      expect((await live(`${PRICES}?query=2000009`)).statusCode).toBe(200);
      expect(calls()).toEqual([BUY_BAR]);
    });

    it('product by SKU: one search, then the product page of the hit', async () => {
      goat.serve(CONSUMER, consumerAnswer);
      goat.serve(`/sneakers/${SLUG}`, productPage(template));
      const res = await cached(`${PRODUCT}?query=${encodeURIComponent('FR2001 020')}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ id: 2000001, slug: SLUG });
      expect(calls()).toEqual([CONSUMER, `/sneakers/${SLUG}`]);
      // The product is cached under its slug: asking by slug now costs nothing.
      goat.requests.length = 0;
      expect((await cached(`${PRODUCT}?query=${SLUG}`)).headers['x-cache']).toBe('hit');
      expect(calls()).toEqual([]);
    });

    it('findGoatProduct (for other code): the ref of a SKU through the cached search; null for an unknown one', async () => {
      goat.serve(CONSUMER, consumerAnswer);
      const ctx = app.marketlens.lookup.resolveContext({ deadlineAt: Date.now() + 3000 });
      expect(await findGoatProduct('FR2001-020', ctx)).toEqual({
        id: '2000001',
        slug: SLUG,
        url: `https://www.goat.com/sneakers/${SLUG}`,
        sku: null,
      });
      expect(await findGoatProduct('FR2001-020', ctx)).toMatchObject({ id: '2000001' });
      expect(calls()).toEqual([CONSUMER]);
      expect(await findGoatProduct('QQ0000-000', ctx)).toBeNull();
    });

    it('an unknown SKU is a 404 naming the query, after one search and nothing else', async () => {
      goat.serve(CONSUMER, consumerAnswer);
      const prices = expectProblem(await live(`${PRICES}?query=ZZ9999-001`), 404, 'not_found');
      expect(prices.detail).toContain('ZZ9999-001');
      const product = expectProblem(await live(`${PRODUCT}?query=ZZ9999-002`), 404, 'not_found');
      expect(product.detail).toContain('ZZ9999-002');
      expect(calls()).toEqual([CONSUMER, CONSUMER]);
    });
  });
});
