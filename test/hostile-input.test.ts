/**
 * Hostile request input (issue 27, items 1, 2 and 4a), on SQLite and PostgreSQL, every case as the tester sent it:
 * - item 1: a prototype name as a bracket-key segment of a db route (`where[__proto__][equals]=x`, …) wrote onto
 *   `Object.prototype`, and prom-client later killed the process over the polluted label. Now: 400 naming the
 *   parameter, `Object.prototype` untouched, and another key's lookup and a metrics scrape still answer.
 * - item 2: `sort=__proto__` (and other inherited names) → 500. Now: 400 naming `sort`.
 * - item 4a: a NUL (and a lone UTF-16 surrogate, which a store cannot hold either) in a path parameter, a JSON body,
 *   the history's `size` or a db `where` value → 500 on PostgreSQL. Now: 400 naming the parameter.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEY, auth, testApp } from './support/app.js';
import { startFixtureMarketplaces, type FixtureMarketplaces } from './support/fixture-marketplaces.js';
import { expectProblem } from './support/problem.js';
import { createTestDatabase, engineAvailable, ENGINES, type TestDatabase } from './support/stores.js';

const OTHER_KEY = 'ml_other_key_for_hostile_input_0123456789';
const other = { 'x-api-key': OTHER_KEY };
const PRICES = '/api/v1/scraper/resale-b/prices';
const SEARCH = '/api/v1/scraper/watchmarket/search';

/** What Object.prototype holds before any request; a test that adds to it fails, and the addition is removed. */
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);
function prototypeAdditions(): string[] {
  return Object.getOwnPropertyNames(Object.prototype).filter((n) => !PROTOTYPE_NAMES.includes(n));
}

/** Item 1's requests: a prototype name as a key segment of every parameter of a db route. */
const PROTO_KEYS = [
  'where[__proto__][equals]',
  'where[or][0][__proto__][equals]',
  'where[name][__proto__][x]',
  'sort[__proto__][x]',
  'page[__proto__][x]',
  'limit[__proto__][x]',
  'format[__proto__][x]',
  'where[constructor][prototype][equals]',
  'where[name][constructor][x]',
  'where[and][0][prototype][x]',
  '__proto__[x]',
  'constructor',
];

describe.each(ENGINES)('hostile request input on %s', (engine) => {
  const run = engineAvailable(engine);
  let markets: FixtureMarketplaces;
  let db: TestDatabase;
  let app: FastifyInstance;

  beforeAll(async () => {
    if (!run) return;
    markets = await startFixtureMarketplaces();
    db = await createTestDatabase(engine);
    app = await testApp({
      ...db.env,
      MARKETLENS_API_KEYS: `${TEST_KEY},${OTHER_KEY}`,
      ...markets.env,
      MARKETLENS_WEBHOOK_ALLOW_HTTP: 'true',
      MARKETLENS_WEBHOOK_ALLOW_PRIVATE: 'true',
    });
  });
  afterAll(async () => {
    if (!run) return;
    await app.close();
    await markets.stop();
    await db.drop();
  });
  afterEach(() => {
    // A polluted prototype would break every later test in this worker: clean it (the test has already failed).
    for (const n of prototypeAdditions()) delete (Object.prototype as Record<string, unknown>)[n];
  });

  const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    app.inject({ method, url, headers: auth, ...(payload === undefined ? {} : { payload: payload as object }) });
  const namedParams = (body: { errors?: Array<{ param: string }> }) => (body.errors ?? []).map((e) => e.param);

  /** The process is healthy: another key's live lookup answers 200 and /metrics scrapes. */
  async function stillServing(): Promise<void> {
    const lookup = await app.inject({ url: `${PRICES}?query=4242&country=US&max_age=0`, headers: other });
    expect(lookup.statusCode, lookup.body).toBe(200);
    const metrics = await app.inject({ url: '/metrics', headers: other });
    expect(metrics.statusCode, metrics.body.slice(0, 300)).toBe(200);
    expect(metrics.body).toContain('marketlens_http_requests_total');
  }

  describe('item 1: a prototype name in a db query key', () => {
    it.skipIf(!run).each(PROTO_KEYS)(
      'GET /api/v1/db/products?%s=x → 400 naming it; Object.prototype untouched',
      async (key) => {
        const res = await send('GET', `/api/v1/db/products?${key}=x`);
        const body = expectProblem(res, 400, 'invalid_parameter');
        expect(namedParams(body)).toEqual([key]);
        expect(prototypeAdditions()).toEqual([]);
        expect(({} as Record<string, unknown>).equals).toBeUndefined();
        expect(({} as Record<string, unknown>).x).toBeUndefined();
        await stillServing();
      },
    );

    it.skipIf(!run)('every db collection refuses it, with the rest of the query valid', async () => {
      for (const name of ['products', 'prices', 'variants']) {
        const res = await send('GET', `/api/v1/db/${name}?limit=5&where[id][exists]=true&where[__proto__][equals]=x`);
        expect(namedParams(expectProblem(res, 400, 'invalid_parameter'))).toEqual(['where[__proto__][equals]']);
      }
      expect(prototypeAdditions()).toEqual([]);
      await stillServing();
    });
  });

  describe('prototype names in JSON bodies', () => {
    const post = (payload: string) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: { ...auth, 'content-type': 'application/json' },
        payload,
      });
    const hook = '"url":"http://127.0.0.1:9/h","events":["price.changed"]';

    it.skipIf(!run).each([
      ['{"__proto__":{"x":1}}', 'body'],
      ['{"constructor":{"prototype":{"x":1}}}', 'body'],
      [`{${hook},"filter":{"constructor":{"prototype":{"x":1}}}}`, 'body'],
      [`{${hook},"constructor":1}`, 'constructor'],
      [`{${hook},"filter":{"prototype":1}}`, 'filter'],
      [`{${hook},"description":"x","filter":{"sizes":["10"],"constructor":"y"}}`, 'filter'],
      // Found by fuzzing: an unknown key inside the filter was named as if it were a parameter of its own.
      [`{${hook},"filter":{"hasOwnProperty":null}}`, 'filter'],
    ])('POST /api/v1/webhooks %s → 400 naming %s', async (payload, named) => {
      const res = await post(payload);
      expect(namedParams(expectProblem(res, 400, 'invalid_parameter'))).toEqual([named]);
      expect(prototypeAdditions()).toEqual([]);
    });

    it.skipIf(!run)('a body nested 20 000 levels deep is a 400, not a stack overflow', async () => {
      const deep = `{${hook},"filter":{"sizes":${'['.repeat(20_000)}"\\u0000"${']'.repeat(20_000)}}}`;
      expect(namedParams(expectProblem(await post(deep), 400, 'invalid_parameter'))).toEqual(['filter']);
      const track = await app.inject({
        method: 'POST',
        url: '/api/v1/db/products',
        headers: { ...auth, 'content-type': 'application/json' },
        payload: `{"operation":"watchmarket.search","query":${'['.repeat(20_000)}${']'.repeat(20_000)}}`,
      });
      expect(namedParams(expectProblem(track, 400, 'invalid_parameter'))).toEqual(['query']);
    });
  });

  describe('item 2: sort by a name every object inherits', () => {
    it.skipIf(!run).each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', '-valueOf', 'name,__proto__'])(
      'sort=%s → 400 naming sort',
      async (sort) => {
        const res = await send('GET', `/api/v1/db/prices?sort=${encodeURIComponent(sort)}`);
        expect(namedParams(expectProblem(res, 400, 'invalid_parameter'))).toEqual(['sort']);
      },
    );

    it.skipIf(!run).each(['toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'])(
      'where[%s][equals]=x → 400 naming it (not a field)',
      async (field) => {
        const res = await send('GET', `/api/v1/db/variants?where[${field}][equals]=x`);
        expect(namedParams(expectProblem(res, 400, 'invalid_parameter'))).toEqual([`where[${field}]`]);
      },
    );

    it.skipIf(!run)('a real field still sorts and filters', async () => {
      const res = await send('GET', '/api/v1/db/prices?sort=-price,size&where[size][exists]=false');
      expect(res.statusCode, res.body).toBe(200);
    });
  });

  describe('found by fuzzing (test/support/hostile-fuzz.ts)', () => {
    it.skipIf(!run)('a repeated shorthand where[field][] names the key as sent', async () => {
      const res = await send('GET', '/api/v1/db/products?where[url][]=a&where[url][]=b');
      expect(namedParams(expectProblem(res, 400, 'invalid_parameter'))).toEqual(['where[url]']);
    });

    // A time past what a Date (and PostgreSQL's bigint) holds was a 500.
    it.skipIf(!run).each([
      ['where[createdAt][]', '99999999999999999999'],
      ['where[createdAt][equals]', '9223372036854775808'],
      ['where[updatedAt][greater_than]', '%2B275760-09-14T00:00:00Z'],
      ['where[observed_at][in]', '1,8640000000000001'],
    ])('GET /api/v1/db/prices?%s=%s → 400 naming it', async (key, value) => {
      const res = await send('GET', `/api/v1/db/prices?${key}=${value}`);
      expect(namedParams(expectProblem(res, 400, 'invalid_parameter'))).toEqual([key.replace(/\[\]$/, '')]);
    });

    it.skipIf(!run).each([
      ['to', '99999999999999999999'],
      ['from', '8640000000000001'],
      ['to', '-271821-04-20'],
    ])('GET /api/v1/history?…&%s=%s → 400 naming it', async (name, value) => {
      const res = await send('GET', `/api/v1/history?operation=watchmarket.search&query=rolex&${name}=${value}`);
      expect(namedParams(expectProblem(res, 400, 'invalid_parameter'))).toEqual([name]);
    });

    it.skipIf(!run)('the edges of the Date range are still times', async () => {
      const res = await send('GET', '/api/v1/db/prices?where[createdAt][less_than]=8640000000000000');
      expect(res.statusCode, res.body).toBe(200);
      const history = await send('GET', '/api/v1/history?operation=watchmarket.search&query=rolex&from=0');
      expect(history.statusCode, history.body).toBe(200);
    });
  });

  describe('item 4a: a NUL or lone surrogate a store cannot hold', () => {
    const WEBHOOK = { url: 'http://127.0.0.1:9/hook', events: ['price.changed'] };

    it.skipIf(!run).each([
      ['GET', '/api/v1/webhooks/a%00b'],
      ['PATCH', '/api/v1/webhooks/a%00b'],
      ['DELETE', '/api/v1/webhooks/a%00b'],
      ['GET', '/api/v1/webhooks/a%00b/deliveries'],
      ['POST', '/api/v1/webhooks/a%00b/test'],
      ['DELETE', '/api/v1/db/products/a%00b'],
    ] as const)('%s %s → 400 naming id', async (method, url) => {
      const res = await send(method, url, method === 'PATCH' ? { enabled: false } : undefined);
      expect(namedParams(expectProblem(res, 400, 'invalid_parameter'))).toEqual(['id']);
    });

    it.skipIf(!run).each([
      ['a NUL', 'before\u0000after'],
      ['a lone high surrogate', 'before\ud800after'],
      ['a lone low surrogate', '\udc00'],
    ])('POST /api/v1/webhooks with %s in description → 400 naming description', async (_what, description) => {
      const res = await send('POST', '/api/v1/webhooks', { ...WEBHOOK, description });
      expect(namedParams(expectProblem(res, 400, 'invalid_parameter'))).toEqual(['description']);
      // Nothing was stored, not even with the character replaced.
      const list = await send('GET', '/api/v1/webhooks');
      expect(list.json().data).toEqual([]);
    });

    it.skipIf(!run)('PATCH with a NUL in description or in a filter value → 400 naming it', async () => {
      const created = await send('POST', '/api/v1/webhooks', { ...WEBHOOK, description: 'ok' });
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().id as string;
      const patched = await send('PATCH', `/api/v1/webhooks/${id}`, { description: 'a\u0000' });
      expect(namedParams(expectProblem(patched, 400, 'invalid_parameter'))).toEqual(['description']);
      const filtered = await send('PATCH', `/api/v1/webhooks/${id}`, { filter: { products: ['x\u0000'] } });
      expect(namedParams(expectProblem(filtered, 400, 'invalid_parameter'))).toEqual(['filter']);
      expect((await send('GET', `/api/v1/webhooks/${id}`)).json().description).toBe('ok');
      expect((await send('DELETE', `/api/v1/webhooks/${id}`)).statusCode).toBe(204);
    });

    it.skipIf(!run)('POST /api/v1/db/products with a NUL in the lookup query → 400 naming query', async () => {
      const res = await send('POST', '/api/v1/db/products', {
        operation: 'watchmarket.search',
        query: 'rolex\u0000',
      });
      expect(namedParams(expectProblem(res, 400, 'invalid_parameter'))).toEqual(['query']);
    });

    it.skipIf(!run).each(['size=1%000', 'query=rolex%00', 'from=2026%00', 'currency=%00'])(
      'GET /api/v1/history?operation=watchmarket.search&…&%s → 400 naming the parameter',
      async (pair) => {
        const base = { operation: 'watchmarket.search', query: 'rolex' } as Record<string, string>;
        const [name] = pair.split('=') as [string];
        delete base[name];
        const qs = new URLSearchParams(base).toString();
        const res = await send('GET', `/api/v1/history?${qs}&${pair}`);
        expect(namedParams(expectProblem(res, 400, 'invalid_parameter'))).toEqual([name]);
      },
    );

    it.skipIf(!run).each([
      ['where[name][equals]', 'a%00b'],
      ['where[name][like]', '%00'],
      ['where[name][in]', 'a,b%00'],
      ['where[or][0][sku][not_equals]', 'x%00'],
      ['where[name][in][]', '%00'],
    ])('GET /api/v1/db/products?%s=%s → 400 naming it', async (key, value) => {
      const res = await send('GET', `/api/v1/db/products?${key}=${value}`);
      expect(namedParams(expectProblem(res, 400, 'invalid_parameter'))).toEqual([key]);
    });

    it.skipIf(!run)('a NUL in a lookup parameter is a 400 naming it, never a 500', async () => {
      for (const url of [`${SEARCH}?query=rolex%00`, `${SEARCH}?query=rolex&reference_number=%00`]) {
        const res = await app.inject({ url, headers: other });
        const param = url.includes('reference') ? 'reference_number' : 'query';
        expect(namedParams(expectProblem(res, 400, 'invalid_parameter')), url).toEqual([param]);
      }
    });
  });
});
