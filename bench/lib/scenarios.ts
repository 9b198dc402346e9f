/**
 * One live-lookup scenario per operation: what the fake marketplace serves (real-sized: captures when ../shared
 * exists, else fixtures) and the request that makes the operation fetch it. Candidates are tried in order; the first
 * that answers 200 is used (a capture that the live path cannot take falls back to the repo fixture), so the bench
 * never reports a figure for a failing lookup. The routes mirror the HTTP tests (test/<marketplace>.test.ts).
 */
import type { ServerResponse } from 'node:http';
import type { OperationName } from '../../src/operations/types.js';
import type { FakeUpstream } from '../../test/support/fake-upstream.js';
import { capture, captureOr, fixture, goatProductPage, largeWatchPage, type Sourced } from './payloads.js';

export interface Candidate {
  /** Where the served bytes come from. */
  source: string;
  /** Registers the fake marketplace's routes. */
  setup(fake: FakeUpstream): void;
  /** Path + query of the lookup on the service. */
  url: string;
}

export interface Scenario {
  op: OperationName;
  /** Row name when one operation has several scenarios (default: the operation name). */
  label?: string;
  /** The marketplace's env name (MARKETLENS_<X>_ORIGIN), or null when the operation makes no upstream request. */
  env: string | null;
  candidates: Candidate[];
}

const HOME = '<!DOCTYPE html><html><head><title>Home</title></head><body></body></html>';
function json(res: ServerResponse, body: string, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(body);
}

/** The HTTP client may visit the home page first, as a browser would (session warm-up). */
function withHome(setup: (fake: FakeUpstream) => void): (fake: FakeUpstream) => void {
  return (fake) => {
    fake.serve('/', HOME);
    setup(fake);
  };
}

/** A GraphQL endpoint answering by operation name (StockX's /api/p/e). */
function stockxGraphql(fake: FakeUpstream, answers: Record<string, string>): void {
  fake.on('POST /api/p/e', (req, res) => {
    const op = JSON.parse(req.body).operationName as string;
    const a = answers[op];
    if (a === undefined) json(res, '{"errors":[{"message":"unknown operation"}]}', 400);
    else json(res, a);
  });
}

/** A Browse answer as StockX sends it (`{data:{browse}}`); some captures saved the data part only. */
function asGraphqlAnswer(text: string): string {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  return 'data' in parsed ? text : JSON.stringify({ data: parsed });
}

function goatProductCandidate(t: Sourced): Candidate {
  const template = JSON.parse(t.value) as { slug: string };
  return {
    source: t.source,
    setup: withHome((f) => f.serve(`/sneakers/${template.slug}`, goatProductPage(template))),
    url: `/api/v1/scraper/resale-b/product?query=${encodeURIComponent(template.slug)}`,
  };
}

const ELECTRONICS_SKU = '6500001';
function electronicsCandidate(page: string): Candidate {
  return {
    source: `fixtures electronics/${page} + pricing-item, priceview, reviews`,
    setup: withHome((f) => {
      f.serve(`/site/${ELECTRONICS_SKU}.p`, fixture(`electronics/${page}`));
      f.serve('/pricing/v1/price/item', fixture('electronics/pricing-item.json'), { type: 'application/json' });
      f.serve('/priceview/query/sku', fixture('electronics/priceview.json'), { type: 'application/json' });
      f.serve('/ugc/v2/reviews', fixture('electronics/reviews.json'), { type: 'application/json' });
    }),
    url: `/api/v1/scraper/electronics/product?query=${ELECTRONICS_SKU}`,
  };
}

const NIKE_PATH = '/t/dunk-low-retro-mens-shoes-76KnBL/DD1391-100';

export function scenarios(): Scenario[] {
  const big = largeWatchPage();
  const browse = capture('stockx/lucaschevrier_browse-adidas-yeezy-boost-test.json');
  const goatTemplate = capture('goat/dewuapiparser_goat_1341930_productTemplate.json');
  const buyBar = captureOr('goat/dewuapiparser_goat_1341930_buy_bar_data.json', 'resale-b/buy-bar-data.json');
  const searchUrl = '/api/v1/scraper/watchmarket/search?query=Rolex%20Submariner';
  return [
    {
      op: 'watchmarket.finder',
      env: null,
      candidates: [
        {
          source: 'shipped catalog (no upstream request)',
          setup: () => {},
          url: '/api/v2/finder/watchmarket-search?query=dial',
        },
      ],
    },
    {
      // `query=a` matches most groups, the 545 brands and ~160 countries included: the finder's biggest answer.
      op: 'watchmarket.finder',
      label: 'watchmarket.finder query=a',
      env: null,
      candidates: [
        {
          source: 'shipped catalog, every big group whole',
          setup: () => {},
          url: '/api/v2/finder/watchmarket-search?query=a',
        },
      ],
    },
    {
      op: 'watchmarket.search',
      env: 'WATCHMARKET',
      candidates: [
        {
          source: `${big.source}, ${Math.round(big.value.length / 1000)} KB`,
          setup: withHome((f) => f.serve('/search/index.htm', big.value)),
          url: searchUrl,
        },
        {
          source: 'fixture watchmarket/search-2026-page1.html',
          setup: withHome((f) => f.serve('/search/index.htm', fixture('watchmarket/search-2026-page1.html'))),
          url: searchUrl,
        },
      ],
    },
    {
      op: 'resale-a.search',
      env: 'RESALE_A',
      candidates: [
        ...(browse
          ? [
              {
                source: 'capture stockx/lucaschevrier_browse-adidas-yeezy-boost-test.json',
                setup: withHome((f) => stockxGraphql(f, { Browse: asGraphqlAnswer(browse) })),
                url: '/api/v1/scraper/resale-a/search?query=yeezy%20boost',
              },
            ]
          : []),
        {
          source: 'fixture resale-a/search-response.json',
          setup: withHome((f) => stockxGraphql(f, { Browse: fixture('resale-a/search-response.json') })),
          url: '/api/v1/scraper/resale-a/search?query=marketlens%20court',
        },
      ],
    },
    {
      op: 'resale-a.product',
      env: 'RESALE_A',
      candidates: [
        {
          source: 'fixtures resale-a/product-page.html + market-data.json',
          setup: withHome((f) => {
            f.serve('/marketlens-runner-1-harbor-blue', fixture('resale-a/product-page.html'));
            stockxGraphql(f, { GetMarketData: fixture('resale-a/market-data.json') });
          }),
          url: '/api/v1/scraper/resale-a/product?query=marketlens-runner-1-harbor-blue',
        },
      ],
    },
    {
      op: 'resale-b.prices',
      env: 'RESALE_B',
      candidates: [
        {
          source: buyBar.source,
          setup: withHome((f) =>
            f.serve('/web-api/v1/product_variants/buy_bar_data', buyBar.value, { type: 'application/json' }),
          ),
          url: '/api/v1/scraper/resale-b/prices?query=1341930',
        },
      ],
    },
    {
      op: 'resale-b.product',
      env: 'RESALE_B',
      candidates: [
        ...(goatTemplate
          ? [
              goatProductCandidate({
                source: 'capture goat/dewuapiparser_goat_1341930_productTemplate.json (in a Next.js page)',
                value: goatTemplate,
              }),
            ]
          : []),
        goatProductCandidate({
          source: 'fixture resale-b/product-template.json (in a Next.js page)',
          value: fixture('resale-b/product-template.json'),
        }),
      ],
    },
    {
      op: 'sportswear.product',
      env: 'SPORTSWEAR',
      candidates: [
        {
          source: 'fixture sportswear/constructed-product-page-us.html (no raw Nike page among the captures)',
          setup: withHome((f) => f.serve(NIKE_PATH, fixture('sportswear/constructed-product-page-us.html'))),
          url: `/api/v1/scraper/sportswear/product?query=${encodeURIComponent(`https://www.nike.com${NIKE_PATH}`)}`,
        },
      ],
    },
    {
      op: 'electronics.product',
      env: 'ELECTRONICS',
      candidates: ['page-initializer.html', 'page-component-json.html', 'page-apollo-rehydrate.html'].map(
        electronicsCandidate,
      ),
    },
  ];
}

/** MARKETLENS_* variables pointing every marketplace at one fake and lifting politeness limits for a benchmark. */
export function benchEnv(origin: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    MARKETLENS_DEADLINE_MS: '30000',
    MARKETLENS_BREAKER_THRESHOLD: '10000',
    MARKETLENS_RETRY_BASE_MS: '0',
  };
  for (const mp of ['WATCHMARKET', 'RESALE_A', 'RESALE_B', 'SPORTSWEAR', 'ELECTRONICS']) {
    env[`MARKETLENS_${mp}_ORIGIN`] = origin;
    env[`MARKETLENS_${mp}_CONCURRENCY`] = '1000';
    env[`MARKETLENS_${mp}_MIN_INTERVAL_MS`] = '0';
    env[`MARKETLENS_${mp}_MAX_QUEUE`] = '100000';
  }
  return { ...env, ...extra };
}
