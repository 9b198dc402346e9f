import { describe, expect, it } from 'vitest';
import { balancedEnd, readJsString } from './json-scan.js';
import { extractPageData, skuFromPage } from './parse-page.js';
import { arr } from './pick.js';
import { at } from '../../util/json-path.js';
import { readFixture } from '../../../test/support/fixtures.js';

const fixture = (name: string) => readFixture(`electronics/${name}`);

describe('extractPageData', () => {
  it('≤ 2024: component JSON scripts', () => {
    const page = extractPageData(fixture('page-component-json.html'))!;
    expect(page.generation).toBe('component-json');
    expect(at(page.pricingApp, 'app', 'data', 'skuPriceDomain', 'skuId')).toBe('6500001');
    expect(at(page.specificationsApp, 'specifications', 'categories')).toHaveLength(2);
    expect(at(page.reviewsApp, 'app', 'stats', 'totalReviewCount')).toBe(130);
    expect(page.product).toBeUndefined();
  });

  it('late 2024 → 2025-03: initializer scripts with the state as an escaped string', () => {
    const page = extractPageData(fixture('page-initializer.html'))!;
    expect(page.generation).toBe('initializer');
    expect(at(page.pricingApp, 'app', 'data', 'skuPriceDomain', 'isMAP')).toBe(true);
    expect(page.specificationsApp?.scrollToViewSelectorLV).toBe('#specifications-accordion');
    expect(at(page.reviewsApp, 'app', 'expert', 'reviewSummary', 'overallRating', 'actual')).toBe(4.5);
  });

  it('2025: Apollo rehydrate blocks of the product are merged; other products are ignored', () => {
    const page = extractPageData(fixture('page-apollo-rehydrate.html'), '6500001')!;
    expect(page.generation).toBe('apollo');
    expect(page.product?.skuId).toBe('6500001');
    expect(arr(page.product?.specificationGroups)?.map((g) => at(g, 'name'))).toEqual(['Key Specs', 'General']);
    expect(at(page.product, 'price', 'displayableCustomerPrice')).toBe(1099.99);
    expect(at(page.product, 'buyingOptions', 0, 'type')).toBe('New');
  });

  it('2026: streamed events[] with productBySkuId', () => {
    const page = extractPageData(fixture('page-apollo-events.html'))!;
    expect(page.generation).toBe('apollo');
    expect(page.product?.reviewInfo).toMatchObject({ averageRating: 4.5, reviewCount: 580 });
  });

  it('a page without any known data → undefined', () => {
    expect(extractPageData('<html><body><h1>Sorry, something went wrong.</h1></body></html>')).toBeUndefined();
    expect(extractPageData(fixture('akamai-access-denied.html'))).toBeUndefined();
  });

  it('a broken component blob counts as absent', () => {
    const html = '<script id="pricing-price-x-json" type="application/json">{"app": {</script>';
    expect(extractPageData(html)).toBeUndefined();
  });
});

describe('skuFromPage', () => {
  it('reads productBySkuId.skuId, data-sku-id, or the old price state', () => {
    expect(skuFromPage(fixture('page-apollo-events.html'))).toBe('6576719');
    expect(skuFromPage('<div class="x" data-sku-id="6418599"></div>')).toBe('6418599');
    expect(skuFromPage(fixture('page-component-json.html'))).toBe('6500001');
    expect(skuFromPage('<html></html>')).toBeUndefined();
  });
});

describe('json-scan', () => {
  it('balancedEnd honours strings with braces and escaped quotes', () => {
    const text = 'x({"a":"}\\"{","b":[1,{"c":2}]});';
    expect(text.slice(2, balancedEnd(text, 2))).toBe('{"a":"}\\"{","b":[1,{"c":2}]}');
    expect(balancedEnd('{"a":1', 0)).toBe(-1);
  });

  it('readJsString decodes JS escapes JSON lacks', () => {
    expect(readJsString(`'it\\'s \\x41\\u0042\\/'`, 0)?.value).toBe("it's AB/");
    expect(readJsString('"{\\"a\\":1}"', 0)?.value).toBe('{"a":1}');
    expect(readJsString('"unterminated', 0)).toBeUndefined();
  });
});
