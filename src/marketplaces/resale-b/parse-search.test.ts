/** resale-b.search parser on each capture generation (consumer search 2025-08, Constructor 2023-11 and 2025-03). */
import { describe, expect, it } from 'vitest';
import { readFixture } from '../../../test/support/fixtures.js';
import { readCapture, sharedAvailable } from '../../../test/support/shared.js';
import { hitHasSku, isSkuQuery, matchGoatHit } from './find.js';
import { parseGoatSearch, searchSourceOf } from './parse-search.js';
import { resaleBSearch } from './search.js';
import { goatSearchRecordSchema, type GoatSearchHit } from './search-schema.js';

const CONSUMER_2025_08 = 'goat/scrapfly_search_2025-08-21_c15afbc.json';
const CONSTRUCTOR_2023_11 = 'goat/scrapfly_search_2023-11-27_702e5c1.json';
const CONSTRUCTOR_2025_03 = 'goat/scrapfly_search_2025-03-27_f07f3e1.json';

function parseFile(text: string): GoatSearchHit[] {
  const params = { query: 'x', page: 1, limit: 1000 };
  const hits = resaleBSearch.parse(resaleBSearch.bodiesFromFiles([{ path: 'x.json', text }], params), params).record;
  goatSearchRecordSchema.parse(hits);
  return hits;
}

describe.skipIf(!sharedAvailable)('resale-b search on the real captures', () => {
  it('consumer search (2025-08): title, brand, picture, date and the lowest variant price in dollars', () => {
    const raw = JSON.parse(readCapture(CONSUMER_2025_08)) as { id: string }[];
    const hits = parseFile(JSON.stringify(raw));
    // 36 products, one template (946555) listed twice.
    expect(raw).toHaveLength(36);
    expect(hits).toHaveLength(35);
    expect(hits.filter((h) => h.id === '946555')).toHaveLength(1);
    expect(hits[0]).toEqual({
      id: '1387557',
      slug: 'puma-x-ac-milan-x-pleasures-soccer-jersey-dark-version-776064-01',
      url: 'https://www.goat.com/apparel/puma-x-ac-milan-x-pleasures-soccer-jersey-dark-version-776064-01',
      name: "Puma x AC Milan x Pleasures Soccer Jersey 'Dark Version'",
      sku: null,
      brand: 'Puma',
      image:
        'https://image.goat.com/attachments/product_template_pictures/images/100/272/539/original/1387557_00.png.png',
      release_date: null,
      // amountCents 41600
      lowest_price: 416,
      currency: 'USD',
    });
    const slipstream = hits.find((h) => h.id === '927868')!;
    expect(slipstream).toMatchObject({
      url: 'https://www.goat.com/sneakers/slipstream-lo-reprise-white-dark-slate-384233-01',
      // releaseDate.seconds 1649375999 (the day's last second, UTC)
      release_date: '2022-04-07',
      lowest_price: 213,
      currency: 'USD',
    });
    // An empty variantsList: nothing for sale, no price and no currency (never 0).
    expect(hits.find((h) => h.id === '1418491')).toMatchObject({ lowest_price: null, currency: null });
  });

  it.each([
    [
      CONSTRUCTOR_2023_11,
      72,
      {
        id: '1235797',
        slug: 'court-ultra-white-dark-jasper-389368-10',
        sku: '389368 10',
        release_date: '2023-06-27',
        lowest_price: 123,
        image:
          'https://image.goat.com/750/attachments/product_template_pictures/images/090/234/148/original/389368_10.png.png',
      },
      { id: '1208371', sku: '389236 02', release_date: '2023-05-11', lowest_price: 50 },
    ],
    [
      CONSTRUCTOR_2025_03,
      72,
      {
        id: '1015104',
        slug: 'aviator-profoam-sky-white-dark-slate-376615-04',
        sku: '376615 04',
        release_date: '2022-07-28',
        lowest_price: 47,
        image:
          'https://image.goat.com/750/attachments/product_template_pictures/images/076/156/797/original/376615_04.png.png',
      },
      { id: '1098289', sku: '384241 02', release_date: '2022-10-26', lowest_price: 54 },
    ],
  ])('Constructor data (%s): SKU, date and US cents → dollars', (file, count, first, sixth) => {
    const hits = parseFile(readCapture(file));
    expect(hits).toHaveLength(count);
    // The capture keeps only each result's `data`: the name (`value`) is not in it, and Constructor has no brand.
    expect(hits[0]).toEqual({
      ...first,
      url: `https://www.goat.com/sneakers/${first.slug}`,
      name: null,
      brand: null,
      currency: 'USD',
    });
    expect(hits[5]).toMatchObject({ ...sixth, currency: 'USD' });
    // A template without a release date (1037525, no image either) has nulls, not guesses.
    expect(hits.find((h) => h.id === '1037525')).toMatchObject({ release_date: null, image: null });
  });

  it('finds a capture hit by its SKU however it is spelled, and by its slug', () => {
    const hits = parseFile(readCapture(CONSTRUCTOR_2025_03));
    for (const q of ['376615 04', '376615-04', '37661504', ' 376615 04 '])
      expect(matchGoatHit(hits, q)?.id).toBe('1015104');
    expect(matchGoatHit(hits, 'aviator-profoam-sky-white-dark-slate-376615-04')?.id).toBe('1015104');
    expect(matchGoatHit(hits, '376615')).toBeNull();
    // The consumer search sends no SKU: its slug's last words are the SKU.
    const consumer = parseFile(readCapture(CONSUMER_2025_08));
    expect(matchGoatHit(consumer, '384233-01')?.id).toBe('927868');
    expect(matchGoatHit(consumer, '776092 01')?.slug).toBe(
      'puma-x-ac-milan-x-pleasures-prematch-jacket-dark-version-77609201',
    );
  });
});

describe('resale-b search on the repo fixtures', () => {
  it('consumer search answer: dedupes, cuts to the limit, reads the date and the lowest of the variants', () => {
    const body = readFixture('resale-b/consumer-search.json');
    expect(searchSourceOf(body)).toBe('consumer');
    const hits = parseGoatSearch({ source: 'consumer', body });
    expect(hits.map((h) => h.id)).toEqual(['2000001', '2000002']);
    expect(hits[0]).toMatchObject({ lowest_price: 174.5, currency: 'USD', release_date: '2025-03-08', sku: null });
    expect(hits[1]).toMatchObject({
      url: 'https://www.goat.com/apparel/fixture-logo-tee-black-ft2002-001',
      lowest_price: null,
      release_date: null,
    });
    expect(parseGoatSearch({ source: 'consumer', body }, 1)).toHaveLength(1);
  });

  it('Constructor answer: the name from `value`, 0 cents is no price', () => {
    const body = readFixture('resale-b/constructor-search.json');
    expect(searchSourceOf(body)).toBe('constructor');
    const hits = parseGoatSearch({ source: 'constructor', body });
    expect(hits[0]).toMatchObject({ name: "Fixture Runner 2 'Slate'", sku: 'FR2001 020', lowest_price: 175 });
    expect(hits[1]).toMatchObject({ id: '2000003', lowest_price: null, currency: null, release_date: null });
  });

  it('an empty answer is no hits; an answer of another shape is upstream_changed', () => {
    expect(parseGoatSearch({ source: 'consumer', body: '{"data":{"productsList":[],"totalResults":0}}' })).toEqual([]);
    expect(parseGoatSearch({ source: 'consumer', body: '{"data":{"totalResults":0}}' })).toEqual([]);
    expect(parseGoatSearch({ source: 'constructor', body: '{"response":{"results":[]}}' })).toEqual([]);
    for (const [source, body] of [
      ['consumer', '{"data":{}}'],
      ['consumer', '{"error":"nope"}'],
      ['consumer', '<html></html>'],
      ['consumer', '{"data":{"productsList":[{"slug":"no-id"}]}}'],
      ['constructor', '{"results":[]}'],
      ['constructor', '{"response":{"results":[{"data":{"id":"x1","slug":"a"}}]}}'],
    ] as const) {
      expect(() => parseGoatSearch({ source, body }), body).toThrow(
        expect.objectContaining({ code: 'upstream_changed' }),
      );
    }
  });

  it('tells SKU queries from slugs, and matches SKUs on whole slug words only', () => {
    expect(['DN3707-100', 'dn3707-100', '389368 10', '1143776K-SAN', '1341930'].map(isSkuQuery)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(
      ['failing-shoe', 'tazz-slipper-kids-sand-1143776k-san', 'no-such-shoe', 'p-1', 'abc'].map(isSkuQuery),
    ).toEqual([false, false, false, false, false]);
    const slug = 'air-jordan-3-retro-white-cement-reimagined-dn3707-100';
    expect(hitHasSku({ sku: null, slug }, 'DN3707 100')).toBe(true);
    expect(hitHasSku({ sku: null, slug }, '100')).toBe(false);
    expect(hitHasSku({ sku: null, slug }, 'n3707-100')).toBe(false);
    expect(hitHasSku({ sku: null, slug }, 'd-dn3707-100')).toBe(false);
    expect(hitHasSku({ sku: 'DN3707 100', slug: 'x' }, 'dn3707-100')).toBe(true);
  });
});
