/** electronics.product parse on our own fixtures (real structure, our values): every generation, every source. */
import { describe, expect, it } from 'vitest';
import { MarketlensError } from '../../errors.js';
import { parseAndCheck } from '../../operations/lookup.js';
import { SPEC, fieldProblems } from '../../../test/fixtures/electronics/spec-fields.js';
import { assemble } from './assemble.js';
import type { ElectronicsBodies } from './bodies.js';
import { electronicsProduct } from './product.js';
import { electronicsProductSchema, type ElectronicsProduct } from './schema.js';
import { readFixture } from '../../../test/support/fixtures.js';

const fixture = (name: string) => readFixture(`electronics/${name}`);

function parse(
  bodies: Omit<ElectronicsBodies, 'errors'> & { errors?: ElectronicsBodies['errors'] },
): ElectronicsProduct {
  const b = { errors: {}, ...bodies };
  return electronicsProductSchema.parse(parseAndCheck(electronicsProduct, b, {}));
}

const SOURCES = {
  pricing: fixture('pricing-item.json'),
  priceView: fixture('priceview.json'),
  reviews: fixture('reviews.json'),
  reviewsRequest: { page: 1, sort: 'BEST_REVIEW' },
};

describe.each(['page-component-json.html', 'page-initializer.html'])('old product page %s', (file) => {
  it('every spec field the page carries, with the spec type', () => {
    const r = parse({ sku: '6500001', page: fixture(file) });
    // Old pages name the product nowhere (only a "Product Name" specification without the brand): name is null.
    expect(fieldProblems(r, SPEC.product, ['pricing', 'reviews', 'specification_groups', 'specifications'])).toEqual(
      [],
    );
    expect(r.name).toBeNull();
    const d = r.pricing!.sku_price_domain!;
    expect(fieldProblems(d, SPEC.sku_price_domain, 'all')).toEqual([]);
    expect(d.what_if_price).toEqual({
      plan_paid_member2: { price: 1049.99, savings: 250, savings_percent: 19 },
      plan_paid_member3: {
        price: 1049.99,
        savings: 250,
        savings_percent: 19,
        warranty: { sku_id: '6500888', full_term_savings: 120.5 },
      },
    });
    expect(r.pricing).toMatchObject({
      layout: 'large',
      show_total_savings: true,
      query_params_to_be_removed: ['intl', 'ref'],
    });

    const rv = r.reviews!;
    expect(
      fieldProblems(rv, SPEC.reviews, [
        'page',
        'sort',
        'stats',
        'device',
        'expert',
        'is_bot',
        'layout',
        'photos',
        'sku_id',
        'reviews',
      ]),
    ).toEqual([]);
    expect(fieldProblems(rv.stats, SPEC.stats, 'all')).toEqual([]);
    for (const d2 of rv.stats!.rating_distribution!)
      expect(fieldProblems(d2, SPEC.rating_distribution, 'all')).toEqual([]);
    expect(fieldProblems(rv.expert!.reviews!.results[0], SPEC.expert_review, 'all')).toEqual([]);
    expect(rv.expert!.review_summary).toEqual({
      sku: '6500001',
      expert_summary: 'Critics like the brightness.',
      total_results: 1,
      overall_rating: { actual: 4.5, rounded: 4.5 },
    });
    expect(fieldProblems(rv.photos, SPEC.photos, 'all')).toEqual([]);
    expect(rv.device).toEqual({ is_large: true, is_small: false });

    const s = r.specifications!;
    expect(fieldProblems(s, SPEC.specifications, 'all')).toEqual([]);
    expect(s.measurement_photo_categories).toEqual({
      Televisions: { measurement_photo_location: 'top', always_show_above_text: true },
      Soundbars: { measurement_photo_location: 'bottom' },
    });
    expect(r.specification_groups![0]!.specifications[0]).toEqual({
      id: 'aB3dE5gH7j',
      value: '65 inches',
      definition: 'Size of the screen, measured diagonally.',
      display_name: 'Screen Size',
    });
  });
});

describe('new product page with the APIs', () => {
  it('pricing API + price view + reviews API + Apollo page: every carried field', () => {
    const r = parse({ sku: '6500001', page: fixture('page-apollo-rehydrate.html'), ...SOURCES });
    // The page's own product (productBySkuId.name.short), not the accessory block of another SKU beside it.
    expect(r.name).toBe('ExampleBrand - 65" Class QLED 4K TV');
    const p = r.pricing!;
    expect(
      fieldProblems(
        p,
        SPEC.pricing,
        Object.keys(SPEC.pricing).filter((k) => !['membership_by_type', 'query_params_to_be_removed'].includes(k)),
      ),
    ).toEqual([]);
    expect(p).toMatchObject({
      layout: 'large',
      monthly_payment: '61.11',
      finance_monthly_payment: 61.11,
      total_cost_including_tax: '1099.99',
      preferred_badging_str: 'Price Match Guarantee',
      count_down_threshold: 48,
      price_change_total_savings_percent: 15,
      sku_data_analytics: { sku_id: '6500001', pricing_type: 'onSale', customer_price: 1099.99 },
      member_savings: { show_paid_member_savings: false },
      offers: [{ offer_id: '800001', offer_type: 'FREEITEM', hot_offer: false }],
      // display flags pass through, snake_cased
      show_regular_price: true,
      disable_price_change_message: false,
      has_buy_now_pay_later: true,
    });
    expect(p.membership_by_type).toBeNull();
    expect(fieldProblems(p.sku_price_domain, SPEC.sku_price_domain, 'all')).toEqual([]);
    expect(p.sku_price_domain!.offer_qualifiers![0]).toMatchObject({
      member_picks: false,
      vendor_funded: true,
      source_offer_version: 5,
    });

    const topics = r.reviews!.reviews!.topics;
    expect(topics).toHaveLength(2);
    expect(fieldProblems(topics[1], SPEC.topic, ['product_details'])).toEqual([]);
    expect(topics[1]!.product_details).toEqual({
      name: 'Other colour of the product',
      links: {
        pdp_path: '/site/x/6500002.p?skuId=6500002',
        rnr_path: '/site/reviews/x/6500002',
        reviews_path: '/site/x/6500002.p?skuId=6500002#tabbed-customerreviews',
      },
      active: true,
    });
    expect(topics[0]!.badges[0]).toMatchObject({
      badge_code: 'VerifiedPurchaser',
      image_u_r_l: 'https://example.invalid/badge.jpg',
    });
    expect(topics[0]!.badges[1]).toMatchObject({ badge_code: 'Incentivized', icon_url: null, image_u_r_l: null });
    expect(r.reviews).toMatchObject({ page: 1, sort: 'BEST_REVIEW', sku_id: '6500001' });
    expect(r.reviews!.photos).toEqual({ page: null, results: topics[0]!.photos, page_size: null, total_results: null });
    expect(r.specification_groups!.map((g) => g.display_name)).toEqual(['Key Specs', 'General']);
    expect(r.specification_groups![0]!.specifications[0]!.id).toBeNull();
    expect(r.specifications).toBeNull();
  });

  it('the official API fills what nothing else gave, never over a better source', () => {
    const official = fixture('official-product.json');
    const alone = parse({ sku: '6500001', official });
    expect(alone.pricing!.sku_price_domain).toMatchObject({
      regular_price: 1299.99,
      current_price: 1099.99,
      is_m_a_p: true,
      total_savings: 200,
    });
    expect(alone.reviews!.stats).toMatchObject({ average_overall_rating: 4.6, total_review_count: 130 });
    const withApi = parse({ sku: '6500001', official, ...SOURCES });
    expect(withApi.pricing!.sku_price_domain!.current_as_of_date).toBe('2025-02-20T10:15:00 GMT');
    expect(withApi.reviews!.stats!.average_overall_rating).toBe(4.6);
  });
});

describe('partial answers', () => {
  it('reviews source failed → reviews null and missing part "reviews"', () => {
    const bodies: ElectronicsBodies = {
      sku: '6500001',
      page: fixture('page-apollo-rehydrate.html'),
      pricing: SOURCES.pricing,
      priceView: SOURCES.priceView,
      errors: { reviews: { code: 'upstream_error', message: 'electronics answered HTTP 500', status: 500 } },
    };
    const r = parse(bodies);
    expect(r.reviews).toBeNull();
    expect(r.pricing).not.toBeNull();
    expect(electronicsProduct.parse(bodies, { query: bodies.sku! }).missing).toEqual(['reviews']);
  });

  it('reviews API failed but the page has statistics → reviews kept, "reviews.reviews" missing', () => {
    const bodies: ElectronicsBodies = {
      sku: '6576719',
      page: fixture('page-apollo-events.html'),
      errors: { reviews: { code: 'upstream_timeout', message: 'timeout' } },
    };
    const r = parse(bodies);
    expect(r.reviews!.stats!.total_review_count).toBe(580);
    expect(r.reviews!.reviews).toBeNull();
    expect(electronicsProduct.parse(bodies, { query: bodies.sku! }).missing).toEqual(['reviews.reviews']);
  });

  it('page failed → specification parts missing; a pricing API answer that is not JSON counts as failed', () => {
    const bodies: ElectronicsBodies = {
      sku: '6500001',
      pricing: '{"skuId":',
      priceView: SOURCES.priceView,
      reviews: SOURCES.reviews,
      errors: { page: { code: 'upstream_blocked', message: 'blocked', status: 403 } },
    };
    const a = assemble(bodies);
    expect(a.record.specification_groups).toBeNull();
    expect(a.record.pricing!.sku_price_domain).toBeNull();
    expect(a.record.pricing!.customer_price).toBe(1099.99);
    expect(a.missing).toEqual(['pricing.sku_price_domain', 'specification_groups', 'specifications']);
    expect(a.failures.pricing?.code).toBe('upstream_changed');
  });

  it('nothing usable → the most telling failure', () => {
    const blocked = { code: 'upstream_blocked' as const, message: 'blocked', status: 403 };
    expect(() =>
      assemble({ sku: '1', errors: { page: blocked, pricing: { code: 'upstream_error', message: 'x' } } }),
    ).toThrowError(expect.objectContaining({ code: 'upstream_blocked' }));
    // A page with no known data and nothing else: upstream_changed (the alarm for a format change).
    let caught: unknown;
    try {
      parseAndCheck(electronicsProduct, { sku: '1', page: '<html><body>new layout</body></html>', errors: {} }, {});
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(MarketlensError);
    expect((caught as MarketlensError).code).toBe('upstream_changed');
  });
});

describe('bodiesFromFiles', () => {
  it('recognises each saved answer by its content', () => {
    const files = [
      { path: 'page.html', text: fixture('page-apollo-rehydrate.html') },
      { path: 'pricing.json', text: SOURCES.pricing },
      { path: 'priceview.json', text: SOURCES.priceView },
      { path: 'reviews.json', text: SOURCES.reviews },
      { path: 'official.json', text: fixture('official-product.json') },
    ];
    const b = electronicsProduct.bodiesFromFiles(files, {} as never);
    expect(b).toMatchObject({
      sku: '6500001',
      page: files[0]!.text,
      pricing: SOURCES.pricing,
      priceView: SOURCES.priceView,
      reviews: SOURCES.reviews,
      official: files[4]!.text,
    });
  });

  it('rejects a file it does not know', () => {
    expect(() =>
      electronicsProduct.bodiesFromFiles([{ path: 'x.json', text: '{"hello":1}' }], {} as never),
    ).toThrowError(/x\.json/);
    expect(() => electronicsProduct.bodiesFromFiles([{ path: 'x.txt', text: 'plain' }], {} as never)).toThrowError(
      /neither HTML nor JSON/,
    );
  });
});

describe('2025 page: productBySkuId with price and offers (issue 29)', () => {
  /** A 2025 Next.js/Apollo page (the rehydrate push), its product block written with the structure of the capture. */
  const page = (product: Record<string, unknown>) =>
    '<!DOCTYPE html><html><head><title>ExampleBrand OLED TV</title></head><body><script>' +
    '(self.__APOLLO_SSR_DATA__=self.__APOLLO_SSR_DATA__||[]).push(' +
    JSON.stringify({ rehydrate: { ':R3vmipefmjttrkqH1:': { data: { productBySkuId: product }, complete: true } } }) +
    ')</script></body></html>';
  const product = {
    __typename: 'Product',
    skuId: '6500001',
    name: { __typename: 'ProductName', short: 'ExampleBrand - 55" Class OLED 4K TV' },
    buyingOptions: [
      {
        __typename: 'InboundBuyingOption',
        type: 'New',
        pdpUrl: 'https://www.bestbuy.com/site/x/6500001.p?skuId=6500001',
      },
    ],
    price: {
      __typename: 'ItemPrice',
      skuId: '6500001',
      customerPrice: 699,
      showTotalSavings: true,
      totalSavings: 100,
      preferredBadging: 'PriceMatchGuarantee',
    },
    offers: {
      __typename: 'ProductOffers',
      offers: [
        {
          __typename: 'Offer',
          hotOffer: true,
          offerId: '654321',
          offerType: 'GIFT_WITH_PURCHASE',
          complexMemberOffer: false,
        },
        { __typename: 'Offer', hotOffer: false, offerId: '765432', offerType: 'BUNDLE', complexMemberOffer: true },
      ],
    },
  };

  it('pricing.offers from offers.offers[] (keys snake_cased, GraphQL __typename dropped)', () => {
    const r = parse({ sku: '6500001', page: page(product) });
    expect(r.pricing!.offers).toEqual([
      { hot_offer: true, offer_id: '654321', offer_type: 'GIFT_WITH_PURCHASE', complex_member_offer: false },
      { hot_offer: false, offer_id: '765432', offer_type: 'BUNDLE', complex_member_offer: true },
    ]);
  });

  it('sku_price_domain.current_price is the price the page shows now (customerPrice)', () => {
    const r = parse({ sku: '6500001', page: page(product) });
    expect(r.pricing!.sku_price_domain).toMatchObject({ current_price: 699, customer_price: 699 });
    expect(r.pricing!.customer_price).toBe(699);
    expect(r.name).toBe('ExampleBrand - 55" Class OLED 4K TV');
  });

  it('a stated currentPrice wins, and a page without offers leaves offers null (nothing invented)', () => {
    const { offers: _none, ...bare } = product;
    const r = parse({ sku: '6500001', page: page({ ...bare, price: { ...product.price, currentPrice: 649 } }) });
    expect(r.pricing!.sku_price_domain!.current_price).toBe(649);
    expect(r.pricing!.offers).toBeNull();
  });

  it("the price view answer's own offers come first", () => {
    const r = parse({ sku: '6500001', page: page(product), priceView: fixture('priceview.json') });
    expect(r.pricing!.offers).toEqual([{ offer_id: '800001', offer_type: 'FREEITEM', hot_offer: false }]);
  });
});
