/**
 * Five fake marketplaces that answer whatever an operation asks for with a valid fixture for that very product
 * (the slug, SKU or style-colour of the request written into the fixture), or 404 when no fixture fits. For tests
 * that send arbitrary parameters and need every accepted lookup to be answerable (fuzzing).
 */
import type { ServerResponse } from 'node:http';
import { MARKETPLACE_INFO, MARKETPLACES, type Marketplace } from '../../src/marketplaces/catalog.js';
import { skuFromUrl } from '../../src/marketplaces/electronics/sku.js';
import { wrapAsNextDataPage } from '../../src/util/next-data.js';
import { FakeUpstream, type LoggedRequest } from './fake-upstream.js';
import { readFixture } from './fixtures.js';

const fixture = (rel: string) => readFixture(`${rel}`);
/** Replaces every occurrence without `$` patterns (a plain split/join). */
const swap = (text: string, from: string, to: string) => text.split(from).join(to);

const HOME = '<!DOCTYPE html><html><head><title>Home</title></head><body></body></html>';

function send(res: ServerResponse, body: string, type: string, status = 200): void {
  res.writeHead(status, { 'content-type': type }).end(body);
}
const html = (res: ServerResponse, body: string) => send(res, body, 'text/html; charset=utf-8');
const json = (res: ServerResponse, body: string) => send(res, body, 'application/json');
const notFound = (res: ServerResponse) => send(res, '<html><body>Not Found</body></html>', 'text/html', 404);

// resale-a (StockX): product page by slug, GraphQL Browse and GetMarketData.
const STOCKX_SLUG = 'marketlens-runner-1-harbor-blue';
const STOCKX_PAGE = fixture('resale-a/product-page.html');
const STOCKX_MARKET = fixture('resale-a/market-data.json');
const STOCKX_SEARCH = fixture('resale-a/search-response.json');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function stockx(req: LoggedRequest, res: ServerResponse): void {
  if (req.method === 'POST' && req.path === '/api/p/e') {
    const body = JSON.parse(req.body) as { operationName?: string; variables?: { id?: string } };
    if (body.operationName === 'Browse') return json(res, STOCKX_SEARCH);
    if (body.operationName === 'GetMarketData') {
      const id = body.variables?.id ?? '';
      // A UUID is answered with the fixture's own product (whose urlKey then names the page to fetch).
      return json(res, UUID.test(id) ? STOCKX_MARKET : swap(STOCKX_MARKET, STOCKX_SLUG, id));
    }
    return send(res, '{"errors":[{"message":"unknown operation"}]}', 'application/json', 400);
  }
  // /{slug} or /{locale}/{slug}
  const segments = req.path
    .split('/')
    .filter(Boolean)
    .map((s) => safeDecode(s));
  const slug = segments.at(-1);
  if (segments.length < 1 || segments.length > 2 || slug === undefined || !/^[A-Za-z0-9_-]+$/.test(slug))
    return notFound(res);
  html(res, swap(STOCKX_PAGE, STOCKX_SLUG, slug));
}

// resale-b (GOAT): buy_bar_data for any template id, product pages for any slug, the same search answer for any text.
const GOAT_BUY_BAR = fixture('resale-b/buy-bar-data.json');
const GOAT_SEARCH = fixture('resale-b/consumer-search.json');
const GOAT_TEMPLATE = JSON.parse(fixture('resale-b/product-template.json')) as Record<string, unknown>;

function goat(req: LoggedRequest, res: ServerResponse): void {
  if (req.path === '/web-api/v1/product_variants/buy_bar_data') return json(res, GOAT_BUY_BAR);
  if (req.path === '/web-api/consumer-search/get-product-search-results') return json(res, GOAT_SEARCH);
  const m = /^\/(sneakers|apparel)\/([^/]+)$/.exec(req.path);
  if (!m) return notFound(res);
  const slug = safeDecode(m[2]!);
  html(
    res,
    wrapAsNextDataPage({
      props: { pageProps: { productTemplate: { ...GOAT_TEMPLATE, slug }, offers: { offerData: null } }, __N_SSP: true },
      page: `/${m[1]}/[slug]`,
      query: { slug },
      buildId: 'fixture-build',
    }),
  );
}

// sportswear (Nike): any product page path ending in a style-colour gets that colourway's page.
const NIKE_US = fixture('sportswear/constructed-product-page-us.html');
const NIKE_FR = fixture('sportswear/constructed-product-page-fr.html');
const NIKE_PATH = /^(?:\/([A-Za-z]{2}))?(?:\/[A-Za-z]{2})?\/t\/(?:[^/]+\/)*?([A-Za-z0-9]{5,8}-[A-Za-z0-9]{3})\/?$/;

function nike(req: LoggedRequest, res: ServerResponse): void {
  const m = NIKE_PATH.exec(req.path);
  if (!m) return notFound(res);
  const code = m[2]!.toUpperCase();
  const fr = m[1]?.toLowerCase() === 'fr';
  html(res, fr ? swap(NIKE_FR, 'CW2288-111', code) : swap(NIKE_US, 'DD1391-100', code));
}

// electronics (Best Buy): the page, pricing, price view and reviews of whichever SKU is asked for.
const BBY_SKU = '6500001';
const BBY_PAGE = fixture('electronics/page-apollo-rehydrate.html');
const BBY_PRICING = fixture('electronics/pricing-item.json');
const BBY_PRICEVIEW = fixture('electronics/priceview.json');
const BBY_REVIEWS = fixture('electronics/reviews.json');

function bestbuy(req: LoggedRequest, res: ServerResponse): void {
  const forSku = (text: string, sku: string | null) => (sku && /^\d+$/.test(sku) ? swap(text, BBY_SKU, sku) : text);
  if (req.path === '/pricing/v1/price/item') return json(res, forSku(BBY_PRICING, req.query.get('skuId')));
  if (req.path === '/priceview/query/sku') return json(res, forSku(BBY_PRICEVIEW, req.query.get('skuId')));
  if (req.path === '/ugc/v2/reviews') return json(res, forSku(BBY_REVIEWS, req.query.get('sku')));
  if (!/^\/(site|product)\//.test(req.path)) return notFound(res);
  // A page URL without a SKU (/product/{slug}/{BSIN}) gets the fixture's own SKU, which the service then uses.
  const sku = skuFromUrl(new URL(req.url, 'https://www.bestbuy.com')) ?? BBY_SKU;
  html(res, forSku(BBY_PAGE, sku));
}

// watchmarket (Chrono24): page 1 of a search has results; any later page is an empty results page.
const CHRONO_PAGE1 = fixture('watchmarket/search-2026-page1.html');
const CHRONO_EMPTY = fixture('watchmarket/search-2026-empty.html');

function chrono24(req: LoggedRequest, res: ServerResponse): void {
  if (!req.path.endsWith('.htm')) return notFound(res);
  const page = req.query.get('showpage') ?? '1';
  html(res, page === '1' ? CHRONO_PAGE1 : CHRONO_EMPTY);
}

const HANDLERS: Record<Marketplace, (req: LoggedRequest, res: ServerResponse) => void> = {
  'resale-a': stockx,
  'resale-b': goat,
  sportswear: nike,
  electronics: bestbuy,
  watchmarket: chrono24,
};

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export interface FixtureMarketplaces {
  fakes: Record<Marketplace, FakeUpstream>;
  /** MARKETLENS_<MP>_ORIGIN for every marketplace. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Starts the five fakes (home page for session warm-ups, fixtures for everything else).
 * @example const m = await startFixtureMarketplaces(); const app = await testApp(m.env);
 */
export async function startFixtureMarketplaces(): Promise<FixtureMarketplaces> {
  const fakes = {} as Record<Marketplace, FakeUpstream>;
  const env: Record<string, string> = {};
  for (const mp of MARKETPLACES) {
    const fake = await new FakeUpstream().start();
    fake.serve('/', HOME);
    fake.otherwise(HANDLERS[mp]);
    fakes[mp] = fake;
    env[`MARKETLENS_${MARKETPLACE_INFO[mp].envName}_ORIGIN`] = fake.origin;
  }
  return { fakes, env, stop: () => Promise.all(Object.values(fakes).map((f) => f.stop())).then(() => undefined) };
}
