import { describe, expect, it } from 'vitest';
import { MarketlensError } from '../../errors.js';
import { readCapture, sharedAvailable } from '../../../test/support/shared.js';
import { pagedCanonicalUrl, parseSearchPage, priceStats, statedPage } from './parse.js';
import { parseLocaleNumber, parsePriceText } from './price-text.js';
import { listingSchema, searchResultSchema, type SearchResult } from './schema.js';
import { readFixture } from '../../../test/support/fixtures.js';

const fixture = (name: string) => readFixture(`watchmarket/${name}`);

/** Spec §2.5, field by field: name → the JSON type(s) the spec gives (null where upstream can lack a value). */
const LISTING_FIELDS: Record<string, string[]> = {
  id: ['string'],
  url: ['string'],
  badge: ['string', 'null'],
  price: ['object'],
  title: ['string'],
  subtitle: ['string'],
  images: ['array'],
  location: ['string'],
  shipping: ['string'],
};
const typeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Asserts every spec §2.5 field by name and type, then the strict schema. */
function expectSpecShape(r: SearchResult, opts: { legacyFragments?: boolean } = {}): void {
  expect(typeOf(r.url)).toBe('string');
  expect(typeOf(r.stats)).toBe('object');
  for (const k of ['lowest_price', 'median_price', 'average_price', 'highest_price']) {
    expect(k in r.stats.price_stats).toBe(true);
    expect(['number', 'null']).toContain(typeOf((r.stats.price_stats as Record<string, unknown>)[k]));
  }
  expect(['number', 'null']).toContain(typeOf(r.stats.total_results));
  expect(typeOf(r.results)).toBe('array');
  expect(typeOf(r.pagination.current)).toBe('number');
  expect(['number', 'null']).toContain(typeOf(r.pagination.next));
  expect(typeOf(r.pagination.other_pages)).toBe('array');
  for (const p of r.pagination.other_pages) expect(typeOf(p)).toBe('number');
  expect(typeOf(r.pagination.has_next_page)).toBe('boolean');
  for (const l of r.results) {
    expect(Object.keys(l).sort()).toEqual(Object.keys(LISTING_FIELDS).sort());
    for (const [field, types] of Object.entries(LISTING_FIELDS)) {
      const allowed = opts.legacyFragments && (field === 'id' || field === 'url') ? ['null'] : types;
      expect(allowed, `${field} = ${JSON.stringify((l as Record<string, unknown>)[field])}`).toContain(
        typeOf((l as Record<string, unknown>)[field]),
      );
    }
    expect(['number', 'null']).toContain(typeOf(l.price.amount));
    expect(['string', 'null']).toContain(typeOf(l.price.currency));
    for (const img of l.images) expect(img).toMatch(/^https:\/\//);
    listingSchema.parse(l);
  }
  searchResultSchema.parse(r);
}

const C24 = 'search-2026_rolex-submariner_excerpt-';
const A = `chrono24/${C24}A_head-metaData-jsonld.html`;
const B = `chrono24/${C24}B_offset130000-178000_quickfilters-count-sorter-cards1-3.html`;
const C = `chrono24/${C24}C_offset604000-636000_cards59-60-pagination-pagesize.html`;
const LEGACY = 'chrono24/legacy-2023-03_search-cards-fragments_tkrejzlik.html';
const CANONICAL = 'https://www.chrono24.com/rolex/submariner--mod1.htm';

describe.skipIf(!sharedAvailable)('parseSearchPage on the 2026 capture (excerpts A, B, C)', () => {
  const r = () => parseSearchPage({ url: CANONICAL, pages: [readCapture(A), readCapture(B), readCapture(C)] }, 1);

  it('reads every complete card (1, 2 and 60; the cut-off card 3 and card 59 tail are skipped)', () => {
    const res = r();
    expectSpecShape(res);
    expect(res.results.map((l) => l.id)).toEqual(['47962070', '48173826', '48161212']);
    expect(res.url).toBe(CANONICAL);
  });

  it('maps card 1 field by field', () => {
    expect(r().results[0]).toEqual({
      id: '47962070',
      url: 'https://www.chrono24.com/rolex/submariner-date--id47962070.htm',
      badge: null,
      price: { amount: 18725, currency: '$' },
      title: 'Rolex Submariner Date',
      subtitle: '116613LN',
      images: [
        'https://img.chrono24.com/images/uhren/k1nmmr4190ua-h2ckoikaqxkrsxy8a102p5g0-ExtraLarge.jpg',
        'https://img.chrono24.com/images/uhren/b34le7lce0uc-49c7x6ewnyay1m0ktrib0hr8-ExtraLarge.jpg',
        'https://img.chrono24.com/images/uhren/bihcdeajqj4b-j5lru0s69dg4yhk2z06ufawo-ExtraLarge.jpg',
        'https://img.chrono24.com/images/uhren/wcmllp9zzr1b-guc2airp7cbyrshnsqhdnpew-ExtraLarge.jpg',
        'https://img.chrono24.com/images/uhren/y7oki8ux8cz7-l6jd7supd167t19tpah7bdd6-ExtraLarge.jpg',
      ],
      location: 'US',
      shipping: 'Plus shipping',
    });
  });

  it('the first image is the large image the page JSON-LD names for the same listing', () => {
    expect(readCapture(A)).toContain(r().results[1]!.images[0]);
  });

  it('card 60: Japanese dealer, free shipping, no certified seal among its images', () => {
    const last = r().results[2]!;
    expect(last).toMatchObject({
      location: 'JP',
      shipping: 'Free shipping',
      price: { amount: 17856, currency: '$' },
      subtitle: '126613LB Automatic Steel Very good',
    });
    expect(last.images).toHaveLength(5);
    expect(last.images.some((u) => u.includes('certified'))).toBe(false);
  });

  it('total results, pagination and computed price stats', () => {
    const res = r();
    expect(res.stats.total_results).toBe(9140);
    expect(res.pagination).toEqual({
      current: 1,
      next: 2,
      other_pages: [2, 3, 4, 5, 40, 80, 120, 153],
      has_next_page: true,
    });
    expect(res.stats.price_stats).toEqual({
      lowest_price: 9995,
      median_price: 17856,
      average_price: 15525.33,
      highest_price: 18725,
    });
  });

  it('excerpt B alone: 2 cards and the count; no pagination on it, so page 1 as asked and no next page', () => {
    const res = parseSearchPage({ url: CANONICAL, pages: [readCapture(B)] }, 1);
    expectSpecShape(res);
    expect(res.results).toHaveLength(2);
    expect(res.stats.total_results).toBe(9140);
    expect(res.pagination).toEqual({ current: 1, next: null, other_pages: [], has_next_page: false });
  });

  it('a page that says page 1 when page 2 was asked is an upstream change, never passed off as page 2', () => {
    const call = () => parseSearchPage({ url: CANONICAL, pages: [readCapture(C)] }, 2);
    expect(call).toThrow(MarketlensError);
    expect(call).toThrow(/asked for page 2/);
  });

  it('a page beyond the last one is a 400 on page', () => {
    try {
      parseSearchPage({ url: CANONICAL, pages: [readCapture(C)] }, 999);
      expect.unreachable();
    } catch (e) {
      expect((e as MarketlensError).code).toBe('invalid_parameter');
      expect((e as MarketlensError).message).toMatch(/^page: .*153/);
    }
  });
});

describe.skipIf(!sharedAvailable)('parseSearchPage on the legacy 2023 card fragments', () => {
  const r = () =>
    parseSearchPage(
      { url: 'https://www.chrono24.com/alangesoehne/index.htm?pageSize=120', pages: [readCapture(LEGACY)] },
      1,
    );

  it('reads all 121 cards with the spec fields (the fragments carry no link: id and url are null)', () => {
    const res = r();
    expect(res.results).toHaveLength(121);
    expectSpecShape(res, { legacyFragments: true });
    expect(res.results[0]).toEqual({
      id: null,
      url: null,
      badge: null,
      price: { amount: 33500, currency: '$' },
      title: 'A. Lange & Söhne Lange 1',
      subtitle: '101.033',
      images: [],
      location: 'US',
      shipping: '+ $99 for shipping',
    });
  });

  it('"Price on request" has no amount and stays out of the price stats', () => {
    const res = r();
    const onRequest = res.results.filter((l) => l.price.amount === null);
    expect(onRequest.map((l) => l.subtitle)).toEqual(['NEW 2022 1815 Annual Calendar']);
    expect(onRequest[0]!.price.currency).toBeNull();
    expect(res.stats.price_stats.lowest_price).toBe(
      Math.min(...res.results.flatMap((l) => (l.price.amount === null ? [] : [l.price.amount]))),
    );
  });

  it('no count on the fragments: total_results null; no pagination', () => {
    const res = r();
    expect(res.stats.total_results).toBeNull();
    expect(res.pagination).toEqual({ current: 1, next: null, other_pages: [], has_next_page: false });
  });
});

describe('parseSearchPage on our own 2026-structure fixtures', () => {
  const URL1 = 'https://www.chrono24.com/omega/speedmaster--mod63.htm';

  it('page 1: four cards with badges, a price on request, € prices, the UK code; pagination', () => {
    const res = parseSearchPage({ url: URL1, pages: [fixture('search-2026-page1.html')] }, 1);
    expectSpecShape(res);
    expect(res.results).toHaveLength(4);
    expect(res.results.map((l) => l.badge)).toEqual(['Promoted', null, null, 'Popular']);
    expect(res.results.map((l) => l.location)).toEqual(['DE', 'FR', 'UK', 'CH']);
    expect(res.results[0]).toMatchObject({
      id: '51000001',
      price: { amount: 6450, currency: '€' },
      url: 'https://www.chrono24.com/omega/speedmaster-professional-moonwatch--id51000001.htm',
    });
    expect(res.results[0]!.images).toHaveLength(3);
    expect(res.results[1]!.shipping).toBe('+ €49 for shipping');
    expect(res.results[3]!.price).toEqual({ amount: null, currency: null });
    expect(res.stats).toEqual({
      total_results: 1234,
      price_stats: { lowest_price: 2300, median_price: 6450, average_price: 5950, highest_price: 9100 },
    });
    expect(res.pagination).toEqual({ current: 1, next: 2, other_pages: [2, 3, 4, 5, 21], has_next_page: true });
  });

  it('last page: no next page', () => {
    const res = parseSearchPage({ url: URL1, pages: [fixture('search-2026-last-page.html')] }, 21);
    expectSpecShape(res);
    expect(res.pagination).toEqual({ current: 21, next: null, other_pages: [1, 2, 3, 19, 20], has_next_page: false });
  });

  it('empty results page: no listings, zero total, null stats', () => {
    const res = parseSearchPage(
      { url: 'https://www.chrono24.com/search/index.htm', pages: [fixture('search-2026-empty.html')] },
      1,
    );
    expectSpecShape(res);
    expect(res.results).toEqual([]);
    expect(res.stats).toEqual({
      total_results: 0,
      price_stats: { lowest_price: null, median_price: null, average_price: null, highest_price: null },
    });
    expect(res.pagination).toEqual({ current: 1, next: null, other_pages: [], has_next_page: false });
  });

  it('a page that is no results page is upstream_changed', () => {
    const call = () =>
      parseSearchPage({ url: URL1, pages: ['<html><body><h1>Welcome to Chrono24</h1></body></html>'] }, 1);
    expect(call).toThrow(expect.objectContaining({ code: 'upstream_changed' }));
  });

  it('cards whose title markup vanished are upstream_changed, not silently dropped', () => {
    const html = fixture('search-2026-page1.html').replaceAll('text-bold text-sm text-sm-md text-ellipsis', 'wt-title');
    expect(() => parseSearchPage({ url: URL1, pages: [html] }, 1)).toThrow(
      expect.objectContaining({ code: 'upstream_changed' }),
    );
  });
});

describe('price and number texts', () => {
  it.each([
    ['$18,725', 18725, '$'],
    ['18.725 €', 18725, '€'],
    ["CHF 18'725", 18725, 'CHF'],
    ['£1,234.50', 1234.5, '£'],
    ['HK$ 98,000', 98000, 'HK$'],
    ['12 345 zł', 12345, 'zł'],
  ])('%s', (t, amount, currency) => {
    expect(parsePriceText(t)).toEqual({ amount, currency });
  });
  it('no digits: nulls', () => {
    expect(parsePriceText('Price on request')).toEqual({ amount: null, currency: null });
  });
  it('counts with locale grouping', () => {
    expect(parseLocaleNumber('9,140 listings')).toBe(9140);
    expect(parseLocaleNumber('9.140 Angebote')).toBe(9140);
    expect(parseLocaleNumber('9\u202f140 annonces')).toBe(9140);
    expect(parseLocaleNumber('keine')).toBeNull();
  });
  it('median of an even count is the mean of the middle two', () => {
    const l = (amount: number | null) => ({
      id: 'x',
      url: 'u',
      badge: null,
      price: { amount, currency: '$' },
      title: 't',
      subtitle: null,
      images: [],
      location: null,
      shipping: null,
    });
    expect(priceStats([l(4), l(1), l(3), l(2), l(null)])).toEqual({
      lowest_price: 1,
      median_price: 2.5,
      average_price: 2.5,
      highest_price: 4,
    });
  });
});

describe('paging canonical pages by path', () => {
  it.each([
    [
      'https://www.chrono24.com/rolex/submariner--mod1.htm?query=Rolex+Submariner&sortorder=5',
      1,
      3,
      'https://www.chrono24.com/rolex/submariner--mod1-3.htm?query=Rolex+Submariner&sortorder=5',
    ],
    [
      'https://www.chrono24.com/rolex/submariner--mod1-2.htm?query=x',
      2,
      5,
      'https://www.chrono24.com/rolex/submariner--mod1-5.htm?query=x',
    ],
    ['https://www.chrono24.com/rolex/index-4.htm', 4, 1, 'https://www.chrono24.com/rolex/index.htm'],
    ['https://www.chrono24.de/rolex/ref-5508.htm?showpage=2', 1, 2, 'https://www.chrono24.de/rolex/ref-5508-2.htm'],
  ])('%s (shows %i) → page %i', (url, current, page, expected) => {
    expect(pagedCanonicalUrl(url, current, page)).toBe(expected);
  });
  it('the generic search page pages by showpage, not by path', () => {
    expect(pagedCanonicalUrl('https://www.chrono24.com/search/index.htm?dosearch=true&showpage=2', 1, 2)).toBeNull();
  });
  it('statedPage reads current and last page, null without pagination', () => {
    expect(statedPage(fixture('search-2026-page1.html'))).toEqual({ current: 1, last: 21 });
    expect(statedPage(fixture('search-2026-empty.html'))).toBeNull();
  });
});
