/**
 * watchmarket (Chrono24) over HTTP: spec 4.5 search against a fake Chrono24 serving pages with the real 2026
 * structure (test/fixtures/watchmarket), and the spec 4.1 finder (no upstream at all).
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeUpstream } from './support/fake-upstream.js';
import { auth, testApp } from './support/app.js';
import { expectProblem } from './support/problem.js';
import { readFixture } from './support/fixtures.js';

const fixture = (name: string) => readFixture(`watchmarket/${name}`);
const SEARCH = '/api/v1/scraper/watchmarket/search';
const FINDER = '/api/v2/finder/watchmarket-search';

let fake: FakeUpstream;
let app: FastifyInstance;

beforeAll(async () => {
  fake = await new FakeUpstream().start();
  app = await testApp({ MARKETLENS_WATCHMARKET_ORIGIN: fake.origin });
});
afterAll(async () => {
  await app?.close();
  await fake?.stop();
});
beforeEach(() => fake.reset());

/** GET on the search route with a fresh fetch (max_age=0), so answers never come from an earlier test's cache. */
const search = (qs: string) => app.inject({ method: 'GET', url: `${SEARCH}?max_age=0&${qs}`, headers: auth });
/** The query string of the last search-page request (the client may warm up on the home page first). */
const lastQuery = () => fake.requests.filter((r) => r.path !== '/').at(-1)!.query;

describe('watchmarket search', () => {
  it('maps filters (several values → repeated parameters), prices and paging onto the Chrono24 URL', async () => {
    fake.serve('/search/index.htm', fixture('search-2026-page1.html'));
    const res = await search(
      'query=Omega%20Speedmaster&dial_color=702,710&case_material=4&country=DE,GB&year=2019,2020&used_or_new=used&price_from=2000&price_to=10000&max_age_in_days=30&specials=102',
    );
    expect(res.statusCode).toBe(200);
    expect(fake.count('/search/index.htm')).toBe(1);
    const q = lastQuery();
    expect(q.get('dosearch')).toBe('true');
    expect(q.get('query')).toBe('Omega Speedmaster');
    expect(q.getAll('dialColor')).toEqual(['702', '710']);
    expect(q.getAll('caseMaterials')).toEqual(['4']);
    expect(q.getAll('countryIds')).toEqual(['DE', 'UK']);
    expect(q.getAll('year')).toEqual(['2019', '2020']);
    expect(q.getAll('usedOrNew')).toEqual(['used']);
    expect(q.getAll('specials')).toEqual(['102']);
    expect([q.get('priceFrom'), q.get('priceTo'), q.get('maxAgeInDays')]).toEqual(['2000', '10000', '30']);
    expect([q.get('currencyId'), q.get('pageSize'), q.get('showpage'), q.get('sortorder')]).toEqual([
      'EUR',
      '60',
      '1',
      null,
    ]);

    const body = res.json();
    expect(body.url).toMatch(
      /^https:\/\/www\.chrono24\.com\/search\/index\.htm\?dosearch=true&query=Omega\+Speedmaster/,
    );
    expect(body.results).toHaveLength(4);
    expect(body.results[0]).toMatchObject({
      id: '51000001',
      badge: 'Promoted',
      price: { amount: 6450, currency: '€' },
      location: 'DE',
    });
    expect(body.stats.total_results).toBe(1234);
    expect(body.pagination).toEqual({ current: 1, next: 2, other_pages: [2, 3, 4, 5, 21], has_next_page: true });
  });

  it.each([
    ['price_asc', '1'],
    ['price_desc', '11'],
    ['age_desc', '5'],
  ])('sort_by=%s → sortorder=%s', async (sortBy, code) => {
    fake.serve('/search/index.htm', fixture('search-2026-page1.html'));
    const res = await search(`query=Omega&sort_by=${sortBy}`);
    expect(res.statusCode).toBe(200);
    expect(lastQuery().get('sortorder')).toBe(code);
  });

  it('sort_by=age_asc is a 400 that says why, with no upstream request', async () => {
    const res = await search('query=Omega&sort_by=age_asc');
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('sort_by');
    expect(res.json().detail).toMatch(/no oldest-first order/);
    expect(fake.count()).toBe(0);
  });

  it('paging: page and page_size reach Chrono24; the last page has no next page', async () => {
    fake.serve('/search/index.htm', fixture('search-2026-last-page.html'));
    const res = await search('query=Omega&page=21&page_size=120');
    expect(res.statusCode).toBe(200);
    expect([lastQuery().get('showpage'), lastQuery().get('pageSize')]).toEqual(['21', '120']);
    expect(res.json().pagination).toEqual({
      current: 21,
      next: null,
      other_pages: [1, 2, 3, 19, 20],
      has_next_page: false,
    });
  });

  it('a page number past the end is a 400 on page', async () => {
    fake.serve('/search/index.htm', fixture('search-2026-last-page.html'));
    const res = await search('query=Omega&page=40');
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].param).toBe('page');
  });

  it('domain and currency: the country site, currencyId and the language header', async () => {
    fake.serve('/search/index.htm', fixture('search-2026-page1.html'));
    const res = await search('query=Omega&domain=de&currency=usd&language=de_DE');
    expect(res.statusCode).toBe(200);
    expect(res.json().url).toMatch(/^https:\/\/www\.chrono24\.de\/search\/index\.htm\?/);
    expect(lastQuery().get('currencyId')).toBe('USD');
    const searchRequest = fake.requests.find((r) => r.path === '/search/index.htm')!;
    expect(searchRequest.headers['accept-language']).toBe('de-DE,de;q=0.9');
    // Listing URLs are made absolute on the domain searched.
    expect(res.json().results[0].url).toBe(
      'https://www.chrono24.de/omega/speedmaster-professional-moonwatch--id51000001.htm',
    );
  });

  it('follows the canonical redirect and reports the page it landed on', async () => {
    fake.on('/search/index.htm', (_req, r) => {
      r.writeHead(301, { location: '/omega/speedmaster--mod63.htm?query=Omega+Speedmaster' }).end();
    });
    fake.serve('/omega/speedmaster--mod63.htm', fixture('search-2026-page1.html'));
    const res = await search('query=Omega%20Speedmaster');
    expect(res.statusCode).toBe(200);
    expect(res.json().url).toBe('https://www.chrono24.com/omega/speedmaster--mod63.htm?query=Omega+Speedmaster');
    expect(res.json().results).toHaveLength(4);
  });

  it('a page asked for through a canonical redirect is fetched by its path (Chrono24 pages model pages by path)', async () => {
    fake.on('/search/index.htm', (_req, r) => {
      r.writeHead(302, { location: '/omega/speedmaster--mod63.htm?query=Omega+Speedmaster' }).end();
    });
    fake.serve('/omega/speedmaster--mod63.htm', fixture('search-2026-page1.html'));
    fake.serve('/omega/speedmaster--mod63-21.htm', fixture('search-2026-last-page.html'));
    const res = await search('query=Omega%20Speedmaster&page=21');
    expect(res.statusCode).toBe(200);
    expect(fake.count('/omega/speedmaster--mod63-21.htm')).toBe(1);
    expect(res.json().url).toBe('https://www.chrono24.com/omega/speedmaster--mod63-21.htm?query=Omega+Speedmaster');
    expect(res.json().pagination).toMatchObject({ current: 21, has_next_page: false });
  });

  it('empty results page: 200 with no listings and null price stats', async () => {
    fake.serve('/search/index.htm', fixture('search-2026-empty.html'));
    const res = await search('query=zzzz-no-such-watch');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      results: [],
      stats: {
        total_results: 0,
        price_stats: { lowest_price: null, median_price: null, average_price: null, highest_price: null },
      },
      pagination: { current: 1, next: null, other_pages: [], has_next_page: false },
    });
  });

  it('a Cloudflare challenge (403) is 503 upstream_blocked', async () => {
    fake.serve('/search/index.htm', fixture('challenge.html'), {
      status: 403,
      headers: { 'cf-mitigated': 'challenge' },
    });
    const res = await search('query=Omega');
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.json().code).toBe('upstream_blocked');
  });

  it('a challenge page served with 200 is also upstream_blocked, never an empty result', async () => {
    fake.serve('/search/index.htm', fixture('challenge.html'));
    const res = await search('query=Omega');
    expect(res.statusCode).toBe(503);
    expect(res.json().code).toBe('upstream_blocked');
  });

  it('unknown filter codes and unsupported filters are 400s naming the parameter, with no upstream request', async () => {
    for (const [qs, param] of [
      ['dial_color=702,7777', 'dial_color'],
      ['movement_type=wind-up', 'movement_type'],
      ['thickness=10', 'thickness'],
      ['page_size=50', 'page_size'],
      ['domain=example', 'domain'],
      ['colour=black', 'colour'],
    ] as const) {
      const res = await search(qs);
      expect(res.statusCode, qs).toBe(400);
      expect(res.json().code).toBe('invalid_parameter');
      expect(
        res.json().errors.map((e: { param: string }) => e.param),
        qs,
      ).toContain(param);
    }
    expect(fake.count()).toBe(0);
  });

  it('filters by label (issue 19): manufacturer=Rolex reaches Chrono24 as manufacturerIds=221, only codes go upstream', async () => {
    fake.serve('/search/index.htm', fixture('search-2026-page1.html'));
    const res = await search(
      `manufacturer=Rolex,${encodeURIComponent('A. Lange & Sohne')}&model=Submariner%20Date&dial_color=black&case_material=steel`,
    );
    expect(res.statusCode, res.body).toBe(200);
    const q = lastQuery();
    expect(q.getAll('manufacturerIds')).toEqual(['221', '1']);
    expect(q.getAll('models')).toEqual(['981']);
    expect(q.getAll('dialColor')).toEqual(['702']);
    expect(q.getAll('caseMaterials')).toEqual(['4']);
    expect(fake.requests.at(-1)!.url).not.toMatch(/Rolex|Lange|black|steel/i);
  });

  it('an unknown label is a 400 naming the parameter and the closest labels, with no upstream request', async () => {
    const body = expectProblem(await search('manufacturer=Omegaa'), 400, 'invalid_parameter');
    expect(body.errors[0].param).toBe('manufacturer');
    expect(body.errors[0].message).toMatch(/unknown value "Omegaa"; closest: Omega \(187\)/);
    const model = expectProblem(await search('manufacturer=Omega&model=Submariner%20Date'), 400, 'invalid_parameter');
    expect(model.errors[0].param).toBe('model');
    expect(fake.count()).toBe(0);
  });

  it('the alias path /api/v1/scraper/chrono24/search answers the same', async () => {
    fake.serve('/search/index.htm', fixture('search-2026-page1.html'));
    const res = await app.inject({
      method: 'GET',
      url: '/api/v1/scraper/chrono24/search?max_age=0&query=Omega&dial_numbers=801',
      headers: auth,
    });
    expect(res.statusCode).toBe(200);
    expect(lastQuery().getAll('dialNumbers')).toEqual(['801']);
    expect(res.json().results).toHaveLength(4);
  });

  it('a page that is not a results page is 502 upstream_changed', async () => {
    fake.serve('/search/index.htm', '<!DOCTYPE html><html><body><h1>Maintenance</h1></body></html>');
    const res = await search('query=Omega');
    expect(res.statusCode).toBe(502);
    expect(res.json().code).toBe('upstream_changed');
  });
});

describe('watchmarket finder', () => {
  const dialIds = ['dialColor', 'dial_color', 'dialNumbers', 'dial_numbers'];

  it('query from a JSON body on GET (as the spec sends it)', async () => {
    const res = await app.inject({
      method: 'GET',
      url: FINDER,
      headers: { ...auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ query: 'dial' }),
    });
    expect(res.statusCode).toBe(200);
    const groups = res.json();
    expect(groups.map((g: { id: string }) => g.id)).toEqual(dialIds);
    expect(groups[0]).toMatchObject({
      id: 'dialColor',
      input_type: 'IllustrationCheckbox',
      label: 'Dial color',
      searchable: false,
    });
    expect(groups[0].values[0]).toEqual({ label: 'Black', dial_color: '702' });
    expect(groups[0].values.at(-1)).toEqual({ label: 'No details', dial_color: '0' });
    expect(groups[1]).toMatchObject({
      id: 'dial_color',
      filterGroupId: 'dial_color',
      inputType: 'IllustrationCheckbox',
    });
    expect(groups[3].values).toContainEqual({ label: 'Roman numerals', dial_numbers: '802' });
    expect(fake.count()).toBe(0);
  });

  it('query from the query string, case-insensitive', async () => {
    const res = await app.inject({ method: 'GET', url: `${FINDER}?query=DIAL`, headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.json().map((g: { id: string }) => g.id)).toEqual(dialIds);
  });

  it('alias path /api/v2/finder/chrono24-search', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/api/v2/finder/chrono24-search',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ query: 'clasp' }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().map((g: { id: string }) => g.id)).toEqual(['clasp', 'clasp', 'claspMaterial', 'clasp_material']);
  });

  it('empty query is a 400 on query (body or query string)', async () => {
    const viaBody = await app.inject({
      method: 'GET',
      url: FINDER,
      headers: { ...auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ query: '' }),
    });
    const viaQs = await app.inject({ method: 'GET', url: `${FINDER}?query=`, headers: auth });
    const missing = await app.inject({ method: 'GET', url: FINDER, headers: auth });
    for (const res of [viaBody, viaQs, missing]) {
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('invalid_parameter');
      expect(res.json().errors[0].param).toBe('query');
    }
  });

  it('query=manufacturer answers every brand of the advanced-search page with its id (issue 19)', async () => {
    const res = await app.inject({ method: 'GET', url: `${FINDER}?query=manufacturer`, headers: auth });
    expect(res.statusCode).toBe(200);
    const [camel, snake] = res.json();
    expect(camel.id).toBe('manufacturerIds');
    expect(snake.id).toBe('manufacturer');
    expect(camel.values.length).toBeGreaterThanOrEqual(545);
    for (const [label, id] of [
      ['Rolex', '221'],
      ['Audemars Piguet', '18'],
      ['Omega', '187'],
      ['A. Lange & Söhne', '1'],
    ]) {
      expect(snake.values).toContainEqual({ label, manufacturer: id });
    }
  });

  it('query=a answers the big groups whole (every brand and country)', async () => {
    const res = await app.inject({ method: 'GET', url: `${FINDER}?query=a`, headers: auth });
    expect(res.statusCode).toBe(200);
    const groups = res.json<Array<{ id: string; values: unknown[] }>>();
    expect(groups.find((g) => g.id === 'manufacturer')!.values.length).toBeGreaterThanOrEqual(545);
    expect(groups.find((g) => g.id === 'countryIds')!.values.length).toBeGreaterThanOrEqual(159);
  });

  it('needs a key like every route', async () => {
    const res = await app.inject({ method: 'GET', url: `${FINDER}?query=dial` });
    expect(res.statusCode).toBe(401);
  });
});
