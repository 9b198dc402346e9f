/**
 * Parser tests on the CONSTRUCTED fixture pages (test/fixtures/sportswear/README.md) and on the real (derived) Nike
 * material in ../shared/upstream-samples/nike/. Every spec §2.7 field is checked by name and type against lists
 * written from the spec text, independently of the record schema.
 */
import { describe, expect, it } from 'vitest';
import { readCapture, sharedAvailable } from '../../../test/support/shared.js';
import { MarketlensError } from '../../errors.js';
import { parseAndCheck } from '../../operations/lookup.js';
import { extractNextData, wrapAsNextDataPage } from '../../util/next-data.js';
import { parseFeed } from './parse-feed.js';
import { parseProductPage } from './parse.js';
import { nullPaths } from './record-parts.js';
import { sportswearProduct } from './product.js';
import { productSchema, type SportswearProduct } from './schema.js';
import { readFixture } from '../../../test/support/fixtures.js';

const fixture = (name: string) => readFixture(`sportswear/${name}`);
const US_PAGE = fixture('constructed-product-page-us.html');
const FR_PAGE = fixture('constructed-product-page-fr.html');

// ---- the spec §2.7 field lists, copied from the spec text ----------------------------------------------------
type SpecType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'nullable';
const TOP_LEVEL: Record<string, SpecType> = {
  id: 'string',
  badge: 'string',
  sizes: 'array',
  brands: 'array',
  gender: 'integer',
  prices: 'object',
  pdp_url: 'object',
  more_info: 'array',
  color_code: 'string',
  sport_tags: 'array',
  style_code: 'string',
  group_index: 'integer',
  group_label: 'nullable',
  style_color: 'string',
  enhanced_pdp: 'array',
  net_quantity: 'nullable',
  product_info: 'object',
};
const SIZE: Record<string, SpecType> = {
  gtins: 'array',
  label: 'string',
  status: 'string',
  merch_sku_id: 'string',
  sort_sequence: 'integer',
  localized_label: 'string',
  localized_label_prefix: 'string',
};
const PRICES: Record<string, SpecType> = {
  currency: 'string',
  current_price: 'number',
  initial_price: 'number',
  employee_price: 'number',
  discount_percentage: 'number',
  employee_discount_percentage: 'number',
};
const PDP_URL: Record<string, SpecType> = { url: 'string', canonical_url: 'string' };
const PRODUCT_INFO: Record<string, SpecType> = {
  url: 'string',
  canonical_url: 'string',
  badge: 'string',
  title: 'string',
  subtitle: 'string',
  full_title: 'string',
  product_description: 'string',
  origins: 'array',
  product_details: 'array',
  enhanced_benefits: 'array',
  more_descriptions: 'array',
  size_fit_sections: 'array',
  features_and_benefits: 'array',
  sustainability_message: 'array',
  product_type: 'string',
  selected_sku: 'nullable',
  content_images: 'array',
  size_chart_url: 'string',
  status_modifier: 'string',
  merch_product_id: 'string',
  global_product_id: 'string',
  availability_date: 'string',
  color_description: 'string',
  is_launch_product: 'boolean',
  is_member_product: 'boolean',
  size_select_error: 'boolean',
  is_promo_exclusion: 'boolean',
  is_reserved_for_you: 'boolean',
  is_digital_gift_card: 'boolean',
  is_restricted_access: 'boolean',
  is_physical_gift_card: 'boolean',
  show_availability_date: 'boolean',
  is_skus_request_in_flight: 'boolean',
  launch_attributes: 'nullable',
  localized_label_prefix: 'nullable',
  customization_path_name: 'nullable',
  gift_card_message_value_added_service_id: 'nullable',
  featured_attributes: 'array',
  consumer_release_type: 'string',
  manufacturing_countries_of_origin: 'array',
  sustainability_disclaimer_message: 'string',
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function hasType(v: unknown, t: SpecType): boolean {
  switch (t) {
    case 'nullable':
      return true;
    case 'integer':
      return Number.isInteger(v);
    case 'array':
      return Array.isArray(v);
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    default:
      return typeof v === t;
  }
}

/** Checks every field of `spec` is present with its spec type (or null) and no other key exists; returns the null ones. */
function checkFields(obj: Record<string, unknown>, spec: Record<string, SpecType>, where: string): string[] {
  expect(Object.keys(obj).sort(), `${where}: keys`).toEqual(Object.keys(spec).sort());
  const nulls: string[] = [];
  for (const [field, type] of Object.entries(spec)) {
    expect(field in obj, `${where}.${field} present`).toBe(true);
    const v = obj[field];
    if (v === null) {
      if (type !== 'nullable') nulls.push(field);
      continue;
    }
    expect(hasType(v, type), `${where}.${field} is ${type}, got ${JSON.stringify(v)}`).toBe(true);
  }
  return nulls;
}

function checkRecord(raw: unknown) {
  const r = productSchema.strict().parse(raw);
  const nulls = checkFields(r, TOP_LEVEL, 'record');
  r.sizes.forEach((s, i) => {
    nulls.push(...checkFields(s, SIZE, `sizes[${i}]`).map((f) => `sizes.${f}`));
    for (const g of s.gtins!) {
      expect(Object.keys(g)).toEqual(['gtin']);
      expect(typeof g.gtin).toBe('string');
    }
    expect(s.merch_sku_id).toMatch(UUID);
  });
  nulls.push(...checkFields(r.prices!, PRICES, 'prices').map((f) => `prices.${f}`));
  nulls.push(...checkFields(r.pdp_url!, PDP_URL, 'pdp_url').map((f) => `pdp_url.${f}`));
  const info = r.product_info;
  nulls.push(...checkFields(info, PRODUCT_INFO, 'product_info').map((f) => `product_info.${f}`));
  for (const key of ['origins', 'product_details', 'enhanced_benefits'] as const) {
    for (const b of info[key]!) {
      expect(Object.keys(b).sort()).toEqual(['body', 'header']);
      expect(typeof b.header).toBe('string');
      expect(b.body.every((x: unknown) => typeof x === 'string')).toBe(true);
    }
  }
  for (const m of info.sustainability_message!) {
    expect(typeof m.body).toBe('string');
    expect(m.json_body!.type).toBe('doc');
    expect(Array.isArray(m.json_body!.content)).toBe(true);
    for (const node of m.json_body!.content) expect(typeof node.type).toBe('string');
  }
  for (const c of info.content_images!) {
    expect(typeof c.card_type).toBe('string');
    expect(typeof c.properties!.alt_text).toBe('string');
    for (const img of [c.properties!.portrait!, c.properties!.squarish!]) {
      expect(Object.keys(img).sort()).toEqual(['aspect_ratio', 'id', 'url']);
      expect([typeof img.id, typeof img.url, typeof img.aspect_ratio]).toEqual(['string', 'string', 'number']);
    }
  }
  expect(info.merch_product_id).toMatch(UUID);
  expect(info.global_product_id).toMatch(UUID);
  expect(Number.isNaN(Date.parse(info.availability_date!))).toBe(false);
  expect(info.featured_attributes!.every((x: unknown) => typeof x === 'string')).toBe(true);
  return nulls.sort();
}

const errorOf = (fn: () => unknown): MarketlensError => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(MarketlensError);
    return e as MarketlensError;
  }
  throw new Error('expected an error');
};

/** A product object of the fixtures, with the keys the tests edit (any other key is kept as it is). */
type FixtureProduct = Record<string, unknown> & {
  productInfo: Record<string, unknown>;
  sizes: Record<string, unknown>[];
  prices: Record<string, unknown>;
  sustainabilityMessage: unknown;
};
/** A fixture page's pageProps, as far as the tests edit it. */
interface FixturePageProps {
  [key: string]: unknown;
  productGroups?: { products: Record<string, FixtureProduct> }[];
  selectedProduct?: FixtureProduct;
}
/** The colourway `code` in the page's first product group. */
const grouped = (pp: FixturePageProps, code: string): FixtureProduct => pp.productGroups![0]!.products[code]!;

/** The fixture's __NEXT_DATA__ edited by `edit`, wrapped back into a page. */
function editedPage(html: string, edit: (pageProps: FixturePageProps) => void): string {
  const next = extractNextData(html) as { props: { pageProps: FixturePageProps } };
  edit(next.props.pageProps);
  return wrapAsNextDataPage(next);
}

// ---- the US and the French storefront page ----------------------------------------------------------------
describe('US product page (constructed fixture)', () => {
  const r = parseProductPage(US_PAGE, 'DD1391-100');

  it('has every §2.7 field with its spec type; nulls only where upstream has no value', () => {
    // gender: the page carries `genders` strings, not an integer (CONTRACT §7); the rest are null on the page.
    expect(checkRecord(r)).toEqual([
      'badge',
      'gender',
      'product_info.badge',
      'sizes.localized_label_prefix',
      'sizes.localized_label_prefix',
      'sizes.localized_label_prefix',
      'sizes.localized_label_prefix',
    ]);
  });

  it('copies the colourway from its product group', () => {
    expect(r).toMatchObject({
      style_color: 'DD1391-100',
      style_code: 'DD1391',
      color_code: '100',
      brands: ['Nike'],
      sport_tags: ['Lifestyle'],
      group_index: 0,
      group_label: "Men's",
      prices: {
        currency: 'USD',
        current_price: 115,
        initial_price: 115,
        employee_price: 69,
        discount_percentage: 0,
        employee_discount_percentage: 40,
      },
      pdp_url: { url: 'https://www.nike.com/t/dunk-low-retro-mens-shoes-76KnBL/DD1391-100' },
    });
    expect(r.sizes).toHaveLength(4);
    expect(r.sizes[0]).toEqual({
      gtins: [{ gtin: expect.stringMatching(/^\d{14}$/) }],
      label: '7',
      status: 'ACTIVE',
      merch_sku_id: expect.stringMatching(UUID),
      sort_sequence: 1,
      localized_label: 'M 7 / W 8.5',
      localized_label_prefix: null,
    });
  });

  it('merges productInfo, product-level keys and the page UI state into product_info', () => {
    expect(r.product_info).toMatchObject({
      title: 'Nike Dunk Low Retro', // productInfo
      subtitle: "Men's Shoes",
      full_title: "Nike Dunk Low Retro Men's Shoes",
      product_details: [{ header: 'Product details', body: expect.arrayContaining(['Style: DD1391-100']) }],
      size_fit_sections: [{ section_type: 'SIZE_FIT', label: 'Size & Fit', sizes: ['Fits true to size'] }],
      status_modifier: 'BUYABLE_BUY', // product level
      product_type: 'FOOTWEAR',
      color_description: 'White/White/Black',
      featured_attributes: ['PROMOS_EXCLUDED', 'SHOW_PDP_PROMO_EXCLUSION_MESSAGE'],
      is_skus_request_in_flight: true, // pageProps (UI state)
      selected_sku: null,
      size_select_error: false,
      consumer_release_type: 'RELEASE',
      is_promo_exclusion: true,
    });
    expect(r.product_info.content_images?.[0]).toMatchObject({
      card_type: 'image',
      properties: { alt_text: "Nike Dunk Low Retro Men's Shoes", portrait: { aspect_ratio: 0.8 } },
    });
  });

  it('drops upstream keys the spec does not have', () => {
    const text = JSON.stringify(r);
    for (const key of [
      'genders',
      'groupKey',
      'group_key',
      'badge_label',
      'is_n_b_y',
      'productInfo',
      'colorway_images',
    ]) {
      expect(text).not.toContain(`"${key}"`);
    }
  });
});

describe('French storefront page (constructed fixture)', () => {
  const r = parseProductPage(FR_PAGE, 'CW2288-111');

  it('has every §2.7 field with its spec type', () => {
    expect(checkRecord(r)).toEqual(['gender']);
  });

  it('keeps text in French, prices in EUR, EU size labels', () => {
    expect(r.product_info).toMatchObject({
      title: "Nike Air Force 1 '07",
      subtitle: 'Chaussure pour homme',
      color_description: 'Blanc/Blanc',
      product_details: [{ header: 'Détails du produit' }],
      features_and_benefits: [{ header: 'Avantages' }],
      origins: [{ header: "Origines de l'Air Force 1" }],
      localized_label_prefix: 'EU',
      badge: 'Meilleure vente',
      // on the product object in this page, not in productInfo
      sustainability_disclaimer_message: '<p>Fabriquée avec au moins 20 % de matières recyclées.</p>',
      is_skus_request_in_flight: false,
    });
    expect(r.prices).toMatchObject({ currency: 'EUR', current_price: 119.99 });
    expect(r.sizes.map((s) => [s.label, s.localized_label, s.localized_label_prefix])).toEqual([
      ['6', '38.5', 'EU'],
      ['7', '40', 'EU'],
      ['8.5', '42', 'EU'],
      ['11', '45', 'EU'],
    ]);
    expect(r).toMatchObject({ badge: 'Meilleure vente', group_label: 'Homme', group_index: 0, gender: null });
  });
});

// ---- picking the colourway ------------------------------------------------------------------------------------
describe('colourway selection', () => {
  it('takes another colourway of the group, not the selected one', () => {
    const r = parseProductPage(US_PAGE, 'DD1391-300');
    expect(r).toMatchObject({ style_color: 'DD1391-300', color_code: '300', group_label: "Men's", group_index: 0 });
    expect(r.prices).toMatchObject({ current_price: 92.97, discount_percentage: 19 });
    expect(r.product_info.color_description).toBe('Medium Olive/White/Black');
    expect(r.sizes.map((s) => s.label)).toEqual(['8', '9']);
  });

  it('finds a colourway in a later group and takes that group label', () => {
    const r = parseProductPage(US_PAGE, 'dd1503-101');
    expect(r).toMatchObject({ style_color: 'DD1503-101', group_index: 1, group_label: "Women's" });
    expect(r.product_info.title).toBe('Nike Dunk Low');
  });

  it('a code the page does not list → not_found', () => {
    const e = errorOf(() => parseProductPage(US_PAGE, 'DD1391-999'));
    expect(e.code).toBe('not_found');
    expect(e.message).toContain('DD1391-999');
  });

  it('falls back to selectedProduct when it is that colourway and the groups lack it', () => {
    const page = editedPage(US_PAGE, (pp) => delete pp.productGroups);
    const r = parseProductPage(page, 'DD1391-100');
    expect(r).toMatchObject({ style_color: 'DD1391-100', group_index: null, group_label: null });
    expect(r.product_info.title).toBe('Nike Dunk Low Retro');
  });

  it('never falls back to a selectedProduct of another colourway', () => {
    const page = editedPage(US_PAGE, (pp) => delete pp.productGroups);
    expect(errorOf(() => parseProductPage(page, 'DD1391-300')).code).toBe('not_found');
  });

  it('without a code (a saved page parsed from the CLI) takes the selected product', () => {
    expect(parseProductPage(FR_PAGE, undefined).style_color).toBe('CW2288-111');
  });

  it('reads fields the group entry lacks from the matching selectedProduct', () => {
    const page = editedPage(US_PAGE, (pp) => {
      delete grouped(pp, 'DD1391-100').productInfo.title;
      pp.selectedProduct!.productInfo.title = 'From selectedProduct';
    });
    expect(parseProductPage(page, 'DD1391-100').product_info.title).toBe('From selectedProduct');
  });

  it('reads the older Redux path initialState.product.selectedProduct', () => {
    const page = editedPage(FR_PAGE, (pp) => {
      pp.initialState = { product: { selectedProduct: pp.selectedProduct } };
      delete pp.selectedProduct;
      delete pp.productGroups;
    });
    expect(parseProductPage(page, 'CW2288-111').product_info.title).toBe("Nike Air Force 1 '07");
  });
});

// ---- values upstream may lack or carry differently -------------------------------------------------------------
describe('nulls and upstream variations', () => {
  it('gender: an integer passes, strings or absence give null', () => {
    const withInt = editedPage(US_PAGE, (pp) => (grouped(pp, 'DD1391-100').gender = 2));
    expect(parseProductPage(withInt, 'DD1391-100').gender).toBe(2);
    const withString = editedPage(US_PAGE, (pp) => (grouped(pp, 'DD1391-100').gender = 'MEN'));
    expect(parseProductPage(withString, 'DD1391-100').gender).toBeNull();
  });

  it('absent keys become null, never invented values', () => {
    const page = editedPage(FR_PAGE, (pp) => {
      const p = grouped(pp, 'CW2288-111');
      for (const k of ['badge', 'colorCode', 'prices', 'pdpUrl', 'moreInfo', 'sustainabilityMessage', 'selectedSku'])
        delete p[k];
      delete p.productInfo.badge;
      delete p.sizes[0]!.localizedLabelPrefix;
      delete p.sizes[0]!.gtins;
      delete pp.selectedProduct; // no second source for the same keys
    });
    const r = parseAndCheck(sportswearProduct, { html: page, url: null }, { query: 'CW2288-111' }) as SportswearProduct;
    expect(r).toMatchObject({ badge: null, color_code: null, prices: null, pdp_url: null, more_info: null });
    expect(r.product_info).toMatchObject({ badge: null, sustainability_message: null, selected_sku: null });
    expect(r.sizes[0]).toMatchObject({ localized_label_prefix: null, gtins: null, label: '6' });
  });

  it('a single sustainability message object becomes a one-element array', () => {
    const page = editedPage(FR_PAGE, (pp) => {
      const p = grouped(pp, 'CW2288-111');
      p.sustainabilityMessage = (p.sustainabilityMessage as unknown[])[0];
    });
    expect(parseProductPage(page, 'CW2288-111').product_info.sustainability_message).toHaveLength(1);
  });

  it('a product without sizes, or with a mistyped field, fails the record check → upstream_changed', () => {
    const noSizes = editedPage(FR_PAGE, (pp) => {
      for (const p of [grouped(pp, 'CW2288-111'), pp.selectedProduct!]) delete (p as Record<string, unknown>).sizes;
    });
    expect(
      errorOf(() => parseAndCheck(sportswearProduct, { html: noSizes, url: null }, { query: 'CW2288-111' })).code,
    ).toBe('upstream_changed');
    const badPrice = editedPage(FR_PAGE, (pp) => (grouped(pp, 'CW2288-111').prices.currentPrice = '119,99 €'));
    expect(
      errorOf(() => parseAndCheck(sportswearProduct, { html: badPrice, url: null }, { query: 'CW2288-111' })).message,
    ).toMatch(/prices\.current_price/);
  });
});

describe('pages without the product JSON', () => {
  it.each([
    ['no __NEXT_DATA__', '<!DOCTYPE html><html><body><h1>Nike</h1></body></html>', /no __NEXT_DATA__/],
    ['broken JSON', '<script id="__NEXT_DATA__" type="application/json">{"props":</script>', /not valid JSON/],
    ['no pageProps', wrapAsNextDataPage({ props: {} }), /pageProps/],
    [
      'neither selectedProduct nor productGroups',
      wrapAsNextDataPage({ props: { pageProps: { marketPlace: 'US' } } }),
      /neither selectedProduct nor productGroups/,
    ],
  ])('%s → upstream_changed', (_name, html, message) => {
    const e = errorOf(() => parseProductPage(html, 'DD1391-100'));
    expect(e.code).toBe('upstream_changed');
    expect(e.message).toMatch(message);
  });

  it('the Next.js 404 error page → not_found', () => {
    const html = wrapAsNextDataPage({ props: { pageProps: { statusCode: 404 } }, page: '/_error' });
    expect(errorOf(() => parseProductPage(html, 'DD1391-100')).code).toBe('not_found');
  });

  it('a saved page with no selected product and no code asks for the code', () => {
    const page = editedPage(US_PAGE, (pp) => delete pp.selectedProduct);
    const e = errorOf(() => parseProductPage(page, undefined));
    expect(e.code).toBe('invalid_parameter');
    expect(e.errors?.[0]?.param).toBe('query');
  });
});

// ---- real material (../shared/upstream-samples/nike/) ----------------------------------------------------------
describe.skipIf(!sharedAvailable)('real Nike material in ../shared/upstream-samples/nike', () => {
  /**
   * BadBoy185's README shows its scraper's output for a real Czech product page (AR3565-103), read from
   * `productGroups[].products[styleColor]` and renamed by the scraper. No raw page exists, so we put those real
   * values back into the documented page structure (reversing the scraper's renames; notes §3) and parse that.
   */
  it('CZ Nike Shox R4 (BadBoy185 output): real values survive the parser, text stays Czech', () => {
    const md = readCapture('nike/badboy185_scraper_nike_shoes_README_252cd20_cz_output_example.md');
    const out = JSON.parse(md.slice(md.indexOf('{'), md.lastIndexOf('}') + 1));
    const product = {
      styleColor: out.pid,
      id: 'not-in-the-output', // the scraper does not keep the product id; the record needs one
      badge: out.badge,
      badgeLabel: out.badge_label,
      badgeAttribute: out.badge_attribute,
      colorDescription: out.color_description,
      featuredAttributes: out.featured_attributes,
      productType: out.product_type,
      productSubType: out.product_subtype,
      statusModifier: out.status_modifier,
      prices: {
        currency: out.currency,
        currentPrice: out.current_price,
        employeePrice: out.empl_price,
        initialPrice: out.full_price,
        discountPercentage: out.discount_percentage,
      },
      pdpUrl: { url: out.product_url },
      // the output's sizes come from the availability API (label_EU + stock level), not from the page's sizes[]
      sizes: out.sizes.map((s: { label_EU: string }) => ({ localizedLabel: s.label_EU, label: s.label_EU })),
      productInfo: {
        title: out.title,
        subtitle: out.subtitle,
        productDescription: out.description,
        featuresAndBenefits: out.features,
        productDetails: out.details,
        enhancedBenefits: out.enhanced_benefits,
        origins: out.origins,
      },
    };
    const html = wrapAsNextDataPage({
      props: { pageProps: { productGroups: [{ groupIndex: 0, groupLabel: null, products: { [out.pid]: product } }] } },
    });
    const r = parseAndCheck(
      sportswearProduct,
      { html, url: out.product_url },
      { query: out.product_url },
    ) as SportswearProduct;
    expect(productSchema.strict().safeParse(r).success).toBe(true);
    expect(r).toMatchObject({
      style_color: 'AR3565-103',
      badge: null,
      gender: null,
      group_label: null,
      prices: {
        currency: 'EUR',
        current_price: 149.99,
        employee_price: 149.99,
        initial_price: 149.99,
        discount_percentage: 0,
        employee_discount_percentage: null,
      },
      pdp_url: { url: 'https://www.nike.com/cz/t/boty-shox-r4-wQWPrJH5/AR3565-103', canonical_url: null },
    });
    expect(r.product_info).toMatchObject({
      title: 'Nike Shox R4',
      subtitle: 'Dámské boty',
      status_modifier: 'BUYABLE_BUY',
      product_type: 'FOOTWEAR',
      featured_attributes: ['SHOW_PDP_PROMO_EXCLUSION_MESSAGE'],
      color_description: 'Bílá/Phantom/Picante Red/Bílá',
      features_and_benefits: [{ header: 'Výhody' }],
      product_details: [{ header: 'Podrobnosti o produktu', body: expect.arrayContaining(['Styl: AR3565-103']) }],
      enhanced_benefits: [],
      origins: [],
    });
    expect(r.sizes).toHaveLength(15);
    expect(r.sizes[0]).toEqual({
      gtins: null,
      label: '35.5',
      status: null,
      merch_sku_id: null,
      sort_sequence: null,
      localized_label: '35.5',
      localized_label_prefix: null,
    });
  });

  it('the legacy rollup_threads v2 API body (Nike 2018 guide) is not a product page → upstream_changed', () => {
    const md = readCapture('nike/nike_devportal_rollup_threads_v2_guide_example_response.md');
    expect(md).toContain('SX5090-014');
    const e = errorOf(() => parseAndCheck(sportswearProduct, { html: md, url: null }, { query: 'SX5090-014' }));
    expect(e.code).toBe('upstream_changed');
  });
});

// ---- issue 19: the real 2025 spelling, the 2023 page generation, the threads/v3 feed ---------------------------
describe('enhanced_pdp (issue 19)', () => {
  const cards = [
    { cardType: 'text', properties: { title: 'Classic', body: 'The radiance lives on.' } },
    { cardType: 'image', properties: { squarish: { url: 'https://static.nike.com/a.png', aspectRatio: 1 } } },
  ];
  const expected = [
    { card_type: 'text', properties: { title: 'Classic', body: 'The radiance lives on.' } },
    { card_type: 'image', properties: { squarish: { url: 'https://static.nike.com/a.png', aspect_ratio: 1 } } },
  ];
  const withKey = (key: string) =>
    editedPage(US_PAGE, (pp) => {
      for (const p of [pp.selectedProduct!, grouped(pp, 'DD1391-100')]) {
        delete p.enhancedPdp;
        delete p.enhancedPDP;
      }
      pp.selectedProduct![key] = cards;
    });

  it('reads `enhancedPDP` (capital PDP, as the real 2025 selectedProduct spells it): no longer null', () => {
    expect(parseProductPage(withKey('enhancedPDP'), 'DD1391-100').enhanced_pdp).toEqual(expected);
  });

  it('still reads the `enhancedPdp` spelling the notes guessed; null when neither is there', () => {
    expect(parseProductPage(withKey('enhancedPdp'), 'DD1391-100').enhanced_pdp).toEqual(expected);
    expect(parseProductPage(withKey('somethingElse'), 'DD1391-100').enhanced_pdp).toBeNull();
  });
});

describe.skipIf(!sharedAvailable)('the 2023 initialState.Threads generation (real product objects)', () => {
  for (const file of ['threads-product-2023-04_us_CT3839-100.json', 'threads-product-2023-04_us_DR0148-171.json']) {
    it(`${file}: a valid 2.7 record with the object's own values, null where the generation lacks a field`, () => {
      const p = JSON.parse(readCapture(`nike/${file}`));
      const html = wrapAsNextDataPage({
        page: '/t/[slug]/[styleColor]',
        props: { pageProps: { initialState: { Threads: { products: { [p.styleColor]: p } } } } },
      });
      const r = parseAndCheck(sportswearProduct, { html, url: null }, { query: p.styleColor }) as SportswearProduct;
      expect(productSchema.strict().safeParse(r).success).toBe(true);
      expect(r).toMatchObject({
        id: p.id,
        style_color: p.styleColor,
        style_code: p.styleCode,
        brands: [p.brand],
        prices: { currency: p.currency, current_price: p.currentPrice, initial_price: p.fullPrice },
        pdp_url: null,
        group_label: null,
      });
      expect(r.product_info).toMatchObject({
        title: p.title,
        subtitle: p.subTitle,
        full_title: p.fullTitle,
        color_description: p.colorDescription,
      });
      expect(r.sizes.map((s) => [s.label, s.merch_sku_id, s.gtins![0]!.gtin])).toEqual(
        p.skus.map((s: { nikeSize: string; skuId: string; gtin: string }) => [s.nikeSize, s.skuId, s.gtin]),
      );
      // An empty localizedSizePrefix is "none", not a prefix.
      expect(r.sizes.every((s) => s.localized_label_prefix === null || s.localized_label_prefix !== '')).toBe(true);
    });
  }

  it('a code the Threads page does not hold → not_found', () => {
    const p = JSON.parse(readCapture('nike/threads-product-2023-04_us_CT3839-100.json'));
    const html = wrapAsNextDataPage({
      props: { pageProps: { initialState: { Threads: { products: { [p.styleColor]: p } } } } },
    });
    expect(errorOf(() => parseProductPage(html, 'AA0000-000')).code).toBe('not_found');
  });
});

describe.skipIf(!sharedAvailable)('product_feed/threads/v3 (real 2026 answers)', () => {
  /** The parts of a product feed answer these tests compare with (the capture's own keys). */
  interface FeedAnswer {
    objects: {
      productInfo: {
        merchProduct: Record<string, unknown> & { styleColor: string };
        merchPrice: Record<string, unknown>;
        productContent: Record<string, unknown>;
        skus: { nikeSize: string; gtin: string }[];
      }[];
    }[];
  }
  const feed = (cc: string): FeedAnswer =>
    JSON.parse(readCapture(`nike/product-feed-threads-v3_${cc}_2026-04-17.json`));
  const infoOf = (json: FeedAnswer, styleColor: string) =>
    json.objects.flatMap((o) => o.productInfo).find((pi) => pi.merchProduct.styleColor === styleColor)!;

  it.each([
    ['gb', 'GB', 'en-GB'],
    ['us', 'US', 'en'],
    ['jp', 'JP', 'ja'],
  ])(
    "%s: every colourway of the answer parses to a valid 2.7 record carrying the feed's own values",
    (cc, marketplace, language) => {
      const json = feed(cc);
      const codes = [
        ...new Set(json.objects.flatMap((o) => o.productInfo.map((pi) => pi.merchProduct.styleColor))),
      ] as string[];
      expect(codes.length).toBeGreaterThan(3);
      for (const styleColor of codes) {
        const r = parseFeed(json, { styleColor, marketplace, language });
        expect(productSchema.strict().safeParse(r).success, styleColor).toBe(true);
        const pi = infoOf(json, styleColor);
        expect(r).toMatchObject({
          id: pi.merchProduct.id,
          style_color: styleColor,
          style_code: pi.merchProduct.styleCode,
          color_code: pi.merchProduct.colorCode,
          brands: [pi.merchProduct.brand],
          sport_tags: pi.merchProduct.sportTags,
          prices: {
            currency: pi.merchPrice.currency,
            current_price: pi.merchPrice.currentPrice,
            initial_price: pi.merchPrice.fullPrice,
          },
          badge: null,
          pdp_url: null,
          enhanced_pdp: null,
        });
        expect(r.product_info).toMatchObject({
          title: pi.productContent.title,
          subtitle: pi.productContent.subtitle,
          full_title: pi.productContent.fullTitle,
        });
        expect(r.sizes.map((s) => [s.label, s.gtins?.[0]?.gtin])).toEqual(pi.skus.map((s) => [s.nikeSize, s.gtin]));
      }
    },
  );

  it("gb: sizes carry the marketplace's localized size and prefix (UK 5.5 for a 6)", () => {
    const r = parseFeed(feed('gb'), { styleColor: 'IU0767-001', marketplace: 'GB', language: 'en-GB' });
    expect(r.sizes[0]).toEqual({
      gtins: [{ gtin: '00198958662033' }],
      label: '6',
      status: null,
      merch_sku_id: '31a2ee51-12bc-514d-941b-55610dd04e2c',
      sort_sequence: null,
      localized_label: '5.5',
      localized_label_prefix: 'UK',
    });
    expect(r.prices).toEqual({
      currency: 'GBP',
      current_price: 134.99,
      initial_price: 134.99,
      employee_price: null,
      discount_percentage: null,
      employee_discount_percentage: null,
    });
  });

  it('objects of another marketplace or language are not taken, even when the colourway is in them', () => {
    expect(
      errorOf(() => parseFeed(feed('gb'), { styleColor: 'IU0767-001', marketplace: 'US', language: 'en' })).code,
    ).toBe('not_found');
    expect(
      errorOf(() => parseFeed(feed('gb'), { styleColor: 'IU0767-001', marketplace: 'GB', language: 'fr' })).code,
    ).toBe('not_found');
    expect(
      errorOf(() => parseFeed({ pages: {} }, { styleColor: 'IU0767-001', marketplace: 'GB', language: null })).code,
    ).toBe('upstream_changed');
  });

  it('names what the feed leaves null: the page-only fields, never gender', () => {
    const missing = nullPaths(
      parseFeed(feed('gb'), { styleColor: 'IU0767-001', marketplace: 'GB', language: 'en-GB' }),
    );
    expect(missing).toEqual(
      expect.arrayContaining([
        'badge',
        'pdp_url',
        'enhanced_pdp',
        'group_label',
        'sizes.status',
        'prices.employee_price',
        'product_info.status_modifier',
      ]),
    );
    expect(missing).not.toContain('gender');
    expect(missing).not.toContain('product_info.title');
    expect(missing).not.toContain('sizes.localized_label');
  });
});
