/**
 * Issue 29: real Retailed clients validate every answer with their own schemas. Each client's exact request (its
 * headers and parameters) is replayed against the service and fake marketplaces serving fixtures, and the answer is
 * validated with a schema stating the same requirements the client's own code states:
 * - the Retailed plugin of an integrations framework (TypeScript, zod): StockX search hits, trends hits and the product
 *   need `id`, `productId` and `name` strings, `url`/`domain` optional strings (never null), `price` a number or null;
 *   `products.search` (the db API) needs the same of every doc; it sends `language: "en"` to the product;
 * - two Chrono24 clients: one always sends `pageSize` (camelCase), the other `limit=10`.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TEST_KEY, testApp } from './support/app.js';
import { startFixtureMarketplaces, type FixtureMarketplaces } from './support/fixture-marketplaces.js';

/** The plugin's product schema (its `schema/database.ts`), used for StockX answers and db docs alike. */
const pluginProduct = z.looseObject({
  id: z.string(),
  productId: z.string(),
  name: z.string(),
  url: z.string().optional(),
  domain: z.string().optional(),
  price: z.number().nullable().optional(),
});
const pluginSearchProducts = z.object({
  docs: z.array(pluginProduct),
  totalDocs: z.number(),
  limit: z.number(),
  totalPages: z.number(),
  page: z.number(),
  hasPrevPage: z.boolean(),
  hasNextPage: z.boolean(),
  prevPage: z.number().nullable(),
  nextPage: z.number().nullable(),
});
/** What both Chrono24 clients read of a search answer. */
const watchSearch = z.looseObject({
  results: z.array(z.looseObject({ id: z.string(), url: z.string(), title: z.string() })),
  pagination: z.looseObject({ current: z.number() }),
});

/** The plugin sends a JSON content type on every GET, and its key. */
const PLUGIN_HEADERS = { accept: 'application/json', 'content-type': 'application/json', 'x-api-key': TEST_KEY };

describe('Retailed clients validate our answers with their own schemas', () => {
  let marketplaces: FixtureMarketplaces;
  let app: FastifyInstance;
  let origin: string;
  const get = async (path: string, query: Record<string, string | number> = {}) => {
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
    const res = await fetch(`${origin}${path}${qs ? `?${qs}` : ''}`, { headers: PLUGIN_HEADERS });
    return { status: res.status, headers: res.headers, body: await res.json() };
  };

  beforeAll(async () => {
    marketplaces = await startFixtureMarketplaces();
    app = await testApp(marketplaces.env);
    await app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
    await marketplaces.stop();
  });

  describe('the integrations-framework plugin', () => {
    it('stockx.search: every hit has a productId (StockX product UUID beside id)', async () => {
      const res = await get('/api/v1/scraper/stockx/search', { query: 'yeezy' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const hits = z.array(pluginProduct).parse(res.body);
      expect(hits.length).toBeGreaterThan(0);
      for (const h of hits) expect(h.productId).toBe(h.id);
    });

    it('stockx.trends: every hit has a productId', async () => {
      const res = await get('/api/v1/scraper/stockx/trends', { query: 'yeezy', sort_by: 'most_active', country: 'US' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(z.array(pluginProduct).parse(res.body).length).toBeGreaterThan(0);
    });

    it('stockx.product with language "en": 200, the product has a productId, and en is read as en-US', async () => {
      const fake = marketplaces.fakes['resale-a'];
      fake.requests.length = 0; // the log only (reset() would drop the handlers)
      const slug = 'marketlens-runner-1-harbor-blue';
      const res = await get('/api/v1/scraper/stockx/product', { query: slug, country: 'US', language: 'en' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const product = pluginProduct.parse(res.body);
      expect(product.productId).toBe(product.id);
      // en in the US is StockX's unprefixed en-US page, asked with accept-language en-US.
      const page = fake.requests.find((r) => r.method === 'GET' && r.path.endsWith(slug));
      expect(page?.path).toBe(`/${slug}`);
      expect(page?.headers['accept-language']).toMatch(/^en-US/);
      // Completed the way StockX does for the country: fr in France is fr-FR, en in Britain en-GB.
      fake.requests.length = 0; // the log only (reset() would drop the handlers)
      expect((await get('/api/v1/scraper/stockx/product', { query: slug, country: 'FR', language: 'fr' })).status).toBe(
        200,
      );
      expect(fake.requests.find((r) => r.method === 'GET' && r.path.endsWith(slug))?.path).toBe(`/fr-fr/${slug}`);
      fake.requests.length = 0; // the log only (reset() would drop the handlers)
      expect((await get('/api/v1/scraper/stockx/product', { query: slug, country: 'GB', language: 'en' })).status).toBe(
        200,
      );
      expect(fake.requests.find((r) => r.method === 'GET' && r.path.endsWith(slug))?.path).toBe(`/en-gb/${slug}`);
    });

    it('a language StockX does not serve is still a 400 naming language', async () => {
      const res = await get('/api/v1/scraper/stockx/product', { query: 'x-y', language: 'xx' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errors: [{ param: 'language' }] });
    });

    it("products.search (db API): docs of every marketplace have name and url strings (Best Buy's name, Nike's url)", async () => {
      // Lookups the history records: Best Buy by SKU, Nike by bare style-colour, a StockX product, a Chrono24 search.
      for (const [path, query] of [
        ['/api/v1/scraper/bestbuy/product', { query: '6500001' }],
        ['/api/v1/scraper/nike/product', { query: 'DD1391-100' }],
        ['/api/v1/scraper/stockx/product', { query: 'marketlens-runner-1-harbor-blue' }],
        ['/api/v1/scraper/chrono24/search', { query: 'rolex' }],
      ] as const) {
        const res = await get(path, query);
        expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
      }
      await app.history.recorder.flush();
      // The plugin's exact requests: by name, by sku, and a page of everything.
      const byName = await get('/api/v1/db/products', {
        'where[or][0][and][0][name][equals]': 'ExampleBrand - 65" Class QLED 4K TV',
      });
      expect(byName.status, JSON.stringify(byName.body)).toBe(200);
      const bestbuy = pluginSearchProducts.parse(byName.body).docs;
      expect(bestbuy).toHaveLength(1);
      expect(bestbuy[0]).toMatchObject({ marketplace: 'electronics', productId: '6500001', domain: 'bestbuy.com' });
      expect(bestbuy[0]!.url).toMatch(/^https:\/\/www\.bestbuy\.com\/.*6500001/);
      const bySku = await get('/api/v1/db/products', { 'where[or][0][and][0][sku][equals]': 'DD1391-100' });
      const nike = pluginSearchProducts.parse(bySku.body).docs;
      expect(nike).toHaveLength(1);
      expect(nike[0]!.url).toMatch(/^https:\/\/www\.nike\.com\/.*DD1391-100$/);
      // Every page, as the plugin pages through them (10 docs a page).
      const docs: z.output<typeof pluginProduct>[] = [];
      for (let page: number | null = 1; page !== null;) {
        const res = await get('/api/v1/db/products', { page, sort: '-createdAt' });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const envelope = pluginSearchProducts.parse(res.body);
        docs.push(...envelope.docs);
        page = envelope.nextPage;
      }
      expect(new Set(docs.map((d) => d.marketplace))).toEqual(
        new Set(['electronics', 'sportswear', 'resale-a', 'watchmarket']),
      );
      // Unknown values are left out, never null (the plugin's url and domain are optional strings).
      for (const d of docs)
        for (const [k, v] of Object.entries(d)) if (v === null) expect(k).toMatch(/^(price|currency|errorCrawling)$/);
    });
  });

  describe('Chrono24 clients', () => {
    it('pageSize (camelCase) is page_size: the same answer, sent upstream as pageSize', async () => {
      const fake = marketplaces.fakes.watchmarket;
      fake.requests.length = 0; // the log only (reset() would drop the handlers)
      const camel = await get('/api/v1/scraper/chrono24/search', {
        query: 'rolex submariner',
        page: 1,
        pageSize: 30,
        currency: 'USD',
        language: 'en_US',
        domain: 'com',
      });
      expect(camel.status, JSON.stringify(camel.body)).toBe(200);
      watchSearch.parse(camel.body);
      expect(fake.requests.at(-1)?.query.get('pageSize')).toBe('30');
      const snake = await get('/api/v1/scraper/chrono24/search', {
        query: 'rolex submariner',
        page: 1,
        page_size: 30,
        currency: 'USD',
        language: 'en_US',
        domain: 'com',
      });
      expect(snake.headers.get('x-cache')).toBe('hit');
      expect(snake.body).toEqual(camel.body);
    });

    it('pageSize and page_size that disagree are a 400 naming pageSize', async () => {
      const res = await get('/api/v1/scraper/chrono24/search', { query: 'rolex', pageSize: 30, page_size: 60 });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errors: [{ param: 'pageSize' }] });
    });

    it('limit=10: at most 10 results, from the smallest page size holding them (30)', async () => {
      const fake = marketplaces.fakes.watchmarket;
      fake.requests.length = 0; // the log only (reset() would drop the handlers)
      const res = await get('/api/v1/scraper/chrono24/search', { query: 'omega', limit: 3 });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const answer = watchSearch.parse(res.body);
      expect(answer.results).toHaveLength(3);
      expect(fake.requests.at(-1)?.query.get('pageSize')).toBe('30');
      const ten = watchSearch.parse((await get('/api/v1/scraper/chrono24/search', { query: 'rolex', limit: 10 })).body);
      expect(ten.results.length).toBeLessThanOrEqual(10);
      expect(ten.results.length).toBeGreaterThan(0);
    });

    it.each([['0'], ['121'], ['ten'], ['2.5']])('limit=%s is a 400 naming limit', async (limit) => {
      const res = await get('/api/v1/scraper/chrono24/search', { query: 'rolex', limit });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errors: [{ param: 'limit' }] });
    });

    it('a limit over an explicit page size is a 400 naming limit', async () => {
      const res = await get('/api/v1/scraper/chrono24/search', { query: 'rolex', limit: 60, page_size: 30 });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errors: [{ param: 'limit' }] });
    });
  });
});
