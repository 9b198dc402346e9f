/** The ProductAnswer (types.ts) as a zod schema: the route's response schema and its OpenAPI document. */
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../errors.js';
import { PRODUCT_EXAMPLE } from './example.js';
import { OFFER_KINDS, PRODUCT_MARKETPLACES, SIZE_SYSTEMS, type ProductAnswer } from './types.js';

const currency = z
  .string()
  .regex(/^[A-Z]{3}$/)
  .describe('ISO 4217');

const moneySchema = z
  .object({ amount: z.number().describe('Major units'), currency })
  .strict()
  .meta({ id: 'ProductMoney' });

const offerSchema = z
  .object({
    amount: z.number().describe("Major units of `currency` (GOAT's cents ÷ 100); never converted"),
    currency: currency.describe('ISO 4217 currency the marketplace priced this offer in'),
    marketplace: z.enum(PRODUCT_MARKETPLACES),
    kind: z.enum(OFFER_KINDS).describe('What the price is, as the marketplace states it'),
    condition: z
      .string()
      .nullable()
      .describe("`new`, or GOAT's own condition (`new_no_defects`, `used`; `/badly_damaged` etc. for the box)"),
    in_stock: z.boolean().nullable().describe('Where the marketplace says so; null when it does not'),
    url: z.string().nullable().describe('The page to act on the offer'),
  })
  .strict()
  .meta({ id: 'ProductOffer' });

const sizeSchema = z
  .object({
    size: z.string().describe('The size within `size_system`: `10`, `11.5`, `7Y`, `XS/S`'),
    size_system: z
      .enum(SIZE_SYSTEMS)
      .describe("US men's, women's and kids' sizes never share a row; `other` for labels with no US number"),
    gtins: z.array(z.string()).describe('GTIN-14s of the size (UPC/EAN zero-padded) where a marketplace states them'),
    matched_by: z
      .enum(['gtin', 'size'])
      .nullable()
      .describe('How marketplaces were joined here: a shared GTIN, else the size label; null for one marketplace'),
    offers: z.array(offerSchema),
    best_buy: offerSchema
      .nullable()
      .describe('Cheapest buy offer of a new pair in the requested currency, not said out of stock'),
    best_sell: offerSchema.nullable().describe('Highest bid for a new pair in the requested currency'),
  })
  .strict()
  .meta({ id: 'ProductSize' });

const sourceSchema = z
  .object({
    marketplace: z.enum(PRODUCT_MARKETPLACES),
    status: z.enum(['found', 'not_found', 'error']),
    id: z.string().nullable().describe('StockX UUID, GOAT numeric template id, Nike style-colour'),
    slug: z.string().nullable(),
    url: z.string().nullable(),
    currency: currency
      .nullable()
      .describe("Currency of this marketplace's prices (its own when it cannot serve the requested one)"),
    error: z
      .object({
        code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
        message: z.string(),
      })
      .strict()
      .nullable()
      .describe('When status is `error`: the problem its lookup failed with'),
  })
  .strict()
  .meta({ id: 'ProductSource' });

export const productAnswerSchema = z
  .object({
    sku: z.string().describe('The SKU, normalised (upper case, hyphen-separated)'),
    country: z.string(),
    currency,
    product: z
      .object({
        name: z.string().nullable(),
        brand: z.string().nullable(),
        image: z.string().nullable(),
        retail_price: moneySchema.nullable(),
        release_date: z.string().nullable().describe('YYYY-MM-DD'),
      })
      .strict()
      .describe(
        'From whichever marketplace states each field (StockX, GOAT, Nike; retail price Nike first); null when none does',
      ),
    marketplaces: z.array(sourceSchema),
    sizes: z.array(sizeSchema),
  })
  .strict()
  .meta({ id: 'ProductAnswer', examples: [PRODUCT_EXAMPLE] });

// The schema and the shared type must say the same thing: a compile error here when one changes alone.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShape: Same<z.output<typeof productAnswerSchema>, ProductAnswer> = true;
void sameShape;
