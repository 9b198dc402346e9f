/**
 * Figure 3 — parse cost per operation: the `marketlens parse` path (`op.bodiesFromFiles` then `parseAndCheck`, i.e.
 * parse plus the record check against the spec schema) on saved upstream bodies, in ms per capture and ms per MB
 * (10^6 bytes of input). Bodies are rebuilt every run: an operation may memoise work per bodies object.
 */
import { parseAndCheck } from '../src/operations/lookup.js';
import { OPERATIONS } from '../src/operations/registry.js';
import type { OperationName, SavedFile } from '../src/operations/types.js';
import { capture, fixture, goatProductPage, largeWatchPage } from './lib/payloads.js';
import { envInt, median, round } from './lib/stats.js';

export interface ParseCase {
  op: OperationName;
  label: string;
  files: SavedFile[];
  params?: Record<string, unknown>;
}

export interface ParseRow {
  operation: string;
  input: string;
  bytes: number;
  ms_per_capture: number;
  ms_per_mb: number;
  runs: number;
  /** Set when the parse failed (the figure is then missing). */
  error?: string;
}

const cap = (rel: string): SavedFile | undefined => {
  const text = capture(rel);
  return text === undefined ? undefined : { path: rel, text };
};
const fix = (rel: string): SavedFile => ({ path: `fixture ${rel}`, text: fixture(rel) });

/** Every input: the captures when ../shared exists (as the parser tests use them) and the repo fixtures. */
export function parseCases(): ParseCase[] {
  const cases: ParseCase[] = [];
  const add = (
    op: OperationName,
    label: string,
    files: Array<SavedFile | undefined>,
    params?: Record<string, unknown>,
  ) => {
    if (files.every((f) => f !== undefined)) cases.push({ op, label, files: files, params });
  };
  const big = largeWatchPage();
  add('watchmarket.search', `665 KB results page (${big.source})`, [{ path: 'large.html', text: big.value }]);
  const c24 = 'chrono24/search-2026_rolex-submariner_excerpt-';
  add('watchmarket.search', 'capture chrono24 2026 excerpts A+B+C', [
    cap(`${c24}A_head-metaData-jsonld.html`),
    cap(`${c24}B_offset130000-178000_quickfilters-count-sorter-cards1-3.html`),
    cap(`${c24}C_offset604000-636000_cards59-60-pagination-pagesize.html`),
  ]);
  add('watchmarket.search', 'capture chrono24 legacy 2023 cards', [
    cap('chrono24/legacy-2023-03_search-cards-fragments_tkrejzlik.html'),
  ]);
  add('watchmarket.search', 'fixture search-2026-page1.html', [fix('watchmarket/search-2026-page1.html')]);
  add('watchmarket.finder', 'shipped catalog, query=dial', [], { query: 'dial' });
  add('resale-a.search', 'capture stockx nextdata search 2023-12-18', [
    cap('stockx/scrapfly_nextdata_search_2023-12-18.json'),
  ]);
  add('resale-a.search', 'capture stockx browse (lucaschevrier)', [
    cap('stockx/lucaschevrier_browse-adidas-yeezy-boost-test.json'),
  ]);
  add('resale-a.search', 'fixture search-response.json', [fix('resale-a/search-response.json')]);
  add('resale-a.product', 'capture stockx nextdata product 2024-10-21', [
    cap('stockx/scrapfly_nextdata_product_nike-x-stussy-bucket-hat-black_2024-10-21.json'),
  ]);
  add('resale-a.product', 'fixture product-page.html + market-data.json', [
    fix('resale-a/product-page.html'),
    fix('resale-a/market-data.json'),
  ]);
  add('resale-b.prices', 'capture goat buy_bar_data', [cap('goat/dewuapiparser_goat_1341930_buy_bar_data.json')]);
  add('resale-b.prices', 'fixture buy-bar-data.json', [fix('resale-b/buy-bar-data.json')]);
  const template = capture('goat/dewuapiparser_goat_1341930_productTemplate.json');
  if (template)
    add('resale-b.product', 'capture goat productTemplate in a page', [
      { path: 'page.html', text: goatProductPage(JSON.parse(template)) },
    ]);
  add('resale-b.product', 'fixture product-template.json in a page', [
    { path: 'page.html', text: goatProductPage(JSON.parse(fixture('resale-b/product-template.json'))) },
  ]);
  const goatSearch = { query: 'x', page: 1, limit: 50 };
  add(
    'resale-b.search',
    'capture goat consumer search 2025-08',
    [cap('goat/scrapfly_search_2025-08-21_c15afbc.json')],
    goatSearch,
  );
  add(
    'resale-b.search',
    'capture goat constructor search 2025-03',
    [cap('goat/scrapfly_search_2025-03-27_f07f3e1.json')],
    goatSearch,
  );
  add('resale-b.search', 'fixture consumer-search.json', [fix('resale-b/consumer-search.json')], goatSearch);
  add('sportswear.product', 'fixture constructed-product-page-us.html', [
    fix('sportswear/constructed-product-page-us.html'),
  ]);
  add('sportswear.product', 'fixture constructed-product-page-fr.html', [
    fix('sportswear/constructed-product-page-fr.html'),
  ]);
  add('electronics.product', 'capture bestbuy 2025-06 graphql productBySkuId', [
    cap('bestbuy/scrapfly_2025-06_products_graphql_productBySkuId.json'),
  ]);
  add('electronics.product', 'capture bestbuy 2025-03 page data + 2024 reviews', [
    cap('bestbuy/scrapfly_2025-03_products_skuPriceDomain_specCategories.json'),
    cap('bestbuy/scrapfly_2024-03_ugc_v2_reviews_topics.json'),
  ]);
  add('electronics.product', 'fixtures page-initializer + pricing + priceview + reviews', [
    fix('electronics/page-initializer.html'),
    fix('electronics/pricing-item.json'),
    fix('electronics/priceview.json'),
    fix('electronics/reviews.json'),
  ]);
  return cases;
}

/** Median ms of `fn` over at least `minRuns` runs and at least `minMs` of measuring, after a few warm-up runs. */
function measure(fn: () => void, minRuns: number, minMs: number): { ms: number; runs: number } {
  for (let i = 0; i < 3; i++) fn();
  const samples: number[] = [];
  const start = performance.now();
  while (samples.length < minRuns || performance.now() - start < minMs) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
    if (samples.length >= 10_000) break;
  }
  return { ms: median(samples), runs: samples.length };
}

export function parseCost(opts: { minRuns?: number; minMs?: number } = {}): ParseRow[] {
  const minRuns = opts.minRuns ?? envInt('BENCH_PARSE_RUNS', 20);
  const minMs = opts.minMs ?? envInt('BENCH_PARSE_MS', 400);
  return parseCases().map((c) => {
    const op = OPERATIONS[c.op];
    const params = c.params ?? {};
    const bytes = c.files.reduce((n, f) => n + Buffer.byteLength(f.text), 0);
    const run = () => void parseAndCheck(op, op.bodiesFromFiles(c.files, params as never), params);
    try {
      run();
    } catch (e) {
      return {
        operation: c.op,
        input: c.label,
        bytes,
        ms_per_capture: NaN,
        ms_per_mb: NaN,
        runs: 0,
        error: (e as Error).message.slice(0, 200),
      };
    }
    const { ms, runs } = measure(run, minRuns, minMs);
    // The finder parses the shipped catalog: its "input" is the catalog in memory, so no per-MB figure.
    const perMb = bytes > 0 ? ms / (bytes / 1e6) : NaN;
    return { operation: c.op, input: c.label, bytes, ms_per_capture: round(ms), ms_per_mb: round(perMb), runs };
  });
}
