import { describe, expect, it } from 'vitest';
import { MarketlensError } from '../../errors.js';
import { isMarketplaceHost } from '../catalog.js';
import { FINDER_CATALOG } from './finder-catalog-data.js';
import {
  DOMAINS,
  SEARCH_PARAM_MAP,
  buildSearchUrl,
  canonicalSearchParams,
  hostFor,
  mappingTableMarkdown,
  pageSizeOf,
  searchParamsSchema,
} from './search-params.js';

/** Spec §4.5: every filter parameter, in the spec's order. */
const SPEC_FILTERS = [
  'manufacturer',
  'model',
  'reference_number',
  'case_material',
  'case_diameter',
  'thickness',
  'lug_width',
  'dial_color',
  'dial_numbers',
  'glass',
  'bracelet_material',
  'bracelet_color',
  'clasp',
  'clasp_material',
  'movement_type',
  'waterproof',
  'bezel_material',
  'functions',
  'watch_category',
  'watch_type',
  'gender',
  'styles',
  'condition',
  'used_or_new',
  'common_certified',
  'seller_type',
  'merchant_id',
  'dealer_performance_attributes',
  'country',
  'listing_type',
  'checkout_available',
  'stock_info',
  'year',
  'specials',
  'other_attributes',
];

const url = (input: Record<string, string>) => new URL(buildSearchUrl(searchParamsSchema.parse(input)));
const issues = (input: Record<string, string>) => {
  const r = searchParamsSchema.safeParse(input);
  return r.success
    ? []
    : r.error.issues.map((i) => ({
        param: i.path.join('.') || (i as { keys?: string[] }).keys?.join(','),
        message: i.message,
      }));
};

describe('the mapping table', () => {
  it("covers exactly the spec filter parameters, plus the spec table, query, and Retailed clients' pageSize and limit", () => {
    expect(SEARCH_PARAM_MAP.map((m) => m.param)).toEqual(SPEC_FILTERS);
    expect(Object.keys(searchParamsSchema.shape).sort()).toEqual(
      [
        'query',
        'currency',
        'language',
        'domain',
        'page_size',
        'sort_by',
        'max_age_in_days',
        'page',
        'price_from',
        'price_to',
        'pageSize',
        'limit',
        ...SPEC_FILTERS,
      ].sort(),
    );
  });

  it('every code-checked filter has a catalog group of the same Chrono24 parameter and spec name', () => {
    for (const m of SEARCH_PARAM_MAP.filter((x) => x.check.kind === 'codes')) {
      const g = FINDER_CATALOG.find((c) => c.id === m.upstream);
      expect(g, m.param).toBeDefined();
      expect(g!.param).toBe(m.param);
      expect(g!.values.length).toBeGreaterThan(0);
    }
  });

  it('the OpenAPI table documents every parameter', () => {
    const md = mappingTableMarkdown();
    for (const p of SPEC_FILTERS) expect(md).toContain(`\`${p}\``);
    expect(md).toContain('`dialColor` (repeated)');
    expect(md).toContain('age_asc → 400');
  });
});

describe('buildSearchUrl', () => {
  it('defaults: chrono24.com, EUR, 60 per page, page 1, relevance (no sortorder)', () => {
    const u = url({});
    expect(u.origin).toBe('https://www.chrono24.com');
    expect(u.pathname).toBe('/search/index.htm');
    expect(Object.fromEntries(u.searchParams)).toEqual({
      dosearch: 'true',
      currencyId: 'EUR',
      pageSize: '60',
      showpage: '1',
    });
  });

  it('comma lists become repeated parameters, in order', () => {
    const u = url({
      dial_color: '702, 710,716',
      year: '2020,2021',
      country: 'de,GB,us',
      used_or_new: 'USED',
      stock_info: 'instock',
    });
    expect(u.searchParams.getAll('dialColor')).toEqual(['702', '710', '716']);
    expect(u.searchParams.getAll('year')).toEqual(['2020', '2021']);
    expect(u.searchParams.getAll('countryIds')).toEqual(['DE', 'UK', 'US']);
    expect(u.searchParams.getAll('usedOrNew')).toEqual(['used']);
    expect(u.searchParams.getAll('stockInfo')).toEqual(['InStock']);
  });

  it('every supported filter reaches its Chrono24 parameter', () => {
    const sample: Record<string, string> = {
      manufacturer: '221',
      model: '981',
      reference_number: '116610LN',
      case_material: '4',
      case_diameter: '40',
      dial_color: '702',
      dial_numbers: '801',
      glass: '205',
      bracelet_material: '407',
      bracelet_color: '605',
      clasp: '503',
      clasp_material: '1102',
      movement_type: '1',
      waterproof: '912',
      bezel_material: '1603',
      functions: '1022',
      watch_category: '301',
      gender: '1401',
      styles: '1804',
      condition: '1302',
      used_or_new: 'used',
      common_certified: 'true',
      seller_type: 'Dealer',
      merchant_id: '12345',
      dealer_performance_attributes: 'TopRating',
      country: 'FR',
      listing_type: 'BuyItNow',
      checkout_available: 'yes',
      stock_info: 'InStock',
      year: '2020',
      specials: '102',
      other_attributes: '1208',
    };
    const u = url(sample);
    for (const m of SEARCH_PARAM_MAP) {
      if (m.upstream === null) continue;
      expect(u.searchParams.getAll(m.upstream), m.param).toEqual([sample[m.param]]);
    }
  });

  it('sorting, page size, paging, prices, max age, domain and currency', () => {
    const u = url({
      sort_by: 'price_desc',
      page_size: '120',
      page: '3',
      price_from: '5000',
      price_to: '20000',
      max_age_in_days: '7',
      domain: 'co.uk',
      currency: 'gbp',
      query: 'Rolex Submariner',
    });
    expect(u.host).toBe('www.chrono24.co.uk');
    expect(Object.fromEntries(u.searchParams)).toEqual({
      dosearch: 'true',
      query: 'Rolex Submariner',
      currencyId: 'GBP',
      pageSize: '120',
      showpage: '3',
      sortorder: '11',
      maxAgeInDays: '7',
      priceFrom: '5000',
      priceTo: '20000',
    });
    expect(url({ sort_by: 'price_asc' }).searchParams.get('sortorder')).toBe('1');
    expect(url({ sort_by: 'age_desc' }).searchParams.get('sortorder')).toBe('5');
  });

  it('every domain is a host the SSRF allowlist accepts', () => {
    for (const d of DOMAINS) expect(isMarketplaceHost('watchmarket', hostFor(d)), d).toBe(true);
  });

  it('price_from above price_to is a 400 on price_from', () => {
    expect(() => url({ price_from: '9000', price_to: '100' })).toThrow(MarketlensError);
    expect(() => url({ price_from: '9000', price_to: '100' })).toThrow(/^price_from:/);
  });
});

describe('parameter checks name the parameter', () => {
  it.each([
    [{ dial_color: '702,999' }, 'dial_color', /unknown value "999"/],
    [{ used_or_new: 'mint' }, 'used_or_new', /unknown value "mint"/],
    [{ manufacturer: 'Rolx' }, 'manufacturer', /unknown value "Rolx"; closest: Rolex \(221\)/],
    [{ country: 'Narnia' }, 'country', /unknown value "Narnia"/],
    [{ merchant_id: 'abc' }, 'merchant_id', /numeric/],
    [{ year: '20' }, 'year', /four-digit/],
    [{ thickness: '12' }, 'thickness', /no known URL parameter/],
    [{ lug_width: '20' }, 'lug_width', /no known URL parameter/],
    [{ watch_type: 'diver' }, 'watch_type', /styles/],
    [{ sort_by: 'age_asc' }, 'sort_by', /no oldest-first order/],
    [{ sort_by: 'popular' }, 'sort_by', /must be one of/],
    [{ page_size: '50' }, 'page_size', /30, 60, 120/],
    [{ page: '0' }, 'page', /.+/],
    [{ page: 'two' }, 'page', /number/],
    [{ domain: 'example' }, 'domain', /must be one of/],
    [{ currency: 'XYZ' }, 'currency', /must be one of/],
    [{ language: 'english' }, 'language', /en_US/],
    [{ dial_color: ' , ' }, 'dial_color', /at least one/],
  ])('%j', (input, param, message) => {
    const found = issues(input);
    expect(found).toHaveLength(1);
    expect(found[0]!.param).toBe(param);
    expect(found[0]!.message).toMatch(message);
  });

  it('an ambiguous label is a 400 naming every code it could mean', () => {
    const found = issues({ dial_color: 'skeletonized' });
    expect(found[0]!.param).toBe('dial_color');
    expect(found[0]!.message).toMatch(/"skeletonized" names several codes: Skeletonized \(726\), Skeletonized \(704\)/);
  });

  it('unknown parameters are rejected', () => {
    expect(issues({ colour: 'black' })[0]!.param).toBe('colour');
  });
});

describe('filters by label (issue 19)', () => {
  it('manufacturer=Rolex,Omega and a model name reach Chrono24 as codes only', () => {
    const u = url({ manufacturer: 'Rolex,Omega', dial_color: 'black', case_material: 'steel' });
    expect(u.searchParams.getAll('manufacturerIds')).toEqual(['221', '187']);
    expect(u.searchParams.getAll('dialColor')).toEqual(['702']);
    expect(u.searchParams.getAll('caseMaterials')).toEqual(['4']);
  });

  it('case- and accent-insensitive exact match: "A. Lange & Sohne" finds A. Lange & Söhne (1); codes still work', () => {
    expect(url({ manufacturer: 'A. Lange & Sohne' }).searchParams.getAll('manufacturerIds')).toEqual(['1']);
    expect(url({ manufacturer: 'audemars piguet, 221' }).searchParams.getAll('manufacturerIds')).toEqual(['18', '221']);
    expect(url({ country: 'Germany,gb' }).searchParams.getAll('countryIds')).toEqual(['DE', 'UK']);
    expect(url({ movement_type: 'AUTOMATIC' }).searchParams.getAll('movementTypes')).toEqual(['1']);
  });

  it('a label with a comma in it is one value, not two', () => {
    const clasp = FINDER_CATALOG.find((g) => g.id === 'clasp')!.values.find((v) => v.label.includes(','))!;
    expect(url({ clasp: `${clasp.label.toUpperCase()}` }).searchParams.getAll('clasp')).toEqual([clasp.code]);
  });

  it('a model name resolves within the given manufacturer; a model of another brand is a 400 naming model', () => {
    expect(url({ manufacturer: 'Rolex', model: 'Submariner Date' }).searchParams.getAll('models')).toEqual(['981']);
    expect(url({ model: 'submariner date' }).searchParams.getAll('models')).toEqual(['981']);
    expect(() => url({ manufacturer: 'Omega', model: 'Submariner Date' })).toThrow(
      /^model: unknown value "Submariner Date" among the models of the manufacturer given/,
    );
  });

  it('a partial name is not guessed: model=Submariner answers 400 with the Submariner models as the closest', () => {
    const found = issues({ model: 'Submariner' });
    expect(found[0]!.param).toBe('model');
    expect(found[0]!.message).toMatch(/closest: Submariner Date \(981\), Submariner \(No Date\) \(2460\)/);
  });
});

describe('page size: page_size, its alias pageSize, and limit', () => {
  const parse = (q: Record<string, string>) => searchParamsSchema.parse(q);
  it.each([
    [{}, '60'],
    [{ page_size: '120' }, '120'],
    [{ pageSize: '30' }, '30'],
    [{ pageSize: '30', page_size: '30' }, '30'],
    [{ limit: '1' }, '30'],
    [{ limit: '30' }, '30'],
    [{ limit: '31' }, '60'],
    [{ limit: '120' }, '120'],
    [{ limit: '10', page_size: '60' }, '60'],
  ])('%j → pageSize=%s upstream', (q, size) => {
    expect(pageSizeOf(parse(q))).toBe(size);
    expect(new URL(buildSearchUrl(parse(q))).searchParams.get('pageSize')).toBe(size);
    expect(canonicalSearchParams(parse(q))).not.toHaveProperty('pageSize');
    expect(canonicalSearchParams(parse(q)).page_size).toBe(size);
  });

  it('disagreeing spellings name pageSize; a limit over the page size names limit', () => {
    expect(() => pageSizeOf(parse({ pageSize: '30', page_size: '60' }))).toThrow(/pageSize/);
    expect(() => pageSizeOf(parse({ limit: '61', page_size: '60' }))).toThrow(/limit/);
  });
});
