/**
 * Beyond the spec (Retailed's `goat/search`): search GOAT by text or SKU. GOAT's consumer search first (the site's own
 * since 2025-08), Constructor.io — the search service GOAT's pages used before, unprotected — when it fails
 * (../shared/upstreams/goat.md §2 F–G, §3.3).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ERROR_CODES, MarketlensError, isMarketlensError } from '../../errors.js';
import { allFailed, type SourceError } from '../../operations/sources.js';
import { complete, defineOperation, type FetchContext } from '../../operations/types.js';
import type { UpstreamResponse } from '../../upstream/http-client.js';
import { CONSTRUCTOR_KEY, CONSTRUCTOR_ORIGIN, GOAT_ORIGIN } from './hosts.js';
import { parseGoatSearch, searchSourceOf, type GoatSearchBodies, type GoatSearchSource } from './parse-search.js';
import { goatSearchRecordSchema } from './search-schema.js';
import { extractResaleBSearch } from './history-extract.js';

/** Hits per page when `limit` is not given: what GOAT's search page asks for. */
export const DEFAULT_SEARCH_LIMIT = 12;
const MAX_SEARCH_LIMIT = 50;

const intParam = (min: number, max: number) =>
  z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(min).max(max);

export const goatSearchParams = z
  .object({
    query: z
      .string()
      .trim()
      .min(1, 'is required')
      .max(200)
      .describe('Product name, brand, SKU (`DN3707-100`, `389368 10`) or slug'),
    page: intParam(1, 100).default(1).describe("Page number (GOAT's `pageNumber`, Constructor's `page`)"),
    limit: intParam(1, MAX_SEARCH_LIMIT)
      .default(DEFAULT_SEARCH_LIMIT)
      .describe(`Hits per page, 1–${MAX_SEARCH_LIMIT} (default ${DEFAULT_SEARCH_LIMIT}); \`page\` counts pages of it`),
  })
  .strict();
export type GoatSearchParams = z.output<typeof goatSearchParams>;

/** Constructor.io wants a client id per visitor; one per process is one visitor. */
const CONSTRUCTOR_CLIENT_ID = randomUUID();

function consumerSearchUrl(p: GoatSearchParams): string {
  const q = new URLSearchParams({
    queryString: p.query,
    pageLimit: String(p.limit),
    pageNumber: String(p.page),
    sortType: '1',
  });
  return `${GOAT_ORIGIN}/web-api/consumer-search/get-product-search-results?${q}`;
}

function constructorSearchUrl(p: GoatSearchParams): string {
  const q = new URLSearchParams({
    key: CONSTRUCTOR_KEY,
    c: 'ciojs-client-2.35.2',
    i: CONSTRUCTOR_CLIENT_ID,
    s: '1',
    page: String(p.page),
    num_results_per_page: String(p.limit),
  });
  return `${CONSTRUCTOR_ORIGIN}/search/${encodeURIComponent(p.query)}?${q}`;
}

/**
 * One source's answer, checked: a non-2xx status (a 404 too: a search endpoint that is gone is a failure, not "no
 * such product") is `upstream_error`, and a body that is not that source's answer is `upstream_changed` (the parser
 * says so).
 */
async function searchSource(
  ctx: FetchContext,
  source: GoatSearchSource,
  p: GoatSearchParams,
): Promise<GoatSearchBodies> {
  const url = source === 'consumer' ? consumerSearchUrl(p) : constructorSearchUrl(p);
  const res: UpstreamResponse = await ctx.http.request(
    { url, expect: 'json', label: source === 'consumer' ? 'consumer_search' : 'constructor_search' },
    ctx,
  );
  if (res.status < 200 || res.status >= 300) {
    throw new MarketlensError('upstream_error', `resale-b ${source} search answered HTTP ${res.status}`, {
      upstreamStatus: res.status,
    });
  }
  const bodies = { source, body: res.body };
  parseGoatSearch(bodies);
  return bodies;
}

/**
 * Whether the consumer search's failure sends the lookup to Constructor: a block (after every tier), a 5xx or other
 * non-2xx, a timeout, or an answer that is not a search answer. Not when the caller's deadline passed, nor for the
 * marketplace's own breaker or queue (circuit_open, overloaded), which would refuse the fallback as well.
 */
function fallsBack(e: unknown, ctx: FetchContext): e is MarketlensError {
  if (!isMarketlensError(e) || ctx.signal.aborted) return false;
  if (e.code === 'circuit_open' || e.code === 'overloaded') return false;
  return ERROR_CODES[e.code].upstream;
}

function sourceError(e: MarketlensError): SourceError {
  return { code: e.code, message: e.message, ...(e.upstreamStatus ? { status: e.upstreamStatus } : {}) };
}

export const resaleBSearch = defineOperation({
  name: 'resale-b.search',
  marketplace: 'resale-b',
  path: '/api/v1/scraper/resale-b/search',
  summary: 'Search products by text or SKU (GOAT)',
  beyondSpec: true,
  description:
    "Products matching `query`, in GOAT's order, one per product template: the numeric template `id` " +
    '(`resale-b.prices` takes it), `slug` (`resale-b.product` takes it), name, SKU, brand, picture, release date and ' +
    'the lowest price with its currency (major units: GOAT sends cents).\n\n' +
    "**Sources.** GOAT's consumer search (`www.goat.com/web-api/consumer-search`) first; when it fails (blocked, " +
    "5xx, timeout, or an answer that is not a search answer) Constructor.io's search (`ac.cnstrc.com`), which GOAT's " +
    'pages used until 2025. Both failing: the more telling error (503 `upstream_blocked`, 504 `upstream_timeout`, ' +
    '502 `upstream_error` / `upstream_changed`). No match is an empty list.\n\n' +
    '**Nulls.** The consumer search sends no SKU (`sku` is null); Constructor sends no brand (`brand` is null) and ' +
    'names the price in US cents (`currency` USD). `lowest_price` is null when nothing is for sale.',
  params: goatSearchParams,
  record: goatSearchRecordSchema,
  cacheClass: 'searches',
  example: {
    params: { query: 'slipstream' },
    response: [
      {
        id: '927868',
        slug: 'slipstream-lo-reprise-white-dark-slate-384233-01',
        url: 'https://www.goat.com/sneakers/slipstream-lo-reprise-white-dark-slate-384233-01',
        name: "Slipstream Lo Reprise 'White Dark Slate'",
        sku: null,
        brand: 'Puma',
        image:
          'https://image.goat.com/attachments/product_template_pictures/images/070/762/328/original/384233_01.png.png',
        release_date: '2022-04-07',
        lowest_price: 213,
        currency: 'USD',
      },
    ],
  },
  async fetch(ctx, p) {
    let first: SourceError;
    try {
      return await searchSource(ctx, 'consumer', p);
    } catch (e) {
      if (!fallsBack(e, ctx)) throw e;
      first = sourceError(e);
    }
    try {
      return await searchSource(ctx, 'constructor', p);
    } catch (e) {
      if (!fallsBack(e, ctx)) throw e;
      throw allFailed('resale-b search', { consumer_search: first, constructor: sourceError(e) });
    }
  },
  parse(bodies: GoatSearchBodies, p) {
    return complete(parseGoatSearch(bodies, p.limit));
  },
  // GOAT's search ignores case and repeated spaces: `DN3707-100` and `dn3707-100` make one cache entry, one fetch.
  canonicalParams: (p) => ({ ...p, query: p.query.trim().replace(/\s+/g, ' ').toLowerCase() }),
  // The Tazz slipper's SKU: its hit is the template of the prices' example.
  probe: { query: '1143776K-SAN', limit: '5' },
  history: extractResaleBSearch,
  // Hits carry their own currency; the search itself is GOAT's US storefront.
  identify: (_record, p) => ({ id: p.query, country: 'US', currency: null, locale: null }),
  bodiesFromFiles(files) {
    const source = files.length === 1 ? searchSourceOf(files[0]!.text) : null;
    if (source === null) {
      throw new MarketlensError(
        'invalid_parameter',
        'resale-b.search parses exactly one file: a consumer-search answer ({"data":{"productsList":[…]}}) or a ' +
          'Constructor.io answer ({"response":{"results":[…]}}), or a JSON array of either one’s products',
      );
    }
    return { source, body: files[0]!.text };
  },
});
