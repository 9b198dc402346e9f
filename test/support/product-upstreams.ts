/**
 * Fake StockX, GOAT and Nike serving ONE sneaker SKU (`DD1391-100`), built from the repo's fixtures (real upstream
 * structures, our own values): the StockX search and product page + GetMarketData, GOAT's product page and
 * buy_bar_data, Nike's product page (reached through its `/t/-/{STYLE-COLOR}` redirect). The StockX product's GTINs
 * are two of the Nike sizes' (sizes 8 and 10, printed as UPC-12 where Nike prints GTIN-14), so the product answer
 * joins those by GTIN and the others by size label.
 *
 * @example const up = await startProductUpstreams(); testApp(up.env)
 */
import type { ServerResponse } from 'node:http';
import { wrapAsNextDataPage } from '../../src/util/next-data.js';
import { FakeUpstream, type FakeHandler, type LoggedRequest } from './fake-upstream.js';
import { readFixture } from './fixtures.js';

export const SKU = 'DD1391-100';
export const STOCKX_SLUG = 'marketlens-runner-1-harbor-blue';
export const GOAT_ID = 2000001;
export const GOAT_SLUG = 'marketlens-runner-1-harbor-blue-dd1391-100';
export const NIKE_PATH = '/t/dunk-low-retro-mens-shoes-76KnBL/DD1391-100';
const GRAPHQL = '/api/p/e';
export const BUY_BAR = '/web-api/v1/product_variants/buy_bar_data';

/** The StockX page: the fixture product with the SKU as its style id and Nike's barcodes on sizes 8 and 10. */
function stockxPage(): string {
  return readFixture('resale-a/product-page.html')
    .replaceAll('ML-0001-400', SKU)
    .replace(
      '{"type":"UPC","identifier":"000111222333"},{"type":"EAN-13","identifier":"0000111222333"}',
      '{"type":"UPC","identifier":"195869247536"}',
    )
    .replace('{"type":"UPC","identifier":"000111222357"}', '{"type":"UPC","identifier":"195870247536"}');
}

/**
 * A Browse answer: a decoy hit with another style id first, then the product — its hit without a style id, as 2026
 * search hits come (`withSku`: with it).
 */
function stockxSearch(withSku: boolean): string {
  const fixture = JSON.parse(readFixture('resale-a/search-response.json')) as {
    data: { browse: { results: { edges: { node: Record<string, unknown> }[] } } };
  };
  const edges = fixture.data.browse.results.edges;
  const decoy = edges[1]!;
  const product = {
    objectId: '0b6f3c2e-7d41-4e8a-9c5b-1a2d3e4f5a6b',
    node: {
      ...decoy.node,
      id: '0b6f3c2e-7d41-4e8a-9c5b-1a2d3e4f5a6b',
      urlKey: STOCKX_SLUG,
      title: 'Marketlens Runner 1 Harbor Blue',
      styleId: withSku ? SKU : null,
      traits: withSku ? [{ name: 'Style', value: SKU }] : [],
    },
  };
  fixture.data.browse.results.edges = [decoy, product];
  return JSON.stringify(fixture);
}

/**
 * GOAT's prices for the product: the fixture's men's sizes 8 and 9 (9 only used), a men's 10, and a women's `11.5W`
 * (the same shoe as men's 10, which must not join the men's 10 row) and a GS `7Y`.
 */
export function goatBuyBar(): unknown[] {
  const entries = JSON.parse(readFixture('resale-b/buy-bar-data.json')) as Record<string, unknown>[];
  const money = (cents: number | undefined) =>
    cents === undefined ? { currency: 'USD' } : { currency: 'USD', amount: cents, amountUsdCents: cents };
  const entry = (presentation: string, value: number, low: number, sold?: number) => ({
    sizeOption: { presentation, value },
    shoeCondition: 'new_no_defects',
    boxCondition: 'good_condition',
    lowestPriceCents: money(low),
    instantShipLowestPriceCents: money(undefined),
    lastSoldPriceCents: money(sold),
    stockStatus: 'multiple_in_stock',
  });
  return [...entries, entry('10', 10, 12900, 12200), entry('11.5W', 11.5, 14100), entry('7Y', 7, 9900)];
}

export const GOAT_SEARCH = '/web-api/consumer-search/get-product-search-results';

/** GOAT's consumer search: the fixture's answer with the product first (no SKU: the consumer search sends none). */
function goatSearch(): string {
  const fixture = JSON.parse(readFixture('resale-b/consumer-search.json')) as {
    data: { productsList: Record<string, unknown>[] };
  };
  const [first, ...rest] = fixture.data.productsList;
  fixture.data.productsList = [{ ...first, id: String(GOAT_ID), slug: GOAT_SLUG }, ...rest];
  return JSON.stringify(fixture);
}

function goatPage(): string {
  const template = JSON.parse(readFixture('resale-b/product-template.json')) as Record<string, unknown>;
  const productTemplate = { ...template, id: GOAT_ID, slug: GOAT_SLUG, sku: 'DD1391 100' };
  return wrapAsNextDataPage({
    props: { pageProps: { productTemplate, offers: { offerData: null } }, __N_SSP: true },
    page: '/sneakers/[slug]',
    query: { slug: GOAT_SLUG },
    buildId: 'fixture-build',
  });
}

function json(res: ServerResponse, body: unknown, status = 200): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(typeof body === 'string' ? body : JSON.stringify(body));
}

function html(res: ServerResponse, body: string, status = 200): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);
}

export interface ProductUpstreams {
  stockx: FakeUpstream;
  goat: FakeUpstream;
  nike: FakeUpstream;
  /** MARKETLENS_*_ORIGIN for the three. */
  env: Record<string, string>;
  /** Upstream requests of all three. */
  count(): number;
  /** Every request is first passed to this (a test holds requests here); it resolves to let the request go on. */
  gate: (marketplace: 'stockx' | 'goat' | 'nike', req: LoggedRequest) => Promise<void>;
  /** Serves the product again on all three (after a test replaced a route). */
  /** `stockxMarketDown`: StockX's GetMarketData answers 500 (the product page still answers). */
  serveProduct(options?: { stockxSearchHasSku?: boolean; stockxMarketDown?: boolean }): void;
  stop(): Promise<void>;
}

export async function startProductUpstreams(): Promise<ProductUpstreams> {
  const [stockx, goat, nike] = await Promise.all([
    new FakeUpstream().start(),
    new FakeUpstream().start(),
    new FakeUpstream().start(),
  ]);
  const up: ProductUpstreams = {
    stockx,
    goat,
    nike,
    env: {
      MARKETLENS_RESALE_A_ORIGIN: stockx.origin,
      MARKETLENS_RESALE_B_ORIGIN: goat.origin,
      MARKETLENS_SPORTSWEAR_ORIGIN: nike.origin,
    },
    count: () => stockx.count() + goat.count() + nike.count(),
    gate: async () => {},
    serveProduct(options = {}) {
      const held =
        (mp: 'stockx' | 'goat' | 'nike', handler: FakeHandler): FakeHandler =>
        async (req, res) => {
          await up.gate(mp, req);
          await handler(req, res);
        };
      for (const f of [stockx, goat, nike]) f.reset();
      const page = stockxPage();
      const search = stockxSearch(options.stockxSearchHasSku ?? false);
      const market = readFixture('resale-a/market-data.json');
      stockx.otherwise(
        held('stockx', (req, res) => {
          if (req.path === GRAPHQL) {
            const op = (JSON.parse(req.body) as { operationName?: string }).operationName;
            if (op === 'Browse') return json(res, search);
            if (op === 'GetMarketData') {
              return options.stockxMarketDown ? json(res, { message: 'down' }, 500) : json(res, market);
            }
            return json(res, readFixture('resale-a/graphql-schema-error.json'), 400);
          }
          if (req.path === `/${STOCKX_SLUG}`) return html(res, page);
          return html(res, '<html><body>Not Found</body></html>', 404);
        }),
      );
      const goatProduct = goatPage();
      const buyBar = JSON.stringify(goatBuyBar());
      const searchAnswer = goatSearch();
      goat.otherwise(
        held('goat', (req, res) => {
          if (req.path === '/')
            return html(res, '<!DOCTYPE html><html><head><title>GOAT</title></head><body></body></html>');
          if (req.path === GOAT_SEARCH) return json(res, searchAnswer);
          if (req.path === BUY_BAR && req.query.get('productTemplateId') === String(GOAT_ID)) return json(res, buyBar);
          if (req.path === `/sneakers/${GOAT_SLUG}`) return html(res, goatProduct);
          return html(res, '<html><body>Not Found</body></html>', 404);
        }),
      );
      const nikePage = readFixture('sportswear/constructed-product-page-us.html');
      nike.otherwise(
        held('nike', (req, res) => {
          if (req.path === `/t/-/${SKU}`) return void res.writeHead(301, { location: NIKE_PATH }).end();
          if (req.path === NIKE_PATH) return html(res, nikePage);
          // Nike sends a code it does not know to a listing page.
          if (req.path.startsWith('/t/-/')) return void res.writeHead(302, { location: '/w/mens-shoes' }).end();
          return html(res, '<!DOCTYPE html><html><head><title>Nike</title></head><body>listing</body></html>');
        }),
      );
    },
    async stop() {
      await Promise.all([stockx.stop(), goat.stop(), nike.stop()]);
    },
  };
  up.serveProduct();
  return up;
}
