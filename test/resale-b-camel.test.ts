/**
 * MARKETLENS_RESALE_B_PRODUCT_KEYS=camel: GOAT products with GOAT's own camelCase keys, as Retailed served them in
 * 2024 (kravetb/goat_api reads `brandName`, `localizedSpecialDisplayPriceCents.currency`,
 * `productTemplateExternalPictures[].mainPictureUrl` …). Against a fake GOAT serving real product templates: every
 * key answered is the template's own key, with the template's value; the default stays the spec's snake_case.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productCamelRecordSchema } from '../src/marketplaces/resale-b/camel-keys.js';
import { productRecordSchema } from '../src/marketplaces/resale-b/schema.js';
import { wrapAsNextDataPage } from '../src/util/next-data.js';
import { auth, testApp } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { readCapture, sharedAvailable } from './support/shared.js';

/** A GOAT product template: the keys these tests read by name, and every other key as it came. */
interface Template {
  slug: string;
  localizedSpecialDisplayPriceCents: { currency: string };
  productTemplateExternalPictures: Array<{ mainPictureUrl: string }>;
  [key: string]: unknown;
}

/** Real templates: a 2024 one (dewuapiparser) and one of the 2025-03 scrapfly export. */
function templates(): Template[] {
  const dewu = JSON.parse(readCapture('goat/dewuapiparser_goat_1341930_productTemplate.json')) as Template;
  const scrapfly = JSON.parse(
    readCapture('goat/scrapfly_nextdata_productTemplates_2025-03-27_f07f3e1.json'),
  ) as Template[];
  return [dewu, scrapfly[0]!];
}

/** The keys and nested keys kravetb/goat_api (Nov 2024) reads from goat/product. */
const C2_READS = [
  'id',
  'sku',
  'name',
  'upperMaterial',
  'brandName',
  'category',
  'singleGender',
  'story',
  'details',
  'silhouette',
  'productType',
  'color',
  'releaseDate',
];

describe.runIf(sharedAvailable)('resale-b product keys', () => {
  const goat = new FakeUpstream();
  let camel: FastifyInstance;
  let snake: FastifyInstance;

  beforeAll(async () => {
    await goat.start();
    goat.serve('/', '<!DOCTYPE html><html><head><title>GOAT</title></head><body></body></html>');
    for (const t of templates()) {
      const page = wrapAsNextDataPage({
        props: { pageProps: { productTemplate: t, offers: { offerData: null } }, __N_SSP: true },
        page: '/sneakers/[slug]',
        query: { slug: t.slug },
        buildId: 'capture',
      });
      goat.serve(`/sneakers/${t.slug}`, page);
    }
    camel = await testApp({ MARKETLENS_RESALE_B_ORIGIN: goat.origin, MARKETLENS_RESALE_B_PRODUCT_KEYS: 'camel' });
    snake = await testApp({ MARKETLENS_RESALE_B_ORIGIN: goat.origin });
  });
  afterAll(async () => {
    await camel.close();
    await snake.close();
    await goat.stop();
  });

  const get = (app: FastifyInstance, slug: string) =>
    app.inject({
      url: `/api/v1/scraper/goat/product?query=${encodeURIComponent(`https://www.goat.com/sneakers/${slug}`)}`,
      headers: auth,
    });

  it.each(templates().map((t) => [t.slug, t] as const))(
    "camel: %s has the template's own keys and values",
    async (slug, t) => {
      const res = await get(camel, slug);
      expect(res.statusCode, res.body).toBe(200);
      const product = res.json();
      expect(productCamelRecordSchema.safeParse(product).error).toBeUndefined();
      for (const [k, v] of Object.entries(product)) {
        // A key the template lacks is a spec field GOAT did not send for this product: null, as in snake mode.
        if (!(k in t)) expect(v, k).toBeNull();
        else if (k !== 'releaseDateName') expect(v, k).toEqual(t[k]); // '' → null (spec), the one value rewritten
      }
      for (const k of C2_READS) expect(product[k], k).toEqual(t[k]);
      expect(product.localizedSpecialDisplayPriceCents.currency).toBe(t.localizedSpecialDisplayPriceCents.currency);
      expect(product.productTemplateExternalPictures[0].mainPictureUrl).toBe(
        t.productTemplateExternalPictures[0]!.mainPictureUrl,
      );
      expect(product.releaseDate).toMatch(/Z$/);
    },
  );

  it('snake (the default) is the spec record with the same values', async () => {
    const t = templates()[0]!;
    const [s, c] = [(await get(snake, t.slug)).json(), (await get(camel, t.slug)).json()];
    expect(productRecordSchema.safeParse(s).error).toBeUndefined();
    expect(s.brand_name).toBe(c.brandName);
    expect(s.localized_special_display_price_cents).toEqual({
      amount: c.localizedSpecialDisplayPriceCents.amount,
      currency: c.localizedSpecialDisplayPriceCents.currency,
      amount_usd_cents: c.localizedSpecialDisplayPriceCents.amountUsdCents,
    });
    expect(s.is_partner_resellable).toBe(c.isAliasResellable);
    expect(Object.keys(s)).toHaveLength(Object.keys(c).length);
    expect(Object.keys(s).some((k) => /[A-Z]/.test(k))).toBe(false);
  });

  it('OpenAPI documents the camelCase product as an alternate shape', async () => {
    const doc = (await snake.inject({ url: '/openapi.json' })).json();
    const schema =
      doc.paths['/api/v1/scraper/resale-b/product'].get.responses['200'].content['application/json'].schema;
    const refs = JSON.stringify(schema);
    expect(refs).toContain('#/components/schemas/ResaleBProduct"');
    expect(refs).toContain('#/components/schemas/ResaleBProductCamel"');
    expect(Object.keys(doc.components.schemas.ResaleBProductCamel.properties)).toEqual(
      expect.arrayContaining(['brandName', 'productTemplateExternalPictures']),
    );
  });

  it('MARKETLENS_RESALE_B_PRODUCT_KEYS accepts only snake or camel', async () => {
    await expect(testApp({ MARKETLENS_RESALE_B_PRODUCT_KEYS: 'kebab' })).rejects.toThrow(
      /MARKETLENS_RESALE_B_PRODUCT_KEYS/,
    );
  });
});
