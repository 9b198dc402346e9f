/**
 * GET /api/v1/products/{sku}: one SKU across fake StockX, GOAT and Nike serving the real captures' structures
 * (test/support/product-upstreams.ts). Each marketplace's values are compared with its own lookup's answer in the
 * same test, never with numbers written here.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PriceEntry } from '../src/marketplaces/resale-b/schema.js';
import type { Product as StockxProduct } from '../src/marketplaces/resale-a/schema.js';
import type { SportswearProduct } from '../src/marketplaces/sportswear/schema.js';
import type { ProductAnswer, ProductOffer, ProductSize } from '../src/products/types.js';
import { auth, testApp } from './support/app.js';
import { expectProblem } from './support/problem.js';
import {
  GOAT_ID,
  GOAT_SEARCH,
  SKU,
  STOCKX_SLUG,
  startProductUpstreams,
  type ProductUpstreams,
} from './support/product-upstreams.js';

const live = { ...auth, 'cache-control': 'no-cache' };
const PRODUCT = `/api/v1/products/${SKU}`;

describe('GET /api/v1/products/{sku}', () => {
  let up: ProductUpstreams;
  let app: FastifyInstance;

  beforeAll(async () => {
    up = await startProductUpstreams();
    // No stale answers: a marketplace that fails must show as failed, not as its last good answer.
    app = await testApp({ ...up.env, MARKETLENS_STALE_IF_ERROR: '0' });
  });
  afterAll(async () => {
    await app.close();
    await up.stop();
  });
  beforeEach(() => {
    up.gate = async () => {};
    up.serveProduct();
  });

  async function lookup<T>(path: string): Promise<T> {
    const res = await app.inject({ url: path, headers: auth });
    expect(res.statusCode, res.body).toBe(200);
    return JSON.parse(res.body) as T;
  }
  async function product(url = PRODUCT, headers: Record<string, string> = live) {
    const res = await app.inject({ url, headers });
    return { res, body: JSON.parse(res.body) as ProductAnswer };
  }
  const row = (a: ProductAnswer, system: ProductSize['size_system'], size: string) =>
    a.sizes.find((s) => s.size_system === system && s.size === size);
  const offersOf = (r: ProductSize | undefined, marketplace: ProductOffer['marketplace']) =>
    (r?.offers ?? []).filter((o) => o.marketplace === marketplace);

  it("holds each marketplace's values exactly as its own lookup returns them", async () => {
    const { res, body } = await product();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-missing-parts']).toBeUndefined();
    expect(body).toMatchObject({ sku: SKU, country: 'US', currency: 'USD' });
    expect(body.marketplaces.map((m) => [m.marketplace, m.status, m.currency])).toEqual([
      ['resale-a', 'found', 'USD'],
      ['resale-b', 'found', 'USD'],
      ['sportswear', 'found', 'USD'],
    ]);

    const stockx = await lookup<StockxProduct>(
      `/api/v1/scraper/resale-a/product?query=${STOCKX_SLUG}&country=US&currency=USD`,
    );
    expect(body.marketplaces[0]).toMatchObject({ id: stockx.id, slug: stockx.slug });
    for (const v of stockx.variants) {
      const r = row(body, 'us_men', v.traits.size!);
      const stated = [
        ['lowest_ask', v.market?.bids.lowest_ask],
        ['highest_bid', v.market?.bids.highest_bid],
        ['last_sale', v.market?.sales.last_sale],
      ].filter(([, amount]) => amount !== null && amount !== undefined);
      expect(offersOf(r, 'resale-a').map((o) => [o.kind, o.amount])).toEqual(stated);
      expect(offersOf(r, 'resale-a').every((o) => o.currency === 'USD' && o.condition === 'new')).toBe(true);
    }

    const goat = await lookup<PriceEntry[]>(`/api/v1/scraper/resale-b/prices?query=${GOAT_ID}&country=US`);
    expect(body.marketplaces[1]!.id).toBe(String(GOAT_ID));
    for (const entry of goat) {
      const label = entry.sizeOption.presentation;
      const r = /W$/.test(label)
        ? row(body, 'us_women', label.slice(0, -1))
        : /Y$/.test(label)
          ? row(body, 'us_kids', label)
          : row(body, 'us_men', label);
      expect(r, label).toBeDefined();
      const goatOffers = offersOf(r, 'resale-b');
      for (const [kind, money] of [
        ['lowest_price', entry.lowestPriceCents],
        ['instant_ship_lowest_price', entry.instantShipLowestPriceCents],
        ['last_sale', entry.lastSoldPriceCents],
      ] as const) {
        const found = goatOffers.find((o) => o.kind === kind && o.condition?.startsWith(entry.shoeCondition));
        // GOAT leaves `amount` out (or says 0 for "never sold") where there is no price: no offer then.
        if (!money.amount) expect(found, `${label} ${kind}`).toBeUndefined();
        else expect(found, `${label} ${kind}`).toMatchObject({ amount: money.amount / 100, currency: money.currency });
      }
    }

    const nike = await lookup<SportswearProduct>(`/api/v1/scraper/sportswear/product?query=${SKU}&country=US`);
    for (const size of nike.sizes) {
      const gtin = size.gtins![0]!.gtin;
      const r = body.sizes.find((s) => s.gtins.includes(gtin));
      expect(r, size.label).toMatchObject({ size: size.label, size_system: 'us_men' });
      expect(offersOf(r, 'sportswear')).toEqual([
        expect.objectContaining({
          kind: 'retail',
          amount: nike.prices!.current_price,
          currency: nike.prices!.currency,
        }),
      ]);
    }
    expect(body.product.retail_price).toEqual({ amount: nike.prices!.initial_price, currency: 'USD' });
    expect(body.product.name).toBe(stockx.name);

    // The same answer without HTTP, for in-process callers.
    const direct = await app.products.answer('dd1391 100', { country: 'us' });
    expect(direct.answer).toEqual(body);
  });

  it('joins sizes by a shared GTIN where two sides state one, else by size label; best buy and sell per size', async () => {
    const { body } = await product();
    const eight = row(body, 'us_men', '8')!;
    expect(eight.matched_by).toBe('gtin');
    expect(new Set(eight.offers.map((o) => o.marketplace))).toEqual(new Set(['resale-a', 'resale-b', 'sportswear']));
    // StockX prints the barcode as UPC-12, Nike as GTIN-14: one GTIN.
    expect(eight.gtins).toEqual(['00195869247536']);
    const nine = row(body, 'us_men', '9')!;
    expect(nine.matched_by).toBe('size');
    expect(new Set(nine.offers.map((o) => o.marketplace))).toEqual(new Set(['resale-a', 'resale-b']));
    expect(row(body, 'us_men', '7')!.matched_by).toBeNull();
    for (const r of body.sizes) {
      const buys = r.offers.filter(
        (o) =>
          ['lowest_ask', 'lowest_price', 'instant_ship_lowest_price', 'retail'].includes(o.kind) &&
          o.in_stock !== false &&
          !/used|with_defects/.test(o.condition ?? ''),
      );
      const bids = r.offers.filter((o) => o.kind === 'highest_bid');
      expect(r.best_buy?.amount ?? null, r.size).toBe(buys.length ? Math.min(...buys.map((o) => o.amount)) : null);
      expect(r.best_sell?.amount ?? null, r.size).toBe(bids.length ? Math.max(...bids.map((o) => o.amount)) : null);
    }
  });

  it("never puts a women's or GS size on a men's row", async () => {
    const { body } = await product();
    expect(offersOf(row(body, 'us_women', '11.5'), 'resale-b')).not.toEqual([]);
    expect(offersOf(row(body, 'us_kids', '7Y'), 'resale-b')).not.toEqual([]);
    // StockX states men's 10 as US W 11.5 too: it stays on the men's row, alone with nobody's women's offers.
    expect(offersOf(row(body, 'us_men', '10'), 'resale-a')).not.toEqual([]);
    expect(offersOf(row(body, 'us_women', '11.5'), 'resale-a')).toEqual([]);
    expect(row(body, 'us_men', '11.5')).toBeUndefined();
    expect(offersOf(row(body, 'us_men', '7'), 'resale-b')).toEqual([]);
    // Rows are grouped by system: men's, then women's, then kids'.
    const systems = body.sizes.map((s) => s.size_system);
    expect(systems).toEqual(
      [...systems].sort(
        (a, b) =>
          ['us_men', 'us_women', 'us_kids', 'other'].indexOf(a) - ['us_men', 'us_women', 'us_kids', 'other'].indexOf(b),
      ),
    );
  });

  it("asks each marketplace's first request before any answers: the three run in parallel", async () => {
    const arrived = new Set<string>();
    let release!: () => void;
    const all = new Promise<void>((resolve) => (release = resolve));
    // Each request waits here until StockX, GOAT and Nike have each received one: sequential marketplaces never get there.
    up.gate = async (marketplace) => {
      arrived.add(marketplace);
      if (arrived.size === 3) release();
      await all;
    };
    const { res, body } = await product();
    expect(res.statusCode, res.body).toBe(200);
    expect(body.marketplaces.map((m) => m.status)).toEqual(['found', 'found', 'found']);
  });

  it('a warm answer makes no upstream request', async () => {
    const cold = await product();
    expect(cold.res.headers['x-cache']).toBe('miss');
    const before = up.count();
    const warm = await product(PRODUCT, auth);
    expect(warm.res.statusCode).toBe(200);
    expect(up.count()).toBe(before);
    expect(warm.res.headers['x-cache']).toBe('hit');
    expect(warm.body).toEqual(cold.body);
  });

  it('one marketplace down → 200 with the others, the failed one named in X-Missing-Parts and the body', async () => {
    up.nike.otherwise((_req, res) => void res.writeHead(500, { 'content-type': 'text/plain' }).end('down'));
    const { res, body } = await product();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-missing-parts']).toBe('sportswear');
    expect(body.marketplaces[2]).toMatchObject({
      marketplace: 'sportswear',
      status: 'error',
      error: { code: 'upstream_error' },
    });
    expect(body.sizes.flatMap((s) => s.offers).some((o) => o.marketplace === 'sportswear')).toBe(false);
    expect(body.marketplaces.slice(0, 2).map((m) => m.status)).toEqual(['found', 'found']);
  });

  it("a lookup's missing part is named too (StockX without its market data: the catalog, no StockX prices)", async () => {
    up.serveProduct({ stockxMarketDown: true });
    const { res, body } = await product();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-missing-parts']).toBe('resale-a.market');
    expect(body.marketplaces[0]!.status).toBe('found');
    expect(body.sizes.flatMap((s) => s.offers).some((o) => o.marketplace === 'resale-a')).toBe(false);
    expect(row(body, 'us_men', '9')!.offers.map((o) => o.marketplace)).toEqual(['resale-b', 'resale-b', 'resale-b']);
  });

  it('an unknown SKU → 404 not_found; nothing found with a marketplace failing → that failure', async () => {
    expectProblem((await product('/api/v1/products/ZZ9999-999')).res, 404, 'not_found');
    // (another SKU: which product a SKU names is cached, so GOAT's search for the first one is not asked again)
    up.goat.on(GOAT_SEARCH, (_req, res) => void res.writeHead(500).end('down'));
    up.goat.on('/search/ZZ9999-998', (_req, res) => void res.writeHead(500).end('down'));
    const failed = expectProblem((await product('/api/v1/products/ZZ9999-998')).res, 502, 'upstream_error');
    expect(failed.detail).toMatch(/resale-a: not found; resale-b: upstream_error .*; sportswear: not found/);
  });

  it('a bad SKU, country or currency → 400 naming the parameter, before any upstream request', async () => {
    for (const [url, param] of [
      ['/api/v1/products/DD1391-100?country=ZZ', 'country'],
      ['/api/v1/products/DD1391-100?currency=XYZ', 'currency'],
      ['/api/v1/products/DD1391-100?colour=red', 'colour'],
      [`/api/v1/products/${encodeURIComponent('DD1391<100>')}`, 'sku'],
    ] as const) {
      const problem = expectProblem((await product(url)).res, 400, 'invalid_parameter');
      expect(
        problem.errors.map((e: { param: string }) => e.param),
        url,
      ).toEqual([param]);
    }
    expect(up.count()).toBe(0);
  });

  it('prices in the currency each marketplace was asked for; best buy/sell compare only the requested one', async () => {
    const { res, body } = await product(`${PRODUCT}?country=US&currency=EUR`);
    expect(res.statusCode, res.body).toBe(200);
    expect(body.currency).toBe('EUR');
    expect(body.marketplaces.map((m) => m.currency)).toEqual(['EUR', 'USD', 'USD']);
    for (const r of body.sizes) {
      for (const o of r.offers) expect(o.currency).toBe(o.marketplace === 'resale-a' ? 'EUR' : 'USD');
      if (r.best_buy) expect(r.best_buy.currency).toBe('EUR');
      if (r.best_sell) expect(r.best_sell.currency).toBe('EUR');
    }
  });

  it('is documented in OpenAPI under its own tag, with its parameters, answer schema, example and cost', async () => {
    interface Doc {
      paths: Record<
        string,
        {
          get: {
            tags: string[];
            parameters: { name: string; in: string }[];
            description: string;
            responses: Record<string, { content: Record<string, { schema: { $ref?: string } }> }>;
          };
        }
      >;
      components: { schemas: Record<string, { examples?: unknown[] }> };
      tags: { name: string }[];
    }
    const doc = (await app.inject({ url: '/openapi.json' })).json<Doc>();
    const op = doc.paths['/api/v1/products/{sku}']!.get;
    expect(op.tags).toEqual(['Products']);
    expect(doc.tags.map((t) => t.name)).toContain('Products');
    expect(op.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(
      expect.arrayContaining(['path:sku', 'query:country', 'query:currency', 'query:max_age']),
    );
    expect(op.description).toMatch(/Counts as 1 request/);
    expect(op.description).toMatch(/X-Missing-Parts/);
    expect(op.responses['200']!.content['application/json']!.schema.$ref).toBe('#/components/schemas/ProductAnswer');
    expect(op.responses['404']).toBeDefined();
    expect(doc.components.schemas.ProductAnswer!.examples).toHaveLength(1);
  });

  it("is keyed and counts as one request against the key's limits, whatever its sub-lookups", async () => {
    expectProblem(await app.inject({ url: PRODUCT }), 401, 'missing_api_key');
    const limited = await testApp({ ...up.env, MARKETLENS_RATE_LIMIT: '2/min' });
    try {
      const first = await limited.inject({ url: PRODUCT, headers: auth });
      expect(first.statusCode, first.body).toBe(200);
      expect(first.headers['ratelimit-remaining']).toBe('1');
      const usage = (await limited.inject({ url: '/api/v1/usage', headers: auth })).json<{ daily: { used: number } }>();
      expect(usage.daily.used).toBe(1);
      expect((await limited.inject({ url: PRODUCT, headers: auth })).statusCode).toBe(200);
      expectProblem(await limited.inject({ url: PRODUCT, headers: auth }), 429, 'rate_limited');
    } finally {
      await limited.close();
    }
  });
});
