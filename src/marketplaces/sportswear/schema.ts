/**
 * Zod schemas for sportswear (Nike): the spec §2.7 product record, written from the spec field list.
 *
 * Nullability: the spec gives plain types, but several fields are only inferred from the spec's names (notes §3, "~")
 * and a documented field upstream does not carry is `null`, never a made-up value (CONTRACT §7). So every field is
 * nullable except the product's identity (`id`, `style_color`), the `sizes` list and each size's `label`, without
 * which the record is not a product: a page lacking them answers 502 upstream_changed through the record check.
 */
import { z } from 'zod';

const str = (doc: string) => z.string().nullable().describe(doc);
const bool = (doc: string) => z.boolean().nullable().describe(doc);
const num = (doc: string) => z.number().nullable().describe(doc);
/** Items whose shape neither the spec nor any capture shows: kept as upstream sends them, keys snake_cased. */
const anyArray = (doc: string) => z.array(z.unknown()).nullable().describe(doc);

export const sizeSchema = z
  .object({
    gtins: z
      .array(z.object({ gtin: z.string() }).strict().meta({ id: 'SportswearGtin' }))
      .nullable()
      .describe('GTIN/EAN codes of the size'),
    label: z.string().describe("Size label in the storefront's base system, e.g. `10`"),
    status: str('Size status, observed `ACTIVE`. ACTIVE does NOT mean in stock (stock loads client-side)'),
    merch_sku_id: str('Merch SKU id (UUID)'),
    sort_sequence: z.number().int().nullable().describe('Display order'),
    localized_label: str('Size label as the storefront shows it, e.g. `M 5 / W 6.5` or `EU 38.5`'),
    localized_label_prefix: str('Prefix of the localized label, e.g. a region code such as `EU`'),
  })
  .strict()
  .meta({ id: 'SportswearSize' });

export const pricesSchema = z
  .object({
    currency: str('ISO 4217 currency of the storefront, e.g. USD, EUR'),
    current_price: num('Price now asked'),
    initial_price: num('Full (list) price'),
    employee_price: num('Employee price'),
    discount_percentage: num('Discount of current_price against initial_price, in percent'),
    employee_discount_percentage: num('Employee discount, in percent'),
  })
  .strict()
  .meta({ id: 'SportswearPrices' });

export const pdpUrlSchema = z
  .object({
    url: str('Product page URL as the storefront links it'),
    canonical_url: str('Canonical product page URL'),
  })
  .strict()
  .meta({ id: 'SportswearPdpUrl' });

/** `{header, body[]}` blocks: origins, product details, benefits, in the storefront's language. */
export const headerBodySchema = z
  .object({ header: z.string().nullable(), body: z.array(z.string()) })
  .strict()
  .meta({ id: 'SportswearHeaderBody' });

const richTextNodeSchema = z
  .object({
    type: z.string(),
    text: z.string().optional(),
    marks: z.array(z.unknown()).optional(),
    attrs: z.record(z.string(), z.unknown()).optional(),
    content: z.array(z.unknown()).optional(),
  })
  .describe('Rich-text node: type, and text / marks / attrs / nested content where the node has them')
  .meta({ id: 'SportswearRichTextNode' });

export const sustainabilityMessageSchema = z
  .object({
    body: str('Message as HTML'),
    json_body: z
      .object({ type: z.string().describe('`doc`'), content: z.array(richTextNodeSchema) })
      .nullable()
      .describe('The same message as a rich-text document'),
  })
  .strict()
  .meta({ id: 'SportswearSustainabilityMessage' });

const imageSchema = z
  .object({ id: z.string().nullable(), url: z.string().nullable(), aspect_ratio: z.number().nullable() })
  .strict()
  .meta({ id: 'SportswearImage' });

export const contentImageSchema = z
  .object({
    card_type: str('Observed `image`'),
    properties: z
      .object({
        alt_text: z.string().nullable(),
        portrait: imageSchema.nullable(),
        squarish: imageSchema.nullable(),
      })
      .strict()
      .nullable(),
  })
  .strict()
  .meta({ id: 'SportswearContentImage' });

export const productInfoSchema = z
  .object({
    url: str('Product page URL'),
    canonical_url: str('Canonical product page URL'),
    badge: str('Badge text'),
    title: str("Title, in the storefront's language"),
    subtitle: str('Subtitle, e.g. the category'),
    full_title: str('Full title'),
    product_description: str('Description text'),
    origins: z.array(headerBodySchema).nullable(),
    product_details: z.array(headerBodySchema).nullable(),
    enhanced_benefits: z.array(headerBodySchema).nullable(),
    more_descriptions: anyArray('Further description blocks'),
    size_fit_sections: anyArray('Size & fit sections, e.g. `{section_type, label, sizes[]}`'),
    features_and_benefits: anyArray('Features and benefits, e.g. `{header, body[]}` blocks'),
    sustainability_message: z.array(sustainabilityMessageSchema).nullable(),
    product_type: str('Observed FOOTWEAR'),
    selected_sku: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .nullable()
      .describe('Page UI state: the size selected on load (empty/null on a fresh page)'),
    content_images: z.array(contentImageSchema).nullable(),
    size_chart_url: str('Size chart page'),
    status_modifier: str('Observed BUYABLE_BUY'),
    merch_product_id: str('Merch product id (UUID)'),
    global_product_id: str('Global product id (UUID)'),
    availability_date: str('ISO 8601 timestamp'),
    color_description: str("Colour names, in the storefront's language"),
    is_launch_product: bool('Launch (SNKRS-style) product'),
    is_member_product: bool('Members only'),
    size_select_error: bool('Page UI state'),
    is_promo_exclusion: bool('Excluded from promotions'),
    is_reserved_for_you: bool('Reserved-for-you product'),
    is_digital_gift_card: bool('Digital gift card'),
    is_restricted_access: bool('Restricted access'),
    is_physical_gift_card: bool('Physical gift card'),
    show_availability_date: bool('Whether the page shows availability_date'),
    is_skus_request_in_flight: bool('Page UI state: stock request still running when the page was rendered'),
    launch_attributes: z.record(z.string(), z.unknown()).nullable().describe('Launch details, when a launch product'),
    localized_label_prefix: str('Size label prefix of the storefront'),
    customization_path_name: str('Customisation (Nike By You) path'),
    gift_card_message_value_added_service_id: str('Value-added service id of the gift-card message'),
    featured_attributes: z
      .array(z.string())
      .nullable()
      .describe('e.g. SUSTAINABLE_MATERIALS, PROMOS_EXCLUDED, SHOW_PDP_PROMO_EXCLUSION_MESSAGE, JUST_IN'),
    consumer_release_type: str('Observed RELEASE'),
    manufacturing_countries_of_origin: anyArray('Countries of manufacture'),
    sustainability_disclaimer_message: str('HTML'),
  })
  .strict()
  .meta({ id: 'SportswearProductInfo' });

export const productSchema = z
  .object({
    id: z.string().describe('Nike product id (UUID)'),
    badge: str('Badge text'),
    sizes: z.array(sizeSchema).describe('Every size of the colourway; `status` is not stock'),
    brands: z.array(z.string()).nullable(),
    gender: z
      .number()
      .int()
      .nullable()
      .describe(
        'Integer gender code as the spec shows it; null when the page carries no integer (it carries `genders` strings)',
      ),
    prices: pricesSchema.nullable(),
    pdp_url: pdpUrlSchema.nullable(),
    more_info: anyArray('More-info blocks'),
    color_code: str('Colour part of the style-colour, e.g. `100`'),
    sport_tags: z.array(z.string()).nullable(),
    style_code: str('Style part of the style-colour, e.g. `DD1391`'),
    group_index: z.number().int().nullable().describe('Index of the product group (fit/age group) on the page'),
    group_label: z.string().nullable().describe("Label of the product group, e.g. Men's"),
    style_color: z.string().describe('Style-colour code, e.g. `DD1391-100`'),
    enhanced_pdp: anyArray('Enhanced product-page content'),
    net_quantity: z.union([z.number(), z.string()]).nullable().describe('Net quantity, where the product has one'),
    product_info: productInfoSchema,
  })
  .strict()
  .meta({ id: 'SportswearProduct' });

export type SportswearProduct = z.output<typeof productSchema>;
export type SportswearProductInfo = z.output<typeof productInfoSchema>;
