/** Zod schemas for resale-b (GOAT): the spec §2.3 price entry, the spec §2.4 product, and the country mapping. */
import { z } from 'zod';

/** A size as GOAT presents it: `value` is the numeric size, `presentation` its label (e.g. `5.5`). */
const sizeOptionSchema = z.object({ value: z.number(), presentation: z.string() }).meta({ id: 'ResaleBSizeOption' });

/** An ISO 4217 code: anything else (e.g. `US\uFFFD\uFFFD` from bytes that were not UTF-8) is a format change. */
const currencyCode = z
  .string()
  .regex(/^[A-Z]{3}$/, 'expected a 3-letter currency code')
  .describe('3-letter currency code');

/** A money object; GOAT omits `amount` (and `amountUsdCents`) when there is no price. */
const money = z.object({
  currency: currencyCode,
  amount: z.number().int().optional().describe('Integer cents in `currency`; omitted when there is no price'),
  amountUsdCents: z.number().int().optional().describe('The same amount in US cents; omitted when there is no price'),
});

/** Spec §2.3: one entry per size and condition, camelCase exactly as GOAT sends it. */
export const priceEntrySchema = z
  .object({
    sizeOption: sizeOptionSchema,
    stockStatus: z.string().describe('not_in_stock, single_in_stock, multiple_in_stock'),
    boxCondition: z.string().describe('good_condition, badly_damaged, no_original_box, missing_lid'),
    shoeCondition: z.string().describe('new_no_defects, new_with_defects, used'),
    lowestPriceCents: money,
    lastSoldPriceCents: money,
    instantShipLowestPriceCents: money,
  })
  .meta({ id: 'ResaleBPriceEntry' });

export const pricesRecordSchema = z.array(priceEntrySchema);
export type PriceEntry = z.output<typeof priceEntrySchema>;

/** Marketplace country codes and currencies for the spec's countries (CONTRACT §7: UK is GOAT's GB). */
export const RESALE_B_COUNTRIES = {
  US: { countryCode: 'US', currency: 'USD' },
  UK: { countryCode: 'GB', currency: 'GBP' },
  FR: { countryCode: 'FR', currency: 'EUR' },
} as const;
export type ResaleBCountry = keyof typeof RESALE_B_COUNTRIES;

// ---------------------------------------------------------------------------------------------------------------
// Spec §2.4 product. Types are the spec's. A field is nullable when at least one captured generation of GOAT's
// productTemplate lacks it (2023 templates: no user_own/featured_in/is_partner_resellable; before 2025-08: no
// age_groups/taxonomy_level*; partner-API templates: no story, pictures, robot_assets …), when the spec says so
// (release_date, release_date_name), or when it is a free-text catalog attribute a product may simply not have.
// ---------------------------------------------------------------------------------------------------------------

const url = () => z.string().describe('URL');

export const featuredInSchema = z
  .object({
    name: z.string(),
    slug: z.string(),
    clickthrough_destination: z.string().describe('Site path the link opens, e.g. `sneakers/{slug}`'),
  })
  .strict()
  .meta({ id: 'ResaleBFeaturedIn' });

export const robotAssetSchema = z.object({ url: url() }).strict().meta({ id: 'ResaleBRobotAsset' });

export const externalPictureSchema = z
  .object({
    order: z.number().int(),
    aspect: z.number().describe('Width / height'),
    source_url: z.string(),
    dominant_color: z.string().describe('Hex colour, e.g. `#000000`'),
    attribution_url: z.string().describe('Observed as a name (`GOAT`), not always a URL'),
    grid_picture_url: url(),
    main_picture_url: url(),
  })
  .strict()
  .meta({ id: 'ResaleBExternalPicture' });

export const localizedMoneySchema = z
  .object({
    amount: z.number().int().nullable().describe('Integer cents in `currency`; null when GOAT gives no amount'),
    currency: currencyCode,
    amount_usd_cents: z.number().int().nullable().describe('The same amount in US cents; null when GOAT gives none'),
  })
  .strict()
  .meta({ id: 'ResaleBLocalizedMoney' });

const cents = () => z.number().int().describe('Integer cents (USD)');
const count = () => z.number().int();
const text = () => z.string().nullable();

/** Spec §2.4, field for field and in the spec's order: GOAT's productTemplate with snake_case keys. */
export const productRecordSchema = z
  .object({
    id: z.number().int().describe('Numeric product template id (the `query` of the prices route)'),
    sku: z.string(),
    name: z.string(),
    slug: z.string(),
    color: text(),
    story: text().describe('Plain text'),
    story_html: text().describe('HTML'),
    gender: z.array(z.string()),
    single_gender: text(),
    season: text().describe('As GOAT sends it: may be empty or a year with a leading space'),
    status: z.string().describe('Observed: active'),
    details: text(),
    midsole: text(),
    category: z.array(z.string()),
    designer: text(),
    nickname: text(),
    upper_material: text(),
    silhouette: text(),
    brand_name: z.string(),
    user_own: z.boolean().nullable(),
    user_want: z.boolean().nullable(),
    is_ownable: z.boolean(),
    is_wantable: z.boolean(),
    is_offerable: z.boolean().nullable(),
    is_resellable: z.boolean(),
    is_partner_resellable: z.boolean().nullable().describe('GOAT `isAliasResellable` (name neutralised)'),
    is_raffle_product: z.boolean(),
    is_fashion_product: z.boolean(),
    is_availability_restricted: z.boolean().nullable(),
    direct_shipping: z.boolean().nullable(),
    render_images_in_order: z.boolean().nullable(),
    payment_pay_only_promo: z.boolean().nullable().describe('GOAT `applePayOnlyPromo` (name neutralised)'),
    size_type: z.string().describe('Observed: numeric_sizes'),
    size_unit: z.string().describe('Observed: us'),
    size_brand: text(),
    size_range: z.array(z.number()),
    size_options: z.array(sizeOptionSchema),
    age_groups: z.array(z.unknown()).nullable().describe('Sent by GOAT since 2025-08'),
    featured_in: z.array(featuredInSchema).nullable(),
    picture_url: url(),
    grid_picture_url: url(),
    main_picture_url: url(),
    grid_glow_picture_url: url(),
    main_glow_picture_url: url(),
    robot_assets: z.array(robotAssetSchema).nullable(),
    product_template_external_pictures: z.array(externalPictureSchema).nullable(),
    product_type: z.string().describe('Observed: sneakers'),
    product_category: z.string().describe('Observed: shoes'),
    product_taxonomy: z.array(z.unknown()),
    taxonomy_level1: text().describe('E.g. Footwear; sent by GOAT since 2025-08'),
    taxonomy_level2: text().describe('E.g. Sneakers; sent by GOAT since 2025-08'),
    special_type: z.string().describe('Observed: standard'),
    internal_shot: text().describe('Observed: taken'),
    release_date: text().describe('ISO 8601 timestamp, e.g. 2023-04-26T23:59:59.999Z'),
    release_date_name: text().describe('Null where GOAT sends an empty string'),
    selling_count: count(),
    used_for_sale_count: count(),
    with_defect_for_sale_count: count(),
    microposts_count: count(),
    lowest_price_cents: cents(),
    new_lowest_price_cents: cents(),
    used_lowest_price_cents: cents(),
    special_display_price_cents: cents(),
    maximum_offer_cents: cents(),
    minimum_offer_cents: cents(),
    available_sizes_new: z.array(z.unknown()),
    available_sizes_used: z.array(z.unknown()),
    available_sizes_new_v2: z.array(z.unknown()),
    available_sizes_new_with_defects: z.array(z.unknown()),
    localized_special_display_price_cents: localizedMoneySchema,
  })
  .strict()
  .meta({ id: 'ResaleBProduct' });

export type ResaleBProduct = z.output<typeof productRecordSchema>;

/** The spec §2.4 field names, in the spec's order. */
export const PRODUCT_FIELDS = Object.keys(productRecordSchema.shape) as (keyof ResaleBProduct)[];

/** Upstream keys whose spec name is not the naive snake_case of the key (the spec neutralises two names). */
export const PRODUCT_KEY_RENAMES = {
  isAliasResellable: 'is_partner_resellable',
  applePayOnlyPromo: 'payment_pay_only_promo',
} as const;
