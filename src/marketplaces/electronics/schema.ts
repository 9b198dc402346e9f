/**
 * Zod for the spec §2.8 electronics (Best Buy) record. Written from the spec field list; every field is nullable
 * because each one comes from a source that may be down or may not carry it (CONTRACT §7: null, never invented).
 * Names are the naive snake_case of Best Buy's own camelCase keys (`isMAP` → `is_m_a_p`, `imageURL` → `image_u_r_l`).
 */
import { z } from 'zod';

const str = () => z.string().nullable();
const num = () => z.number().nullable();
const bool = () => z.boolean().nullable();

/** Finance option (inside `sku_price_domain`): numbers stay numbers here (the spec's "number inside finance option"). */
export const financeOptionSchema = z
  .object({
    rank: num(),
    rate: num(),
    offer_id: str(),
    priority: num(),
    plan_type: str().describe('e.g. Deferred'),
    total_cost: num(),
    default_plan: bool(),
    finance_code: num(),
    finance_term: num().describe('Months'),
    monthly_payment: num(),
    finance_code_name: str().describe('e.g. 12-Month Financing'),
    terms_and_conditions: str(),
    finance_code_desc_long: str(),
    total_cost_including_tax: num(),
    monthly_payment_including_tax: num(),
  })
  .strict()
  .meta({ id: 'ElectronicsFinanceOption' });

export const offerQualifierSchema = z
  .object({
    id: num(),
    offer_id: str(),
    offer_name: str(),
    instance_id: num(),
    member_picks: bool().describe('null on pages from before 2025'),
    com_rule_type: str(),
    offer_version: num(),
    vendor_funded: bool().describe('null on pages from before 2025'),
    com_offer_type: str(),
    offer_discount_type: str(),
    source_offer_version: num().describe('null on pages from before 2025'),
    offer_revocable_on_returns: bool(),
    exclude_from_bundle_breakage: bool(),
  })
  .strict()
  .meta({ id: 'ElectronicsOfferQualifier' });

const giftSkuSchema = z
  .object({ sku_id: str(), savings: num(), offer_id: str(), quantity: num(), is_required_with_offer: bool() })
  .strict()
  .meta({ id: 'ElectronicsGiftSku' });

const tierPrice = z.object({ price: num(), savings: num(), savings_percent: num() }).strict();
const whatIfPriceSchema = z
  .object({
    plan_paid_member2: tierPrice.nullable(),
    plan_paid_member3: tierPrice
      .extend({ warranty: z.object({ sku_id: str(), full_term_savings: num() }).strict().nullable() })
      .strict()
      .nullable(),
  })
  .strict()
  .meta({ id: 'ElectronicsWhatIfPrice' });

export const skuPriceDomainSchema = z
  .object({
    sku_id: str(),
    sku_type: str().describe('e.g. hardgood'),
    is_m_a_p: bool().describe('Minimum advertised price applies'),
    gift_skus: z.array(giftSkuSchema).nullable(),
    category_id: str(),
    location_id: str(),
    current_price: num(),
    regular_price: num(),
    total_savings: num(),
    what_if_price: whatIfPriceSchema.nullable(),
    customer_price: num(),
    finance_option: financeOptionSchema.nullable(),
    finance_options: z.array(financeOptionSchema).nullable(),
    gsp_unit_price: num(),
    connection_type: str().describe('Present since 2025'),
    offer_qualifiers: z.array(offerQualifierSchema).nullable(),
    price_event_type: str().describe('onSale, regular'),
    preferred_badging: str(),
    current_as_of_date: str().describe('Upstream timestamp, e.g. "2025-03-26T04:28:39 GMT"'),
    show_total_savings: bool(),
    total_gift_savings: num(),
    total_savings_percent: num(),
    dot_com_display_status: str(),
    is_price_match_guarantee: bool(),
    total_paid_member_savings: num(),
    total_non_paid_member_savings: num(),
  })
  .strict()
  .meta({ id: 'ElectronicsSkuPriceDomain' });

const membershipTierSchema = z
  .object({
    price: z.union([z.number(), z.string()]).nullable(),
    savings: z.union([z.number(), z.string()]).nullable(),
    full_term_savings: z.union([z.number(), z.string()]).nullable().describe('number or empty string'),
    product_image_path: z
      .object({
        rel: str(),
        href: str(),
        width: num(),
        height: num(),
        alt_text: str(),
        media_type: str(),
        pisces_href: str(),
        unit_of_measure: str(),
      })
      .strict()
      .nullable(),
    product_service_name_path: str(),
  })
  .strict();

export const pricingSchema = z
  .object({
    rate: num(),
    layout: str(),
    offers: z
      .array(z.record(z.string(), z.unknown()))
      .nullable()
      .describe('Offers of the price view, keys snake_cased'),
    sku_id: str(),
    offer_id: str(),
    plan_type: str(),
    pdp_url: str(),
    finance_term: num(),
    customer_price: num(),
    gsp_unit_price: num(),
    monthly_payment: str().describe('A string in `pricing` (a number inside a finance option)'),
    finance_monthly_payment: num(),
    total_cost_including_tax: str(),
    finance_code_name: str(),
    preferred_badging: str(),
    preferred_badging_str: str(),
    sku_price_domain: skuPriceDomainSchema.nullable(),
    membership_by_type: z
      .object({ plus: membershipTierSchema.nullable(), total: membershipTierSchema.nullable() })
      .strict()
      .nullable()
      .describe('My Best Buy Plus / Total prices; no source known to answer it today, so null'),
    sku_data_analytics: z.object({ sku_id: str(), pricing_type: str(), customer_price: num() }).strict().nullable(),
    member_savings: z.object({ show_paid_member_savings: bool() }).strict().nullable(),
    query_params_to_be_removed: z.array(z.string()).nullable(),
    count_down_threshold: num(),
    expiration_date_threshold: num(),
    price_change_total_savings_amount: num(),
    price_change_total_savings_percent: num(),
  })
  // The spec's "many boolean display flags" (show_*, disable_*, is_*, has_*, enable_*): their names vary with the
  // price view's version, so they are passed through as extra boolean keys (and only those).
  .catchall(z.boolean())
  .meta({
    id: 'ElectronicsPricing',
    description:
      'Price block. Besides the listed fields, any number of boolean display flags named show_*, disable_*, is_*, ' +
      'has_* or enable_* as the price view sends them.',
  });

const ratingSchema = z.object({ actual: num(), rounded: num() }).strict();

export const expertReviewSchema = z
  .object({
    skus: z.array(z.string()).nullable(),
    rating: ratingSchema.nullable(),
    language: str(),
    source_id: str(),
    review_url: str(),
    author_name: str(),
    review_date: str(),
    source_name: str(),
    review_title: str(),
    review_summary: str(),
    expert_review_id: str(),
    source_content_id: str(),
  })
  .strict()
  .meta({ id: 'ElectronicsExpertReview' });

export const reviewPhotoSchema = z
  .object({
    caption: str(),
    photo_id: str(),
    review_id: str(),
    normal_url: str(),
    pisces_url: str(),
    thumbnail_url: str(),
  })
  .strict()
  .meta({ id: 'ElectronicsReviewPhoto' });

export const reviewBadgeSchema = z
  .object({
    index: num(),
    badge_code: str().describe('e.g. Incentivized, VerifiedPurchaser'),
    badge_name: str(),
    badge_type: str(),
    badge_description: str(),
    icon_url: str(),
    icon_path: str(),
    icon_text: str(),
    file_name: str(),
    image_u_r_l: str(),
  })
  .strict()
  .meta({ id: 'ElectronicsReviewBadge' });

export const reviewTopicSchema = z
  .object({
    id: str(),
    cons: z.array(z.string()).nullable(),
    pros: z.array(z.string()).nullable(),
    text: str(),
    title: str(),
    author: str(),
    badges: z.array(reviewBadgeSchema),
    photos: z.array(reviewPhotoSchema),
    rating: num(),
    topic_type: str().describe('review'),
    recommended: bool(),
    comment_count: num(),
    brand_responses: z.array(z.record(z.string(), z.unknown())).describe('Brand answers, keys snake_cased'),
    product_details: z
      .object({
        name: str(),
        links: z.object({ pdp_path: str(), rnr_path: str(), reviews_path: str() }).strict().nullable(),
        active: bool(),
      })
      .strict()
      .nullable()
      .describe('Set when the review was written for another variant of the product'),
    submission_time: str().describe('ISO 8601 with offset'),
    days_of_ownership: num(),
    write_comment_url: str(),
    negative_feedback_count: num(),
    positive_feedback_count: num(),
  })
  .strict()
  .meta({ id: 'ElectronicsReviewTopic' });

export const reviewStatsSchema = z
  .object({
    total_review_count: num(),
    recommended_percent: num(),
    average_overall_rating: num(),
    verified_purchase_count: num(),
    rating_distribution: z
      .array(z.object({ count: num(), value: num(), actual_percent: num(), rounded_percent: num() }).strict())
      .nullable(),
  })
  .strict()
  .meta({ id: 'ElectronicsReviewStats' });

export const reviewsSchema = z
  .object({
    page: num().describe('Page of reviews fetched'),
    sort: str().describe('Order of reviews, e.g. BEST_REVIEW'),
    stats: reviewStatsSchema.nullable(),
    device: z.object({ is_large: bool(), is_small: bool() }).strict().nullable(),
    expert: z
      .object({
        reviews: z
          .object({
            page: num(),
            errors: z.array(z.unknown()).nullable(),
            results: z.array(expertReviewSchema),
            page_size: num(),
            total_results: num(),
          })
          .strict()
          .nullable(),
        review_summary: z
          .object({ sku: str(), expert_summary: str(), total_results: num(), overall_rating: ratingSchema.nullable() })
          .strict()
          .nullable(),
      })
      .strict()
      .nullable(),
    is_bot: bool(),
    layout: str(),
    photos: z
      .object({ page: num(), results: z.array(reviewPhotoSchema), page_size: num(), total_results: num() })
      .strict()
      .nullable()
      .describe('Customer photos; without a photo gallery source, the photos of the fetched review topics'),
    rating: str(),
    feature: str(),
    sku_id: str(),
    reviews: z
      .object({ topics: z.array(reviewTopicSchema) })
      .strict()
      .nullable()
      .describe('null when the reviews source failed (see X-Missing-Parts)'),
  })
  .strict()
  .meta({ id: 'ElectronicsReviews' });

export const specificationGroupSchema = z
  .object({
    display_name: z.string().nullable().describe("The group's name; null when Best Buy sends none"),
    specifications: z.array(
      z
        .object({
          id: str().describe('null on pages since 2025, which no longer carry specification ids'),
          value: z.string().describe('Always a string, e.g. "false", "14.2 inches"'),
          definition: str(),
          display_name: z.string(),
        })
        .strict(),
    ),
  })
  .strict()
  .meta({ id: 'ElectronicsSpecificationGroup' });

const measurementPhotoCategory = z
  .object({ measurement_photo_location: str(), always_show_above_text: z.boolean().optional() })
  .strict();

export const specificationsSettingsSchema = z
  .object({
    is_bot: bool(),
    is_all_specs: bool(),
    disable_icons: bool(),
    is_small_view: bool(),
    hide_accordion: bool(),
    is_drawer_open: bool(),
    use_action_log: bool(),
    show_border_top: bool(),
    hide_border_bottom: bool(),
    show_feedback_link: bool(),
    use_tab_link_class: bool(),
    has_highlights_data: bool(),
    is_appliance_category: bool(),
    is_highlights_category: bool(),
    enable_deferred_hydration: bool(),
    enable_product_highlights: bool(),
    show_scroll_to_all_specifications: bool(),
    sku_id: str(),
    context: str(),
    instance_id: str(),
    scroll_to_view_selector_l_v: str(),
    see_all_specifications_data_track: str(),
    measurement_photo_data: z.record(z.string(), z.unknown()).nullable(),
    measurement_photo_categories: z.record(z.string(), measurementPhotoCategory).nullable(),
    feed_back_link_categories: z.array(z.string()).nullable(),
  })
  .strict()
  .meta({ id: 'ElectronicsSpecificationsSettings' });

export const electronicsProductSchema = z
  .object({
    pricing: pricingSchema.nullable().describe('null when every price source failed (see X-Missing-Parts)'),
    reviews: reviewsSchema.nullable().describe('null when every review source failed (see X-Missing-Parts)'),
    specification_groups: z
      .array(specificationGroupSchema)
      .nullable()
      .describe('Grouped specifications (CONTRACT §7: the spec leaves the key open); null when the page failed'),
    specifications: specificationsSettingsSchema
      .nullable()
      .describe('Display settings of the specifications block; only old product pages carried them, otherwise null'),
    name: z
      .string()
      .nullable()
      .describe(
        "Beyond the spec: the product's name as the page shows it (`productBySkuId.name`) or the Products API names " +
          'it; null when neither answered with one',
      ),
  })
  .strict()
  .meta({ id: 'ElectronicsProduct' });

export type ElectronicsProduct = z.output<typeof electronicsProductSchema>;
export type Pricing = z.output<typeof pricingSchema>;
export type SkuPriceDomain = z.output<typeof skuPriceDomainSchema>;
export type FinanceOption = z.output<typeof financeOptionSchema>;
export type OfferQualifier = z.output<typeof offerQualifierSchema>;
export type Reviews = z.output<typeof reviewsSchema>;
export type ReviewTopic = z.output<typeof reviewTopicSchema>;
export type ReviewPhoto = z.output<typeof reviewPhotoSchema>;
export type ReviewStats = z.output<typeof reviewStatsSchema>;
export type SpecificationGroup = z.output<typeof specificationGroupSchema>;
export type SpecificationsSettings = z.output<typeof specificationsSettingsSchema>;
