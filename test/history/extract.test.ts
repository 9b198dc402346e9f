/** What one live result of each price-bearing operation records, on the real captures (test/support/shared.ts). */
import { describe, expect, it } from 'vitest';
import { largeWatchPage } from '../../bench/lib/payloads.js';
import { extractObservations } from '../../src/history/extract/index.js';
import { parseSearchPage } from '../../src/marketplaces/watchmarket/parse.js';
import type { ObservationBatch } from '../../src/history/observation.js';
import type { Market, Product as StockxProduct } from '../../src/marketplaces/resale-a/schema.js';
import type { PriceEntry } from '../../src/marketplaces/resale-b/schema.js';
import { liveResultFrom } from '../support/live-result.js';
import { readCapture, sharedAvailable } from '../support/shared.js';

const GOAT_BUY_BAR = 'goat/dewuapiparser_goat_1341930_buy_bar_data.json';
const HAT_2023 = 'stockx/scrapfly_nextdata_product_nike-x-stussy-bucket-hat-black_2023-05-29.json';
const C24 = 'chrono24/search-2026_rolex-submariner_excerpt-';
const C24_FILES = [
  `${C24}A_head-metaData-jsonld.html`,
  `${C24}B_offset130000-178000_quickfilters-count-sorter-cards1-3.html`,
  `${C24}C_offset604000-636000_cards59-60-pagination-pagesize.html`,
];

function extract(...args: Parameters<typeof liveResultFrom>): ObservationBatch {
  const b = extractObservations(liveResultFrom(...args));
  if (!b) throw new Error('no batch');
  return b;
}

describe.skipIf(!sharedAvailable)('extractors on real captures', () => {
  it('GOAT buy bar: every entry gives its priced figures in USD major units; absent and 0-cent amounts give nothing', () => {
    const raw = JSON.parse(readCapture(GOAT_BUY_BAR)) as PriceEntry[];
    const b = extract('resale-b.prices', [{ capture: GOAT_BUY_BAR }], {
      identity: { id: '1341930', country: 'US', currency: 'USD' },
    });
    expect(raw).toHaveLength(9);
    const expected: Array<[string, string, string, number]> = [];
    for (const e of raw) {
      const cond = `${e.shoeCondition}/${e.boxCondition}`;
      const add = (kind: string, m: PriceEntry['lowestPriceCents']) =>
        m.amount !== undefined &&
        m.amount > 0 &&
        expected.push([e.sizeOption.presentation, cond, kind, m.amount / 100]);
      add('lowest_price', e.lowestPriceCents);
      add('last_sale', e.lastSoldPriceCents);
      add('instant_ship_lowest_price', e.instantShipLowestPriceCents);
    }
    expect(b.prices.map((p) => [p.size, p.condition, p.kind, p.amount])).toEqual(expected);
    // Each of the 9 entries contributes at least one price point; the kinds are GOAT's three figures.
    expect(new Set(b.prices.map((p) => `${p.size}|${p.condition}`)).size).toBe(9);
    expect(b.prices.filter((p) => p.kind === 'lowest_price')).toHaveLength(7);
    expect(b.prices.filter((p) => p.kind === 'last_sale')).toHaveLength(8); // size 2's last sale is 0 = none
    expect(b.prices.filter((p) => p.kind === 'instant_ship_lowest_price')).toHaveLength(3);
    expect(new Set(b.prices.map((p) => p.currency))).toEqual(new Set(['USD']));
    expect(b.prices.every((p) => p.amount > 0 && p.country === 'US')).toBe(true);
    expect(b.prices[0]).toMatchObject({ size: '13', kind: 'lowest_price', amount: 206, inStock: true });
    expect(b.variants.map((v) => v.size)).toEqual([...new Set(raw.map((e) => e.sizeOption.presentation))]);
    expect(b.products).toEqual([expect.objectContaining({ marketplace: 'resale-b', productId: '1341930' })]);
  });

  it('StockX product: whole-unit asks/bids/last sales per size where present, nulls give nothing, GTINs kept', () => {
    const b = extract('resale-a.product', [{ capture: HAT_2023 }], {
      identity: { id: 'nike-x-stussy-bucket-hat-black', currency: 'USD' },
    });
    const record = liveResultFrom('resale-a.product', [{ capture: HAT_2023 }], { identity: { id: 'x' } })
      .record as StockxProduct;
    expect(b.products[0]).toMatchObject({
      productId: record.id,
      name: 'Nike x Stussy Bucket Hat Black',
      url: 'https://stockx.com/nike-x-stussy-bucket-hat-black',
    });
    expect(b.variants).toHaveLength(record.variants.length);
    expect(b.variants[0]!.gtins).toEqual(record.variants[0]!.gtins.map((g) => g.identifier));
    const expected: unknown[] = [];
    const push = (size: string | null, m: Market | null) => {
      if (!m) return;
      for (const [kind, v] of [
        ['lowest_ask', m.bids.lowest_ask],
        ['highest_bid', m.bids.highest_bid],
        ['last_sale', m.sales.last_sale],
      ]) {
        if (v !== null) expected.push([size, kind, v]);
      }
    };
    push(null, record.market);
    for (const v of record.variants) push(v.traits.size, v.market);
    expect(b.prices.map((p) => [p.size, p.kind, p.amount])).toEqual(expected);
    expect(b.prices.length).toBeGreaterThan(3);
    expect(b.prices.every((p) => p.currency === 'USD' && Number.isInteger(p.amount))).toBe(true);
  });

  it('StockX search: every hit is a product, no price', () => {
    const b = extract('resale-a.search', [{ capture: 'stockx/scrapfly_nextdata_search_2023-12-18.json' }], {
      identity: { id: 'q' },
    });
    expect(b.products).toHaveLength(10);
    expect(new Set(b.products.map((p) => p.productId)).size).toBe(10);
    expect(b.prices).toEqual([]);
  });

  it('Chrono24 search: every complete card is a listing product with its price in the requested currency', () => {
    const b = extract(
      'watchmarket.search',
      C24_FILES.map((capture) => ({ capture })),
      { params: { currency: 'USD' }, identity: { id: 'q', currency: 'USD' } },
    );
    expect(b.listingIds).toEqual(['47962070', '48173826', '48161212']);
    expect(b.products.map((p) => p.productId)).toEqual(b.listingIds);
    expect(b.products[0]).toMatchObject({ domain: 'chrono24.com', url: expect.stringContaining('--id47962070.htm') });
    expect(b.prices.map((p) => [p.productId, p.kind, p.amount, p.currency])).toEqual([
      ['47962070', 'listing_price', 18725, 'USD'],
      ['48173826', 'listing_price', 9995, 'USD'],
      ['48161212', 'listing_price', 17856, 'USD'],
    ]);
  });

  it("a full Chrono24 results page (60 cards, built from the real capture's card) → 60 listing products with prices", () => {
    const page = largeWatchPage().value;
    const b = extractObservations({
      ...liveResultFrom(
        'watchmarket.search',
        C24_FILES.map((capture) => ({ capture })),
        { params: { currency: 'USD' }, identity: { id: 'q', currency: 'USD' } },
      ),
      record: parseSearchPage({ url: 'https://www.chrono24.com/rolex/submariner--mod1.htm', pages: [page] }, 1),
    })!;
    expect(b.products).toHaveLength(60);
    expect(new Set(b.listingIds)).toHaveProperty('size', 60);
    expect(b.prices).toHaveLength(60);
    expect(b.prices.every((p) => p.kind === 'listing_price' && p.currency === 'USD' && p.amount === 18725)).toBe(true);
  });

  it('Best Buy: current and regular price of the SKU', () => {
    const b = extract(
      'electronics.product',
      [{ capture: 'bestbuy/scrapfly_2025-03_products_skuPriceDomain_specCategories.json' }],
      { identity: { id: '6534615' } },
    );
    // This capture names no page: the page the lookup fetched for the SKU is the product's URL (issue 29).
    expect(b.products[0]).toMatchObject({
      productId: '6534615',
      sku: '6534615',
      url: 'https://www.bestbuy.com/site/6534615.p?skuId=6534615',
    });
    expect(b.prices.map((p) => [p.kind, p.amount, p.currency])).toEqual(
      [
        ['current_price', 1499],
        ['regular_price', 1899],
      ].map((x) => [...x, 'USD']),
    );
  });

  it("Best Buy 2025-06 page: the product's name from productBySkuId (issue 29: it was null)", () => {
    const b = extract(
      'electronics.product',
      [{ capture: 'bestbuy/scrapfly_2025-06_products_graphql_productBySkuId.json' }],
      {
        params: { query: 'https://www.bestbuy.com/site/apple-macbook-pro/6534615.p?skuId=6534615' },
        identity: { id: '6534615' },
      },
    );
    expect(b.products[0]!.name).toMatch(/^Apple - MacBook Pro 14" Laptop/);
    expect(b.products[0]!.url).toMatch(/^https:\/\/www\.bestbuy\.com\/.*6534615/);
  });

  it('Nike from the product feed (page blocked): the page the lookup asked for is the url (issue 29: it was null)', () => {
    const b = extract('sportswear.product', [{ capture: 'nike/product-feed-threads-v3_gb_2026-04-17.json' }], {
      params: { query: 'IU0767-001', country: 'GB' },
      identity: { id: 'IU0767-001' },
    });
    expect(b.products[0]).toMatchObject({
      productId: 'IU0767-001',
      url: expect.stringMatching(/^https:\/\/www\.nike\.com\/gb\/t\/.*IU0767-001$/),
    });
  });

  it('GOAT product: sizes as variants, product-level prices only where GOAT has them', () => {
    const b = extract('resale-b.product', [{ capture: 'goat/dewuapiparser_goat_1341930_productTemplate.json' }], {
      identity: { id: '1341930' },
    });
    const t = JSON.parse(readCapture('goat/dewuapiparser_goat_1341930_productTemplate.json')) as {
      sku: string;
      name: string;
      sizeOptions: Array<{ presentation: string }>;
    };
    expect(b.products[0]).toMatchObject({ productId: '1341930', sku: t.sku, name: t.name });
    expect(b.variants.map((v) => v.size)).toEqual(t.sizeOptions.map((o) => o.presentation));
    // Every recorded amount is positive: GOAT's 0-cent "no price" fields never become a 0 price.
    expect(b.prices.every((p) => p.amount > 0)).toBe(true);
  });
});

describe('extractors on our fixtures', () => {
  it('Nike: sizes with GTINs, current and full price in the storefront currency', () => {
    const b = extract('sportswear.product', [{ fixture: 'sportswear/constructed-product-page-us.html' }], {
      params: { query: 'DD1391-100' },
      identity: { id: 'DD1391-100' },
    });
    expect(b.products[0]).toMatchObject({ productId: 'DD1391-100', domain: 'nike.com' });
    expect(b.variants.length).toBeGreaterThan(0);
    expect(b.variants.every((v) => v.gtins.length > 0)).toBe(true);
    expect(b.prices.map((p) => [p.kind, p.currency])).toEqual([
      ['current_price', 'USD'],
      ['regular_price', 'USD'],
    ]);
  });

  it('a Chrono24 listing with "Price on request" is a product without a price', () => {
    const b = extract('watchmarket.search', [{ fixture: 'watchmarket/search-2026-page1.html' }], {
      params: { currency: 'EUR' },
      identity: { id: 'q', currency: 'EUR' },
    });
    expect(b.products).toHaveLength(4);
    expect(b.prices).toHaveLength(3);
    expect(b.prices.every((p) => p.currency === 'EUR')).toBe(true);
  });

  it('the finder records nothing', () => {
    expect(extractObservations({ operation: 'watchmarket.finder' } as never)).toBeNull();
  });
});
