/**
 * `marketlens parse electronics.product` on the real captures in ../shared (every page generation we have data
 * from, the reviews API, the official Products API), checked field by field against the spec's field list.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseAndCheck } from '../../operations/lookup.js';
import { readCapture, sharedAvailable, sharedDir } from '../../../test/support/shared.js';
import { SPEC, fieldProblems } from '../../../test/fixtures/electronics/spec-fields.js';
import { CLI_COMMAND } from '../../../test/support/binary.js';
import { electronicsProduct } from './product.js';
import { electronicsProductSchema, type ElectronicsProduct } from './schema.js';

const OLD_2024 = 'bestbuy/scrapfly_2024-03_products_skuPriceDomain_specCategories.json';
const OLD_2025 = 'bestbuy/scrapfly_2025-03_products_skuPriceDomain_specCategories.json';
const NEW_2025 = 'bestbuy/scrapfly_2025-06_products_graphql_productBySkuId.json';
const REVIEWS_2024 = 'bestbuy/scrapfly_2024-03_ugc_v2_reviews_topics.json';
const OFFICIAL = 'bestbuy/official_api_v1_products_5758400_nock_fixture.json';

function parseCaptures(files: string[], params: Record<string, string> = {}): ElectronicsProduct {
  const saved = files.map((f) => ({ path: f, text: readCapture(f) }));
  const record = parseAndCheck(electronicsProduct, electronicsProduct.bodiesFromFiles(saved, params as never), params);
  return electronicsProductSchema.parse(record);
}

describe.skipIf(!sharedAvailable)('electronics.product on real captures', () => {
  it('2025-03 page data (skuPriceDomain + specification categories) with 2024 reviews: every carried field', () => {
    const r = parseCaptures([OLD_2025, REVIEWS_2024]);
    expect(fieldProblems(r, SPEC.product, ['pricing', 'reviews', 'specification_groups'])).toEqual([]);

    const p = r.pricing!;
    expect(
      fieldProblems(p, SPEC.pricing, [
        'rate',
        'sku_id',
        'offer_id',
        'plan_type',
        'finance_term',
        'customer_price',
        'gsp_unit_price',
        'monthly_payment',
        'finance_monthly_payment',
        'total_cost_including_tax',
        'finance_code_name',
        'preferred_badging',
        'sku_price_domain',
      ]),
    ).toEqual([]);
    expect(p).toMatchObject({
      sku_id: '6534615',
      customer_price: 1499,
      finance_term: 12,
      monthly_payment: '124.92',
      finance_monthly_payment: 124.92,
    });

    const d = p.sku_price_domain!;
    expect(fieldProblems(d, SPEC.sku_price_domain, 'all')).toEqual([]);
    expect(d).toMatchObject({
      sku_id: '6534615',
      sku_type: 'hardgood',
      is_m_a_p: false,
      category_id: 'pcmcat247400050001',
      location_id: '960',
      current_price: 1499,
      regular_price: 1899,
      total_savings: 400,
      total_savings_percent: 21,
      connection_type: '3',
      price_event_type: 'onSale',
      preferred_badging: 'PriceMatchGuarantee',
      current_as_of_date: '2025-03-26T04:28:39 GMT',
      dot_com_display_status: 'active',
      is_price_match_guarantee: true,
      show_total_savings: true,
    });
    expect(d.what_if_price).toEqual({
      plan_paid_member2: null,
      plan_paid_member3: {
        price: null,
        savings: null,
        savings_percent: null,
        warranty: { sku_id: '6558204', full_term_savings: 215.76 },
      },
    });
    expect(fieldProblems(d.finance_option, SPEC.finance_option, 'all')).toEqual([]);
    for (const f of d.finance_options!) expect(fieldProblems(f, SPEC.finance_option, 'all')).toEqual([]);
    expect(d.offer_qualifiers).toHaveLength(4);
    for (const q of d.offer_qualifiers!) expect(fieldProblems(q, SPEC.offer_qualifier, 'all')).toEqual([]);
    expect(d.offer_qualifiers![0]).toMatchObject({
      id: 767427002,
      offer_id: '767427',
      member_picks: false,
      source_offer_version: 8,
    });
    for (const g of d.gift_skus!) expect(fieldProblems(g, SPEC.gift_sku, 'all')).toEqual([]);

    const groups = r.specification_groups!;
    expect(groups).toHaveLength(17);
    expect(groups.reduce((n, g) => n + g.specifications.length, 0)).toBe(70);
    for (const g of groups) {
      expect(fieldProblems(g, SPEC.specification_group, 'all')).toEqual([]);
      for (const s of g.specifications)
        expect(fieldProblems(s, SPEC.specification, ['id', 'value', 'display_name'])).toEqual([]);
    }
    expect(groups[0]!.specifications[0]).toEqual({
      id: 'tQ0qd7NIHa',
      value: 'Retina Display',
      definition: null,
      display_name: 'Screen Type',
    });
    expect(groups[0]!.specifications.find((s) => s.display_name === 'Touch Screen')?.value).toBe('false');
    expect(r.specifications).toBeNull(); // no capture carries the display settings

    const rv = r.reviews!;
    expect(fieldProblems(rv, SPEC.reviews, ['sku_id', 'photos', 'reviews'])).toEqual([]);
    const topics = rv.reviews!.topics;
    expect(topics).toHaveLength(60);
    for (const t of topics) {
      expect(
        fieldProblems(t, SPEC.topic, [
          'id',
          'text',
          'title',
          'badges',
          'photos',
          'rating',
          'topic_type',
          'recommended',
          'comment_count',
          'brand_responses',
          'submission_time',
          'write_comment_url',
          'negative_feedback_count',
          'positive_feedback_count',
        ]),
      ).toEqual([]);
      for (const b of t.badges)
        expect(
          fieldProblems(b, SPEC.badge, ['index', 'badge_code', 'badge_name', 'badge_type', 'badge_description']),
        ).toEqual([]);
      for (const ph of t.photos)
        expect(
          fieldProblems(ph, SPEC.photo, ['photo_id', 'review_id', 'normal_url', 'pisces_url', 'thumbnail_url']),
        ).toEqual([]);
    }
    expect(topics[0]).toMatchObject({
      id: '570e6bb5-cc1c-35ef-a2c9-50e0664e0be1',
      rating: 5,
      title: 'Ps5',
      topic_type: 'review',
      submission_time: '2024-03-09T22:02:38.000-06:00',
    });
    expect(fieldProblems(rv.photos, SPEC.photos, ['results'])).toEqual([]);
    expect(rv.photos!.results).toHaveLength(5);
    expect(topics.some((t) => t.badges.some((b) => b.image_u_r_l !== null))).toBe(true);
  });

  it.each(['6509654', '6534606', '6418599'])(
    '2024-03 page data for SKU %s (before connectionType and memberPicks)',
    (sku) => {
      const r = parseCaptures([OLD_2024], { query: sku });
      const d = r.pricing!.sku_price_domain!;
      expect(d.sku_id).toBe(sku);
      expect(
        fieldProblems(
          d,
          SPEC.sku_price_domain,
          Object.keys(SPEC.sku_price_domain).filter((k) => k !== 'connection_type'),
        ),
      ).toEqual([]);
      expect(d.connection_type).toBeNull();
      for (const q of d.offer_qualifiers!) {
        expect(
          fieldProblems(q, SPEC.offer_qualifier, [
            'id',
            'offer_id',
            'offer_name',
            'instance_id',
            'com_rule_type',
            'offer_version',
          ]),
        ).toEqual([]);
        expect(q.member_picks).toBeNull();
      }
      expect(r.specification_groups).toHaveLength(17);
      expect(r.reviews).toBeNull();
    },
  );

  it('2025-06 Next.js/Apollo productBySkuId (specification groups without ids, buying options, review topics)', () => {
    const r = parseCaptures([NEW_2025]);
    expect(r.name).toMatch(/^Apple - MacBook Pro 14" Laptop - M3 Pro chip/);
    expect(r.specification_groups).toHaveLength(17);
    expect(r.specification_groups![0]!.specifications[0]).toEqual({
      id: null,
      value: 'Retina Display',
      definition: null,
      display_name: 'Screen Type',
    });
    for (const g of r.specification_groups!) {
      for (const s of g.specifications)
        expect(fieldProblems(s, SPEC.specification, ['value', 'display_name'])).toEqual([]);
    }
    expect(r.pricing).toMatchObject({ sku_id: '6534615', customer_price: 1599 });
    expect(r.pricing!.pdp_url).toMatch(/^https:\/\/www\.bestbuy\.com\/site\/.+\/6534615\.p\?skuId=6534615$/);
    expect(r.reviews!.reviews!.topics).toHaveLength(20);
    expect(r.reviews!.photos!.results).toHaveLength(2);
    expect(r.reviews!.page).toBeNull(); // the capture does not say which page or order it holds
  });

  it('picks the product named by query among several in one capture', () => {
    const r = parseCaptures([NEW_2025], { query: 'https://www.bestbuy.com/site/x/6565862.p?skuId=6565862' });
    expect(r.pricing).toMatchObject({ sku_id: '6565862', customer_price: 849 });
  });

  it('official Products API (nock recording): basic price and rating', () => {
    const r = parseCaptures([OFFICIAL]);
    expect(r.pricing).toMatchObject({ sku_id: '5758400', customer_price: 5999.99 });
    expect(r.pricing!.sku_price_domain).toMatchObject({
      regular_price: 5999.99,
      current_price: 5999.99,
      is_m_a_p: false,
      total_savings: 0,
    });
    expect(r.reviews!.stats).toEqual({
      total_review_count: 26,
      recommended_percent: null,
      average_overall_rating: 4.8,
      verified_purchase_count: null,
      rating_distribution: null,
    });
    expect(r.specification_groups).toBeNull();
  });

  it('the marketlens CLI parses the captures and prints the record', () => {
    // The compiled CLI (vitest's global setup builds dist from these sources).
    const out = execFileSync(
      ...CLI_COMMAND(['parse', 'electronics.product', sharedDir(OLD_2025), sharedDir(REVIEWS_2024)]),
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const record = JSON.parse(out);
    expect(electronicsProductSchema.safeParse(record).success).toBe(true);
    expect(record.pricing.sku_price_domain.is_m_a_p).toBe(false);
  });
});
