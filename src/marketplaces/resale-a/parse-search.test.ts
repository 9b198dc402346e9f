import { describe, expect, it } from 'vitest';
import { MarketlensError } from '../../errors.js';
import { parseAndCheck } from '../../operations/lookup.js';
import { wrapAsNextDataPage } from '../../util/next-data.js';
import { searchHitProblems } from '../../../test/fixtures/resale-a/spec-fields.js';
import { readCapture, sharedAvailable } from '../../../test/support/shared.js';
import { parseSearch } from './parse-search.js';
import { searchRecordSchema, type SearchHit } from './schema.js';
import { resaleASearch } from './search.js';
import { readFixture } from '../../../test/support/fixtures.js';

const fixture = (name: string) => readFixture(`resale-a/${name}`);

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof MarketlensError ? e.code : `non-marketlens: ${String(e)}`;
  }
  return undefined;
}

describe('parseSearch on our Browse answer', () => {
  const hits = parseSearch(fixture('search-response.json'));

  it('gives at most 10 hits, every §2.2 field with the spec type', () => {
    expect(hits).toHaveLength(10);
    for (const h of hits) expect(searchHitProblems(h)).toEqual([]);
    expect(searchRecordSchema.parse(hits)).toEqual(hits);
  });

  it('unwraps a Variant node to its product and drops the repeated product', () => {
    expect(hits[0]).toEqual({
      id: '5e1ec7ed-0000-4000-8000-000000000001',
      productId: '5e1ec7ed-0000-4000-8000-000000000001',
      slug: 'marketlens-court-1-chalk',
      name: 'Marketlens Court 1 Chalk',
      sku: 'MLC-001',
      category: 'sneakers',
      brand: 'Marketlens',
      image: 'https://images.stockx.com/images/Marketlens-Court-1-Chalk-Product.jpg?w=140&h=100',
      colorway: 'Chalk/Gum',
    });
    expect(hits.filter((h) => h.id === hits[0]!.id)).toHaveLength(1);
    expect(hits.map((h) => h.slug).slice(1, 3)).toEqual(['marketlens-court-2-chalk', 'marketlens-court-3-chalk']);
  });

  it('builds the name from primary + secondary title; empty styleId and no Colorway trait are null', () => {
    expect(hits[1]).toMatchObject({ name: 'Marketlens Court 2 Chalk', sku: null, colorway: null });
  });

  it('maps GraphQL errors: schema → upstream_changed; null browse → upstream_changed; not JSON → upstream_changed', () => {
    expect(codeOf(() => parseSearch(fixture('graphql-schema-error.json')))).toBe('upstream_changed');
    expect(codeOf(() => parseSearch('{"data":{"browse":null}}'))).toBe('upstream_changed');
    expect(codeOf(() => parseSearch('{"data":{"browse":{"results":{}}}}'))).toBe('upstream_changed');
    expect(codeOf(() => parseSearch('nope'))).toBe('upstream_changed');
  });

  it('a PerimeterX JSON block is upstream_blocked', () => {
    expect(
      codeOf(() => parseSearch('{"appId":"PX16uD0kOF","blockScript":"/x/captcha.js","jsClientSrc":"/x/init.js"}')),
    ).toBe('upstream_blocked');
  });

  it('a node without id is upstream_changed (never a 500)', () => {
    const body = JSON.stringify({ data: { browse: { results: { edges: [{ node: { urlKey: 'x', title: 'X' } }] } } } });
    expect(codeOf(() => parseAndCheck(resaleASearch, body, {}))).toBe('upstream_changed');
  });

  it('an empty result is an empty array', () => {
    expect(parseSearch('{"data":{"browse":{"results":{"edges":[],"pageInfo":{"total":0}}}}}')).toEqual([]);
  });

  it('reads a search page (HTML) through the Browse entry of its react-query cache', () => {
    const browse = JSON.parse(fixture('search-response.json')).data;
    const nextData = {
      props: {
        pageProps: {
          req: {
            appContext: {
              states: {
                query: {
                  value: {
                    queries: [
                      { queryKey: ['getBrowseSorts', { variables: {} }], state: { data: { browseSorts: [] } } },
                      { queryKey: ['Browse', { variables: { query: 'court' } }], state: { data: browse } },
                    ],
                  },
                },
              },
            },
          },
        },
      },
      page: '/search',
    };
    expect(parseSearch(wrapAsNextDataPage(nextData))).toEqual(hits);
  });
});

describe.skipIf(!sharedAvailable)('resale-a.search on the real captures', () => {
  const run = (name: string): SearchHit[] =>
    parseAndCheck(
      resaleASearch,
      resaleASearch.bodiesFromFiles([{ path: name, text: readCapture(`stockx/${name}`) }], {}),
      {},
    ) as SearchHit[];

  const captures: Array<[string, number]> = [
    ['lucaschevrier_browse-adidas-yeezy-boost-1.json', 1],
    ['lucaschevrier_browse-adidas-yeezy-boost-test.json', 1],
    ['lucaschevrier_test11.json', 1],
    ['lucaschevrier_testVariant.json', 1],
    ['lucaschevrier_getID.json', 10],
    ['scrapfly_nextdata_search_2023-05-29.json', 10],
    ['scrapfly_nextdata_search_2023-12-18.json', 10],
  ];

  it.each(captures)('%s → hits with every §2.2 field', (name, count) => {
    const hits = run(name);
    expect(hits).toHaveLength(count);
    for (const [i, h] of hits.entries()) expect(searchHitProblems(h, `hit[${i}]`)).toEqual([]);
    // The site's own Browse fragment asks for neither styleId nor the Colorway trait: null, not invented.
    expect(hits.every((h) => h.sku === null && h.colorway === null)).toBe(true);
    expect(hits.every((h) => h.image?.startsWith('https://images.stockx.com/'))).toBe(true);
  });

  it('a Variant edge (slug query) gives its product', () => {
    expect(run('lucaschevrier_testVariant.json')[0]).toEqual({
      id: 'e4b11157-0d0f-4fec-aa15-6e51603307ba',
      productId: 'e4b11157-0d0f-4fec-aa15-6e51603307ba',
      slug: 'adidas-yeezy-boost-350-v2-bone',
      name: 'adidas Yeezy Boost 350 V2 Bone',
      sku: null,
      category: 'sneakers',
      brand: 'adidas',
      image:
        'https://images.stockx.com/images/adidas-Yeezy-Boost-350-V2-Pure-Oat-Product.jpg?fit=fill&bg=FFFFFF&w=140&h=100&fm=webp&auto=compress&q=90&dpr=2&trim=color&updated_at=1703084179',
      colorway: null,
    });
  });

  it('the search page __NEXT_DATA__ (French visitor, dunk) keeps StockX order', () => {
    const hits = run('lucaschevrier_getID.json');
    expect(hits[0]!.slug).toBe('nike-dunk-low-photon-dust-w');
    expect(hits.every((h) => h.category !== null && h.brand !== null)).toBe(true);
  });

  it('the GraphQL error capture is upstream_changed', () => {
    expect(codeOf(() => run('lucaschevrier_ProductPriceLevel.json'))).toBe('upstream_changed');
  });
});
