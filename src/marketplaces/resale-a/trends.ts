/**
 * Beyond the spec (CONTRACT §8): StockX's browse listing in one of the site's orders, for clients of Retailed's
 * `stockx/trends`. The same GraphQL `Browse` request and parser as search (spec 4.2), with the chosen sort.
 */
import { z } from 'zod';
import { defineOperation } from '../../operations/types.js';
import { SEARCH_DOCUMENT, SEARCH_OPERATION } from './graphql-documents.js';
import { countryParam, resolveLocale } from './locale.js';
import { searchText } from './query-input.js';
import { searchRecordSchema } from './schema.js';
import { resaleASearch, searchVariables } from './search.js';
import { STOCKX_ORIGIN, postGraphql } from './upstream.js';

/** Our `sort_by` → the site's sort key and order (`getBrowseSorts`: `most-active` is spelled with a hyphen). */
export const TRENDS_SORTS = {
  featured: { id: 'featured', order: 'DESC' },
  most_active: { id: 'most-active', order: 'DESC' },
  release_date: { id: 'release_date', order: 'DESC' },
} as const;
export type TrendsSort = keyof typeof TRENDS_SORTS;

const params = z
  .object({
    query: resaleASearch.params.shape.query,
    sort_by: z
      .enum(Object.keys(TRENDS_SORTS) as [TrendsSort, ...TrendsSort[]])
      .default('featured')
      .describe(
        "The site's order: featured (its picks), most_active (most sales in 72 h), release_date (newest first). Default featured.",
      ),
    country: countryParam.optional(),
  })
  .strict();

export const resaleATrends = defineOperation({
  name: 'resale-a.trends',
  marketplace: 'resale-a',
  path: '/api/v1/scraper/resale-a/trends',
  beyondSpec: true,
  summary: 'Trending products: the browse listing in a chosen order (StockX, beyond the spec)',
  description:
    "Beyond the spec. Up to 10 products of StockX's browse listing (all products, or those matching `query`) in the " +
    'order `sort_by` names, from the same GraphQL `browse` request as search, hits in the same shape. `country` ' +
    'is sent as the visitor\'s region (the `selected-country` header the site sends), which is what "most active" ' +
    'is counted for.',
  params,
  record: searchRecordSchema,
  cacheClass: 'searches',
  async fetch(ctx, p) {
    const text = searchText(p.query);
    const sort = TRENDS_SORTS[p.sort_by];
    const referer = `${STOCKX_ORIGIN}/search?${text === '' ? '' : `s=${encodeURIComponent(text)}&`}sort=${sort.id}`;
    return postGraphql(ctx, {
      operationName: SEARCH_OPERATION,
      query: SEARCH_DOCUMENT,
      variables: searchVariables(text, sort),
      locale: resolveLocale({ country: p.country }),
      referer,
    });
  },
  parse: (body: string, p) => resaleASearch.parse(body, { query: p.query }),
  probe: { sort_by: 'most_active' },
  identify: (_record, p) => ({
    id: `${p.sort_by}:${searchText(p.query)}`,
    country: p.country ?? 'US',
    currency: null,
    locale: 'en-US',
  }),
  bodiesFromFiles: (files, p) => resaleASearch.bodiesFromFiles(files, { query: p.query }),
});
