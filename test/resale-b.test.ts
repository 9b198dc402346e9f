/**
 * resale-b (GOAT) over HTTP against a fake GOAT: prices (spec 4.3) with country mapping and upstream failures, and
 * product details (spec 4.4) from URL or slug input, with the SSRF rules on `query`.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { wrapAsNextDataPage } from '../src/util/next-data.js';
import { auth, testApp } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { expectProblem } from './support/problem.js';
import { readFixture } from './support/fixtures.js';

const PRICES = '/api/v1/scraper/resale-b/prices';
const PRODUCT = '/api/v1/scraper/resale-b/product';
const BUY_BAR = '/web-api/v1/product_variants/buy_bar_data';

const fixture = (name: string) => readFixture(`resale-b/${name}`);
const buyBar = JSON.parse(fixture('buy-bar-data.json'));
const template = JSON.parse(fixture('product-template.json'));
const SLUG = template.slug as string;

/** A GOAT product page (Next.js pages router) carrying `template`. */
function productPage(t: Record<string, unknown>, section = 'sneakers'): string {
  return wrapAsNextDataPage({
    props: { pageProps: { productTemplate: t, offers: { offerData: null } }, __N_SSP: true },
    page: `/${section}/[slug]`,
    query: { slug: t.slug },
    buildId: 'fixture-build',
  });
}
/** GOAT's Next.js 404 page. */
const notFoundPage = wrapAsNextDataPage({
  props: { pageProps: {} },
  page: '/404',
  query: {},
  buildId: 'fixture-build',
});

describe('resale-b over HTTP', () => {
  const goat = new FakeUpstream();
  let app: FastifyInstance;
  // Every request asks for a live fetch (no-cache), so a fresh cached answer never stands in for the fake upstream.
  const get = (url: string) => app.inject({ url, headers: { ...auth, 'cache-control': 'no-cache' } });

  beforeAll(async () => {
    await goat.start();
    app = await testApp({ MARKETLENS_RESALE_B_ORIGIN: goat.origin, MARKETLENS_DEADLINE_MS: '3000' });
  });
  afterAll(async () => {
    await app.close();
    await goat.stop();
  });
  beforeEach(() => {
    goat.reset();
    // The HTTP client may visit the home page first, as a browser would (a session warm-up).
    goat.serve('/', '<!DOCTYPE html><html><head><title>GOAT</title></head><body></body></html>');
  });
  /** The requests to GOAT other than the home-page warm-up. */
  const calls = () => goat.requests.filter((r) => r.path !== '/');

  describe('prices (4.3)', () => {
    it.each([
      ['US', 'US', 'USD'],
      ['UK', 'GB', 'GBP'],
      ['uk', 'GB', 'GBP'],
      ['FR', 'FR', 'EUR'],
    ])('country=%s is sent to GOAT as countryCode=%s with currency %s', async (country, code, currency) => {
      goat.serve(BUY_BAR, buyBar);
      const res = await get(`${PRICES}?query=2000001&country=${country}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(calls()).toHaveLength(1);
      const sent = calls()[0]!;
      expect(sent.query.get('productTemplateId')).toBe('2000001');
      expect(sent.query.get('countryCode')).toBe(code);
      const cookies = new Map(
        String(sent.headers.cookie)
          .split(/;\s*/)
          .map((c) => c.split('=') as [string, string]),
      );
      expect(cookies.get('country')).toBe(code);
      expect(cookies.get('currency')).toBe(currency);
    });

    it('defaults to US and returns the entries exactly as GOAT sent them (amount omitted when absent)', async () => {
      goat.serve(BUY_BAR, buyBar);
      const res = await get(`${PRICES}?query=2000001`);
      expect(res.statusCode).toBe(200);
      expect(calls()[0]!.query.get('countryCode')).toBe('US');
      const entries = JSON.parse(res.body);
      expect(entries).toStrictEqual(buyBar);
      expect(Object.keys(entries[1].lowestPriceCents)).toEqual(['currency']);
      expect(entries[1].lastSoldPriceCents.amount).toBe(0);
    });

    it('works under the alias path', async () => {
      goat.serve(BUY_BAR, buyBar);
      const res = await get('/api/v1/scraper/goat/prices?query=2000001&country=FR');
      expect(res.statusCode).toBe(200);
      expect(calls()[0]!.query.get('countryCode')).toBe('FR');
    });

    it('rejects country=DE and a query that is no id, SKU or slug with 400 naming the parameter, without calling GOAT', async () => {
      const de = expectProblem(await get(`${PRICES}?query=2000001&country=DE`), 400, 'invalid_parameter');
      expect(de.errors).toEqual([{ param: 'country', message: 'must be one of US, UK, FR' }]);
      const id = expectProblem(
        await get(`${PRICES}?query=${encodeURIComponent('<air jordan>')}`),
        400,
        'invalid_parameter',
      );
      expect(id.errors[0].param).toBe('query');
      expect(goat.count()).toBe(0);
    });

    it('maps upstream answers: 404 → not_found, 500 → 502, HTML → upstream_blocked, bad JSON → upstream_changed', async () => {
      goat.serve(BUY_BAR, { message: 'Not Found' }, { status: 404 });
      expectProblem(await get(`${PRICES}?query=91`), 404, 'not_found');
      goat.serve(BUY_BAR, 'oops', { status: 500, type: 'text/plain' });
      expectProblem(await get(`${PRICES}?query=92`), 502, 'upstream_error');
      goat.serve(BUY_BAR, '<!DOCTYPE html><html><title>Just a moment...</title></html>');
      expectProblem(await get(`${PRICES}?query=93`), 503, 'upstream_blocked');
      goat.serve(BUY_BAR, '[{"sizeOption":', { type: 'application/json' });
      expectProblem(await get(`${PRICES}?query=94`), 502, 'upstream_changed');
      goat.serve(BUY_BAR, { entries: [] });
      expectProblem(await get(`${PRICES}?query=95`), 502, 'upstream_changed');
    });
  });

  describe('product (4.4)', () => {
    it('answers the §2.4 record for a storefront URL', async () => {
      goat.serve(`/sneakers/${SLUG}`, productPage(template));
      const res = await get(`${PRODUCT}?query=${encodeURIComponent(`https://www.goat.com/sneakers/${SLUG}`)}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const record = JSON.parse(res.body);
      expect(record).toMatchObject({
        id: 2000001,
        sku: 'FR2001 020',
        slug: SLUG,
        brand_name: 'Fixture Athletics',
        is_partner_resellable: true,
        payment_pay_only_promo: false,
        taxonomy_level1: 'Footwear',
        taxonomy_level2: 'Sneakers',
        available_sizes_new_v2: [],
        release_date_name: null,
        size_options: [
          { value: 8, presentation: '8' },
          { value: 8.5, presentation: '8.5' },
          { value: 9, presentation: '9' },
        ],
      });
      expect(Object.keys(record)).toHaveLength(70);
      expect(record).not.toHaveProperty('activity');
      expect(calls().map((r) => r.path)).toEqual([`/sneakers/${SLUG}`]);
    });

    it('answers for a bare slug (sneakers page, one request)', async () => {
      goat.serve(`/sneakers/${SLUG}`, productPage(template));
      const res = await get(`${PRODUCT}?query=${SLUG}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(JSON.parse(res.body).id).toBe(2000001);
      expect(calls().map((r) => r.path)).toEqual([`/sneakers/${SLUG}`]);
    });

    it('fetches an apparel URL from /apparel/', async () => {
      const tee = {
        ...template,
        id: 2000002,
        slug: 'fixture-logo-tee-black',
        productType: 'apparel',
        productCategory: 'clothing',
      };
      goat.serve('/apparel/fixture-logo-tee-black', productPage(tee, 'apparel'));
      const res = await get(
        `${PRODUCT}?query=${encodeURIComponent('https://www.goat.com/apparel/fixture-logo-tee-black')}`,
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ id: 2000002, product_type: 'apparel' });
      expect(calls().map((r) => r.path)).toEqual(['/apparel/fixture-logo-tee-black']);
    });

    it('finds a bare apparel slug under /apparel/ after the sneakers page 404s', async () => {
      const tee = { ...template, id: 2000002, slug: 'fixture-logo-tee-black', productType: 'apparel' };
      goat.serve('/sneakers/fixture-logo-tee-black', notFoundPage, { status: 404 });
      goat.serve('/apparel/fixture-logo-tee-black', productPage(tee, 'apparel'));
      const res = await get(`${PRODUCT}?query=fixture-logo-tee-black`);
      expect(res.statusCode, res.body).toBe(200);
      expect(JSON.parse(res.body).id).toBe(2000002);
      expect(calls().map((r) => r.path)).toEqual([
        '/sneakers/fixture-logo-tee-black',
        '/apparel/fixture-logo-tee-black',
      ]);
    });

    it('answers 404 not_found when neither section has the slug', async () => {
      goat.serve('/sneakers/no-such-shoe', notFoundPage, { status: 404 });
      goat.serve('/apparel/no-such-shoe', notFoundPage, { status: 404 });
      const body = expectProblem(await get(`${PRODUCT}?query=no-such-shoe`), 404, 'not_found');
      expect(body.detail).toContain('no-such-shoe');
      expect(calls()).toHaveLength(2);
    });

    it("answers 404 not_found for a URL whose page is GOAT's not-found page, even with status 200", async () => {
      goat.serve('/sneakers/gone-shoe', notFoundPage);
      expectProblem(
        await get(`${PRODUCT}?query=${encodeURIComponent('https://www.goat.com/sneakers/gone-shoe')}`),
        404,
        'not_found',
      );
      expect(calls()).toHaveLength(1);
    });

    // Distinct slugs: a cached answer for the same query could be served stale when the live fetch fails.
    it('answers 502 upstream_changed for a page without the product JSON', async () => {
      goat.serve('/sneakers/changed-shoe-1', '<!DOCTYPE html><html><body><div id="__next">GOAT</div></body></html>');
      expectProblem(
        await get(`${PRODUCT}?query=${encodeURIComponent('https://www.goat.com/sneakers/changed-shoe-1')}`),
        502,
        'upstream_changed',
      );
      goat.serve(
        '/sneakers/changed-shoe-2',
        wrapAsNextDataPage({ props: { pageProps: { product: {} } }, page: '/sneakers/[slug]' }),
      );
      expectProblem(await get(`${PRODUCT}?query=changed-shoe-2`), 502, 'upstream_changed');
    });

    it('answers 502 upstream_error when GOAT fails', async () => {
      goat.serve('/sneakers/failing-shoe', 'oops', { status: 500, type: 'text/plain' });
      expectProblem(await get(`${PRODUCT}?query=failing-shoe`), 502, 'upstream_error');
    });

    it.each([
      'https://evil.com/sneakers/x',
      'https://goat.com.evil.com/sneakers/x',
      'http://127.0.0.1/sneakers/x',
      `https://www.goat.com:8443/sneakers/${SLUG}`,
      'https://www.goat.com/collections/x',
      'https://www.goat.com/sneakers/a/b',
      'not a slug!',
    ])('rejects %s with 400 naming query and no upstream request', async (q) => {
      const body = expectProblem(await get(`${PRODUCT}?query=${encodeURIComponent(q)}`), 400, 'invalid_parameter');
      expect(body.errors).toEqual([{ param: 'query', message: expect.any(String) }]);
      expect(body.detail).toMatch(/^query: /);
      expect(goat.count()).toBe(0);
    });

    it('requires query and rejects unknown parameters', async () => {
      expect(expectProblem(await get(PRODUCT), 400, 'invalid_parameter').errors[0].param).toBe('query');
      expect(
        expectProblem(await get(`${PRODUCT}?query=${SLUG}&country=US`), 400, 'invalid_parameter').errors[0].param,
      ).toBe('country');
      expect(goat.count()).toBe(0);
    });

    it('works under the alias path /api/v1/scraper/goat/product', async () => {
      goat.serve(`/sneakers/${SLUG}`, productPage(template));
      const res = await get(`/api/v1/scraper/goat/product?query=${SLUG}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(JSON.parse(res.body).slug).toBe(SLUG);
    });
  });
});
