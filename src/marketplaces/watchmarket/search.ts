/** Spec 4.5: Chrono24 listing search with every filter, sorting and paging, parsed from the results page HTML. */
import { complete, defineOperation } from '../../operations/types.js';
import { searchKey } from '../../operations/search-key.js';
import { expectOk } from '../../upstream/expect.js';
import type { UpstreamResponse } from '../../upstream/http-client.js';
import {
  canonicalUrlOf,
  pagedCanonicalUrl,
  parseSearchPage,
  priceStats,
  statedPage,
  type SearchBodies,
} from './parse.js';
import { searchResultSchema, type SearchResult } from './schema.js';
import {
  acceptLanguage,
  buildSearchUrl,
  canonicalSearchParams,
  mappingTableMarkdown,
  pageSizeOf,
  searchParamsSchema,
} from './search-params.js';
import { extractWatchmarketSearch } from './history-extract.js';

const DESCRIPTION = `Searches Chrono24 listings and parses the results page (Chrono24 has no JSON search API).

**Parameters → Chrono24 URL** (\`https://www.chrono24.<domain>/search/index.htm?dosearch=true&…\`). Comma lists
become repeated parameters (\`dial_color=702,710\` → \`dialColor=702&dialColor=710\`). Filter values are the codes
or the labels of the finder (\`/api/v2/finder/watchmarket-search\`); an unknown one answers 400 naming the parameter.

${mappingTableMarkdown()}

**Redirects.** A recognised query lands on Chrono24's canonical brand or model page (e.g. \`query=Rolex Submariner\`
→ \`/rolex/submariner--mod1.htm\`); that page is parsed and \`url\` is the page fetched after redirects.

**price_stats** are computed by marketlens from the priced listings on the returned page (with \`limit\`, from the
listings returned): Chrono24 states no median or average (its JSON-LD low/high cover the same page only).
\`total_results\` is the count the page states.

**limit** (Retailed clients send it): at most that many listings, fetched with the smallest page size that holds them;
\`pagination\` stays that of the page fetched (pages of that size).

**Blocks.** Chrono24 sits behind Cloudflare; a challenge page answers 503 \`upstream_blocked\`.`;

export const watchmarketSearch = defineOperation({
  name: 'watchmarket.search',
  marketplace: 'watchmarket',
  path: '/api/v1/scraper/watchmarket/search',
  summary: 'Search listings with filters, sorting and pagination (Chrono24)',
  description: DESCRIPTION,
  params: searchParamsSchema,
  // The spec labels `page` a body parameter; the query string works too.
  bodyParams: ['page'],
  record: searchResultSchema,
  cacheClass: 'searches',
  example: {
    params: { query: 'Rolex Submariner', currency: 'USD', dial_color: '702' },
    response: {
      url: 'https://www.chrono24.com/rolex/submariner--mod1.htm',
      stats: {
        price_stats: { lowest_price: 9995, median_price: 17856, average_price: 15525.33, highest_price: 18725 },
        total_results: 9140,
      },
      results: [
        {
          id: '47962070',
          url: 'https://www.chrono24.com/rolex/submariner-date--id47962070.htm',
          badge: null,
          price: { amount: 18725, currency: '$' },
          title: 'Rolex Submariner Date',
          subtitle: '116613LN',
          images: ['https://img.chrono24.com/images/uhren/k1nmmr4190ua-h2ckoikaqxkrsxy8a102p5g0-ExtraLarge.jpg'],
          location: 'US',
          shipping: 'Plus shipping',
        },
      ],
      pagination: { current: 1, next: 2, other_pages: [2, 3, 4, 5, 40, 80, 120, 153], has_next_page: true },
    },
  },
  async fetch(ctx, p): Promise<SearchBodies> {
    const get = async (url: string, label: string): Promise<UpstreamResponse> => {
      // Cloudflare challenges (whatever their status) are judged by the client: they never reach here.
      const res = await ctx.http.request(
        { url, expect: 'html', label, headers: { 'accept-language': acceptLanguage(p.language) } },
        ctx,
      );
      expectOk(res, 'watchmarket', 'search page');
      return res;
    };
    let res = await get(buildSearchUrl(p), 'search');
    // A recognised query redirects to its canonical page, which pages by path: when the landing page shows another
    // page than asked, fetch the asked page by its path once (parse still refuses any remaining mismatch).
    const shown = statedPage(res.body);
    if (shown !== null && shown.current !== p.page && p.page <= shown.last) {
      const paged = pagedCanonicalUrl(res.url, shown.current, p.page);
      if (paged !== null) res = await get(paged, 'search_page');
    }
    return { url: res.url, pages: [res.body], pageSize: Number(pageSizeOf(p)) };
  },
  parse(bodies: SearchBodies, p) {
    // Checked against the size the pages were fetched with; a saved page parsed offline, without one and without
    // a size asked for, is not held to a size nobody asked for.
    const asked = p.page_size !== undefined || p.pageSize !== undefined || p.limit !== undefined;
    const pageSize = bodies.pageSize ?? (asked ? Number(pageSizeOf(p)) : undefined);
    const result = parseSearchPage(bodies, p.page ?? 1, pageSize);
    return complete(p.limit === undefined ? result : cutToLimit(result, p.limit));
  },
  canonicalParams: canonicalSearchParams,
  // The example's currency and dial filter make another lookup: the probe is the plain search.
  probe: { query: 'Rolex Submariner' },
  history: extractWatchmarketSearch,
  // Prices show a symbol (`$`); the requested currency is their ISO 4217 code. The site's language follows the domain.
  identify: (_record, p) => ({
    id: searchKey(canonicalSearchParams(p)),
    country: null,
    currency: p.currency,
    locale: p.language.replace('_', '-'),
  }),
  bodiesFromFiles(files, p) {
    const pages = files.map((f) => f.text);
    // A saved page has no fetch URL: use the canonical URL it names, else the URL these parameters would fetch.
    const given = Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined));
    const fallback = searchParamsSchema.safeParse(given);
    const url =
      canonicalUrlOf(pages) ??
      (fallback.success ? buildSearchUrl(fallback.data) : 'https://www.chrono24.com/search/index.htm');
    return { url, pages };
  },
});

/** The first `limit` listings of a page, their price_stats recomputed; the page's own count and pagination kept. */
function cutToLimit(result: SearchResult, limit: number): SearchResult {
  const results = result.results.slice(0, limit);
  return { ...result, stats: { ...result.stats, price_stats: priceStats(results) }, results };
}
