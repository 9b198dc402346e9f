/** Spec 4.3: latest prices per size and condition, from GOAT's `buy_bar_data` web API. */
import { z } from 'zod';
import { MarketlensError, invalidParam } from '../../errors.js';
import { complete, defineOperation } from '../../operations/types.js';
import { expectOk } from '../../upstream/expect.js';
import { GOAT_ORIGIN } from './hosts.js';
import { isSkuQuery, isSlugQuery, isTemplateId, requireGoatProduct } from './find.js';
import { parseBuyBarData } from './parse.js';
import { RESALE_B_COUNTRIES, pricesRecordSchema } from './schema.js';
import { extractResaleBPrices } from './history-extract.js';

export { GOAT_ORIGIN } from './hosts.js';

const params = z
  .object({
    query: z
      .string()
      .trim()
      .min(1, 'is required')
      .max(200)
      .refine(
        (q) => isTemplateId(q) || isSkuQuery(q) || isSlugQuery(q),
        'must be a numeric product template id (1341930), a SKU (DN3707-100) or a slug',
      )
      .describe(
        'Numeric GOAT product template id (as on the product page), e.g. `1341930`; or a SKU (`DN3707-100`) or ' +
          'slug, found through GOAT search (`resale-b.search`)',
      ),
    country: z
      .string()
      .trim()
      .toUpperCase()
      .pipe(z.enum(['US', 'UK', 'FR'], { error: 'must be one of US, UK, FR' }))
      .default('US')
      .describe('Country whose prices and currency to show: US (USD), UK (GBP), FR (EUR)'),
  })
  .strict();

export const resaleBPrices = defineOperation({
  name: 'resale-b.prices',
  marketplace: 'resale-b',
  path: '/api/v1/scraper/resale-b/prices',
  summary: 'Latest prices per size and condition (GOAT)',
  description:
    "One entry per size × shoe condition × box condition, exactly as GOAT's `buy_bar_data` web API returns it " +
    '(camelCase; `amount` is omitted where GOAT has no price). `country=UK` is sent to GOAT as `GB` with GBP.\n\n' +
    '`query` is the numeric template id; a SKU or slug is first looked up with `resale-b.search` (one more upstream ' +
    'request, cached as that search): the hit with exactly that SKU (case, spaces and hyphens ignored), else with ' +
    'that slug. None: 404 `not_found`.',
  params,
  record: pricesRecordSchema,
  cacheClass: 'prices',
  example: {
    params: { query: '1341930', country: 'US' },
    response: [
      {
        sizeOption: { value: 10, presentation: '10' },
        stockStatus: 'not_in_stock',
        boxCondition: 'good_condition',
        shoeCondition: 'new_no_defects',
        lowestPriceCents: { currency: 'USD' },
        lastSoldPriceCents: { currency: 'USD', amount: 15400, amountUsdCents: 15400 },
        instantShipLowestPriceCents: { currency: 'USD' },
      },
    ],
  },
  // A SKU or slug → the template id, through the search (cached): the prices are then cached under the id.
  resolveParams: (p, ctx) =>
    isTemplateId(p.query) ? null : requireGoatProduct(p.query, ctx).then((found) => ({ ...p, query: found.id })),
  async fetch(ctx, p) {
    if (!isTemplateId(p.query)) {
      // Only a caller that skips the lookup service (the doctor) gets here with a SKU: it has no search to resolve it.
      throw invalidParam('query', 'must be the numeric product template id here (no search to resolve a SKU or slug)');
    }
    const { countryCode, currency } = RESALE_B_COUNTRIES[p.country];
    const url = `${GOAT_ORIGIN}/web-api/v1/product_variants/buy_bar_data?productTemplateId=${p.query}&countryCode=${countryCode}`;
    const res = await ctx.http.request(
      {
        url,
        expect: 'json',
        label: 'buy_bar_data',
        // The site sets the currency from cookies alongside countryCode (notes §6).
        headers: { cookie: `country=${countryCode}; currency=${currency}` },
      },
      ctx,
    );
    expectOk(res, 'resale-b', `product template ${p.query}`);
    return res.body;
  },
  parse(body: string) {
    return complete(parseBuyBarData(body));
  },
  history: extractResaleBPrices,
  identify: (_record, p) => {
    const { countryCode, currency } = RESALE_B_COUNTRIES[p.country];
    return { id: p.query, country: countryCode, currency, locale: null };
  },
  bodiesFromFiles(files) {
    if (files.length !== 1)
      throw new MarketlensError('invalid_parameter', 'resale-b.prices parses exactly one buy_bar_data JSON file');
    return files[0]!.text;
  },
});
