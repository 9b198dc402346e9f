/**
 * Spec 4.6: one StockX product with variants and market data. Catalog from the product page's `__NEXT_DATA__`;
 * market (product and every size) from the web GraphQL `GetMarketData`, fetched in parallel (notes §1).
 */
import { asRecord, at } from '../../util/json-path.js';
import { z } from 'zod';
import { MarketlensError, isUpstreamFailure } from '../../errors.js';
import { defineOperation, type FetchContext, type SavedFile } from '../../operations/types.js';
import { refineWith } from '../../operations/refine-with.js';
import { wrapAsNextDataPage } from '../../util/next-data.js';
import { MARKET_DOCUMENT, MARKET_OPERATION } from './graphql-documents.js';
import { graphqlData } from './graphql-response.js';
import { hasMarketShape } from './parse-market.js';
import {
  completeLanguage,
  countryParam,
  currencyParam,
  languageParam,
  resolveLocale,
  type ResaleALocale,
} from './locale.js';
import { PARTS_NOT_IN_OFFERS } from './parse-offers.js';
import { parseProductWithSource, slugOfPageUrl, type ProductBodies } from './parse-product.js';
import { parseProductQuery, type ProductRef } from './query-input.js';
import { productSchema } from './schema.js';
import { STOCKX_ORIGIN, fetchProductPage, postGraphql, productPageUrl } from './upstream.js';
import { extractResaleAProduct } from './history-extract.js';

const params = z
  .object({
    query: z
      .string()
      .trim()
      .min(1)
      .max(300)
      .superRefine(refineWith(parseProductQuery))
      .describe('Product slug (`nike-dunk-low-retro-white-black-2021`), stockx.com product URL, or product id (UUID)'),
    country: countryParam.optional(),
    language: languageParam.optional(),
    currency: currencyParam.optional(),
  })
  .strict();
type Params = z.output<typeof params>;

/**
 * GraphQL variables of GetMarketData: the country is both `countryCode` and `marketName` (notes §5).
 * @example marketVariables('nike-x-stussy-bucket-hat-black', { country: 'FR', currency: 'EUR', language: 'fr-FR' })
 */
export function marketVariables(id: string, locale: ResaleALocale): Record<string, unknown> {
  return {
    id,
    currencyCode: locale.currency,
    countryCode: locale.country,
    marketName: locale.country,
    viewerContext: 'BUYER',
  };
}

function fetchMarket(ctx: FetchContext, id: string, locale: ResaleALocale, referer: string): Promise<string> {
  return postGraphql(ctx, {
    operationName: MARKET_OPERATION,
    query: MARKET_DOCUMENT,
    variables: marketVariables(id, locale),
    locale,
    referer,
  });
}

async function fetchBodies(ctx: FetchContext, ref: ProductRef, locale: ResaleALocale): Promise<ProductBodies> {
  if (ref.kind === 'uuid') {
    // Pages are addressed by slug only; GetMarketData takes the UUID and tells us the slug.
    const market = await fetchMarket(ctx, ref.uuid, locale, `${STOCKX_ORIGIN}/`);
    const slug = at(graphqlData(market, 'product', MARKET_OPERATION), 'product', 'urlKey');
    if (typeof slug !== 'string' || slug === '') {
      throw new MarketlensError('upstream_changed', `resale-a: ${MARKET_OPERATION} gave no urlKey for ${ref.uuid}`);
    }
    const page = await fetchProductPage(ctx, slug, locale);
    return { page: { url: page.url, html: page.body }, market };
  }
  const [page, market] = await Promise.allSettled([
    fetchProductPage(ctx, ref.slug, locale),
    fetchMarket(ctx, ref.slug, locale, productPageUrl(ref.slug, locale.language)),
  ]);
  if (page.status === 'rejected') throw page.reason;
  const pageBody = { url: page.value.url, html: page.value.body };
  // A renamed product's old slug redirects to the new page; ask the market of the slug the page answered for.
  const finalSlug = slugOfPageUrl(page.value.url);
  const settled =
    finalSlug !== undefined && finalSlug !== ref.slug
      ? (await Promise.allSettled([fetchMarket(ctx, finalSlug, locale, page.value.url)]))[0]
      : market;
  // Market data of a shape we do not know is a failed part (X-Missing-Parts: market), the catalog still answered.
  if (settled.status === 'fulfilled') {
    return hasMarketShape(settled.value)
      ? { page: pageBody, market: settled.value }
      : { page: pageBody, market: null, marketError: 'upstream_changed' };
  }
  const e = settled.reason;
  // A failure on StockX's side leaves a usable record (catalog without market) rather than failing the lookup.
  if (isUpstreamFailure(e)) return { page: pageBody, market: null, marketError: e.code };
  throw e;
}

export const resaleAProduct = defineOperation({
  name: 'resale-a.product',
  marketplace: 'resale-a',
  path: '/api/v1/scraper/resale-a/product',
  summary: 'Product with variants and market data (StockX)',
  description:
    'Catalog data (titles, images, breadcrumbs, traits, every size conversion — us m, us w, uk, cm, kr, eu … — and ' +
    'barcodes) from the product page, and market data (lowest ask, highest bid, ask and bid counts, last sale, sales in ' +
    "the last 72 hours) for the product and each size from StockX's `GetMarketData`, for `country` in `currency`.\n\n" +
    '- Prices are whole units of the currency. A missing ask or bid is `null`, never 0.\n' +
    "- `country` defaults to US, `currency` to the country's StockX currency (EUR in FR, GBP in GB …), `language` " +
    '(catalog texts) to en-US; a bare `language` (`en`, `fr`) is completed for the country (en in GB → en-GB).\n' +
    '- When the market data cannot be fetched (blocked, upstream error) the catalog is still answered with ' +
    '`market: null` and the response header `X-Missing-Parts: market`; when the page states per-size prices in its ' +
    'JSON-LD offers (2026 pages, in the requested currency), `lowest_ask` comes from them (each variant matched by ' +
    "the offer's `sku`, the product's the lowest), the other market fields are null and named in `X-Missing-Parts`.\n" +
    '- `query` also takes a stockx.com URL or the product UUID; other hosts are rejected (400).',
  params,
  record: productSchema,
  cacheClass: 'products',
  example: {
    params: { query: 'nike-x-stussy-bucket-hat-black', country: 'US', currency: 'USD', language: 'en-US' },
    response: {
      id: 'ef4b2b9b-ab4d-41af-b56a-c4937e8f7a1e',
      productId: 'ef4b2b9b-ab4d-41af-b56a-c4937e8f7a1e',
      slug: 'nike-x-stussy-bucket-hat-black',
      name: 'Nike x Stussy Bucket Hat Black',
      primary_category: 'Nike Apparel',
      gender: 'unisex',
      brand: 'Nike',
      category: 'streetwear',
      model: 'Bucket Hat',
      sku: null,
      description: 'For their third collaboration, Nike and Stussy took their relationship a little further…',
      image:
        'https://images.stockx.com/images/Nike-x-Stussy-Bucket-Hat-Black-Product-1.jpg?fit=fill&bg=FFFFFF&w=700&h=500',
      thumb_image:
        'https://images.stockx.com/images/Nike-x-Stussy-Bucket-Hat-Black-Product-1.jpg?fit=fill&bg=FFFFFF&w=140&h=100',
      small_image:
        'https://images.stockx.com/images/Nike-x-Stussy-Bucket-Hat-Black-Product-1.jpg?fit=fill&bg=FFFFFF&w=300&h=214',
      breadcrumbs: [
        { url: '/', name: 'Home', level: 1 },
        { url: '/accessories', name: 'accessories', level: 2 },
      ],
      traits: [{ name: 'Release Date', value: '2020-07-24' }],
      market: {
        bids: { lowest_ask: 166, highest_bid: 80, number_asks: 5, number_bids: 14 },
        sales: { last_sale: 85, sales_last_72h: 0 },
      },
      variants: [
        {
          id: '59411cb9-2474-42e8-b88e-d32847d4bd8d',
          sizes: [{ size: 'US XS/S', type: 'us' }],
          gtins: [{ type: 'UPC', identifier: '193657503496' }],
          market: {
            bids: { lowest_ask: null, highest_bid: 26, number_asks: 0, number_bids: 2 },
            sales: { last_sale: 65, sales_last_72h: 0 },
          },
          traits: { size: 'XS/S' },
        },
      ],
    },
  },
  async fetch(ctx, p) {
    return fetchBodies(ctx, parseProductQuery(p.query), resolveLocale(p));
  },
  parse(bodies: ProductBodies, p: Partial<Params>) {
    const { record, marketSource } = parseProductWithSource(bodies, requestedSlugs(p), resolveLocale(p).currency);
    const marketFailed = bodies.market === null && bodies.marketError !== undefined;
    // The offers of the page's JSON-LD give the asks only: what else the market request would have given is missing.
    const missing = !marketFailed ? [] : marketSource === 'offers' ? [...PARTS_NOT_IN_OFFERS] : ['market'];
    return { record, missing };
  },
  // A stockx.com URL (any locale prefix, any query string) is its slug; a UUID stays a UUID (its slug is unknown
  // until fetched). Locale parameters are kept as given: their defaults depend on each other.
  canonicalParams: (p) => {
    const ref = parseProductQuery(p.query);
    const canonical = { ...p, query: ref.kind === 'slug' ? ref.slug : ref.uuid };
    // `en` and the locale it completes to (en-US in the US) are one lookup.
    if (p.language !== undefined) canonical.language = completeLanguage(p.language, p.country ?? 'US');
    return canonical;
  },
  // Without the example's locale: the marketplace's default country.
  probe: { query: 'nike-x-stussy-bucket-hat-black' },
  history: extractResaleAProduct,
  identify: (record, p) => {
    const locale = resolveLocale(p);
    return { id: record.id, country: locale.country, currency: locale.currency, locale: locale.language };
  },
  bodiesFromFiles(files, p) {
    return productBodiesFromFiles(files, requestedSlugs(p));
  },
});

function requestedSlugs(p: Partial<Params>): string[] {
  if (!p.query) return [];
  try {
    const ref = parseProductQuery(p.query);
    return ref.kind === 'slug' ? [ref.slug] : [];
  } catch {
    return [];
  }
}

/**
 * `marketlens parse resale-a.product PAGE [MARKET]`: PAGE is a product page (HTML), its `__NEXT_DATA__` JSON, or a
 * product node cut out of it (a node with a `pricing` key, as Scrapfly saved 2024 pages, carries its market data);
 * MARKET is a GetMarketData answer (`{data:{product}}` or data-only `{product}`).
 */
export function productBodiesFromFiles(files: SavedFile[], slugs: readonly string[]): ProductBodies {
  let page: string | undefined;
  let market: string | undefined;
  const url = slugs[0] ? productPageUrl(slugs[0], 'en-US') : '';
  const setPage = (text: string, path: string) => {
    if (page !== undefined) throw usage(`two product pages given (${path})`);
    page = text;
  };
  const setMarket = (text: string, path: string) => {
    if (market !== undefined) throw usage(`two market-data answers given (${path})`);
    market = text;
  };
  for (const f of files) {
    if (f.text.trimStart().startsWith('<')) {
      setPage(f.text, f.path);
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(f.text);
    } catch {
      throw usage(`${f.path} is neither HTML nor JSON`);
    }
    const json = asRecord(parsed);
    if (json && typeof json === 'object' && (json.props || json.buildId)) {
      setPage(wrapAsNextDataPage(json), f.path);
    } else if (json && typeof json === 'object' && typeof json.urlKey === 'string' && Array.isArray(json.variants)) {
      const { pricing, ...node } = json;
      setPage(wrapAsNextDataPage(node), f.path);
      if (pricing && typeof pricing === 'object') setMarket(JSON.stringify({ data: { product: pricing } }), f.path);
    } else if (json && typeof json === 'object' && (json.data || json.errors || json.product)) {
      setMarket(f.text, f.path);
    } else {
      throw usage(`${f.path} is not a product page, __NEXT_DATA__, product node or GetMarketData answer`);
    }
  }
  if (page === undefined) throw usage('a product page (HTML, __NEXT_DATA__ JSON or product node) is required');
  return { page: { url, html: page }, market: market ?? null };
}

function usage(message: string): MarketlensError {
  return new MarketlensError('invalid_parameter', `resale-a.product: ${message}`);
}
