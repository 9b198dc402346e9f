import { describe, expect, it } from 'vitest';
import { MarketlensError } from '../../errors.js';
import { parseProductQuery } from './sku.js';

describe('parseProductQuery', () => {
  it.each([
    [
      'legacy /site/<slug>/<sku>.p?skuId=',
      'https://www.bestbuy.com/site/apple-macbook-pro-14/6534615.p?skuId=6534615',
      '6534615',
    ],
    ['legacy without skuId', 'https://www.bestbuy.com/site/apple-macbook-pro-14/6534615.p', '6534615'],
    ['skuId query wins', 'https://www.bestbuy.com/site/searchpage.jsp?skuId=6418599', '6418599'],
    [
      'new /product/<slug>/<BSIN>/sku/<sku>',
      'https://www.bestbuy.com/product/dell-inspiron-14/J3K4L6JSFL/sku/6576719',
      '6576719',
    ],
    [
      'reviews under /sku/<sku>/reviews',
      'https://www.bestbuy.com/product/dell-inspiron-14/J3K4L6JSFL/sku/6576719/reviews',
      '6576719',
    ],
    ['open box', 'https://www.bestbuy.com/product/apple-macbook-pro-14/6534615/openbox?condition=excellent', '6534615'],
    ['no scheme, bare host', 'bestbuy.com/site/x/6534615.p?skuId=6534615', '6534615'],
    ['http upgraded', 'http://www.bestbuy.com/site/x/6534615.p?skuId=6534615', '6534615'],
    ['bare SKU', '6534615', '6534615'],
    ['bare SKU with spaces', '  6534615 ', '6534615'],
  ])('%s', (_name, query, sku) => {
    expect(parseProductQuery(query).sku).toBe(sku);
  });

  it('a canonical URL without SKU is kept for resolution through the page', () => {
    const ref = parseProductQuery('https://www.bestbuy.com/product/dell-inspiron-14/J3K4L6JSFL');
    expect(ref.sku).toBeUndefined();
    expect(ref.url?.pathname).toBe('/product/dell-inspiron-14/J3K4L6JSFL');
  });

  it.each([
    ['foreign host', 'https://www.amazon.com/site/x/6534615.p?skuId=6534615', /not a Best Buy host/],
    ['look-alike host', 'https://bestbuy.com.evil.example/site/x/6534615.p', /not a Best Buy host/],
    ['Best Buy Canada', 'https://www.bestbuy.ca/en-ca/product/x/17123456', /not a Best Buy host/],
    ['API host', 'https://api.bestbuy.com/v1/products/6534615.json', /product page URL/],
    ['not a product page', 'https://www.bestbuy.com/site/promo/tv-deals', /not a Best Buy product page URL/],
    ['too short a number', '123', /4 to 10 digits/],
    ['free text', 'macbook pro', /not a valid URL|not a Best Buy/],
  ])('%s → 400 naming query', (_name, query, message) => {
    let caught: unknown;
    try {
      parseProductQuery(query);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(MarketlensError);
    const err = caught as MarketlensError;
    expect(err.code).toBe('invalid_parameter');
    expect(err.errors?.[0]?.param).toBe('query');
    expect(err.message).toMatch(message);
  });
});
