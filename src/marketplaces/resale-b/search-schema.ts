/**
 * resale-b.search (beyond the spec): the hit we answer, and the parts of GOAT's two search sources we read
 * (../shared/upstreams/goat.md §3.3). Upstream schemas are loose (`looseObject`): GOAT adds keys freely; only what we
 * read is checked, and a hit lacking its id or slug is a format change, not a hit.
 */
import { z } from 'zod';

/** GOAT's product template id: digits, sent as a string (consumer search, Constructor) or a number. */
const templateId = z.union([z.string().regex(/^\d{1,12}$/), z.number().int().nonnegative()]).transform(String);
const optionalText = z.string().nullish();
const cents = z.number().int().nullish();

// ---------------------------------------------------------------------------------------------------------------
// The hit we answer

const nullableText = (what: string) => z.string().nullable().describe(`${what}; null when GOAT's search has none`);

export const goatSearchHitSchema = z
  .object({
    id: z
      .string()
      .regex(/^\d{1,12}$/)
      .describe('Numeric product template id, as `resale-b.prices` takes it (e.g. `1341930`)'),
    slug: z.string().min(1).describe('Storefront slug, as `resale-b.product` takes it'),
    url: z.string().describe('Storefront page: `/sneakers/{slug}` for shoes, `/apparel/{slug}` for other categories'),
    name: nullableText('Product name (the consumer search `title`, Constructor `value`)'),
    sku: nullableText('SKU (style code) as GOAT writes it, e.g. `389368 10`; the consumer search does not send it'),
    brand: nullableText('Brand (the consumer search `brandName`; Constructor does not send it)'),
    image: nullableText('Picture URL'),
    release_date: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .nullable()
      .describe('Release date (YYYY-MM-DD, UTC); null when GOAT has none'),
    lowest_price: z
      .number()
      .positive()
      .nullable()
      .describe("Lowest price in major units of `currency` (GOAT's cents / 100); null when nothing is for sale"),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .nullable()
      .describe('ISO 4217 currency of `lowest_price`; null with it'),
  })
  .strict()
  .meta({ id: 'ResaleBSearchHit' });

export const goatSearchRecordSchema = z
  .array(goatSearchHitSchema)
  .describe("Hits in GOAT's order, one per product template");
export type GoatSearchHit = z.output<typeof goatSearchHitSchema>;

// ---------------------------------------------------------------------------------------------------------------
// GOAT's consumer search (`/web-api/consumer-search/get-product-search-results`, 2025-08 capture)

const localizedCents = z.looseObject({ amountCents: cents, currency: optionalText }).nullish();

export const consumerProductSchema = z.looseObject({
  id: templateId,
  slug: z.string().min(1),
  title: optionalText,
  brandName: optionalText,
  pictureUrl: optionalText,
  category: optionalText,
  productType: optionalText,
  /** A protobuf timestamp: `{ seconds, nanos }`, absent when GOAT has no date. */
  releaseDate: z.looseObject({ seconds: z.union([z.number(), z.string()]) }).nullish(),
  variantsList: z.array(z.looseObject({ localizedLowestPriceCents: localizedCents })).nullish(),
});
export type ConsumerProduct = z.output<typeof consumerProductSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Constructor.io search (`ac.cnstrc.com/search/{q}`, 2023-11 and 2025-03 captures): `response.results[]`, each
// `{ value: name, data: {...} }`

export const constructorDataSchema = z.looseObject({
  id: templateId,
  slug: z.string().min(1),
  sku: optionalText,
  image_url: optionalText,
  category: optionalText,
  product_type: optionalText,
  /** `20230627` */
  release_date: z.number().int().nullish(),
  /** `2022-07-28 23:59:59` */
  release_date_time: optionalText,
  /** US cents (the unsuffixed field; other currencies have `_gbp`, `_eur` … suffixes). */
  lowest_price_cents: cents,
});
export type ConstructorData = z.output<typeof constructorDataSchema>;
