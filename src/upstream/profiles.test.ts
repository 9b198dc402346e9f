import { describe, expect, it } from 'vitest';
import { MARKETPLACE_INFO } from '../marketplaces/catalog.js';
import { browserHeaders, needsWarmUp } from './profiles.js';

describe('browser header sets', () => {
  it("a JSON API call looks like the page's own fetch(); an HTML page like a navigation", () => {
    const api = browserHeaders(MARKETPLACE_INFO['resale-b'], new URL('https://www.goat.com/web-api/v1/x'), 'json');
    expect(api).toMatchObject({
      accept: 'application/json, text/plain, */*',
      'sec-fetch-mode': 'cors',
      'sec-fetch-site': 'same-origin',
      referer: 'https://www.goat.com/',
    });
    expect(api.origin).toBeUndefined();
    const nikeApi = browserHeaders(
      MARKETPLACE_INFO['sportswear'],
      new URL('https://api.nike.com/product_feed/threads/v3'),
      'json',
    );
    expect(nikeApi).toMatchObject({
      'sec-fetch-site': 'same-site',
      referer: 'https://www.nike.com/',
      origin: 'https://www.nike.com',
    });
    const gql = browserHeaders(MARKETPLACE_INFO['resale-a'], new URL('https://stockx.com/api/p/e'), 'json', 'POST');
    expect(gql).toMatchObject({ origin: 'https://stockx.com', 'sec-fetch-site': 'same-origin' });
    const page = browserHeaders(
      MARKETPLACE_INFO['watchmarket'],
      new URL('https://www.chrono24.de/rolex/index.htm'),
      'html',
    );
    expect(page).toMatchObject({
      'sec-fetch-mode': 'navigate',
      'sec-fetch-dest': 'document',
      'upgrade-insecure-requests': '1',
    });
  });

  it('warms up the hosts the notes name', () => {
    expect(needsWarmUp(MARKETPLACE_INFO['resale-b'], new URL('https://www.goat.com/web-api/x'))).toBe(true);
    expect(needsWarmUp(MARKETPLACE_INFO['watchmarket'], new URL('https://www.chrono24.co.uk/x'))).toBe(true);
    expect(needsWarmUp(MARKETPLACE_INFO['electronics'], new URL('https://api.bestbuy.com/v1/products'))).toBe(false);
    expect(needsWarmUp(MARKETPLACE_INFO['sportswear'], new URL('https://www.nike.com/t/x'))).toBe(false);
  });
});
