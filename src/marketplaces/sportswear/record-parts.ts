/**
 * Pieces shared by the three Nike sources (current product page, 2023 `initialState.Threads` page, product_feed
 * threads/v3 API): a product_info with every §2.7 field null, to fill with what a source carries, and the list of
 * record fields a partial source left null (for X-Missing-Parts).
 */
import type { SportswearProduct, SportswearProductInfo } from './schema.js';

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
export const strings = (v: unknown): string[] | null =>
  Array.isArray(v) && v.every((s) => typeof s === 'string') ? v : null;

const PRODUCT_INFO_FIELDS: ReadonlyArray<keyof SportswearProductInfo> = [
  'url',
  'canonical_url',
  'badge',
  'title',
  'subtitle',
  'full_title',
  'product_description',
  'origins',
  'product_details',
  'enhanced_benefits',
  'more_descriptions',
  'size_fit_sections',
  'features_and_benefits',
  'sustainability_message',
  'product_type',
  'selected_sku',
  'content_images',
  'size_chart_url',
  'status_modifier',
  'merch_product_id',
  'global_product_id',
  'availability_date',
  'color_description',
  'is_launch_product',
  'is_member_product',
  'size_select_error',
  'is_promo_exclusion',
  'is_reserved_for_you',
  'is_digital_gift_card',
  'is_restricted_access',
  'is_physical_gift_card',
  'show_availability_date',
  'is_skus_request_in_flight',
  'launch_attributes',
  'localized_label_prefix',
  'customization_path_name',
  'gift_card_message_value_added_service_id',
  'featured_attributes',
  'consumer_release_type',
  'manufacturing_countries_of_origin',
  'sustainability_disclaimer_message',
];

/** Every product_info field null, overridden by `known` (a source fills only what it carries). */
export function productInfoWith(known: Partial<SportswearProductInfo>): SportswearProductInfo {
  const out = Object.fromEntries(PRODUCT_INFO_FIELDS.map((f) => [f, null])) as unknown as SportswearProductInfo;
  return { ...out, ...known };
}

/**
 * Record fields a partial source left null: top-level and `product_info.*` fields, and `sizes.<field>` when every
 * size lacks it. `gender` is left out: no Nike source carries the spec's integer, so it is never "missing".
 * @example nullPaths(record) // ['badge', 'pdp_url', …, 'sizes.status', 'product_info.origins', …]
 */
export function nullPaths(r: SportswearProduct): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(r)) if (v === null && k !== 'gender') out.push(k);
  if (r.prices) for (const [k, v] of Object.entries(r.prices)) if (v === null) out.push(`prices.${k}`);
  if (r.sizes.length > 0) {
    for (const k of Object.keys(r.sizes[0]!))
      if (r.sizes.every((s) => (s as Record<string, unknown>)[k] === null)) out.push(`sizes.${k}`);
  }
  for (const [k, v] of Object.entries(r.product_info)) if (v === null) out.push(`product_info.${k}`);
  return out;
}
