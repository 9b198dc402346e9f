/**
 * The inputs of the parser-robustness suite: for every operation, every repo fixture and real capture its own tests
 * parse, as the bodies `parse` takes (built the way those tests build them) and the parameters they use.
 */
import { readdirSync } from 'node:fs';
import type { ErrorCode } from '../../src/errors.js';
import { OPERATIONS } from '../../src/operations/registry.js';
import type { Operation, OperationName, SavedFile } from '../../src/operations/types.js';
import { FINDER_CATALOG } from '../../src/marketplaces/watchmarket/finder-catalog-data.js';
import { wrapAsNextDataPage } from '../../src/util/next-data.js';
import type { Reported } from './robustness.js';
import { readCapture, sharedAvailable, sharedDir } from './shared.js';
import { readFixture } from './fixtures.js';

export interface RobustnessCase {
  op: Operation;
  /** `fixture:` (repo, always run) or `capture:` (../shared, skipped without it). */
  label: string;
  shared: boolean;
  params: Record<string, unknown>;
  /** Fresh unmutated bodies. */
  bodies: () => unknown;
  /** Error codes beyond upstream_changed/not_found this input may legitimately produce, with the reason. */
  extraCodes?: Partial<Record<ErrorCode, string>>;
}

/**
 * Invented values found by this suite and reported with a proposed fix (issue 10 robustness report). Each entry is
 * one exact value at one path, so anything else invented there still fails; delete the entry with the fix.
 */
const SEARCH_REPORTED: Reported[] = [
  {
    // Accepted, not a bug: the model name without its colourway (StockX apparel has no secondary title).
    path: /^\[\]\.name$/,
    value: '"Marketlens Court 2"',
    why: 'title null and secondaryTitle missing: the name is primaryTitle alone',
  },
];
export const REPORTED: Partial<Record<OperationName, Reported[]>> = {
  'resale-a.search': SEARCH_REPORTED,
  // Trends is parsed by the search parser.
  'resale-a.trends': SEARCH_REPORTED,
};

/**
 * Record paths (normalised: `[]` for any index) whose value may legitimately differ from the unmutated record's
 * after a mutation, because the service derives it or reads a documented second source when the first is missing.
 * Everywhere else a mutated record holds only values the unmutated record holds at that place, or null.
 */
export const DERIVED: Partial<Record<OperationName, RegExp[]>> = {
  // price_stats are computed from the page's priced listings; pagination from the nav's presence.
  'watchmarket.search': [/^\.stats\.price_stats\./, /^\.pagination\./],
  // image: media.thumbUrl, else smallImageUrl, else imageUrl (parse-search.ts).
  'resale-a.search': [/^\[\]\.image$/],
  'resale-a.trends': [/^\[\]\.image$/],
  // lowest_price: the lowest of the variants' prices (a removed one leaves the next lowest); release_date: the date,
  // else the date-time (Constructor); url: the section follows the category.
  'resale-b.search': [/^\[\]\.lowest_price$/, /^\[\]\.release_date$/, /^\[\]\.url$/],
  // last_sale: salesInformation.lastSale, else statistics.lastSale.amount (parse-market.ts, two generations).
  'resale-a.product': [/\.market\.sales\.last_sale$/],
  // photos: the gallery, else the photos of the fetched review topics (parse-reviews.ts).
  'electronics.product': [/^\.reviews\.photos\./],
};

const fixture = (rel: string): string => readFixture(`${rel}`);

function fromFiles(op: Operation, files: string[], params: Record<string, unknown>): () => unknown {
  return () => {
    const saved: SavedFile[] = files.map((f) => ({ path: f, text: readCapture(f) }));
    return op.bodiesFromFiles(saved, params);
  };
}

/** A GOAT product page around a productTemplate, as resale-b's tests build it. */
function goatPage(template: unknown): string {
  return wrapAsNextDataPage({
    props: { pageProps: { productTemplate: template, offers: { offerData: null } }, __N_SSP: true },
    page: '/sneakers/[slug]',
    query: { slug: (template as { slug?: string }).slug },
    buildId: 'fixture-build',
  });
}

/** The first productTemplate (numeric id, slug, name, sizeOptions) in a GOAT capture. */
function firstTemplate(rel: string): unknown {
  let found: unknown;
  const walk = (v: unknown): void => {
    if (found !== undefined || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach(walk);
    const o = v as Record<string, unknown>;
    if (
      typeof o.id === 'number' &&
      typeof o.slug === 'string' &&
      typeof o.name === 'string' &&
      Array.isArray(o.sizeOptions)
    ) {
      found = o;
      return;
    }
    Object.values(o).forEach(walk);
  };
  walk(JSON.parse(readCapture(rel)));
  if (found === undefined) throw new Error(`no productTemplate in ${rel}`);
  return found;
}

const STOCKX_SLUG = 'marketlens-runner-1-harbor-blue';
const ELECTRONICS_SOURCES = () => ({
  pricing: fixture('electronics/pricing-item.json'),
  priceView: fixture('electronics/priceview.json'),
  reviews: fixture('electronics/reviews.json'),
  reviewsRequest: { page: 1, sort: 'BEST_REVIEW' },
});

export function fixtureCases(): RobustnessCase[] {
  const o = OPERATIONS;
  return [
    {
      op: o['watchmarket.finder'],
      label: 'shipped finder catalog',
      shared: false,
      params: { query: 'dial' },
      bodies: () => structuredClone(FINDER_CATALOG),
    },
    {
      op: o['watchmarket.finder'],
      label: 'shipped finder catalog (query "a")',
      shared: false,
      params: { query: 'a' },
      bodies: () => structuredClone(FINDER_CATALOG),
    },
    ...(
      [
        ['search-2026-page1.html', 1],
        ['search-2026-last-page.html', 21],
        ['search-2026-empty.html', 1],
      ] as const
    ).map(([file, page]) => ({
      op: o['watchmarket.search'],
      label: `fixture: watchmarket/${file}`,
      shared: false,
      params: { page },
      bodies: () => ({
        url: 'https://www.chrono24.com/omega/speedmaster--mod63.htm',
        pages: [fixture(`watchmarket/${file}`)],
      }),
    })),
    {
      op: o['resale-a.search'],
      label: 'fixture: resale-a/search-response.json',
      shared: false,
      params: {},
      bodies: () => fixture('resale-a/search-response.json'),
    },
    {
      op: o['resale-a.trends'],
      label: 'fixture: resale-a/search-response.json',
      shared: false,
      params: { sort_by: 'most_active' },
      bodies: () => fixture('resale-a/search-response.json'),
    },
    ...['market-data.json', 'market-data-bidaskdata.json'].map((market) => ({
      op: o['resale-a.product'],
      label: `fixture: resale-a/product-page.html + ${market}`,
      shared: false,
      params: { query: STOCKX_SLUG },
      bodies: () => ({
        page: { url: `https://stockx.com/${STOCKX_SLUG}`, html: fixture('resale-a/product-page.html') },
        market: fixture(`resale-a/${market}`),
      }),
    })),
    {
      op: o['resale-b.prices'],
      label: 'fixture: resale-b/buy-bar-data.json',
      shared: false,
      params: { query: '1', country: 'US' },
      bodies: () => fixture('resale-b/buy-bar-data.json'),
    },
    ...(
      [
        ['consumer', 'consumer-search.json'],
        ['constructor', 'constructor-search.json'],
      ] as const
    ).map(([source, file]) => ({
      op: o['resale-b.search'],
      label: `fixture: resale-b/${file}`,
      shared: false,
      params: { query: 'fr2001', page: 1, limit: 12 },
      bodies: () => ({ source, body: fixture(`resale-b/${file}`) }),
    })),
    {
      op: o['resale-b.product'],
      label: 'fixture: resale-b/product-template.json (as a page)',
      shared: false,
      params: {},
      bodies: () => goatPage(JSON.parse(fixture('resale-b/product-template.json'))),
    },
    {
      op: o['resale-b.product'],
      label: 'fixture: resale-b/product-template.json (bare JSON)',
      shared: false,
      params: {},
      bodies: () => fixture('resale-b/product-template.json'),
    },
    ...(
      [
        ['constructed-product-page-us.html', 'DD1391-100'],
        ['constructed-product-page-fr.html', 'CW2288-111'],
      ] as const
    ).map(([file, query]) => ({
      op: o['sportswear.product'],
      label: `fixture: sportswear/${file}`,
      shared: false,
      params: { query },
      bodies: () => ({ html: fixture(`sportswear/${file}`), url: null }),
    })),
    ...[
      'page-apollo-rehydrate.html',
      'page-apollo-events.html',
      'page-component-json.html',
      'page-initializer.html',
    ].map((file) => ({
      op: o['electronics.product'],
      label: `fixture: electronics/${file} + pricing, price view, reviews`,
      shared: false,
      params: {},
      bodies: () => ({
        sku: file === 'page-apollo-events.html' ? '6576719' : '6500001',
        page: fixture(`electronics/${file}`),
        ...ELECTRONICS_SOURCES(),
        errors: {},
      }),
    })),
    {
      op: o['electronics.product'],
      label: 'fixture: electronics/official-product.json + pricing, price view, reviews',
      shared: false,
      params: {},
      bodies: () => ({
        sku: '6500001',
        official: fixture('electronics/official-product.json'),
        ...ELECTRONICS_SOURCES(),
        errors: {},
      }),
    },
  ];
}

export function captureCases(): RobustnessCase[] {
  if (!sharedAvailable) return [];
  const o = OPERATIONS;
  const C24 = 'chrono24/search-2026_rolex-submariner_excerpt-';
  const A = `${C24}A_head-metaData-jsonld.html`;
  const B = `${C24}B_offset130000-178000_quickfilters-count-sorter-cards1-3.html`;
  const C = `${C24}C_offset604000-636000_cards59-60-pagination-pagesize.html`;
  const LEGACY = 'chrono24/legacy-2023-03_search-cards-fragments_tkrejzlik.html';
  const watch = (label: string, url: string, files: string[]): RobustnessCase => ({
    op: o['watchmarket.search'],
    label: `capture: ${label}`,
    shared: true,
    params: { page: 1 },
    bodies: () => ({ url, pages: files.map(readCapture) }),
  });
  const stockxSearch = [
    'lucaschevrier_browse-adidas-yeezy-boost-1.json',
    'lucaschevrier_browse-adidas-yeezy-boost-test.json',
    'lucaschevrier_test11.json',
    'lucaschevrier_testVariant.json',
    'lucaschevrier_getID.json',
    'scrapfly_nextdata_search_2023-05-29.json',
    'scrapfly_nextdata_search_2023-12-18.json',
  ];
  const HAT = 'scrapfly_nextdata_product_nike-x-stussy-bucket-hat-black';
  const goatTemplates = readdirSync(sharedDir('goat'))
    .filter((f) => /productTemplate/i.test(f))
    .sort();
  return [
    watch('chrono24 2026 excerpts A+B+C', 'https://www.chrono24.com/rolex/submariner--mod1.htm', [A, B, C]),
    watch('chrono24 2026 excerpt B', 'https://www.chrono24.com/rolex/submariner--mod1.htm', [B]),
    watch('chrono24 legacy 2023 cards', 'https://www.chrono24.com/alangesoehne/index.htm?pageSize=120', [LEGACY]),
    ...stockxSearch.map((f) => ({
      op: o['resale-a.search'],
      label: `capture: stockx/${f}`,
      shared: true,
      params: {},
      bodies: fromFiles(o['resale-a.search'], [`stockx/${f}`], {}),
    })),
    ...['2023-05-29', '2024-10-21'].map((d) => ({
      op: o['resale-a.product'],
      label: `capture: stockx/${HAT}_${d}.json`,
      shared: true,
      params: {},
      bodies: fromFiles(o['resale-a.product'], [`stockx/${HAT}_${d}.json`], {}),
    })),
    {
      op: o['resale-b.prices'],
      label: 'capture: goat/dewuapiparser_goat_1341930_buy_bar_data.json',
      shared: true,
      params: { query: '1341930', country: 'US' },
      bodies: () => readCapture('goat/dewuapiparser_goat_1341930_buy_bar_data.json'),
    },
    ...[
      'scrapfly_search_2025-08-21_c15afbc.json',
      'scrapfly_search_2023-11-27_702e5c1.json',
      'scrapfly_search_2025-03-27_f07f3e1.json',
    ].map((f) => {
      const params = { query: 'x', page: 1, limit: 50 };
      return {
        op: o['resale-b.search'],
        label: `capture: goat/${f}`,
        shared: true,
        params,
        bodies: fromFiles(o['resale-b.search'], [`goat/${f}`], params),
      };
    }),
    ...goatTemplates.map((f) => ({
      op: o['resale-b.product'],
      label: `capture: goat/${f} (first template, as a page)`,
      shared: true,
      params: {},
      bodies: () => goatPage(firstTemplate(`goat/${f}`)),
    })),
    // Issue 19: the 2023 Nike page generation (initialState.Threads) and a product_feed/threads/v3 answer (the fallback).
    {
      op: o['sportswear.product'],
      label: 'capture: nike/pdp-2023-09_id_DZ6333-083_initialState-threads.html',
      shared: true,
      params: { query: 'DZ6333-083' },
      bodies: () => ({ html: readCapture('nike/pdp-2023-09_id_DZ6333-083_initialState-threads.html'), url: null }),
    },
    {
      op: o['sportswear.product'],
      label: 'capture: nike/product-feed-threads-v3_gb_2026-04-17.json (fallback feed)',
      shared: true,
      params: { query: 'https://www.nike.com/gb/t/x-mVZDxTlZ/IU0767-001' },
      bodies: fromFiles(o['sportswear.product'], ['nike/product-feed-threads-v3_gb_2026-04-17.json'], {
        query: 'https://www.nike.com/gb/t/x-mVZDxTlZ/IU0767-001',
      }),
    },
    ...(
      [
        [
          [
            'scrapfly_2025-03_products_skuPriceDomain_specCategories.json',
            'scrapfly_2024-03_ugc_v2_reviews_topics.json',
          ],
          {},
        ],
        [['scrapfly_2024-03_products_skuPriceDomain_specCategories.json'], {}],
        [['scrapfly_2025-06_products_graphql_productBySkuId.json'], {}],
        [['official_api_v1_products_5758400_nock_fixture.json'], {}],
      ] as const
    ).map(([files, params]) => ({
      op: o['electronics.product'],
      label: `capture: ${files.map((f) => `bestbuy/${f}`).join(' + ')}`,
      shared: true,
      params,
      bodies: fromFiles(
        o['electronics.product'],
        files.map((f) => `bestbuy/${f}`),
        params,
      ),
    })),
  ];
}
