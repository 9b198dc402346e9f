import { describe, expect, it } from 'vitest';
import { MarketlensError } from '../../errors.js';
import { parseAndCheck } from '../../operations/lookup.js';
import { wrapAsNextDataPage } from '../../util/next-data.js';
import { productProblems } from '../../../test/fixtures/resale-a/spec-fields.js';
import { readCapture, sharedAvailable } from '../../../test/support/shared.js';
import { parseMarketData, toMarket } from './parse-market.js';
import { parseProduct, slugOfPageUrl, type ProductBodies } from './parse-product.js';
import { productBodiesFromFiles, resaleAProduct } from './product.js';
import { productSchema } from './schema.js';
import { readFixture } from '../../../test/support/fixtures.js';

const fixture = (name: string) => readFixture(`resale-a/${name}`);
const SLUG = 'marketlens-runner-1-harbor-blue';
const PAGE_URL = `https://stockx.com/${SLUG}`;
const V1 = '11111111-2222-4333-8444-555555555501';
const V2 = '11111111-2222-4333-8444-555555555502';
const V3 = '11111111-2222-4333-8444-555555555503';

function bodies(market: string | null, html = fixture('product-page.html')): ProductBodies {
  return { page: { url: PAGE_URL, html }, market };
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof MarketlensError ? e.code : `non-marketlens: ${String(e)}`;
  }
  return undefined;
}

describe('parseProduct on fixtures', () => {
  const record = parseProduct(bodies(fixture('market-data.json')), [SLUG]);

  it('gives every §2.6 field with the spec type, and passes the record schema', () => {
    expect(productProblems(record)).toEqual([]);
    expect(productSchema.parse(record)).toEqual(record);
  });

  it('maps the catalog fields of the page product (not the related product beside it)', () => {
    expect(record).toMatchObject({
      id: '0b6f3c2e-7d41-4e8a-9c5b-1a2d3e4f5a6b',
      slug: SLUG,
      name: 'Marketlens Runner 1 Harbor Blue',
      primary_category: 'Marketlens',
      gender: 'men',
      brand: 'Marketlens',
      category: 'sneakers',
      model: 'Marketlens Runner 1',
      sku: 'ML-0001-400',
      description: 'A fixture sneaker written for the marketlens tests.<br><br>It never released anywhere.',
    });
    expect(record.image).toMatch(/w=700&h=500$/);
    expect(record.thumb_image).toMatch(/w=140&h=100$/);
    expect(record.small_image).toMatch(/w=300&h=214$/);
    expect(record.breadcrumbs).toHaveLength(5);
    expect(record.breadcrumbs[4]).toEqual({ url: `/${SLUG}`, name: 'Marketlens Runner 1 Harbor Blue', level: 5 });
    // visible/format dropped; a trait without value is left out rather than invented
    expect(record.traits).toEqual([
      { name: 'Style', value: 'ML-0001-400' },
      { name: 'Colorway', value: 'Harbor Blue/Sail-White' },
      { name: 'Retail Price', value: '120' },
      { name: 'Release Date', value: '2025-03-14' },
    ]);
  });

  it('gives each variant every size type, its gtins and base size', () => {
    expect(record.variants.map((v) => v.id)).toEqual([V1, V2, V3]);
    const v1 = record.variants[0]!;
    expect(v1.sizes.map((s) => s.type)).toEqual(['us m', 'uk', 'cm', 'kr', 'eu', 'us w']);
    expect(v1.sizes).toContainEqual({ size: 'US M 8', type: 'us m' });
    expect(v1.sizes).toContainEqual({ size: 'US W 9.5', type: 'us w' });
    expect(v1.gtins).toEqual([
      { type: 'UPC', identifier: '000111222333' },
      { type: 'EAN-13', identifier: '0000111222333' },
    ]);
    expect(record.variants[1]!.gtins).toEqual([]);
    expect(v1.traits).toEqual({ size: '8' });
  });

  it('takes the market (state generation) for the product and per variant; missing asks/bids stay null', () => {
    expect(record.market).toEqual({
      bids: { lowest_ask: 131, highest_bid: 118, number_asks: 37, number_bids: 12 },
      sales: { last_sale: 127, sales_last_72h: 9 },
    });
    expect(record.variants[1]!.market!.bids).toEqual({
      lowest_ask: null,
      highest_bid: 101,
      number_asks: 0,
      number_bids: 7,
    });
    expect(record.variants[2]!.market).toEqual({
      bids: { lowest_ask: 145, highest_bid: null, number_asks: 17, number_bids: 0 },
      sales: { last_sale: null, sales_last_72h: 5 },
    });
  });

  it('reads the bidAskData generation (before 2023) the same way', () => {
    const old = parseProduct(bodies(fixture('market-data-bidaskdata.json')), [SLUG]);
    expect(productProblems(old)).toEqual([]);
    expect(old.market).toEqual({
      bids: { lowest_ask: 99, highest_bid: 150, number_asks: 8, number_bids: 30 },
      sales: { last_sale: 120, sales_last_72h: 3 },
    });
    expect(old.variants[1]!.market).toEqual({
      bids: { lowest_ask: null, highest_bid: 60, number_asks: 0, number_bids: 4 },
      sales: { last_sale: null, sales_last_72h: 0 },
    });
  });

  it('without market data (and none in the page) gives market null everywhere', () => {
    const r = parseProduct(bodies(null), [SLUG]);
    expect(r.market).toBeNull();
    expect(r.variants.every((v) => v.market === null)).toBe(true);
    expect(productProblems(r)).toEqual([]);
  });

  it('refuses market data of another product', () => {
    const other = fixture('market-data.json')
      .replace(/"urlKey": "[^"]+"/, '"urlKey": "x"')
      .replace(/"id": "0b6f3c2e[^"]+"/, '"id": "y"');
    expect(codeOf(() => parseProduct(bodies(other), [SLUG]))).toBe('upstream_changed');
  });

  it('maps GraphQL answers without a product to not_found and schema errors to upstream_changed', () => {
    expect(codeOf(() => parseProduct(bodies(fixture('graphql-product-null.json')), [SLUG]))).toBe('not_found');
    expect(codeOf(() => parseProduct(bodies(fixture('graphql-not-found.json')), [SLUG]))).toBe('not_found');
    expect(codeOf(() => parseProduct(bodies(fixture('graphql-schema-error.json')), [SLUG]))).toBe('upstream_changed');
  });

  it('pages without the product JSON: changed, challenge, or Next.js 404', () => {
    expect(codeOf(() => parseProduct(bodies(null, '<html><body>Hello</body></html>')))).toBe('upstream_changed');
    expect(
      codeOf(() =>
        parseProduct(
          bodies(null, '<html><title>Access to this page has been denied</title><div id="px-captcha"></div></html>'),
        ),
      ),
    ).toBe('upstream_blocked');
    expect(
      codeOf(() => parseProduct(bodies(null, wrapAsNextDataPage({ page: '/404', props: { pageProps: {} } })))),
    ).toBe('not_found');
    expect(
      codeOf(() =>
        parseProduct(bodies(null, wrapAsNextDataPage({ page: '/[productUrlKey]', props: { pageProps: {} } }))),
      ),
    ).toBe('upstream_changed');
  });

  it('reads the older script[data-name=query] embedding', () => {
    const json = readFixture('resale-a/product-page.html').split('type="application/json">')[1]!.split('</script>')[0]!;
    const html = `<html><body><script data-name="query">window.__REACT_QUERY_STATE__ = ${json};</script></body></html>`;
    expect(parseProduct(bodies(null, html), [SLUG]).slug).toBe(SLUG);
  });

  it('a page product node with a wrong type is upstream_changed (through parseAndCheck, never a 500)', () => {
    const broken = fixture('product-page.html').replace(
      '"breadcrumbs":[{"name":"Home","url":"/","level":1}',
      '"breadcrumbs":[{"name":"Home","url":"/","level":"one"}',
    );
    const err = (() => {
      try {
        parseAndCheck(resaleAProduct, bodies(null, broken), { query: SLUG });
      } catch (e) {
        return e as MarketlensError;
      }
      return undefined;
    })();
    expect(err?.code).toBe('upstream_changed');
  });

  it('picks the fullest copy when the page caches the product twice', () => {
    const page = JSON.parse(fixture('product-page.html').split('type="application/json">')[1]!.split('</script>')[0]!);
    const queries = page.props.pageProps.req.appContext.states.query.value.queries;
    const full = queries[2].state.data.product;
    const thin = { id: full.id, urlKey: full.urlKey, title: full.title, breadcrumbs: full.breadcrumbs, variants: [] };
    queries.unshift({ queryKey: ['ProductHeader'], state: { data: { product: thin } } });
    const r = parseProduct(bodies(null, wrapAsNextDataPage(page)), [SLUG]);
    expect(r.variants).toHaveLength(3);
    expect(r.sku).toBe('ML-0001-400');
  });

  it('slugOfPageUrl reads the last path segment', () => {
    expect(slugOfPageUrl('https://stockx.com/fr-fr/a-b')).toBe('a-b');
    expect(slugOfPageUrl('not a url')).toBeUndefined();
  });
});

describe('toMarket', () => {
  it('keeps null and absent values null, never 0', () => {
    expect(toMarket({ state: { lowestAsk: null, highestBid: null, numberOfAsks: 0, numberOfBids: 0 } })).toEqual({
      bids: { lowest_ask: null, highest_bid: null, number_asks: 0, number_bids: 0 },
      sales: { last_sale: null, sales_last_72h: null },
    });
    expect(toMarket({ bidAskData: null, salesInformation: { lastSale: 0, salesLast72Hours: 0 } })).toEqual({
      bids: { lowest_ask: null, highest_bid: null, number_asks: null, number_bids: null },
      sales: { last_sale: 0, sales_last_72h: 0 },
    });
    expect(toMarket(null)).toBeNull();
  });

  it('falls back to statistics.lastSale.amount for the last sale', () => {
    expect(toMarket({ statistics: { lastSale: { amount: 77 } } })!.sales.last_sale).toBe(77);
  });

  it('a price of the wrong type is upstream_changed', () => {
    expect(codeOf(() => toMarket({ state: { lowestAsk: { amount: '12' } } }))).toBe('upstream_changed');
  });
});

describe('productBodiesFromFiles', () => {
  it('takes a page and a market answer in any order', () => {
    const b = productBodiesFromFiles(
      [
        { path: 'm.json', text: fixture('market-data.json') },
        { path: 'p.html', text: fixture('product-page.html') },
      ],
      [SLUG],
    );
    expect(b.page.url).toBe(PAGE_URL);
    expect(b.market).toBe(fixture('market-data.json'));
  });

  it('rejects a market answer alone, two pages, and text that is neither HTML nor JSON', () => {
    const page = { path: 'p.html', text: fixture('product-page.html') };
    expect(codeOf(() => productBodiesFromFiles([{ path: 'm.json', text: fixture('market-data.json') }], []))).toBe(
      'invalid_parameter',
    );
    expect(codeOf(() => productBodiesFromFiles([page, page], []))).toBe('invalid_parameter');
    expect(codeOf(() => productBodiesFromFiles([{ path: 'x.txt', text: "{'a': None}" }], []))).toBe(
      'invalid_parameter',
    );
  });
});

describe.skipIf(!sharedAvailable)('resale-a.product on the real captures', () => {
  const HAT = 'nike-x-stussy-bucket-hat-black';
  const parseFiles = (...names: string[]) =>
    parseAndCheck(
      resaleAProduct,
      resaleAProduct.bodiesFromFiles(
        names.map((n) => ({ path: n, text: readCapture(`stockx/${n}`) })),
        {} as never,
      ),
      {},
    ) as ReturnType<typeof parseProduct>;

  it('2023-05 product node with embedded market (bidAskData generation)', () => {
    const r = parseFiles(`scrapfly_nextdata_product_${HAT}_2023-05-29.json`);
    expect(productProblems(r)).toEqual([]);
    expect(r).toMatchObject({
      id: 'ef4b2b9b-ab4d-41af-b56a-c4937e8f7a1e',
      slug: HAT,
      name: 'Nike x Stussy Bucket Hat Black',
      primary_category: 'Nike Apparel',
      gender: 'unisex',
      brand: 'Nike',
      category: 'streetwear',
      model: 'Bucket Hat',
      sku: null, // styleId "" for this apparel item
    });
    expect(r.market).toEqual({
      bids: { lowest_ask: 66, highest_bid: 204, number_asks: 18, number_bids: 26 },
      sales: { last_sale: 188, sales_last_72h: 0 },
    });
    expect(r.variants).toHaveLength(4);
    expect(r.variants[2]!.gtins).toEqual([
      { type: 'UPC', identifier: '193657503519' },
      { type: 'EAN-13', identifier: '2100002654121' },
    ]);
    expect(r.variants[0]!.sizes).toEqual([{ size: 'US XS/S', type: 'us' }]);
    expect(r.breadcrumbs.map((b) => b.level)).toEqual([1, 2, 3, 4]);
  });

  it('2024-10 product node with the captured GetMarketData XHR (state generation, null asks)', () => {
    const r = parseFiles(`scrapfly_nextdata_product_${HAT}_2024-10-21.json`);
    expect(productProblems(r)).toEqual([]);
    expect(r.market!.bids).toEqual({ lowest_ask: 166, highest_bid: 80, number_asks: 5, number_bids: 14 });
    expect(r.variants[0]!.market!.bids.lowest_ask).toBeNull();
    expect(r.variants[0]!.market!.bids.highest_bid).toBe(26);
    expect(r.variants[3]!.market!.sales).toEqual({ last_sale: 328, sales_last_72h: 0 });
  });

  it('GetMarketData answer (2023-12): product and 14 variants', () => {
    const m = parseMarketData(readCapture('stockx/lucaschevrier_response.json'));
    expect(m.ids).toContain('adidas-yeezy-slide-slate-grey');
    expect(m.product).toEqual({
      bids: { lowest_ask: 70, highest_bid: 92, number_asks: 4102, number_bids: 505 },
      sales: { last_sale: 78, sales_last_72h: 2744 },
    });
    expect(m.variants.size).toBe(14);
    for (const market of m.variants.values()) {
      expect(productProblems({ ...emptyProduct(), market })).toEqual([]);
    }
  });

  it('the market answer of another product is refused next to the 2023 page', () => {
    expect(
      codeOf(() => parseFiles(`scrapfly_nextdata_product_${HAT}_2023-05-29.json`, 'lucaschevrier_response.json')),
    ).toBe('upstream_changed');
  });

  it('a search page is not a product page', () => {
    expect(codeOf(() => parseFiles('lucaschevrier_getID.json'))).toBe('upstream_changed');
  });

  it('the GraphQL error capture is upstream_changed as market data', () => {
    expect(codeOf(() => parseMarketData(readCapture('stockx/lucaschevrier_ProductPriceLevel.json')))).toBe(
      'upstream_changed',
    );
  });
});

function emptyProduct() {
  return {
    id: '00000000-0000-4000-8000-000000000000',
    productId: '00000000-0000-4000-8000-000000000000',
    slug: 's',
    name: 'n',
    primary_category: null,
    gender: null,
    brand: null,
    category: null,
    model: null,
    sku: null,
    description: null,
    image: null,
    thumb_image: null,
    small_image: null,
    breadcrumbs: [],
    traits: [],
    market: null,
    variants: [],
  };
}

describe('a 2026 page whose product query has no market node: asks from its JSON-LD offers (issue 29)', () => {
  /** schema.org Product with one Offer per variant (`sku` = variant id), as the 2026 EUR page carries them. */
  const offer = (sku: string, price: number | string, availability = 'InStock', currency = 'EUR') => ({
    '@type': 'Offer',
    sku,
    price,
    priceCurrency: currency,
    gtin: '000111222333',
    availability: `https://schema.org/${availability}`,
    itemCondition: 'https://schema.org/NewCondition',
    url: `https://stockx.com/fr-fr/${SLUG}?size=8`,
  });
  const jsonLd = (offers: unknown[]) => ({
    '@context': 'https://schema.org',
    '@type': 'Product',
    name: 'Marketlens Runner 1 Harbor Blue',
    brand: { '@type': 'Brand', name: 'Marketlens' },
    offers: { '@type': 'AggregateOffer', lowPrice: 118, highPrice: 141, priceCurrency: 'EUR', offerCount: 2, offers },
  });
  const page2026 = (ld: unknown) =>
    fixture('product-page.html').replace(
      '</body>',
      `<script type="application/ld+json">${JSON.stringify(ld)}</script></body>`,
    );
  const EUR = { query: SLUG, country: 'FR', currency: 'EUR' };
  const blocked = (html: string): ProductBodies => ({
    page: { url: PAGE_URL, html },
    market: null,
    marketError: 'upstream_blocked',
  });

  it('lowest_ask per variant (matched by sku) and for the product; the rest named in X-Missing-Parts', () => {
    const html = page2026(jsonLd([offer(V1, 141), offer(V2, '118.00'), offer(V3, 130, 'OutOfStock')]));
    const { record, missing } = resaleAProduct.parse(blocked(html), EUR);
    const r = productSchema.parse(record);
    const ask = (id: string) => r.variants.find((v) => v.id === id)!.market?.bids.lowest_ask;
    expect([ask(V1), ask(V2), ask(V3)]).toEqual([141, 118, null]);
    expect(r.market).toEqual({
      bids: { lowest_ask: 118, highest_bid: null, number_asks: null, number_bids: null },
      sales: { last_sale: null, sales_last_72h: null },
    });
    expect(missing).toEqual([
      'market.bids.highest_bid',
      'market.bids.number_asks',
      'market.bids.number_bids',
      'market.sales',
      'variants.market.bids.highest_bid',
      'variants.market.bids.number_asks',
      'variants.market.bids.number_bids',
      'variants.market.sales',
    ]);
  });

  it('a variant without an offer has no market; offers in another currency than asked are not used', () => {
    const html = page2026(jsonLd([offer(V1, 141)]));
    const r = productSchema.parse(resaleAProduct.parse(blocked(html), EUR).record);
    expect(r.variants.map((v) => v.market?.bids.lowest_ask ?? null)).toEqual([141, null, null]);
    expect(r.variants.find((v) => v.id === V2)!.market).toBeNull();
    const usd = resaleAProduct.parse(blocked(html), { query: SLUG, country: 'US', currency: 'USD' });
    expect((usd.record as { market: unknown }).market).toBeNull();
    expect(usd.missing).toEqual(['market']);
  });

  it('the market answer, when it came, wins over the offers', () => {
    const html = page2026(jsonLd([offer(V1, 1), offer(V2, 2)]));
    const withMarket = parseProduct({ page: { url: PAGE_URL, html }, market: fixture('market-data.json') }, [SLUG]);
    const fromMarket = parseProduct(bodies(fixture('market-data.json')), [SLUG]);
    expect(withMarket.variants.map((v) => v.market)).toEqual(fromMarket.variants.map((v) => v.market));
  });

  it('JSON-LD in a @graph or an offers array is read too; broken JSON-LD is ignored', () => {
    const graph = {
      '@context': 'https://schema.org',
      '@graph': [{ '@type': 'BreadcrumbList' }, { ...jsonLd([]), offers: [offer(V2, 99)] }],
    };
    const html = page2026(graph).replace('</body>', '<script type="application/ld+json">{not json</script></body>');
    const r = productSchema.parse(resaleAProduct.parse(blocked(html), EUR).record);
    expect(r.variants.find((v) => v.id === V2)!.market?.bids.lowest_ask).toBe(99);
  });
});
