/**
 * GET /api/v1/products/{sku}/history on SQLite and PostgreSQL, from rows the price history recorded from real
 * lookups' records (StockX and Nike fixtures, the GOAT buy-bar capture, through the recorder) for the marketplace
 * products a product answer linked to the SKU: one series per marketplace × kind × condition; each marketplace's size
 * labels mapped onto the product's sizes (StockX and Nike by GTIN, GOAT and a GTIN-less StockX size by label); JSON,
 * CSV and an SVG whose legend names the marketplaces; 404 for a SKU no answer found; 400 naming bad parameters.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveResult } from '../src/operations/live-results.js';
import type { ProductAnswer } from '../src/products/types.js';
import { auth, testApp } from './support/app.js';
import { liveResultFrom } from './support/live-result.js';
import { expectProblem } from './support/problem.js';
import { productAnswer, type ProductSpec } from './support/product-answers.js';
import { SKU as UP_SKU, startProductUpstreams, type ProductUpstreams } from './support/product-upstreams.js';
import { sharedAvailable } from './support/shared.js';
import { createTestDatabase, engineAvailable, ENGINES, type TestDatabase } from './support/stores.js';

const T0 = Date.UTC(2026, 10, 20, 9);
const HOUR = 3_600_000;
const STOCKX_ID = '0b6f3c2e-7d41-4e8a-9c5b-1a2d3e4f5a6b';
const SKU = 'ML-0001-400';
const NIKE_PAGE = 'https://www.nike.com/t/dunk-low-retro-mens-shoes-76KnBL/DD1391-100';

function stockx(at: number): LiveResult {
  return liveResultFrom(
    'resale-a.product',
    [{ fixture: 'resale-a/product-page.html' }, { fixture: 'resale-a/market-data.json' }],
    { identity: { id: STOCKX_ID, country: 'US', currency: 'USD' }, fetchedAt: at },
  );
}

/** The GOAT capture with its size 5 entries relabelled 9 (so all three marketplaces price size 9), `cents` dearer. */
function goat(at: number, cents: number): LiveResult {
  const r = liveResultFrom('resale-b.prices', [{ capture: 'goat/dewuapiparser_goat_1341930_buy_bar_data.json' }], {
    params: { query: '1341930', country: 'US' },
    identity: { id: '1341930', country: 'US', currency: 'USD' },
    fetchedAt: at,
  });
  for (const e of r.record as BuyBarEntry[]) {
    if (e.sizeOption.presentation === '5') e.sizeOption = { presentation: '9', value: 9 };
    for (const m of [e.lowestPriceCents, e.lastSoldPriceCents]) if ((m.amount ?? 0) > 0) m.amount! += cents;
  }
  return r;
}

interface BuyBarEntry {
  sizeOption: { presentation: string; value: number };
  lowestPriceCents: { amount?: number };
  lastSoldPriceCents: { amount?: number };
}

/** A series as the route answers it. */
interface Line {
  label: string;
  marketplace: string;
  size: string | null;
  size_system: string | null;
  kind: string;
  condition: string | null;
  points: Array<{ t: string; min: number; max: number; last: number; count: number }>;
}

function nike(at: number): LiveResult {
  return liveResultFrom('sportswear.product', [{ fixture: 'sportswear/constructed-product-page-us.html' }], {
    params: { query: NIKE_PAGE },
    identity: { id: 'DD1391-100', country: 'US', currency: 'USD' },
    fetchedAt: at,
  });
}

/** What the product answer said: sizes 9 and 10 (US men's), StockX's 10 and Nike's 7 carrying their GTINs. */
const ANSWER: ProductSpec = {
  sku: SKU,
  name: 'Marketlens Runner 1 Harbor Blue',
  links: [
    { marketplace: 'resale-a', id: STOCKX_ID, url: 'https://stockx.com/marketlens-runner-1-harbor-blue' },
    { marketplace: 'resale-b', id: '1341930' },
    { marketplace: 'sportswear', id: 'DD1391-100', url: NIKE_PAGE },
  ],
  sizes: [
    { size: '7', gtins: ['00195867247536'], offers: [['sportswear', 'retail', 115]] },
    {
      size: '9',
      offers: [
        ['resale-a', 'highest_bid', 101],
        ['resale-b', 'lowest_price', 123, 'new_no_defects/good_condition'],
        ['sportswear', 'retail', 115],
      ],
    },
    { size: '10', gtins: ['000111222357'], offers: [['resale-a', 'lowest_ask', 145]] },
    { size: '10', size_system: 'us_women', offers: [['resale-b', 'lowest_price', 99]] },
  ],
};

describe.each(ENGINES)('GET /api/v1/products/{sku}/history on %s', (engine) => {
  const run = engineAvailable(engine) && sharedAvailable;
  let db: TestDatabase;
  let app: FastifyInstance;
  const get = (path: string, headers: Record<string, string> = {}) =>
    app.inject({ url: `/api/v1/products/${path}`, headers: { ...auth, ...headers } });
  const range = `from=${new Date(T0 - HOUR).toISOString()}&to=${new Date(T0 + 10 * HOUR).toISOString()}`;

  beforeAll(async () => {
    if (!run) return;
    db = await createTestDatabase(engine);
    app = await testApp(db.env);
    await app.productWatch.answered(productAnswer(ANSWER), T0);
    for (let h = 0; h < 3; h++) {
      app.history.recorder.record(stockx(T0 + h * HOUR));
      app.history.recorder.record(goat(T0 + h * HOUR, h * 100));
      app.history.recorder.record(nike(T0 + h * HOUR));
    }
    await app.history.recorder.flush();
  });
  afterAll(async () => {
    if (!run) return;
    await app.close();
    await db.drop();
  });

  it.skipIf(!run)(
    'one series per marketplace × kind × condition at a size, labels naming the marketplace',
    async () => {
      const res = await get(`${SKU.toLowerCase()}/history?size=9&size_system=us_men&${range}`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json<{ series: Line[]; marketplaces: Array<{ marketplace: string }> }>();
      expect(body).toMatchObject({ sku: SKU, name: ANSWER.name, size: '9', size_system: 'us_men', interval: null });
      expect(body.marketplaces.map((m: { marketplace: string }) => m.marketplace)).toEqual([
        'resale-a',
        'resale-b',
        'sportswear',
      ]);
      const lines = body.series.map((s: Line) => [s.marketplace, s.size, s.size_system, s.kind, s.condition]);
      expect(lines).toEqual([
        // GOAT's three size-5 entries relabelled 9: three conditions with a last sale, one with lowest prices.
        ['resale-a', '9', 'us_men', 'highest_bid', null],
        ['resale-a', '9', 'us_men', 'last_sale', null],
        ['resale-b', '9', 'us_men', 'instant_ship_lowest_price', 'new_no_defects/good_condition'],
        ['resale-b', '9', 'us_men', 'last_sale', 'new_no_defects/badly_damaged'],
        ['resale-b', '9', 'us_men', 'last_sale', 'new_no_defects/good_condition'],
        ['resale-b', '9', 'us_men', 'last_sale', 'used/good_condition'],
        ['resale-b', '9', 'us_men', 'lowest_price', 'new_no_defects/good_condition'],
        // Nike states one price for every size.
        ['sportswear', null, null, 'current_price', null],
        ['sportswear', null, null, 'regular_price', null],
      ]);
      const goatLowest = body.series.find((s: Line) => s.marketplace === 'resale-b' && s.kind === 'lowest_price');
      expect(goatLowest?.points.map((p: Line['points'][number]) => p.last)).toEqual([123, 124, 125]);
      expect(goatLowest?.label).toBe("GOAT · size 9 US men's · lowest price · new_no_defects/good_condition");
      const bid = body.series.find((s: Line) => s.kind === 'highest_bid');
      expect(bid?.points.map((p: Line['points'][number]) => p.last)).toEqual([101, 101, 101]);
      expect(body.series.at(-1)?.label).toBe('Nike · all sizes · regular price');
    },
  );

  it.skipIf(!run)('sizes by GTIN; without a size every recorded size, mapped where the answer has it', async () => {
    const ten = (await get(`${SKU}/history?size=10&size_system=us_men&kind=lowest_ask&${range}`)).json<{
      series: Line[];
    }>();
    expect(ten.series.map((s: Line) => [s.marketplace, s.size, s.kind, s.points[0]?.last])).toEqual([
      ['resale-a', '10', 'lowest_ask', 145],
    ]);
    const all = (await get(`${SKU}/history?kind=lowest_ask&interval=day&${range}`)).json<{ series: Line[] }>();
    // StockX's product-level ask (no size) and its sizes 8 (no such size in the answer: its own label) and 10.
    expect(all.series.map((s: Line) => [s.size, s.size_system])).toEqual([
      ['8', null],
      ['10', 'us_men'],
      [null, null],
    ]);
    expect(all.series[1]?.points).toEqual([{ t: '2026-11-20T00:00:00.000Z', min: 145, max: 145, last: 145, count: 3 }]);
  });

  it.skipIf(!run)('CSV and an SVG chart with a legend naming each marketplace', async () => {
    const csv = await get(`${SKU}/history?size=9&kind=last_sale&format=csv&${range}`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const rows = csv.body.trim().split('\r\n');
    expect(rows[0]).toBe('marketplace,size,size_system,kind,condition,currency,t,min,max,last,count');
    expect(rows).toHaveLength(1 + 3 * 4); // StockX and GOAT's three conditions, three observations each
    expect(rows[1]).toBe(`resale-a,9,us_men,last_sale,,USD,${new Date(T0).toISOString()},140,140,140,1`);
    const svg = await get(`${SKU}/history?size=9&${range}`, { accept: 'text/csv' });
    expect(svg.headers['content-type']).toMatch(/^text\/csv/);
    const chart = await get(`${SKU}/history?size=9&format=svg&${range}`);
    expect(chart.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(chart.body).toContain('Marketlens Runner 1 Harbor Blue (ML-0001-400), size 9');
    expect(chart.body).toContain('StockX · size 9 US men&#39;s · highest bid (USD)');
    expect(chart.body).toContain('GOAT · size 9 US men&#39;s · lowest price · new_no_defects/good_condition (USD)');
    expect(chart.body).toContain('Nike · all sizes · current price (USD)');
    expect(chart.body.match(/<polyline /g)).toHaveLength(9);
  });

  it.skipIf(!run)('unknown SKU → 404; bad parameters → 400 naming them; keyed', async () => {
    expectProblem(await get('NO-SUCH-1/history'), 404, 'not_found');
    for (const [query, param] of [
      ['interval=minute', 'interval'],
      ['from=yesterday', 'from'],
      ['from=2026-11-21&to=2026-11-20', 'from'],
      ['kind=cheapest', 'kind'],
      ['format=pdf', 'format'],
      ['size_system=eu', 'size_system'],
      ['size=99', 'size'],
      ['colour=red', 'colour'],
    ] as const) {
      const problem = expectProblem(await get(`${SKU}/history?${query}`), 400, 'invalid_parameter');
      expect(problem.detail, query).toContain(param);
    }
    expect((await app.inject({ url: `/api/v1/products/${SKU}/history` })).statusCode).toBe(401);
  });
});

describe.each(ENGINES)('product history from real product answers (fake StockX, GOAT, Nike) on %s', (engine) => {
  const run = engineAvailable(engine);
  let db: TestDatabase;
  let up: ProductUpstreams;
  let app: FastifyInstance;

  beforeAll(async () => {
    if (!run) return;
    db = await createTestDatabase(engine);
    up = await startProductUpstreams();
    app = await testApp({ ...db.env, ...up.env });
  });
  afterAll(async () => {
    if (!run) return;
    await app.close();
    await up.stop();
    await db.drop();
  });

  it.skipIf(!run)('the answer links the SKU; its lookups recorded the rows the history shows', async () => {
    expect((await app.inject({ url: `/api/v1/products/${UP_SKU}/history`, headers: auth })).statusCode).toBe(404);
    const product = await app.inject({ url: `/api/v1/products/${UP_SKU}`, headers: auth });
    expect(product.statusCode, product.body).toBe(200);
    const answer = product.json<ProductAnswer>();
    await app.history.recorder.flush();

    const res = await app.inject({
      url: `/api/v1/products/dd1391%20100/history?size=10&size_system=us_men`,
      headers: auth,
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{
      sku: string;
      series: Line[];
      marketplaces: Array<{ marketplace: string; product_id: string }>;
    }>();
    expect(body.sku).toBe(UP_SKU);
    expect(body.marketplaces).toEqual(
      answer.marketplaces.map((m) => expect.objectContaining({ marketplace: m.marketplace, product_id: m.id })),
    );
    // One line per marketplace × kind × condition at men's 10; GOAT's women's 11.5W (the same shoe) is not among them.
    expect(body.series.map((s) => s.label)).toEqual([
      "StockX · size 10 US men's · lowest ask",
      "GOAT · size 10 US men's · last sale · new_no_defects/good_condition",
      "GOAT · size 10 US men's · lowest price · new_no_defects/good_condition",
      'Nike · all sizes · current price',
      'Nike · all sizes · regular price',
    ]);
    // Each line holds what the answer's offers at that size said (Nike's storefront price is its retail offer).
    const row = answer.sizes.find((s) => s.size === '10' && s.size_system === 'us_men');
    const offer = (marketplace: string, kind: string) =>
      row?.offers.find((o) => o.marketplace === marketplace && o.kind === kind)?.amount;
    const last = (marketplace: string, kind: string) =>
      body.series.find((s) => s.marketplace === marketplace && s.kind === kind)?.points.at(-1)?.last;
    expect(last('resale-a', 'lowest_ask')).toBe(offer('resale-a', 'lowest_ask'));
    expect(last('resale-b', 'lowest_price')).toBe(offer('resale-b', 'lowest_price'));
    expect(last('resale-b', 'last_sale')).toBe(offer('resale-b', 'last_sale'));
    expect(last('sportswear', 'current_price')).toBe(offer('sportswear', 'retail'));

    const chart = await app.inject({ url: `/api/v1/products/${UP_SKU}/history?size=10&format=svg`, headers: auth });
    for (const site of ['StockX', 'GOAT', 'Nike']) expect(chart.body).toMatch(new RegExp(`<text [^>]*>${site} · `));
    const csv = await app.inject({ url: `/api/v1/products/${UP_SKU}/history?size=10&format=csv`, headers: auth });
    expect(
      new Set(
        csv.body
          .trim()
          .split('\r\n')
          .slice(1)
          .map((r) => r.split(',')[0]),
      ),
    ).toEqual(new Set(['resale-a', 'resale-b', 'sportswear']));
  });
});
