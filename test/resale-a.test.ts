/**
 * resale-a (StockX) over HTTP against a fake StockX: search (GraphQL Browse), product (page + GetMarketData),
 * locale parameters reaching upstream, and the error mapping (not found, blocked, changed, foreign hosts).
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { productProblems, searchHitProblems } from './fixtures/resale-a/spec-fields.js';
import { auth, testApp } from './support/app.js';
import { FakeUpstream, type LoggedRequest } from './support/fake-upstream.js';
import { expectProblem } from './support/problem.js';
import { readFixture } from './support/fixtures.js';

const fixture = (name: string) => readFixture(`resale-a/${name}`);
const SEARCH = '/api/v1/scraper/resale-a/search';
const PRODUCT = '/api/v1/scraper/resale-a/product';
const GRAPHQL = '/api/p/e';
const SLUG = 'marketlens-runner-1-harbor-blue';
const PRODUCT_ID = '0b6f3c2e-7d41-4e8a-9c5b-1a2d3e4f5a6b';
/** Every lookup is live: these tests are about upstream traffic, not the cache. */
const headers = { ...auth, 'cache-control': 'no-cache' };

function json(res: ServerResponse, body: string, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(body);
}

/** A GraphQL POST body as the client sends it. */
interface GraphqlBody {
  operationName: string;
  query: string;
  variables: Record<string, unknown>;
}

/** The GraphQL POSTs received, parsed. */
function graphqlCalls(stockx: FakeUpstream): Array<{ req: LoggedRequest; body: GraphqlBody }> {
  return stockx.requests
    .filter((r) => r.path === GRAPHQL)
    .map((req) => ({ req, body: JSON.parse(req.body) as GraphqlBody }));
}

/** Serves GraphQL by operation name; unknown operations get a schema error. */
function graphql(
  stockx: FakeUpstream,
  answers: Record<string, { body: string; status?: number; type?: string }>,
): void {
  stockx.on(`POST ${GRAPHQL}`, (req, res) => {
    const op = JSON.parse(req.body).operationName as string;
    const a = answers[op];
    if (!a) return json(res, fixture('graphql-schema-error.json'), 400);
    res.writeHead(a.status ?? 200, { 'content-type': a.type ?? 'application/json' }).end(a.body);
  });
}

describe('resale-a over HTTP', () => {
  const stockx = new FakeUpstream();
  let app: FastifyInstance;

  beforeAll(async () => {
    await stockx.start();
    app = await testApp({ MARKETLENS_RESALE_A_ORIGIN: stockx.origin, MARKETLENS_DEADLINE_MS: '3000' });
  });
  afterAll(async () => {
    await app.close();
    await stockx.stop();
  });
  beforeEach(() => stockx.reset());

  describe('search', () => {
    it('POSTs our Browse document with operationName, variables and the web-client headers; answers 10 hits', async () => {
      graphql(stockx, { Browse: { body: fixture('search-response.json') } });
      const res = await app.inject({ url: `${SEARCH}?query=marketlens%20court`, headers });
      expect(res.statusCode, res.body).toBe(200);
      const hits = JSON.parse(res.body);
      expect(hits).toHaveLength(10);
      for (const h of hits) expect(searchHitProblems(h)).toEqual([]);
      expect(hits[0]).toMatchObject({ slug: 'marketlens-court-1-chalk', sku: 'MLC-001', colorway: 'Chalk/Gum' });

      const calls = graphqlCalls(stockx);
      expect(calls).toHaveLength(1);
      const { req, body } = calls[0]!;
      expect(req.method).toBe('POST');
      expect(body.operationName).toBe('Browse');
      expect(body.query).toMatch(/^query Browse\(/);
      expect(body.query).toContain('styleId');
      expect(body.query).toMatch(/traits\s*\{\s*name\s+value/);
      expect(body.query).toMatch(/\.\.\. on Variant/);
      expect(body.variables).toEqual({
        query: 'marketlens court',
        filtersVersion: 4,
        sort: { id: 'featured', order: 'DESC' },
        page: { index: 1, limit: 10 },
      });
      expect(req.headers).toMatchObject({
        'content-type': 'application/json',
        accept: 'application/json',
        'apollographql-client-name': 'Iron',
        'app-platform': 'Iron',
        'x-operation-name': 'Browse',
        'accept-language': 'en-US',
        'selected-country': 'US',
        origin: 'https://stockx.com',
        referer: 'https://stockx.com/search?s=marketlens%20court',
      });
      expect(req.headers['apollographql-client-version']).toMatch(/^\d{4}\.\d{2}\.\d{2}\.\d{2}$/);
      expect(req.headers['app-version']).toBe(req.headers['apollographql-client-version']);
      expect(req.headers['user-agent']).toMatch(/^Mozilla\/5\.0 .*Chrome\//);
      expect(req.headers['x-stockx-device-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('without query asks for the default listing (empty query, featured order)', async () => {
      graphql(stockx, { Browse: { body: fixture('search-response.json') } });
      const res = await app.inject({ url: SEARCH, headers });
      expect(res.statusCode, res.body).toBe(200);
      expect(JSON.parse(res.body)).toHaveLength(10);
      const { body, req } = graphqlCalls(stockx)[0]!;
      expect(body.variables.query).toBe('');
      expect(body.variables.sort).toEqual({ id: 'featured', order: 'DESC' });
      expect(req.headers.referer).toBe('https://stockx.com/search');
      stockx.reset();
      graphql(stockx, { Browse: { body: fixture('search-response.json') } });
      expect((await app.inject({ url: `${SEARCH}?query=%20`, headers })).statusCode).toBe(200);
      expect(graphqlCalls(stockx)[0]!.body.variables.query).toBe('');
    });

    it('is served under the alias path /api/v1/scraper/stockx/search', async () => {
      graphql(stockx, { Browse: { body: fixture('search-response.json') } });
      const res = await app.inject({ url: '/api/v1/scraper/stockx/search?query=DD1391-100', headers });
      expect(res.statusCode, res.body).toBe(200);
      expect(graphqlCalls(stockx)[0]!.body.variables.query).toBe('DD1391-100');
    });

    it('searches the slug of a stockx.com URL; a foreign URL is 400 without any upstream request', async () => {
      graphql(stockx, { Browse: { body: fixture('search-response.json') } });
      expect(
        (await app.inject({ url: `${SEARCH}?query=${encodeURIComponent(`https://stockx.com/${SLUG}`)}`, headers }))
          .statusCode,
      ).toBe(200);
      expect(graphqlCalls(stockx)[0]!.body.variables.query).toBe(SLUG);
      stockx.reset();
      const bad = expectProblem(
        await app.inject({ url: `${SEARCH}?query=${encodeURIComponent('https://www.goat.com/sneakers/x')}`, headers }),
        400,
        'invalid_parameter',
      );
      expect(bad.errors[0].param).toBe('query');
      expect(stockx.count()).toBe(0);
    });

    it('HTML where JSON is expected → 503 upstream_blocked; a PerimeterX 403 → 503 upstream_blocked', async () => {
      graphql(stockx, {
        Browse: {
          body: '<!DOCTYPE html><html><title>Access to this page has been denied</title></html>',
          type: 'text/html',
        },
      });
      expectProblem(await app.inject({ url: `${SEARCH}?query=a`, headers }), 503, 'upstream_blocked');
      stockx.reset();
      graphql(stockx, {
        Browse: { body: '{"appId":"PX16uD0kOF","jsClientSrc":"/x","blockScript":"/y"}', status: 403 },
      });
      expectProblem(await app.inject({ url: `${SEARCH}?query=b`, headers }), 503, 'upstream_blocked');
    });

    it('GraphQL schema errors → 502 upstream_changed; 5xx → 502 upstream_error', async () => {
      graphql(stockx, { Browse: { body: fixture('graphql-schema-error.json'), status: 400 } });
      expectProblem(await app.inject({ url: `${SEARCH}?query=c`, headers }), 502, 'upstream_changed');
      stockx.reset();
      graphql(stockx, { Browse: { body: 'upstream down', status: 503, type: 'text/plain' } });
      expectProblem(await app.inject({ url: `${SEARCH}?query=d`, headers }), 502, 'upstream_error');
    });

    it('rejects unknown parameters and over-long queries with 400', async () => {
      const res = expectProblem(
        await app.inject({ url: `${SEARCH}?query=a&country=FR`, headers }),
        400,
        'invalid_parameter',
      );
      expect(res.errors[0].param).toBe('country');
      expectProblem(await app.inject({ url: `${SEARCH}?query=${'a'.repeat(201)}`, headers }), 400, 'invalid_parameter');
      expect(stockx.count()).toBe(0);
    });
  });

  describe('product', () => {
    function serveProduct(path = `/${SLUG}`, market = fixture('market-data.json')) {
      stockx.serve(path, fixture('product-page.html'));
      graphql(stockx, { GetMarketData: { body: market } });
    }

    it('combines the page (catalog) and GetMarketData (market) into the §2.6 record', async () => {
      serveProduct();
      const res = await app.inject({ url: `${PRODUCT}?query=${SLUG}`, headers });
      expect(res.statusCode, res.body).toBe(200);
      const p = JSON.parse(res.body);
      expect(productProblems(p)).toEqual([]);
      expect(p).toMatchObject({
        id: PRODUCT_ID,
        slug: SLUG,
        name: 'Marketlens Runner 1 Harbor Blue',
        sku: 'ML-0001-400',
      });
      expect(p.market.bids).toEqual({ lowest_ask: 131, highest_bid: 118, number_asks: 37, number_bids: 12 });
      expect(p.variants[1].market.bids.lowest_ask).toBeNull();
      expect(p.variants[0].sizes.map((s: { type: string }) => s.type)).toEqual([
        'us m',
        'uk',
        'cm',
        'kr',
        'eu',
        'us w',
      ]);
      expect(res.headers['x-missing-parts']).toBeUndefined();

      const page = stockx.requests.find((r) => r.method === 'GET' && r.path !== '/')!;
      expect(page.path).toBe(`/${SLUG}`);
      expect(page.headers['accept-language']).toBe('en-US');
      expect(page.headers.accept).toMatch(/^text\/html/);
      const { body, req } = graphqlCalls(stockx)[0]!;
      expect(body.operationName).toBe('GetMarketData');
      expect(body.query).toMatch(/^query GetMarketData\(/);
      expect(body.variables).toEqual({
        id: SLUG,
        currencyCode: 'USD',
        countryCode: 'US',
        marketName: 'US',
        viewerContext: 'BUYER',
      });
      expect(req.headers['x-operation-name']).toBe('GetMarketData');
      expect(req.headers.referer).toBe(`https://stockx.com/${SLUG}`);
    });

    it('passes country, language and currency the way StockX takes them', async () => {
      serveProduct(`/fr-fr/${SLUG}`);
      const res = await app.inject({ url: `${PRODUCT}?query=${SLUG}&country=fr&language=fr-FR&currency=eur`, headers });
      expect(res.statusCode, res.body).toBe(200);
      const page = stockx.requests.find((r) => r.method === 'GET' && r.path !== '/')!;
      expect(page.path).toBe(`/fr-fr/${SLUG}`);
      expect(page.headers['accept-language']).toBe('fr-FR');
      expect(page.headers.cookie).toContain('stockx_selected_currency=EUR');
      expect(page.headers.cookie).toContain('stockx_selected_region=FR');
      const { body, req } = graphqlCalls(stockx)[0]!;
      expect(body.variables).toMatchObject({ id: SLUG, currencyCode: 'EUR', countryCode: 'FR', marketName: 'FR' });
      expect(req.headers['selected-country']).toBe('FR');
      expect(req.headers['accept-language']).toBe('fr-FR');
    });

    it("defaults the currency to the country's StockX currency (GB → GBP; UK is read as GB)", async () => {
      serveProduct();
      expect((await app.inject({ url: `${PRODUCT}?query=${SLUG}&country=UK`, headers })).statusCode).toBe(200);
      expect(graphqlCalls(stockx)[0]!.body.variables).toMatchObject({
        currencyCode: 'GBP',
        countryCode: 'GB',
        marketName: 'GB',
      });
    });

    it('rejects bad country, language and currency with 400 naming each, before any upstream request', async () => {
      for (const [param, value] of [
        ['country', 'ZZ'],
        ['language', 'french'],
        ['language', 'pt-BR'],
        ['currency', 'XYZ'],
      ] as const) {
        const body = expectProblem(
          await app.inject({ url: `${PRODUCT}?query=${SLUG}&${param}=${value}`, headers }),
          400,
          'invalid_parameter',
        );
        expect(body.errors.map((e: { param: string }) => e.param)).toContain(param);
      }
      expectProblem(await app.inject({ url: PRODUCT, headers }), 400, 'invalid_parameter');
      expect(stockx.count()).toBe(0);
    });

    it('takes a stockx.com product URL; a foreign host is 400 with zero upstream requests', async () => {
      serveProduct();
      const ok = await app.inject({
        url: `${PRODUCT}?query=${encodeURIComponent(`https://stockx.com/${SLUG}?size=9`)}`,
        headers,
      });
      expect(ok.statusCode, ok.body).toBe(200);
      stockx.reset();
      for (const q of [
        'https://www.goat.com/sneakers/air-jordan-1',
        'https://stockx.com.attacker.example/x',
        'http://127.0.0.1/x',
      ]) {
        const bad = expectProblem(
          await app.inject({ url: `${PRODUCT}?query=${encodeURIComponent(q)}`, headers }),
          400,
          'invalid_parameter',
        );
        expect(bad.errors[0].param).toBe('query');
      }
      expect(stockx.count()).toBe(0);
    });

    it('takes a product UUID: GetMarketData resolves the slug, then the page is fetched', async () => {
      serveProduct();
      const res = await app.inject({ url: `${PRODUCT}?query=${PRODUCT_ID}`, headers });
      expect(res.statusCode, res.body).toBe(200);
      expect(JSON.parse(res.body).slug).toBe(SLUG);
      expect(graphqlCalls(stockx)[0]!.body.variables.id).toBe(PRODUCT_ID);
      expect(stockx.requests.find((r) => r.method === 'GET' && r.path !== '/')!.path).toBe(`/${SLUG}`);
    });

    it('follows a renamed product: the old slug redirects, the market is asked for the new slug', async () => {
      stockx.on('/old-runner-slug', (_req, res) => {
        res.writeHead(301, { location: `/${SLUG}` }).end();
      });
      stockx.serve(`/${SLUG}`, fixture('product-page.html'));
      stockx.on(`POST ${GRAPHQL}`, (req, res) => {
        const { variables } = JSON.parse(req.body);
        json(res, variables.id === SLUG ? fixture('market-data.json') : fixture('graphql-product-null.json'));
      });
      const res = await app.inject({ url: `${PRODUCT}?query=old-runner-slug`, headers });
      expect(res.statusCode, res.body).toBe(200);
      const p = JSON.parse(res.body);
      expect(p.slug).toBe(SLUG);
      expect(p.market.bids.lowest_ask).toBe(131);
      expect(graphqlCalls(stockx).map((c) => c.body.variables.id)).toEqual(['old-runner-slug', SLUG]);
    });

    it('a product page that 404s → 404 not_found', async () => {
      graphql(stockx, { GetMarketData: { body: fixture('graphql-product-null.json') } });
      const body = expectProblem(
        await app.inject({ url: `${PRODUCT}?query=no-such-product`, headers }),
        404,
        'not_found',
      );
      expect(body.detail).toContain('resale-a');
    });

    it('GraphQL "not found" for a UUID → 404 not_found, without fetching a page', async () => {
      graphql(stockx, { GetMarketData: { body: fixture('graphql-not-found.json') } });
      expectProblem(
        await app.inject({ url: `${PRODUCT}?query=00000000-0000-4000-8000-000000000000`, headers }),
        404,
        'not_found',
      );
      expect(stockx.requests.filter((r) => r.method === 'GET' && r.path !== '/')).toHaveLength(0);
    });

    // Error tests use slugs of their own: an earlier good answer for the same parameters would be served stale.
    it('a blocked product page → 503 upstream_blocked', async () => {
      const challenge = '<html><title>Access to this page has been denied</title><div id="px-captcha"></div></html>';
      stockx.serve('/blocked-403', challenge, { status: 403 });
      graphql(stockx, { GetMarketData: { body: fixture('market-data.json') } });
      expectProblem(await app.inject({ url: `${PRODUCT}?query=blocked-403`, headers }), 503, 'upstream_blocked');
      stockx.serve('/blocked-200', challenge);
      expectProblem(await app.inject({ url: `${PRODUCT}?query=blocked-200`, headers }), 503, 'upstream_blocked');
    });

    it('market data blocked (HTML where JSON expected) → the catalog with market null and X-Missing-Parts: market', async () => {
      stockx.serve('/market-blocked', fixture('product-page.html'));
      graphql(stockx, {
        GetMarketData: { body: '<!DOCTYPE html><html><div id="px-captcha"></div></html>', type: 'text/html' },
      });
      const res = await app.inject({ url: `${PRODUCT}?query=market-blocked`, headers });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['x-missing-parts']).toBe('market');
      const p = JSON.parse(res.body);
      expect(p.market).toBeNull();
      expect(p.variants.every((v: { market: unknown }) => v.market === null)).toBe(true);
      expect(productProblems(p)).toEqual([]);
    });

    it('market data blocked, a 2026 page with JSON-LD offers (EUR) → lowest asks from the offers, the rest in X-Missing-Parts', async () => {
      // One schema.org Offer per variant (sku = variant id), as the 2026 page without a market node carries them.
      const offers = [
        ['11111111-2222-4333-8444-555555555501', 141],
        ['11111111-2222-4333-8444-555555555502', 118],
      ].map(([sku, price]) => ({
        '@type': 'Offer',
        sku,
        price,
        priceCurrency: 'EUR',
        gtin: '000111222333',
        availability: 'https://schema.org/InStock',
      }));
      const ld = {
        '@context': 'https://schema.org',
        '@type': 'Product',
        offers: { '@type': 'AggregateOffer', offers },
      };
      stockx.serve(
        '/offers-only',
        fixture('product-page.html').replace(
          '</body>',
          `<script type="application/ld+json">${JSON.stringify(ld)}</script></body>`,
        ),
      );
      graphql(stockx, { GetMarketData: { body: '<html><div id="px-captcha"></div></html>', type: 'text/html' } });
      const res = await app.inject({ url: `${PRODUCT}?query=offers-only&country=FR&currency=EUR`, headers });
      expect(res.statusCode, res.body).toBe(200);
      expect(String(res.headers['x-missing-parts']).split(',')).toEqual([
        'market.bids.highest_bid',
        'market.bids.number_asks',
        'market.bids.number_bids',
        'market.sales',
        'variants.market.bids.highest_bid',
        'variants.market.bids.number_asks',
        'variants.market.bids.number_bids',
        'variants.market.sales',
      ]);
      const p = JSON.parse(res.body);
      expect(p.market.bids).toEqual({ lowest_ask: 118, highest_bid: null, number_asks: null, number_bids: null });
      expect(
        p.variants.map((v: { market: { bids: { lowest_ask: number } } | null }) => v.market?.bids.lowest_ask ?? null),
      ).toEqual([141, 118, null]);
      expect(productProblems(p)).toEqual([]);
    });

    it('upstream changed: a page without __NEXT_DATA__, or a GraphQL schema error → 502 upstream_changed', async () => {
      stockx.serve('/redesigned', '<html><body>A redesigned page</body></html>');
      stockx.serve('/schema-moved', fixture('product-page.html'));
      graphql(stockx, { GetMarketData: { body: fixture('market-data.json').replaceAll(SLUG, 'redesigned') } });
      expectProblem(await app.inject({ url: `${PRODUCT}?query=redesigned`, headers }), 502, 'upstream_changed');
      stockx.reset();
      stockx.serve('/schema-moved', fixture('product-page.html'));
      graphql(stockx, { GetMarketData: { body: fixture('graphql-schema-error.json'), status: 400 } });
      expectProblem(await app.inject({ url: `${PRODUCT}?query=schema-moved`, headers }), 502, 'upstream_changed');
    });

    it('is served under the alias path /api/v1/scraper/stockx/product', async () => {
      serveProduct();
      const res = await app.inject({
        url: `/api/v1/scraper/stockx/product?query=${SLUG}&country=US&currency=USD&language=en-US`,
        headers,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(JSON.parse(res.body).id).toBe(PRODUCT_ID);
    });
  });

  it('documents both operations and their record schemas in OpenAPI', async () => {
    const res = await app.inject({ url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = JSON.parse(res.body);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining([SEARCH, PRODUCT]));
    const schemas = Object.keys(doc.components?.schemas ?? {});
    expect(schemas).toEqual(
      expect.arrayContaining(['ResaleASearchHit', 'ResaleAProduct', 'ResaleAMarket', 'ResaleAVariant']),
    );
    const productParams = doc.paths[PRODUCT].get.parameters.map((p: { name: string }) => p.name);
    expect(productParams).toEqual(expect.arrayContaining(['query', 'country', 'language', 'currency']));
  });
});
