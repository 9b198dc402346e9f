/**
 * Price history on SQLite and PostgreSQL: a live GOAT lookup against a fake GOAT serving the real capture produces
 * the product, variant and price rows it implies; the recorder stores StockX and Chrono24 results; the Retailed-style
 * db routes answer the envelope with every operator, or/and, sort, paging, CSV, and 400 for bad input.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PriceEntry } from '../../src/marketplaces/resale-b/schema.js';
import { OPERATORS } from '../../src/history/db-api/where.js';
import { auth, testApp } from '../support/app.js';
import { FakeUpstream } from '../support/fake-upstream.js';
import { liveResultFrom } from '../support/live-result.js';
import { expectProblem } from '../support/problem.js';
import { readCapture, sharedAvailable } from '../support/shared.js';
import { createTestDatabase, engineAvailable, ENGINES, type TestDatabase } from '../support/stores.js';

const BUY_BAR = 'goat/dewuapiparser_goat_1341930_buy_bar_data.json';
const HAT = 'stockx/scrapfly_nextdata_product_nike-x-stussy-bucket-hat-black_2023-05-29.json';
const C24 = 'chrono24/search-2026_rolex-submariner_excerpt-';
const C24_FILES = [
  'A_head-metaData-jsonld.html',
  'B_offset130000-178000_quickfilters-count-sorter-cards1-3.html',
  'C_offset604000-636000_cards59-60-pagination-pagesize.html',
];

/**
 * The fields of a db document these tests read. One shape for the three collections: each test reads only the
 * fields of the collection it asked for (prices: price, kind …; variants: gtins; products: productId).
 */
interface Doc {
  id: string;
  name: string;
  marketplace: string;
  productId: string;
  size: string;
  price: number;
  currency: string;
  kind: string;
  condition: string;
  inStock: boolean | null;
  gtins: string[];
  [k: string]: unknown;
}

describe.each(ENGINES)('price history on %s', (engine) => {
  const run = engineAvailable(engine) && sharedAvailable;
  const goat = new FakeUpstream();
  let db: TestDatabase;
  let app: FastifyInstance;
  const get = async (url: string, headers: Record<string, string> = {}) =>
    app.inject({ url, headers: { ...auth, ...headers } });
  const docs = async (url: string) => {
    const res = await get(url);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ docs: Doc[]; totalDocs: number; [k: string]: unknown }>();
  };

  beforeAll(async () => {
    if (!run) return;
    await goat.start();
    db = await createTestDatabase(engine);
    app = await testApp({ ...db.env, MARKETLENS_RESALE_B_ORIGIN: goat.origin });
    goat.serve('/', '<!DOCTYPE html><html><head><title>GOAT</title></head><body></body></html>');
    goat.serve('/web-api/v1/product_variants/buy_bar_data', readCapture(BUY_BAR), { type: 'application/json' });
    // One live GOAT lookup over HTTP, then a cache hit that must record nothing more.
    const live = await get('/api/v1/scraper/resale-b/prices?query=1341930&country=US');
    expect(live.statusCode, live.body).toBe(200);
    expect((await get('/api/v1/scraper/resale-b/prices?query=1341930&country=US')).headers['x-cache']).toBe('hit');
    // StockX and Chrono24 results as the seam emits them, from the real captures.
    const r = app.history.recorder;
    r.record(
      liveResultFrom('resale-a.product', [{ capture: HAT }], {
        params: { query: 'nike-x-stussy-bucket-hat-black', country: 'US' },
        identity: { id: 'nike-x-stussy-bucket-hat-black', country: 'US', currency: 'USD' },
      }),
    );
    r.record(
      liveResultFrom(
        'watchmarket.search',
        C24_FILES.map((f) => ({ capture: `${C24}${f}` })),
        { params: { query: 'rolex submariner', currency: 'USD' }, identity: { id: 'q', currency: 'USD' } },
      ),
    );
    await r.flush();
  });
  afterAll(async () => {
    if (!run) return;
    await app.close();
    await goat.stop();
    await db.drop();
  });

  it.skipIf(!run)(
    'the GOAT lookup recorded 18 USD price points over 9 entries, its sizes and its product',
    async () => {
      const raw = JSON.parse(readCapture(BUY_BAR)) as PriceEntry[];
      const p = await docs('/api/v1/db/prices?where[marketplace][equals]=resale-b&limit=100&sort=id');
      expect(p.totalDocs).toBe(18);
      expect(new Set(p.docs.map((d) => d.currency))).toEqual(new Set(['USD']));
      expect(new Set(p.docs.map((d) => `${d.size}|${d.condition}`)).size).toBe(9);
      const first = raw[0]!;
      expect(p.docs).toContainEqual(
        expect.objectContaining({
          name: 'goat-us',
          product: '1341930',
          size: first.sizeOption.presentation,
          price: first.lowestPriceCents.amount! / 100,
          kind: 'lowest_price',
          country: 'US',
          operation: 'resale-b.prices',
        }),
      );
      // Retailed's documented names are all there.
      for (const k of [
        'id',
        'name',
        'product',
        'size',
        'price',
        'createdAt',
        'updatedAt',
        'currency',
        'kind',
        'condition',
        'country',
        'observed_at',
      ])
        expect(p.docs[0]).toHaveProperty(k);
      const v = await docs('/api/v1/db/variants?where[product][equals]=1341930&limit=100');
      expect(v.docs.map((d) => d.size).sort()).toEqual([...new Set(raw.map((e) => e.sizeOption.presentation))].sort());
      const prod = await docs('/api/v1/db/products?where[productId][equals]=1341930');
      expect(prod.docs).toEqual([
        expect.objectContaining({
          marketplace: 'resale-b',
          domain: 'goat.com',
          isNotFound: false,
          errorCrawling: null,
        }),
      ]);
    },
  );

  it.skipIf(!run)(
    'StockX sizes with their asks/bids where present; Chrono24 listings as products with prices',
    async () => {
      const hat = JSON.parse(readCapture(HAT));
      void hat;
      const asks = await docs(
        '/api/v1/db/prices?where[marketplace][equals]=resale-a&where[kind][equals]=lowest_ask&where[size][exists]=true&limit=100',
      );
      expect(asks.totalDocs).toBeGreaterThan(0);
      expect(asks.docs.every((d) => d.name === 'stockx-us' && d.currency === 'USD' && d.price > 0)).toBe(true);
      const sv = await docs('/api/v1/db/variants?where[marketplace][equals]=resale-a');
      expect(sv.totalDocs).toBe(4);
      expect(sv.docs.every((d) => Array.isArray(d.gtins) && d.gtins.length > 0)).toBe(true);
      const listings = await docs('/api/v1/db/products?where[marketplace][equals]=watchmarket&sort=productId');
      expect(listings.docs.map((d) => [d.productId, d.price, d.currency])).toEqual([
        ['47962070', 18725, 'USD'],
        ['48161212', 17856, 'USD'],
        ['48173826', 9995, 'USD'],
      ]);
    },
  );

  it.skipIf(!run)('every operator filters as documented', async () => {
    const q = (w: string) =>
      docs(`/api/v1/db/prices?limit=100&where[marketplace][equals]=resale-b&${w}`).then((r) => r.docs);
    const all = await q('');
    const prices = all.map((d) => d.price);
    const mid = [...prices].sort((a, b) => a - b)[Math.floor(prices.length / 2)]!;
    const count = (f: (d: Doc) => boolean) => all.filter(f).length;
    expect((await q(`where[price][equals]=${mid}`)).length).toBe(count((d) => d.price === mid));
    expect((await q(`where[price][not_equals]=${mid}`)).length).toBe(count((d) => d.price !== mid));
    expect((await q(`where[price][greater_than]=${mid}`)).length).toBe(count((d) => d.price > mid));
    expect((await q(`where[price][greater_than_equal]=${mid}`)).length).toBe(count((d) => d.price >= mid));
    expect((await q(`where[price][less_than]=${mid}`)).length).toBe(count((d) => d.price < mid));
    expect((await q(`where[price][less_than_equal]=${mid}`)).length).toBe(count((d) => d.price <= mid));
    expect((await q('where[condition][like]=DAMAGED%20new')).length).toBe(
      count((d) => /new/.test(d.condition) && /damaged/.test(d.condition)),
    );
    expect((await q('where[condition][contains]=used/')).length).toBe(count((d) => d.condition.includes('used/')));
    expect((await q('where[condition][contains]=%25')).length).toBe(0); // % is a literal, not a wildcard
    expect((await q('where[size][in]=5,6')).length).toBe(count((d) => ['5', '6'].includes(d.size)));
    expect((await q('where[size][not_in]=5,6')).length).toBe(count((d) => !['5', '6'].includes(d.size)));
    expect((await q('where[kind][exists]=true')).length).toBe(all.length);
    expect((await q('where[kind][exists]=false')).length).toBe(0);
    expect((await q('where[inStock][equals]=false')).length).toBe(count((d) => d.inStock === false));
    expect(count((d) => d.inStock === false)).toBeGreaterThan(0);
    // Ids are text (store convention): equals and in work on them.
    const [a, b] = [all[0]!, all[1]!];
    expect((await q(`where[id][equals]=${a.id}`)).map((d) => d.id)).toEqual([a.id]);
    expect((await q(`where[id][in]=${a.id},${b.id}`)).length).toBe(2);
    expect(OPERATORS).toHaveLength(11);
  });

  it.skipIf(!run)('or / and nest as in Payload', async () => {
    const both = await docs(
      '/api/v1/db/prices?limit=100&where[or][0][and][0][size][equals]=5&where[or][0][and][1][kind][equals]=last_sale' +
        '&where[or][1][and][0][marketplace][equals]=watchmarket',
    );
    expect(both.docs.every((d) => (d.size === '5' && d.kind === 'last_sale') || d.marketplace === 'watchmarket')).toBe(
      true,
    );
    expect(both.docs.filter((d) => d.marketplace === 'watchmarket')).toHaveLength(3);
    expect(both.docs.filter((d) => d.size === '5')).toHaveLength(3); // size 5 has three conditions, each with a last sale
  });

  it.skipIf(!run)('sort and paging: the envelope, pages that do not overlap, -field descending', async () => {
    const p1 = await docs('/api/v1/db/prices?where[marketplace][equals]=resale-b&sort=-price&limit=5');
    expect(p1).toMatchObject({
      totalDocs: 18,
      limit: 5,
      totalPages: 4,
      page: 1,
      hasPrevPage: false,
      hasNextPage: true,
      prevPage: null,
      nextPage: 2,
    });
    const prices = p1.docs.map((d) => d.price);
    expect(prices).toEqual([...prices].sort((a, b) => b - a));
    const p4 = await docs('/api/v1/db/prices?where[marketplace][equals]=resale-b&sort=-price&limit=5&page=4');
    expect(p4).toMatchObject({ page: 4, hasNextPage: false, nextPage: null, prevPage: 3 });
    expect(p4.docs).toHaveLength(3);
    const ids = new Set<string>();
    for (let page = 1; page <= 4; page++) {
      for (const d of (
        await docs(`/api/v1/db/prices?where[marketplace][equals]=resale-b&sort=-price&limit=5&page=${page}`)
      ).docs)
        ids.add(d.id);
    }
    expect(ids.size).toBe(18);
    expect((await docs('/api/v1/db/prices')).limit).toBe(10);
  });

  it.skipIf(!run)('CSV by format=csv or Accept: text/csv', async () => {
    const a = await get('/api/v1/db/prices?where[marketplace][equals]=resale-b&limit=100&format=csv');
    const b = await get('/api/v1/db/prices?where[marketplace][equals]=resale-b&limit=100', { accept: 'text/csv' });
    for (const res of [a, b]) {
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      const lines = res.body.trim().split('\r\n');
      expect(lines[0]!.split(',').slice(0, 7)).toEqual([
        'id',
        'name',
        'product',
        'size',
        'price',
        'createdAt',
        'updatedAt',
      ]);
      expect(lines).toHaveLength(19);
    }
  });

  it.skipIf(!run)('bad input is a 400 naming it', async () => {
    expect(
      expectProblem(await get('/api/v1/db/prices?where[colour][equals]=red'), 400, 'invalid_parameter').detail,
    ).toMatch(/where\[colour\].*unknown field/);
    expect(
      expectProblem(await get('/api/v1/db/prices?where[size][resembles]=10'), 400, 'invalid_parameter').detail,
    ).toMatch(/where\[size\]\[resembles\].*unknown operator/);
    expect(
      expectProblem(await get('/api/v1/db/prices?where[or][x][size][equals]=1'), 400, 'invalid_parameter').detail,
    ).toMatch(/where\[or\]\[x\]/);
    expect(
      expectProblem(await get('/api/v1/db/prices?where[price][greater_than]=cheap'), 400, 'invalid_parameter').detail,
    ).toMatch(/where\[price\]\[greater_than\].*not a number/);
    expect(expectProblem(await get('/api/v1/db/prices?sort=-colour'), 400, 'invalid_parameter').detail).toMatch(
      /sort.*colour/,
    );
    expect(expectProblem(await get('/api/v1/db/prices?limit=101'), 400, 'invalid_parameter').detail).toMatch(/limit/);
    expect(expectProblem(await get('/api/v1/db/prices?page=0'), 400, 'invalid_parameter').detail).toMatch(/page/);
    expect(expectProblem(await get('/api/v1/db/prices?colour=red'), 400, 'invalid_parameter').detail).toMatch(
      /colour: unknown parameter/,
    );
    expect(
      expectProblem(await get('/api/v1/db/prices?where[kind][exists]=maybe'), 400, 'invalid_parameter').detail,
    ).toMatch(/exists|true or false/);
    expect((await app.inject({ url: '/api/v1/db/prices' })).statusCode).toBe(401);
  });

  it.skipIf(!run)('/metrics counts the recorded live results', async () => {
    const m = await get('/metrics');
    // The GOAT lookup over HTTP plus the StockX and Chrono24 results; the cache hit is not one.
    expect(m.body).toMatch(/marketlens_history_results_total\{result="written"\} 3\b/);
  });
});
