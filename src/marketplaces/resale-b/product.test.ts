/**
 * resale-b.product parser and input rules: our fixture (2025-08 field set), every productTemplate in the real GOAT
 * captures (scrapfly 2023-11 and 2025-03, DewuApiParser 2024, partner API 2023) wrapped as the page carries it, and
 * each field of spec §2.4 checked by name and type.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MarketlensError } from '../../errors.js';
import { parseAndCheck } from '../../operations/lookup.js';
import { wrapAsNextDataPage } from '../../util/next-data.js';
import { snakeKey } from '../../util/snake-case.js';
import { readCapture, sharedAvailable, sharedDir } from '../../../test/support/shared.js';
import { isNotFoundPage, parseProductBody } from './parse.js';
import { resaleBProduct, resolveProductQuery } from './product.js';
import { PRODUCT_EXAMPLE } from './product-example.js';
import { PRODUCT_KEY_RENAMES, productRecordSchema } from './schema.js';
import { readFixture } from '../../../test/support/fixtures.js';
import { CLI_COMMAND } from '../../../test/support/binary.js';
import { at } from '../../util/json-path.js';

const fixture = (): Record<string, unknown> => JSON.parse(readFixture('resale-b/product-template.json'));

/** A product page as GOAT's Next.js app serves it. */
function productPage(template: unknown, section = 'sneakers'): string {
  return wrapAsNextDataPage({
    props: { pageProps: { productTemplate: template, offers: { offerData: null } }, __N_SSP: true },
    page: `/${section}/[slug]`,
    query: { slug: (template as { slug?: string }).slug },
    buildId: 'fixture-build',
  });
}

// ------------------------------------------------------------------------------------------------------------
// Spec §2.4, written out from the spec table (independently of schema.ts): field → type.
// ------------------------------------------------------------------------------------------------------------
type Kind =
  | 'integer'
  | 'string'
  | 'boolean'
  | 'array'
  | 'array<string>'
  | 'array<number>'
  | 'size_options'
  | 'featured_in'
  | 'robot_assets'
  | 'external_pictures'
  | 'localized_money';

const SPEC_2_4: Record<string, Kind> = {
  id: 'integer',
  sku: 'string',
  name: 'string',
  slug: 'string',
  color: 'string',
  story: 'string',
  story_html: 'string',
  gender: 'array<string>',
  single_gender: 'string',
  season: 'string',
  status: 'string',
  details: 'string',
  midsole: 'string',
  category: 'array<string>',
  designer: 'string',
  nickname: 'string',
  upper_material: 'string',
  silhouette: 'string',
  brand_name: 'string',
  user_own: 'boolean',
  user_want: 'boolean',
  is_ownable: 'boolean',
  is_wantable: 'boolean',
  is_offerable: 'boolean',
  is_resellable: 'boolean',
  is_partner_resellable: 'boolean',
  is_raffle_product: 'boolean',
  is_fashion_product: 'boolean',
  is_availability_restricted: 'boolean',
  direct_shipping: 'boolean',
  render_images_in_order: 'boolean',
  payment_pay_only_promo: 'boolean',
  size_type: 'string',
  size_unit: 'string',
  size_brand: 'string',
  size_range: 'array<number>',
  size_options: 'size_options',
  age_groups: 'array',
  featured_in: 'featured_in',
  picture_url: 'string',
  grid_picture_url: 'string',
  main_picture_url: 'string',
  grid_glow_picture_url: 'string',
  main_glow_picture_url: 'string',
  robot_assets: 'robot_assets',
  product_template_external_pictures: 'external_pictures',
  product_type: 'string',
  product_category: 'string',
  product_taxonomy: 'array',
  taxonomy_level1: 'string',
  taxonomy_level2: 'string',
  special_type: 'string',
  internal_shot: 'string',
  release_date: 'string',
  release_date_name: 'string',
  selling_count: 'integer',
  used_for_sale_count: 'integer',
  with_defect_for_sale_count: 'integer',
  microposts_count: 'integer',
  lowest_price_cents: 'integer',
  new_lowest_price_cents: 'integer',
  used_lowest_price_cents: 'integer',
  special_display_price_cents: 'integer',
  maximum_offer_cents: 'integer',
  minimum_offer_cents: 'integer',
  available_sizes_new: 'array',
  available_sizes_used: 'array',
  available_sizes_new_v2: 'array',
  available_sizes_new_with_defects: 'array',
  localized_special_display_price_cents: 'localized_money',
};

const isInt = (v: unknown) => Number.isInteger(v);
const isStr = (v: unknown) => typeof v === 'string';
const hasExactly = (o: unknown, keys: string[]) =>
  o !== null && typeof o === 'object' && Object.keys(o).sort().join() === [...keys].sort().join();

/** Whether a non-null value has the spec type. */
function hasSpecType(kind: Kind, v: unknown): boolean {
  switch (kind) {
    case 'integer':
      return isInt(v);
    case 'string':
      return isStr(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'array':
      return Array.isArray(v);
    case 'array<string>':
      return Array.isArray(v) && v.every(isStr);
    case 'array<number>':
      return Array.isArray(v) && v.every((x) => typeof x === 'number');
    case 'size_options':
      return (
        Array.isArray(v) &&
        v.every((o) => hasExactly(o, ['value', 'presentation']) && typeof o.value === 'number' && isStr(o.presentation))
      );
    case 'featured_in':
      return (
        Array.isArray(v) &&
        v.every(
          (o) =>
            hasExactly(o, ['name', 'slug', 'clickthrough_destination']) &&
            isStr(o.name) &&
            isStr(o.slug) &&
            isStr(o.clickthrough_destination),
        )
      );
    case 'robot_assets':
      return Array.isArray(v) && v.every((o) => hasExactly(o, ['url']) && isStr(o.url));
    case 'external_pictures':
      return (
        Array.isArray(v) &&
        v.every(
          (o) =>
            hasExactly(o, [
              'order',
              'aspect',
              'source_url',
              'dominant_color',
              'attribution_url',
              'grid_picture_url',
              'main_picture_url',
            ]) &&
            isInt(o.order) &&
            typeof o.aspect === 'number' &&
            /^#[0-9a-f]{6}$/i.test(o.dominant_color) &&
            [o.source_url, o.attribution_url, o.grid_picture_url, o.main_picture_url].every(isStr),
        )
      );
    case 'localized_money':
      return (
        hasExactly(v, ['amount', 'currency', 'amount_usd_cents']) &&
        isInt((v as Record<string, unknown>).amount) &&
        isStr((v as Record<string, unknown>).currency) &&
        isInt((v as Record<string, unknown>).amount_usd_cents)
      );
  }
}

/** The upstream key a spec field comes from (the naive rule, inverted through the two renames). */
function upstreamKeyOf(field: string, template: Record<string, unknown>): string | undefined {
  return Object.keys(template).find(
    (k) => ((PRODUCT_KEY_RENAMES as Record<string, string>)[k] ?? snakeKey(k)) === field,
  );
}

/** Every spec field present with its spec type (null only where upstream has no value); nothing else. */
function expectSpecRecord(record: Record<string, unknown>, template: Record<string, unknown>): void {
  expect(Object.keys(record).sort()).toEqual(Object.keys(SPEC_2_4).sort());
  for (const [field, kind] of Object.entries(SPEC_2_4)) {
    expect(field in record, field).toBe(true);
    const v = record[field];
    const key = upstreamKeyOf(field, template);
    const upstream = key === undefined ? undefined : template[key];
    if (upstream === undefined || upstream === null || (field === 'release_date_name' && upstream === '')) {
      expect(v, `${field} must be null when GOAT has no value`).toBeNull();
    } else {
      expect(v, `${field} must keep GOAT's value`).not.toBeNull();
      expect(hasSpecType(kind, v), `${field} should be ${kind}, got ${JSON.stringify(v)?.slice(0, 120)}`).toBe(true);
    }
  }
  productRecordSchema.strict().parse(record);
}

describe('resale-b.product record schema', () => {
  it('has exactly the spec §2.4 fields', () => {
    expect(Object.keys(productRecordSchema.shape).sort()).toEqual(Object.keys(SPEC_2_4).sort());
  });

  it('documents a valid example for OpenAPI', () => {
    expect(productRecordSchema.strict().safeParse(resaleBProduct.example?.response).success).toBe(true);
    expect(resolveProductQuery(resaleBProduct.example!.params.query!)).toEqual({
      slug: PRODUCT_EXAMPLE.slug,
      sections: ['sneakers'],
    });
  });

  it('rejects a record with a wrong type or an extra key', () => {
    const good = parseProductBody(productPage(fixture()));
    expect(productRecordSchema.safeParse(good).success).toBe(true);
    expect(productRecordSchema.safeParse({ ...good, id: '2000001' }).success).toBe(false);
    expect(productRecordSchema.safeParse({ ...good, activity: 'Running' }).success).toBe(false);
    const { sku: _sku, ...withoutSku } = good;
    expect(productRecordSchema.safeParse(withoutSku).success).toBe(false);
  });
});

describe('resale-b.product parser on our fixture', () => {
  it('converts the template to the §2.4 record', () => {
    const template = fixture();
    const record = parseProductBody(productPage(template));
    expectSpecRecord(record, template);
    expect(record).toMatchObject({
      id: 2000001,
      slug: 'fixture-runner-2-slate-fr2001-020',
      story_html: "<p>The Fixture Runner 2 'Slate' pairs a knit upper with a foam midsole.</p>",
      is_partner_resellable: true,
      payment_pay_only_promo: false,
      taxonomy_level1: 'Footwear',
      available_sizes_new_v2: [],
      age_groups: ['adult'],
      season: ' 2024',
      release_date: '2024-09-14T23:59:59.999Z',
      release_date_name: null,
      localized_special_display_price_cents: { amount: 13000, currency: 'USD', amount_usd_cents: 13000 },
    });
    expect(record.featured_in?.[0]).toEqual({
      name: "Fixture Runner 'Night'",
      slug: 'pdp-custom-links/sneakers/fixture-runner-2-slate-fr2001-020/sneakers/fixture-runner-2-night-fr2001-001',
      clickthrough_destination: 'sneakers/fixture-runner-2-night-fr2001-001',
    });
    expect(record.product_template_external_pictures?.[0]).toEqual({
      order: 1,
      aspect: 1.5,
      source_url: 'https://www.goat.com',
      dominant_color: '#1a1a1a',
      attribution_url: 'GOAT',
      grid_picture_url: at(template, 'productTemplateExternalPictures', 0, 'gridPictureUrl'),
      main_picture_url: at(template, 'productTemplateExternalPictures', 0, 'mainPictureUrl'),
    });
    // Undocumented upstream keys are not passed through; camelCase names never leak.
    expect(record).not.toHaveProperty('activity');
    expect(record).not.toHaveProperty('is_alias_resellable');
    expect(record).not.toHaveProperty('apple_pay_only_promo');
  });

  it('keeps a non-empty release_date_name and puts null where the template lacks a field', () => {
    const template = fixture();
    template.releaseDateName = 'Holiday Drop';
    delete template.ageGroups;
    delete template.taxonomyLevel1;
    delete template.isAliasResellable;
    const record = parseProductBody(productPage(template));
    expect(record.release_date_name).toBe('Holiday Drop');
    expect(record.age_groups).toBeNull();
    expect(record.taxonomy_level1).toBeNull();
    expect(record.is_partner_resellable).toBeNull();
    expectSpecRecord(record, template);
  });

  it('reads every body form: page, __NEXT_DATA__ JSON, _next/data JSON, bare template', () => {
    const template = fixture();
    const expected = parseProductBody(productPage(template));
    expect(parseProductBody(JSON.stringify({ props: { pageProps: { productTemplate: template } } }))).toEqual(expected);
    expect(parseProductBody(JSON.stringify({ pageProps: { productTemplate: template }, __N_SSP: true }))).toEqual(
      expected,
    );
    expect(parseProductBody(JSON.stringify(template))).toEqual(expected);
  });

  it('answers not_found for Next.js not-found pages and upstream_changed for pages without the template', () => {
    const code = (body: string) => {
      try {
        parseProductBody(body);
        return 'parsed';
      } catch (e) {
        return (e as MarketlensError).code;
      }
    };
    const notFound404 = wrapAsNextDataPage({ props: { pageProps: {} }, page: '/404', query: {}, buildId: 'b' });
    const notFoundError = wrapAsNextDataPage({
      props: { pageProps: { statusCode: 404 } },
      page: '/_error',
      buildId: 'b',
    });
    expect(code(notFound404)).toBe('not_found');
    expect(code(notFoundError)).toBe('not_found');
    expect(code(JSON.stringify({ notFound: true }))).toBe('not_found');
    expect(isNotFoundPage(notFound404)).toBe(true);
    expect(isNotFoundPage(productPage(fixture()))).toBe(false);

    expect(code('<!DOCTYPE html><html><body><h1>GOAT</h1></body></html>')).toBe('upstream_changed');
    expect(code(wrapAsNextDataPage({ props: { pageProps: { product: {} } }, page: '/sneakers/[slug]' }))).toBe(
      'upstream_changed',
    );
    expect(code('<html><script id="__NEXT_DATA__" type="application/json">{broken</script></html>')).toBe(
      'upstream_changed',
    );
    expect(code('{"pageProps":')).toBe('upstream_changed');
    expect(code('[1,2]')).toBe('upstream_changed');
  });

  it('a template with a wrong type fails the record check (upstream_changed), not a 500', () => {
    const template = fixture();
    template.sizeOptions = [{ presentation: '8', value: '8' }];
    expect(() => parseAndCheck(resaleBProduct, productPage(template), {})).toThrowError(
      expect.objectContaining({ code: 'upstream_changed' }),
    );
  });
});

describe('resale-b.product query resolution', () => {
  it('accepts storefront URLs on GOAT hosts, sneakers and apparel', () => {
    expect(resolveProductQuery('https://www.goat.com/sneakers/air-jordan-1-x')).toEqual({
      slug: 'air-jordan-1-x',
      sections: ['sneakers'],
    });
    expect(resolveProductQuery('https://goat.com/apparel/fear-of-god-tee-x?utm=1#top')).toEqual({
      slug: 'fear-of-god-tee-x',
      sections: ['apparel'],
    });
    expect(resolveProductQuery('www.goat.com/sneakers/abc-123/')).toEqual({ slug: 'abc-123', sections: ['sneakers'] });
    expect(resolveProductQuery('http://www.goat.com/sneakers/abc-123')).toEqual({
      slug: 'abc-123',
      sections: ['sneakers'],
    });
  });

  it('tries a bare slug as sneakers, then apparel', () => {
    expect(resolveProductQuery(' Air-Jordan-3-Retro-dn3707-100 ')).toEqual({
      slug: 'air-jordan-3-retro-dn3707-100',
      sections: ['sneakers', 'apparel'],
    });
  });

  it.each([
    'https://evil.com/sneakers/x',
    'https://goat.com.evil.com/sneakers/x',
    'http://127.0.0.1/sneakers/x',
    'https://user:pw@www.goat.com/sneakers/x',
    'https://www.goat.com:8443/sneakers/x',
    'https://www.goat.com/collections/x',
    'https://www.goat.com/sneakers/',
    'https://www.goat.com/sneakers/a/b',
    'https://www.goat.com/',
    'ftp://www.goat.com/sneakers/x',
    'slug with spaces',
    'slug?x=1',
    '-leading-hyphen',
  ])('rejects %s with a 400 naming query', (q) => {
    try {
      resolveProductQuery(q);
      expect.unreachable(`${q} was accepted`);
    } catch (e) {
      expect(e).toBeInstanceOf(MarketlensError);
      expect((e as MarketlensError).code).toBe('invalid_parameter');
      expect((e as MarketlensError).errors?.[0]?.param).toBe('query');
    }
  });
});

/** Every productTemplate in every GOAT capture: numeric id, slug, name and sizeOptions at one level, anywhere. */
function captureTemplates(): { where: string; template: Record<string, unknown> }[] {
  const out: { where: string; template: Record<string, unknown> }[] = [];
  const walk = (v: unknown, where: string) => {
    if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${where}[${i}]`));
    if (v === null || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (
      typeof o.id === 'number' &&
      typeof o.slug === 'string' &&
      typeof o.name === 'string' &&
      Array.isArray(o.sizeOptions)
    ) {
      out.push({ where, template: o });
    }
    for (const [k, x] of Object.entries(o)) walk(x, `${where}.${k}`);
  };
  for (const f of readdirSync(sharedDir('goat'))
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    walk(JSON.parse(readCapture(`goat/${f}`)), f);
  }
  return out;
}

describe.skipIf(!sharedAvailable)('resale-b.product on every real productTemplate capture', () => {
  const templates = sharedAvailable ? captureTemplates() : [];

  it('finds the templates of every source and generation', () => {
    const where = templates.map((t) => t.where).join('\n');
    expect(templates.length).toBeGreaterThanOrEqual(11);
    for (const src of [
      'scrapfly_nextdata_productTemplates_2023-11-27',
      'scrapfly_nextdata_productTemplates_2025-03-27',
      'dewuapiparser_goat_1341930_productTemplate',
      'pzwms_partnerapi_product_info',
      'pzwms_partnerapi_order_info',
    ]) {
      expect(where).toContain(src);
    }
  });

  it.each(templates.map((t) => [t.where, t.template] as const))(
    '%s: every §2.4 field with the spec type',
    (_where, template) => {
      const page = productPage(template);
      // The `marketlens parse` path: bodiesFromFiles, then parse and the record check, with no parameters.
      const none = {} as { query: string };
      const record = parseAndCheck(
        resaleBProduct,
        resaleBProduct.bodiesFromFiles([{ path: 'page.html', text: page }], none),
        none,
      ) as Record<string, unknown>;
      expectSpecRecord(record, template);
      expect(record.id).toBe(template.id);
      expect(record.slug).toBe(template.slug);
      expect(record.sku).toBe(template.sku);
      expect((record.size_options as unknown[]).length).toBe((template.sizeOptions as unknown[]).length);
    },
  );

  it('maps the 2025-03 generation fields (renames, featured_in, user_own)', () => {
    const t = templates.find(
      (x) => x.where.startsWith('scrapfly_nextdata_productTemplates_2025-03-27') && x.template.id === 488879,
    )!.template;
    const r = parseProductBody(productPage(t));
    expect(r.is_partner_resellable).toBe(t.isAliasResellable);
    expect(r.payment_pay_only_promo).toBe(t.applePayOnlyPromo);
    expect(r.user_own).toBe(t.userOwn);
    expect(r.featured_in?.[0]?.clickthrough_destination).toBe(at(t, 'featuredIn', 0, 'clickthroughDestination'));
    expect(r.release_date_name).toBeNull();
    expect(r.age_groups).toBeNull(); // not sent before 2025-08
    expect(r.product_template_external_pictures?.length).toBe((t.productTemplateExternalPictures as unknown[]).length);
  });

  it('marketlens parse resale-b.product works on a capture saved as a page', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'goat-page-'));
    const template = JSON.parse(readCapture('goat/dewuapiparser_goat_1341930_productTemplate.json'));
    const file = join(dir, 'tazz.html');
    writeFileSync(file, productPage(template));
    // The compiled CLI (vitest's global setup builds dist from these sources). `parse` never logs, so the inherited
    // environment is fine as it is.
    const { stdout } = await promisify(execFile)(...CLI_COMMAND(['parse', 'resale-b.product', file]));
    const record = JSON.parse(stdout);
    expect(record).toMatchObject({ id: 1341930, slug: 'tazz-slipper-kids-sand-1143776k-san', brand_name: 'UGG' });
    expectSpecRecord(record, template);
  });
});
