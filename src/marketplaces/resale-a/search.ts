/** Spec 4.2: search StockX products by text, via its web GraphQL `browse` with our own selection set. */
import { z } from 'zod';
import { MarketlensError } from '../../errors.js';
import { complete, defineOperation } from '../../operations/types.js';
import { SEARCH_DOCUMENT, SEARCH_OPERATION } from './graphql-documents.js';
import { resolveLocale } from './locale.js';
import { MAX_HITS, parseSearch } from './parse-search.js';
import { searchText } from './query-input.js';
import { refineWith } from '../../operations/refine-with.js';
import { searchRecordSchema } from './schema.js';
import { STOCKX_ORIGIN, postGraphql } from './upstream.js';
import { extractResaleASearch } from './history-extract.js';

const params = z
  .object({
    query: z
      .string()
      .trim()
      .max(200)
      .superRefine(refineWith(searchText))
      .optional()
      .describe(
        'Product name, brand, SKU (style id), slug or stockx.com product URL. Absent or empty: the default listing.',
      ),
  })
  .strict();

/** The site's default order (`featured`, index `PRODUCTION_PG_FEATURED_DESC`), used for searches and the listing. */
const FEATURED = { id: 'featured', order: 'DESC' } as const;

/** A `BrowseSortInput`: one of the site's sort keys (`getBrowseSorts`) and its order. */
export interface BrowseSort {
  id: string;
  order: 'ASC' | 'DESC';
}

/**
 * GraphQL variables of a search; an empty query is the default listing (what /search shows without a term).
 * Trends (resale-a.trends) sends the same variables with another of the site's orders.
 * @example searchVariables('dunk low') // { query: 'dunk low', filtersVersion: 4, sort: {…}, page: { index: 1, limit: 10 } }
 */
export function searchVariables(text: string, sort: BrowseSort = FEATURED): Record<string, unknown> {
  return { query: text, filtersVersion: 4, sort, page: { index: 1, limit: MAX_HITS } };
}

export const resaleASearch = defineOperation({
  name: 'resale-a.search',
  marketplace: 'resale-a',
  path: '/api/v1/scraper/resale-a/search',
  summary: 'Search products by text (StockX)',
  description:
    'Up to 10 products, in StockX\'s "featured" order, from the site\'s GraphQL `browse` with a selection set that ' +
    'asks for the SKU (`styleId`) and the Colorway trait. A size (variant) hit — StockX returns those for slug and ' +
    'barcode queries — is given as its product. Without `query`: the default listing (featured products). ' +
    '`sku`, `colorway`, `category`, `brand` and `image` are null where StockX has no value (e.g. apparel without a style id). ' +
    '`productId` (beyond the spec) repeats `id` for Retailed clients that require it.',
  params,
  record: searchRecordSchema,
  cacheClass: 'searches',
  example: {
    params: { query: 'yeezy slide slate grey' },
    response: [
      {
        id: '990e8bca-1397-4593-a9ac-f0d7a9323806',
        productId: '990e8bca-1397-4593-a9ac-f0d7a9323806',
        slug: 'adidas-yeezy-slide-slate-grey',
        name: 'adidas Yeezy Slide Slate Grey',
        sku: 'ID2350',
        category: 'sneakers',
        brand: 'adidas',
        image:
          'https://images.stockx.com/images/adidas-Yeezy-Slide-Slate-Grey-Product.jpg?fit=fill&bg=FFFFFF&w=140&h=100',
        colorway: 'Slate Grey/Slate Grey/Slate Grey',
      },
    ],
  },
  async fetch(ctx, p) {
    const text = searchText(p.query);
    const referer = text === '' ? `${STOCKX_ORIGIN}/search` : `${STOCKX_ORIGIN}/search?s=${encodeURIComponent(text)}`;
    return postGraphql(ctx, {
      operationName: SEARCH_OPERATION,
      query: SEARCH_DOCUMENT,
      variables: searchVariables(text),
      locale: resolveLocale({}),
      referer,
    });
  },
  parse(body: string) {
    return complete(parseSearch(body));
  },
  // A stockx.com URL searches its slug; an empty query is the default listing.
  canonicalParams: (p) => {
    const text = searchText(p.query);
    return text === '' ? {} : { query: text };
  },
  history: extractResaleASearch,
  // Searches run in StockX's default locale (US, en-US); hits carry no prices.
  identify: (_record, p) => ({ id: searchText(p.query), country: 'US', currency: null, locale: 'en-US' }),
  bodiesFromFiles(files) {
    if (files.length !== 1) {
      throw new MarketlensError(
        'invalid_parameter',
        'resale-a.search parses exactly one file: a Browse GraphQL answer, a search page (HTML or __NEXT_DATA__ JSON) or a JSON array of browse nodes',
      );
    }
    return files[0]!.text;
  },
});
