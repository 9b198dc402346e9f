/**
 * Zod schemas for resale-a (StockX): the spec records §2.2 (search hit) and §2.6 (product), and the parts of StockX
 * payloads we read (GraphQL `browse` / `product`, `__NEXT_DATA__` product nodes).
 *
 * Deviations from the spec's types, all "null where upstream has no value" (CONTRACT §1):
 * - market numbers are nullable: StockX sends `lowestAsk: null` / `highestBid: null` when nobody asks or bids
 *   (since 2023-06), and a zero would read as a real price;
 * - `market` is null when no market data could be had (product pages carry none since 2024-10 and the market query
 *   failed: the response then carries `X-Missing-Parts: market`);
 * - `sku` is null where StockX's `styleId` is empty (apparel); other catalog strings are null where the node lacks them.
 *
 * Beyond the spec: `productId` beside `id` on hits and products (the same UUID): Retailed clients validate answers
 * with schemas that require it (issue 29).
 */
import { z } from 'zod';

/** UUID-shaped StockX identifiers (8-4-4-4-12 hex; StockX does not promise an RFC version digit). */
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const uuidString = z.string().regex(UUID_PATTERN).describe('StockX product id (UUID)');
const productIdString = z
  .string()
  .regex(UUID_PATTERN)
  .describe("StockX's product UUID, the same as `id` (beyond the spec: Retailed clients read `productId`)");
const nullableString = (what: string) => z.string().nullable().describe(`${what}; null when StockX has none`);
const nullableUrl = (what: string) => z.string().nullable().describe(`${what} (URL); null when StockX has none`);
const price = (what: string) =>
  z.number().nullable().describe(`${what}, whole units of the requested currency; null when there is none (never 0)`);
const count = (what: string) => z.number().nullable().describe(`${what}; null when StockX does not say`);

// ---------------------------------------------------------------------------------------------------------------
// §2.2 search hit

export const searchHitSchema = z
  .object({
    id: uuidString,
    productId: productIdString,
    slug: z.string().describe('URL key: https://stockx.com/{slug}'),
    name: z.string().describe('Full title, e.g. "Nike Dunk Low Retro White Black"'),
    sku: nullableString('Style id (SKU), e.g. DD1391-100'),
    category: nullableString('Product category, e.g. sneakers, streetwear, handbags'),
    brand: nullableString('Brand'),
    image: nullableUrl('Thumbnail image'),
    colorway: nullableString('Colorway trait, e.g. White/Black'),
  })
  .strict()
  .meta({ id: 'ResaleASearchHit' });

export const searchRecordSchema = z.array(searchHitSchema).max(10).describe('Up to 10 hits, in StockX order');
export type SearchHit = z.output<typeof searchHitSchema>;

// ---------------------------------------------------------------------------------------------------------------
// §2.6 product

export const marketSchema = z
  .object({
    bids: z
      .object({
        lowest_ask: price('Lowest ask'),
        highest_bid: price('Highest bid'),
        number_asks: count('Number of asks'),
        number_bids: count('Number of bids'),
      })
      .strict(),
    sales: z
      .object({
        last_sale: price('Last sale price'),
        sales_last_72h: count('Sales in the last 72 hours'),
      })
      .strict(),
  })
  .strict()
  .meta({ id: 'ResaleAMarket' })
  .describe('Market for the requested country and currency. Product level: best across sizes; counts are totals.');
export type Market = z.output<typeof marketSchema>;

const variantSchema = z
  .object({
    id: z.string().describe('Variant (size) id (UUID)'),
    sizes: z
      .array(
        z
          .object({
            size: z.string().describe('Size with its system prefix, e.g. "US M 10", "UK 9", "CM 28", "EU 44"'),
            type: z.string().describe('Size system: us m, us w, uk, cm, kr, eu, us (apparel) …'),
          })
          .strict(),
      )
      .describe('The size in every system StockX shows'),
    gtins: z
      .array(
        z
          .object({
            type: z.string().describe('UPC, EAN-13, GTIN-8 …'),
            identifier: z.string(),
          })
          .strict(),
      )
      .describe('Barcodes; often empty'),
    market: marketSchema.nullable().describe('Market of this size; null when no market data could be had'),
    traits: z.object({ size: nullableString('Base size, e.g. "10" or "XS/S"') }).strict(),
  })
  .strict()
  .meta({ id: 'ResaleAVariant' });
export type Variant = z.output<typeof variantSchema>;

export const productSchema = z
  .object({
    id: uuidString,
    productId: productIdString,
    slug: z.string().describe('URL key: https://stockx.com/{slug}'),
    name: z.string().describe('Full title'),
    primary_category: nullableString('Primary category, e.g. "Nike Apparel"'),
    gender: nullableString('men, women, unisex, child …'),
    brand: nullableString('Brand'),
    category: nullableString('Product category: sneakers, streetwear, watches, handbags …'),
    model: nullableString('Model'),
    sku: nullableString('Style id (SKU); null where StockX has none (often apparel)'),
    description: nullableString('Description (may contain <br>)'),
    image: nullableUrl('Main image (700×500)'),
    thumb_image: nullableUrl('Thumbnail (140×100)'),
    small_image: nullableUrl('Small image (300×214)'),
    breadcrumbs: z.array(
      z.object({ url: z.string(), name: z.string(), level: z.number() }).strict().meta({ id: 'ResaleABreadcrumb' }),
    ),
    traits: z.array(z.object({ name: z.string(), value: z.string() }).strict().meta({ id: 'ResaleATrait' })),
    market: marketSchema.nullable().describe('Product market; null when no market data could be had'),
    variants: z.array(variantSchema),
  })
  .strict()
  .meta({ id: 'ResaleAProduct' });
export type Product = z.output<typeof productSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Upstream parts we read. Loose: StockX adds fields all the time; only the ones we read are typed.

const opt = <T extends z.ZodType>(t: T) => t.nullish();

/** `market` of either generation: `bidAskData{lowestAsk:int}` (until 2023) or `state{lowestAsk{amount}}` (after). */
export const upstreamMarketSchema = z.looseObject({
  bidAskData: opt(
    z.looseObject({
      lowestAsk: opt(z.number()),
      highestBid: opt(z.number()),
      numberOfAsks: opt(z.number()),
      numberOfBids: opt(z.number()),
    }),
  ),
  state: opt(
    z.looseObject({
      lowestAsk: opt(z.looseObject({ amount: opt(z.number()) })),
      highestBid: opt(z.looseObject({ amount: opt(z.number()) })),
      numberOfAsks: opt(z.number()),
      numberOfBids: opt(z.number()),
    }),
  ),
  salesInformation: opt(z.looseObject({ lastSale: opt(z.number()), salesLast72Hours: opt(z.number()) })),
  statistics: opt(z.looseObject({ lastSale: opt(z.looseObject({ amount: opt(z.number()) })) })),
});
export type UpstreamMarket = z.output<typeof upstreamMarketSchema>;

export const upstreamVariantSchema = z.looseObject({
  id: z.string(),
  traits: opt(z.looseObject({ size: opt(z.union([z.string(), z.number()])) })),
  gtins: opt(z.array(z.looseObject({ type: z.string(), identifier: z.union([z.string(), z.number()]) }))),
  sizeChart: opt(
    z.looseObject({
      displayOptions: opt(z.array(z.looseObject({ size: z.string(), type: z.string() }))),
    }),
  ),
  market: opt(upstreamMarketSchema),
});

const traitSchema = z.looseObject({ name: z.string(), value: opt(z.union([z.string(), z.number(), z.boolean()])) });

const mediaSchema = z.looseObject({
  imageUrl: opt(z.string()),
  smallImageUrl: opt(z.string()),
  thumbUrl: opt(z.string()),
});

/** A catalog product node (`__NEXT_DATA__` product or GraphQL `product`). */
export const upstreamProductSchema = z.looseObject({
  id: z.string(),
  urlKey: z.string(),
  title: opt(z.string()),
  primaryTitle: opt(z.string()),
  secondaryTitle: opt(z.string()),
  primaryCategory: opt(z.string()),
  productCategory: opt(z.string()),
  gender: opt(z.string()),
  brand: opt(z.string()),
  model: opt(z.string()),
  styleId: opt(z.string()),
  description: opt(z.string()),
  media: opt(mediaSchema),
  breadcrumbs: opt(z.array(z.looseObject({ name: z.string(), url: z.string(), level: z.number() }))),
  traits: opt(z.array(traitSchema)),
  market: opt(upstreamMarketSchema),
  variants: opt(z.array(upstreamVariantSchema)),
});
export type UpstreamProduct = z.output<typeof upstreamProductSchema>;

/** A `browse` edge node's product (web Browse fragment or our own search document). */
export const upstreamSearchProductSchema = z.looseObject({
  id: z.string(),
  urlKey: z.string(),
  title: opt(z.string()),
  primaryTitle: opt(z.string()),
  secondaryTitle: opt(z.string()),
  styleId: opt(z.string()),
  productCategory: opt(z.string()),
  brand: opt(z.string()),
  media: opt(mediaSchema),
  traits: opt(z.array(traitSchema)),
});
export type UpstreamSearchProduct = z.output<typeof upstreamSearchProductSchema>;

/** GetMarketData's `product`: market per product and per variant (ids optional: captured XHRs may lack them). */
export const upstreamMarketProductSchema = z.looseObject({
  id: opt(z.string()),
  uuid: opt(z.string()),
  urlKey: opt(z.string()),
  market: opt(upstreamMarketSchema),
  variants: opt(z.array(z.looseObject({ id: z.string(), market: opt(upstreamMarketSchema) }))),
});
export type UpstreamMarketProduct = z.output<typeof upstreamMarketProductSchema>;
