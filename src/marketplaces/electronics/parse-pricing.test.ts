import { describe, expect, it } from 'vitest';
import { buildPricing, domainFromPricingApi, toSkuPriceDomain } from './parse-pricing.js';
import { buildReviews, topicsOf } from './parse-reviews.js';
import { buildSpecificationGroups } from './parse-specifications.js';

describe('pricing API answer shapes', () => {
  const domain = { skuId: '6500001', customerPrice: 10, isMAP: false };
  it.each([
    ['the object itself', domain],
    ['wrapped in skuPriceDomain', { skuPriceDomain: domain }],
    ['wrapped in data.skuPriceDomain', { data: { skuPriceDomain: domain } }],
    ['an array per SKU', [{ skuId: '1', customerPrice: 5 }, domain]],
  ])('%s', (_name, body) => {
    expect(domainFromPricingApi(body, '6500001')?.customerPrice).toBe(10);
  });

  it('an answer without prices is no domain', () => {
    expect(domainFromPricingApi({ error: 'nope' })).toBeUndefined();
    expect(domainFromPricingApi('text')).toBeUndefined();
  });
});

describe('buildPricing', () => {
  it('keeps only boolean show_/disable_/is_/has_/enable_ flags as extra keys', () => {
    const p = buildPricing({
      priceView: {
        layout: 'small',
        skuId: '1',
        showSavings: true,
        showBadge: 'yes',
        isBot: false,
        hasX: 1,
        enableY: false,
        other: true,
      },
    })!;
    expect(p).toMatchObject({ show_savings: true, is_bot: false, enable_y: false, layout: 'small' });
    expect(p).not.toHaveProperty('show_badge');
    expect(p).not.toHaveProperty('has_x');
    expect(p).not.toHaveProperty('other');
  });

  it('null when no source carries a price (the SKU and page URL alone are not a price)', () => {
    expect(
      buildPricing({ sku: '1', product: { skuId: '1', url: { pdp: 'https://www.bestbuy.com/site/x/1.p' } } }),
    ).toBeNull();
    expect(buildPricing({})).toBeNull();
  });

  it('types follow the spec, never the upstream whim: numeric strings are not numbers', () => {
    const d = toSkuPriceDomain({ skuId: 6500001, customerPrice: '10', isMAP: 'false', locationId: 960 });
    expect(d).toMatchObject({ sku_id: '6500001', customer_price: null, is_m_a_p: false, location_id: '960' });
  });
});

describe('reviews and specifications edge cases', () => {
  it('topicsOf accepts the envelope or a bare topics array', () => {
    expect(topicsOf({ totalPages: 1, topics: [{ id: 'a' }] })).toHaveLength(1);
    expect(topicsOf([{ id: 'a' }, { id: 'b' }])).toHaveLength(2);
    expect(topicsOf({ nope: 1 })).toBeUndefined();
  });

  it('no review source → null; an empty topics answer → an empty list, not null', () => {
    expect(buildReviews({ sku: '1' })).toBeNull();
    const r = buildReviews({ sku: '1', reviewsApi: { topics: [] }, reviewsRequest: { page: 1, sort: 'BEST_REVIEW' } })!;
    expect(r.reviews).toEqual({ topics: [] });
    expect(r.photos).toEqual({ page: null, results: [], page_size: null, total_results: null });
  });

  it('specification values are always strings; nameless or valueless specifications are dropped', () => {
    const groups = buildSpecificationGroups(undefined, {
      specificationGroups: [
        {
          name: 'G',
          specifications: [
            { displayName: 'Wi-Fi', value: true },
            { displayName: 'Weight', value: 2.5 },
            { displayName: 'X', value: null },
            { value: 'y' },
          ],
        },
      ],
    })!;
    expect(groups[0]!.specifications).toEqual([
      { id: null, value: 'true', definition: null, display_name: 'Wi-Fi' },
      { id: null, value: '2.5', definition: null, display_name: 'Weight' },
    ]);
  });
});
