/**
 * sportswear.product (Nike) over HTTP against a fake www.nike.com serving the CONSTRUCTED fixture pages
 * (test/fixtures/sportswear/README.md).
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { productSchema } from '../src/marketplaces/sportswear/schema.js';
import { auth, testApp } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { expectProblem } from './support/problem.js';
import { readCapture, sharedAvailable } from './support/shared.js';
import { readFixture } from './support/fixtures.js';

const ROUTE = '/api/v1/scraper/sportswear/product';
const ALIAS = '/api/v1/scraper/nike/product';
const US_PAGE = readFixture('sportswear/constructed-product-page-us.html');
const FR_PAGE = readFixture('sportswear/constructed-product-page-fr.html');
const US_PATH = '/t/dunk-low-retro-mens-shoes-76KnBL/DD1391-100';
const FR_PATH = '/fr/t/chaussure-air-force-1-07-pour-WrLlWX/CW2288-111';

describe('sportswear.product over HTTP', () => {
  const nike = new FakeUpstream();
  let app: FastifyInstance;

  beforeAll(async () => {
    await nike.start();
    // Every URL of DD1391-100 is one product (one cache entry): without stale-if-error a failed live fetch is the
    // error itself, not the record an earlier test cached.
    app = await testApp({ MARKETLENS_SPORTSWEAR_ORIGIN: nike.origin, MARKETLENS_STALE_IF_ERROR: '0' });
  });
  afterAll(async () => {
    await app.close();
    await nike.stop();
  });
  beforeEach(() => nike.reset());

  // no-cache: every test fetches live, so the requests the fake saw are this test's own.
  const get = (query: Record<string, string>, path = ROUTE) =>
    app.inject({ method: 'GET', url: path, query, headers: { ...auth, 'cache-control': 'no-cache' } });

  describe('product page URL forms', () => {
    it('US URL → the §2.7 record; the page is fetched at its path with an en-US Accept-Language', async () => {
      nike.serve(US_PATH, US_PAGE);
      const res = await get({ query: `https://www.nike.com${US_PATH}` });
      expect(res.statusCode).toBe(200);
      const record = productSchema.strict().parse(JSON.parse(res.body));
      expect(record).toMatchObject({ style_color: 'DD1391-100', group_label: "Men's", prices: { currency: 'USD' } });
      expect(record.product_info.title).toBe('Nike Dunk Low Retro');
      expect(nike.requests).toHaveLength(1);
      expect(nike.requests[0]).toMatchObject({ method: 'GET', url: US_PATH });
      expect(nike.requests[0]!.headers['accept-language']).toBe('en-US,en;q=0.9');
      expect(nike.requests[0]!.headers.accept).toMatch(/^text\/html/);
    });

    it('French storefront URL → French text; fetched under /fr/ with fr-FR', async () => {
      nike.serve(FR_PATH, FR_PAGE);
      const res = await get({ query: `https://www.nike.com${FR_PATH}` });
      expect(res.statusCode).toBe(200);
      const record = productSchema.strict().parse(JSON.parse(res.body));
      expect(record.product_info).toMatchObject({ subtitle: 'Chaussure pour homme', color_description: 'Blanc/Blanc' });
      expect(record.prices).toMatchObject({ currency: 'EUR', current_price: 119.99 });
      expect(nike.requests[0]!.url).toBe(FR_PATH);
      expect(nike.requests[0]!.headers['accept-language']).toBe('fr-FR,fr;q=0.9');
    });

    it.each([
      // [query as the user pastes it, path requested upstream, Accept-Language]
      [
        'https://www.nike.com/gb/t/dunk-low-retro-mens-shoes-76KnBL/DD1391-100',
        '/gb/t/dunk-low-retro-mens-shoes-76KnBL/DD1391-100',
        'en-GB,en;q=0.9',
      ],
      [
        'https://www.nike.com/ca/fr/t/dunk-low-retro-76KnBL/DD1391-100',
        '/ca/fr/t/dunk-low-retro-76KnBL/DD1391-100',
        'fr-CA,fr;q=0.9',
      ],
      ['nike.com/t/dunk-low-retro-mens-shoes-76KnBL/dd1391-100/?vst=dunk#reviews', US_PATH, 'en-US,en;q=0.9'],
      ['https://www.nike.com/kr/t/-/-/DD1391-100', '/kr/t/-/-/DD1391-100', 'ko-KR,ko;q=0.9'],
    ])('%s → GET %s', async (query, path, language) => {
      nike.serve(path, US_PAGE);
      const res = await get({ query });
      expect(res.statusCode).toBe(200);
      expect(JSON.parse(res.body).style_color).toBe('DD1391-100');
      expect(nike.requests.map((r) => r.url)).toEqual([path]);
      expect(nike.requests[0]!.headers['accept-language']).toBe(language);
    });

    it('serves the same record under the alias path /api/v1/scraper/nike/product', async () => {
      nike.serve(FR_PATH, FR_PAGE);
      const canonical = await get({ query: `https://www.nike.com${FR_PATH}` });
      const alias = await get({ query: `https://www.nike.com${FR_PATH}` }, ALIAS);
      expect(alias.statusCode).toBe(200);
      expect(JSON.parse(alias.body)).toEqual(JSON.parse(canonical.body));
    });
  });

  describe('bare style-colour code + country', () => {
    it("defaults to US: GET /t/-/{code}, following Nike's redirect to the product page", async () => {
      nike.on('/t/-/DD1391-100', (_req, res) => {
        res.writeHead(301, { location: US_PATH }).end();
      });
      nike.serve(US_PATH, US_PAGE);
      const res = await get({ query: 'DD1391-100' });
      expect(res.statusCode).toBe(200);
      expect(JSON.parse(res.body).style_color).toBe('DD1391-100');
      expect(nike.requests.map((r) => r.url)).toEqual(['/t/-/DD1391-100', US_PATH]);
    });

    it('country=FR → GET /fr/t/-/{code} in French', async () => {
      nike.serve('/fr/t/-/CW2288-111', FR_PAGE);
      const res = await get({ query: 'cw2288-111', country: 'fr' });
      expect(res.statusCode).toBe(200);
      expect(JSON.parse(res.body).product_info.subtitle).toBe('Chaussure pour homme');
      expect(nike.requests.map((r) => r.url)).toEqual(['/fr/t/-/CW2288-111']);
      expect(nike.requests[0]!.headers['accept-language']).toBe('fr-FR,fr;q=0.9');
    });

    it("country=UK is Nike's gb storefront", async () => {
      nike.serve('/gb/t/-/DD1391-100', US_PAGE);
      const res = await get({ query: 'DD1391-100', country: 'UK' });
      expect(res.statusCode).toBe(200);
      expect(nike.requests.map((r) => r.url)).toEqual(['/gb/t/-/DD1391-100']);
    });
  });

  it('is documented in /openapi.json with the §2.7 record schema', async () => {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = JSON.parse(res.body);
    const op = doc.paths[ROUTE].get;
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['query', 'country']));
    // The alias is its own operation (issue 29: generated clients call Retailed paths), with the same parameters.
    expect(doc.paths[ALIAS].get).toMatchObject({ operationId: 'nikeProduct', tags: ['Retailed aliases'] });
    expect(doc.paths[ALIAS].get.parameters).toEqual(op.parameters);
    const schemas = JSON.stringify(doc.components?.schemas ?? doc);
    for (const id of ['SportswearProduct', 'SportswearSize', 'SportswearPrices', 'SportswearProductInfo'])
      expect(schemas).toContain(id);
  });

  describe('bad input → 400 naming the parameter, nothing fetched', () => {
    it.each([
      [{ query: 'https://www.goat.com/sneakers/dunk-low-DD1391-100' }, 'query', /not a Nike host/],
      [{ query: 'https://www.nike.com.evil.example/t/x/DD1391-100' }, 'query', /not a Nike host/],
      [{ query: 'https://www.nike.com/w/mens-shoes-nik1zy7ok' }, 'query', /not a Nike product page URL/],
      [{ query: 'DD1391' }, 'query', /style-colour code/],
      [{ query: 'DD1391-100', country: 'XX' }, 'country', /ISO 3166-1/],
      [{ query: `https://www.nike.com${FR_PATH}`, country: 'DE' }, 'country', /FR storefront/],
      [{ query: 'DD1391-100', colour: 'white' }, 'colour', /unknown parameter/],
      [{}, 'query', /required/],
    ])('%j', async (query, param, message) => {
      const res = await get(query);
      const body = expectProblem(res, 400, 'invalid_parameter');
      expect(body.errors[0].param).toBe(param);
      expect(body.errors[0].message).toMatch(message);
      expect(nike.count()).toBe(0);
    });
  });

  describe('not found', () => {
    it('the product page answers 404 → 404 not_found', async () => {
      const res = await get({ query: 'https://www.nike.com/t/gone-AbCdEf/DD1391-999' });
      expectProblem(res, 404, 'not_found');
      expect(nike.requests.map((r) => r.url)).toEqual(['/t/gone-AbCdEf/DD1391-999']);
    });

    it('the page does not list the requested colourway → 404', async () => {
      nike.serve('/t/dunk-low-retro-mens-shoes-76KnBL/DD1391-999', US_PAGE);
      const body = expectProblem(
        await get({ query: 'https://www.nike.com/t/dunk-low-retro-mens-shoes-76KnBL/DD1391-999' }),
        404,
        'not_found',
      );
      expect(body.detail).toContain('DD1391-999');
    });

    it('a bare code Nike redirects to a non-product page → 404', async () => {
      nike.on('/t/-/DD1391-999', (_req, res) => {
        res.writeHead(302, { location: '/w/mens-shoes' }).end();
      });
      nike.serve('/w/mens-shoes', '<html><body>shoes</body></html>');
      expectProblem(await get({ query: 'DD1391-999' }), 404, 'not_found');
      expect(nike.requests.map((r) => r.url)).toEqual(['/t/-/DD1391-999', '/w/mens-shoes']);
    });
  });

  describe('upstream changed', () => {
    it('a product page without __NEXT_DATA__ → 502 upstream_changed', async () => {
      nike.serve(
        '/t/no-next-data-AbCdEf/DD1391-100',
        '<!DOCTYPE html><html><body><div id="root">Nike Dunk Low Retro</div></body></html>',
      );
      expectProblem(
        await get({ query: 'https://www.nike.com/t/no-next-data-AbCdEf/DD1391-100' }),
        502,
        'upstream_changed',
      );
    });

    it('__NEXT_DATA__ without the product JSON → 502 upstream_changed', async () => {
      nike.serve(
        '/t/no-product-json-AbCdEf/DD1391-100',
        '<script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"marketPlace":"US"}}}</script>',
      );
      expectProblem(
        await get({ query: 'https://www.nike.com/t/no-product-json-AbCdEf/DD1391-100' }),
        502,
        'upstream_changed',
      );
    });

    it('a 5xx answer → 502 upstream_error', async () => {
      nike.serve('/t/server-error-AbCdEf/DD1391-100', 'oops', { status: 503 });
      expectProblem(
        await get({ query: 'https://www.nike.com/t/server-error-AbCdEf/DD1391-100' }),
        502,
        'upstream_error',
      );
    });
  });
});

/**
 * Issue 19: when Akamai blocks the product page, the record comes from product_feed/threads/v3, filtered by
 * style-colour, marketplace and language, served here from the real 2026 GB answer.
 */
describe.skipIf(!sharedAvailable)('blocked product page → product_feed/threads/v3 fallback', () => {
  const nike = new FakeUpstream();
  let app: FastifyInstance;
  const AKAMAI = readFixture('electronics/akamai-access-denied.html');
  const FEED_PATH = '/product_feed/threads/v3/';
  const GB_FEED = sharedAvailable ? readCapture('nike/product-feed-threads-v3_gb_2026-04-17.json') : '{}';
  const PAGE = '/gb/t/air-max-90-shoes-mVZDxTlZ/IU0767-001';
  const get = (query: Record<string, string>) =>
    app.inject({ method: 'GET', url: ROUTE, query, headers: { ...auth, 'cache-control': 'no-cache' } });

  beforeAll(async () => {
    await nike.start();
    // Blocks are retried: no backoff, and no breaker opening between tests.
    app = await testApp({
      MARKETLENS_SPORTSWEAR_ORIGIN: nike.origin,
      MARKETLENS_BREAKER_THRESHOLD: '10000',
      MARKETLENS_RETRY_BASE_MS: '0',
    });
  });
  afterAll(async () => {
    await app.close();
    await nike.stop();
  });
  beforeEach(() => {
    nike.reset();
    nike.serve(PAGE, AKAMAI, { status: 403 });
  });

  it('serves the fields the feed carries, the rest null, and X-Missing-Parts names them', async () => {
    nike.serve(FEED_PATH, GB_FEED, { type: 'application/json' });
    const res = await get({ query: `https://www.nike.com${PAGE}` });
    expect(res.statusCode, res.body).toBe(200);
    const record = productSchema.strict().parse(JSON.parse(res.body));
    expect(record).toMatchObject({
      id: '7e267f9c-b662-58f4-b838-a39234f66ac2',
      style_color: 'IU0767-001',
      style_code: 'IU0767',
      color_code: '001',
      brands: ['Nike'],
      sport_tags: ['Lifestyle'],
      prices: { currency: 'GBP', current_price: 134.99, initial_price: 134.99, employee_price: null },
      badge: null,
      pdp_url: null,
      enhanced_pdp: null,
    });
    expect(record.product_info).toMatchObject({
      title: 'Air Max 90',
      subtitle: "Men's shoes",
      full_title: "Air Max 90 Men's Shoes",
      product_type: 'FOOTWEAR',
      status_modifier: null,
    });
    expect(record.sizes[0]).toMatchObject({
      label: '6',
      localized_label: '5.5',
      localized_label_prefix: 'UK',
      gtins: [{ gtin: '00198958662033' }],
    });
    const missing = String(res.headers['x-missing-parts']).split(',');
    expect(missing).toEqual(
      expect.arrayContaining(['badge', 'pdp_url', 'enhanced_pdp', 'sizes.status', 'product_info.status_modifier']),
    );
    expect(missing).not.toContain('product_info.title');

    // The feed request: filtered by marketplace, language, nike.com's channel and the style-colour.
    const feedReq = nike.requests.find((r) => r.path === FEED_PATH)!;
    expect(feedReq.query.getAll('filter')).toEqual([
      'marketplace(GB)',
      'language(en-GB)',
      'channelId(d9a5bc42-4b9c-4976-858a-f159cf99c647)',
      'productInfo.merchProduct.styleColor(IU0767-001)',
    ]);
    expect(nike.count(PAGE)).toBeGreaterThanOrEqual(1);
  });

  it("a feed without the colourway, or a failing feed, leaves the page's block as the answer (503 upstream_blocked)", async () => {
    nike.serve(FEED_PATH, GB_FEED, { type: 'application/json' });
    nike.serve('/gb/t/air-max-90-shoes-mVZDxTlZ/IU0767-999', AKAMAI, { status: 403 });
    expectProblem(
      await get({ query: 'https://www.nike.com/gb/t/air-max-90-shoes-mVZDxTlZ/IU0767-999' }),
      503,
      'upstream_blocked',
    );
    // A colourway never answered before (a cached record would be served stale-if-error, CONTRACT §3).
    nike.serve('/gb/t/x-AbCdEf/HM8517-100', AKAMAI, { status: 403 });
    nike.serve(FEED_PATH, AKAMAI, { status: 403 });
    expectProblem(await get({ query: 'https://www.nike.com/gb/t/x-AbCdEf/HM8517-100' }), 503, 'upstream_blocked');
    expect(nike.count(FEED_PATH)).toBeGreaterThanOrEqual(2);
  });

  it('a page that answers is used as before: no feed request, no X-Missing-Parts', async () => {
    nike.serve(FR_PATH, FR_PAGE);
    const res = await get({ query: `https://www.nike.com${FR_PATH}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-missing-parts']).toBeUndefined();
    expect(nike.count(FEED_PATH)).toBe(0);
  });
});
