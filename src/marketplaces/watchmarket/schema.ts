/**
 * Zod schemas for watchmarket (Chrono24): the spec §2.5 search result, the spec §2.1 filter group, and the shape of
 * the shipped filter catalog (finder-catalog-data.json) that both the finder and the search parameter checks read.
 */
import { z } from 'zod';

const price = z
  .object({
    amount: z.number().nullable().describe('Asking price as a number; null when the card says "Price on request"'),
    currency: z
      .string()
      .nullable()
      .describe(
        'Currency as the card shows it: a symbol such as `$`, `€`, `£` or a code such as `CHF`; null with no price',
      ),
  })
  .meta({ id: 'WatchmarketPrice' });

/** Spec §2.5 Listing. */
export const listingSchema = z
  .object({
    id: z
      .string()
      .nullable()
      .describe(
        'Chrono24 listing id (the `--id<N>.htm` of its URL); null only for legacy card fragments without a link',
      ),
    url: z
      .string()
      .nullable()
      .describe('Absolute listing URL on the searched domain; null only for legacy card fragments without a link'),
    badge: z.string().nullable().describe('Image badge such as "Promoted" or "Popular"; null when the card has none'),
    price,
    title: z.string().describe('First card line, e.g. "Rolex Submariner Date"'),
    subtitle: z
      .string()
      .nullable()
      .describe('Second card line (reference, details), e.g. "116613LN"; null when absent'),
    images: z.array(z.string()).describe('Image URLs of the card carousel (large size), in page order'),
    location: z
      .string()
      .nullable()
      .describe('Seller country code as Chrono24 shows it (e.g. `US`, `JP`; the UK is `UK`)'),
    shipping: z.string().nullable().describe('Shipping text as shown, e.g. "Free shipping", "+ $99 for shipping"'),
  })
  .strict()
  .meta({ id: 'WatchmarketListing' });
export type Listing = z.output<typeof listingSchema>;

export const priceStatsSchema = z
  .object({
    lowest_price: z.number().nullable(),
    median_price: z.number().nullable(),
    average_price: z.number().nullable().describe('Arithmetic mean, rounded to 2 decimals'),
    highest_price: z.number().nullable(),
  })
  .strict()
  .meta({
    id: 'WatchmarketPriceStats',
    description:
      'Computed by marketlens from the priced listings on the returned page (Chrono24 states no median or average; ' +
      'its per-page JSON-LD low/high cover the same listings). Listings with "Price on request" are left out; every ' +
      'field is null when the page has no priced listing.',
  });

export const searchResultSchema = z
  .object({
    url: z
      .string()
      .describe(
        'The Chrono24 search URL fetched, after redirects (a recognised query lands on its canonical brand or model page)',
      ),
    stats: z
      .object({
        price_stats: priceStatsSchema,
        total_results: z
          .number()
          .nullable()
          .describe(
            'Total listings of the search as the page states it ("9,140 listings"); null when the page does not state it',
          ),
      })
      .strict(),
    results: z.array(listingSchema),
    pagination: z
      .object({
        current: z.number().describe('Page shown'),
        next: z.number().nullable().describe('Next page number; null on the last page'),
        other_pages: z
          .array(z.number())
          .describe('Other page numbers the page links to (e.g. 2–5, 40, 80, 120, 153; the last is the final page)'),
        has_next_page: z.boolean(),
      })
      .strict(),
  })
  .strict()
  .meta({ id: 'WatchmarketSearchResult' });
export type SearchResult = z.output<typeof searchResultSchema>;

/** A filter value: `label` plus one key named after the search parameter (e.g. `dial_color`) holding the code. */
const filterValueSchema = z
  .object({ label: z.string() })
  .catchall(z.string())
  .meta({
    id: 'WatchmarketFilterValue',
    description:
      '`label` plus one key named after the search parameter (for the dial colour group: `dial_color`) whose value is the code',
    examples: [{ label: 'Black', dial_color: '702' }],
  });

/** Spec §2.1, camelCase-id form: the id is Chrono24's own URL parameter name. */
export const filterGroupCamelSchema = z
  .object({
    id: z.string().describe("Chrono24's parameter name, e.g. dialColor"),
    input_type: z.string().describe('Checkbox or IllustrationCheckbox'),
    label: z.string(),
    searchable: z.boolean().describe('True for long lists meant to be searched by name (brands, models, countries)'),
    values: z.array(filterValueSchema),
  })
  .strict()
  .meta({ id: 'WatchmarketFilterGroup' });

/** Spec §2.1, snake_case-id form: the id is the watchmarket search parameter that takes these codes. */
export const filterGroupSnakeSchema = z
  .object({
    id: z.string().describe('The search parameter name, e.g. dial_color'),
    inputType: z.string().describe('Same as input_type of the camelCase form'),
    filterGroupId: z.string().describe('Same as id'),
    label: z.string(),
    searchable: z.boolean(),
    values: z.array(filterValueSchema),
  })
  .strict()
  .meta({ id: 'WatchmarketFilterGroupSnake' });

export const finderRecordSchema = z.array(z.union([filterGroupCamelSchema, filterGroupSnakeSchema]));
export type FilterGroup = z.output<typeof filterGroupCamelSchema> | z.output<typeof filterGroupSnakeSchema>;

/** One group of the shipped catalog (not a record: the finder turns it into both §2.1 forms). */
export const catalogGroupSchema = z
  .object({
    id: z.string().regex(/^[a-z][A-Za-z]*$/),
    param: z.string().regex(/^[a-z_]+$/),
    label: z.string().min(1),
    inputType: z.enum(['Checkbox', 'IllustrationCheckbox']),
    searchable: z.boolean(),
    values: z.array(
      z
        .object({
          label: z.string().min(1),
          code: z.string().min(1),
          // Models only: the brand's manufacturer id, so a model name resolves within the requested brand.
          manufacturer: z.string().regex(/^\d+$/).optional(),
        })
        .strict(),
    ),
  })
  .strict();
export type CatalogGroup = z.output<typeof catalogGroupSchema>;
