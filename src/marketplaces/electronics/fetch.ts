/**
 * The upstream plan of one electronics lookup: the product page, the pricing API, the price view, the reviews API
 * and (with a key) the official Products API, all at once within the lookup's deadline. Each source's failure is
 * caught and recorded, so one slow or blocked source costs only its part of the record.
 */
import { MarketlensError, upstreamChanged } from '../../errors.js';
import type { FetchContext } from '../../operations/types.js';
import { expectOk } from '../../upstream/expect.js';
import type { UpstreamRequest } from '../../upstream/http-client.js';
import { allFailed, fetchSources, sourcesContext } from '../../operations/sources.js';
import type { ElectronicsBodies, SourceName } from './bodies.js';
import { bestbuyApiKey } from './marketplace.js';
import { skuFromPage } from './parse-page.js';
import { parseProductQuery } from './sku.js';

const BESTBUY_ORIGIN = 'https://www.bestbuy.com';
const BESTBUY_API_ORIGIN = 'https://api.bestbuy.com';
/** The reviews page and order we ask for (the spec observed BEST_REVIEW). */
export const REVIEWS_REQUEST = { page: 1, sort: 'BEST_REVIEW', pageSize: 20 } as const;

async function get(ctx: FetchContext, req: UpstreamRequest, what: string): Promise<string> {
  // Akamai blocks, whatever their status, are judged by the client (the electronics descriptor's markers).
  const res = await ctx.http.request(req, ctx);
  expectOk(res, 'electronics', what);
  return res.body;
}

function pageRequest(url: string): UpstreamRequest {
  // The cookie skips the country splash non-US visitors get (notes §6).
  return { url, expect: 'html', label: 'product_page', headers: { accept: 'text/html', cookie: 'intl_splash=false' } };
}

function pricingUrl(sku: string): string {
  const q = new URLSearchParams({
    skuId: sku,
    catalog: 'bby',
    salesChannel: 'LargeView',
    context: 'Product-Page',
    allFinanceOffers: 'true',
    includeOpenboxPrice: 'true',
    usePriceWithCart: 'true',
    paidMemberSkuInCart: 'false',
    effectivePlanPaidMemberType: 'NULL',
    useCabo: 'true',
  });
  return `${BESTBUY_ORIGIN}/pricing/v1/price/item?${q}`;
}

function priceViewUrl(sku: string): string {
  const q = new URLSearchParams({
    _lazyHydrate: 'true',
    context: 'Product-Page',
    deviceClass: 'l',
    effectivePlanPaidMemberType: 'NULL',
    includes: 'price,offers,skuDataAnalytics,buyNowPayLater,dealExpirationTimer,priceBadge,totalTechPrice',
    layout: 'large',
    viewType: 'price',
    skuId: sku,
  });
  return `${BESTBUY_ORIGIN}/priceview/query/sku?${q}`;
}

function reviewsUrl(sku: string): string {
  const { page, pageSize, sort } = REVIEWS_REQUEST;
  return `${BESTBUY_ORIGIN}/ugc/v2/reviews?page=${page}&pageSize=${pageSize}&sku=${sku}&sort=${sort}`;
}

/** One source of the plan: where its body goes, the request, and how messages name it. */
interface SourcePlan {
  name: SourceName;
  request: UpstreamRequest;
  what: string;
}

/** Every source to ask for `sku` (the page only when it was not fetched already to resolve the SKU). */
function plan(sku: string, withPage: boolean, apiKey: string | undefined): SourcePlan[] {
  const json = { accept: 'application/json' };
  const sources: SourcePlan[] = [
    {
      name: 'pricing',
      request: {
        url: pricingUrl(sku),
        expect: 'json',
        label: 'pricing',
        headers: { ...json, 'x-client-id': 'lib-price-browser' },
      },
      what: 'pricing API',
    },
    {
      name: 'priceView',
      request: { url: priceViewUrl(sku), expect: 'json', label: 'priceview', headers: json },
      what: 'price view',
    },
    {
      name: 'reviews',
      request: {
        url: reviewsUrl(sku),
        expect: 'json',
        label: 'reviews',
        headers: { ...json, 'x-client-id': 'ratings-and-reviews-user-generated-content-ratings-and-reviews-v1' },
      },
      what: 'reviews API',
    },
  ];
  if (withPage)
    sources.push({
      name: 'page',
      request: pageRequest(`${BESTBUY_ORIGIN}/site/${sku}.p?skuId=${sku}`),
      what: 'product page',
    });
  if (apiKey !== undefined) {
    // The key travels only in this URL; error messages carry no URL, so it never reaches a client or our logs.
    const url = `${BESTBUY_API_ORIGIN}/v1/products/${sku}.json?format=json&apiKey=${encodeURIComponent(apiKey)}`;
    sources.push({
      name: 'official',
      request: { url, expect: 'json', label: 'official_products_api', headers: json },
      what: 'Products API',
    });
  }
  return sources;
}

/**
 * Fetches every source for `query` (URL or bare SKU). Throws only when the query is bad, the product page says 404,
 * a SKU-less URL cannot be resolved, or every source failed.
 * @example await fetchElectronicsBodies(ctx, '6534615')
 */
export async function fetchElectronicsBodies(ctx: FetchContext, query: string): Promise<ElectronicsBodies> {
  const ref = parseProductQuery(query);
  const bodies: ElectronicsBodies = { errors: {} };
  let sku = ref.sku;
  if (sku === undefined) {
    // `/product/<slug>/<BSIN>` names no SKU: the page itself says which product it shows (and is kept as the page).
    bodies.page = await get(ctx, pageRequest(ref.url!.href), 'product page');
    sku = skuFromPage(bodies.page);
    if (sku === undefined) throw upstreamChanged('electronics', 'product page names no SKU', bodies.page.slice(0, 500));
  }
  bodies.sku = sku;

  const sources = plan(sku, bodies.page === undefined, bestbuyApiKey(ctx.config));
  const sourcesCtx = sourcesContext(ctx);
  const fetched = await fetchSources(
    sources.map(({ name, request, what }) => ({ name, fetch: () => get(sourcesCtx, request, what) })),
  );
  Object.assign(bodies, fetched.bodies);
  bodies.errors = fetched.errors;

  if (bodies.errors.page?.code === 'not_found') {
    throw new MarketlensError('not_found', `Best Buy has no product with SKU ${sku}`, {
      upstreamStatus: bodies.errors.page.status,
    });
  }
  if (bodies.reviews !== undefined) bodies.reviewsRequest = { page: REVIEWS_REQUEST.page, sort: REVIEWS_REQUEST.sort };
  // With the page already in hand (SKU resolution), at least one source answered.
  if (bodies.page === undefined && sources.every((s) => bodies.errors[s.name] !== undefined))
    throw allFailed('electronics', bodies.errors);
  return bodies;
}
