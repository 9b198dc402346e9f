/**
 * Issue 15: clients written for the Retailed API work against marketlens unchanged, except for the base URL. Each
 * client's exact header set is replayed over a real socket (node:http, so nothing is added but Host) on every route,
 * against fake marketplaces serving fixtures: the answer must be the one a plain request (x-api-key only) gets.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEY, auth, testApp } from './support/app.js';
import { startFixtureMarketplaces, type FixtureMarketplaces } from './support/fixture-marketplaces.js';
import { expectProblem } from './support/problem.js';

interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

/** One GET (or a request with a body) with exactly these headers. */
function send(
  origin: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
  method = 'GET',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // A GET body needs its length stated: Node's client frames no GET body on its own.
    const framed = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const req = request(`${origin}${path}`, { method, headers: framed, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ statusCode: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A body without the usage report's seconds-until-reset countdowns: two requests a few ms apart can straddle a
 * second boundary (CI saw 65170 against 65169). The windows' `reset_at` instants stay compared.
 */
function withoutCountdowns(body: string): unknown {
  return JSON.parse(body, (key, value: unknown) => (key === 'reset' ? 'countdown' : value));
}

/** corsairdev/corsair packages/retailed: JSON content type on every GET, no body; x-api-key or its "oauth_2" mode. */
const TS_CLIENT = { accept: 'application/json', 'content-type': 'application/json', 'x-api-key': TEST_KEY };
const TS_CLIENT_BEARER = {
  accept: 'application/json',
  'content-type': 'application/json',
  authorization: `Bearer ${TEST_KEY}`,
};
/** kravetb/goat_api: httpx 0.27 defaults plus the key. */
const HTTPX = {
  accept: '*/*',
  'accept-encoding': 'gzip, deflate',
  connection: 'keep-alive',
  'user-agent': 'python-httpx/0.27.0',
  'x-api-key': TEST_KEY,
};
const CLIENTS = {
  'TypeScript client': TS_CLIENT,
  'TypeScript client (Bearer)': TS_CLIENT_BEARER,
  'Python httpx': HTTPX,
};

/** Every route, with parameters giving 200 and some giving each error a client can meet. */
const ROUTES = [
  '/api/v1/scraper/goat/prices?query=1341930',
  '/api/v1/scraper/resale-b/prices?query=1341930&country=UK',
  '/api/v1/scraper/goat/product?query=https://www.goat.com/sneakers/air-jordan-3-retro-white-cement',
  '/api/v1/scraper/stockx/search?query=yeezy',
  '/api/v1/scraper/stockx/product?query=marketlens-runner-1-harbor-blue&currency=EUR&country=FR',
  '/api/v1/scraper/stockx/trends?query=yeezy&sort_by=most_active&country=US',
  '/api/v1/scraper/resale-a/trends',
  '/api/v1/scraper/nike/product?query=DD1391-100',
  '/api/v1/scraper/bestbuy/product?query=6500001',
  '/api/v1/scraper/chrono24/search?query=rolex&page_size=30',
  '/api/v2/finder/chrono24-search?query=dial',
  '/api/v1/usage',
  '/openapi.json',
  '/healthz',
  '/readyz',
  // Errors: missing and bad parameters, unknown parameter, unknown route, bad sort.
  '/api/v1/scraper/goat/prices',
  '/api/v1/scraper/goat/prices?query=abc',
  '/api/v1/scraper/goat/prices?query=1341930&limit=5',
  '/api/v1/scraper/stockx/trends?sort_by=cheapest',
  '/api/v1/scraper/stockx/nope',
  '/api/v1/db/nothing-here',
  '/metrics',
];

describe('Retailed clients, unchanged', () => {
  let marketplaces: FixtureMarketplaces;
  let app: FastifyInstance;
  let origin: string;

  beforeAll(async () => {
    marketplaces = await startFixtureMarketplaces();
    app = await testApp(marketplaces.env);
    await app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
    await marketplaces.stop();
  });

  describe.each(Object.entries(CLIENTS))('%s', (_name, headers) => {
    it.each(ROUTES)('GET %s answers what a plain request gets', async (path) => {
      const plain = await send(origin, path, { 'x-api-key': TEST_KEY });
      const client = await send(origin, path, headers);
      expect(client.statusCode, client.body).toBe(plain.statusCode);
      if (plain.statusCode === 200) {
        if (!['/readyz', '/healthz', '/metrics'].includes(path))
          expect(String(client.headers['content-type'])).toMatch(/^application\/json/);
        // Records are equal (the second answer may come from the cache, the record is the same).
        if (path.startsWith('/api/v')) expect(withoutCountdowns(client.body)).toEqual(withoutCountdowns(plain.body));
      } else {
        const expected = JSON.parse(plain.body);
        const body = expectProblem(client, plain.statusCode, expected.code);
        expect(body.errors).toEqual(expected.errors);
      }
    });
  });

  it('the plain requests of the list cover successes and errors (401s: see Bearer below)', async () => {
    const statuses = new Set<number>();
    for (const path of ROUTES) statuses.add((await send(origin, path, { 'x-api-key': TEST_KEY })).statusCode);
    expect([...statuses].sort()).toEqual([200, 400, 404]);
  });

  it('the TypeScript client reads GOAT prices and StockX search as before (not a 400 "body is not valid JSON")', async () => {
    const prices = await send(origin, '/api/v1/scraper/goat/prices?query=1341930', TS_CLIENT);
    expect(prices.statusCode, prices.body).toBe(200);
    expect(JSON.parse(prices.body)[0]).toHaveProperty('lastSoldPriceCents');
    const search = await send(origin, '/api/v1/scraper/stockx/search?query=yeezy', TS_CLIENT_BEARER);
    expect(search.statusCode, search.body).toBe(200);
    expect(JSON.parse(search.body).length).toBeGreaterThan(0);
  });

  describe('bodies on GET', () => {
    it('Content-Length: 0 with a JSON content type is no body, on a route and on an unknown route', async () => {
      const empty = { ...TS_CLIENT, 'content-length': '0' };
      expect((await send(origin, '/api/v1/scraper/goat/prices?query=1341930', empty)).statusCode).toBe(200);
      expect((await send(origin, '/api/v2/finder/chrono24-search?query=dial', empty)).statusCode).toBe(200);
      expectProblem(await send(origin, '/api/v1/nothing', empty), 404, 'route_not_found');
    });

    it('the finder still takes its query from a JSON body on GET', async () => {
      const res = await send(origin, '/api/v2/finder/watchmarket-search', TS_CLIENT, JSON.stringify({ query: 'dial' }));
      expect(res.statusCode, res.body).toBe(200);
      expect(Array.isArray(JSON.parse(res.body))).toBe(true);
    });

    it("malformed JSON is a 400 naming body with the parser's reason", async () => {
      const res = await send(origin, '/api/v2/finder/watchmarket-search', TS_CLIENT, '{"query": ');
      const body = expectProblem(res, 400, 'invalid_parameter');
      expect(body.errors[0].param).toBe('body');
      expect(body.detail).toMatch(/^body: is not valid JSON \(.*JSON.*\)$/);
      expect(body.detail).not.toMatch(/\(\)$/);
    });

    it("a body on an unknown route, even malformed, is still that route's 404", async () => {
      expectProblem(await send(origin, '/api/v1/scraper/stockx/nope', TS_CLIENT, '{"query": '), 404, 'route_not_found');
    });

    it('a prototype-poisoning body is refused, with that reason', async () => {
      const res = await send(
        origin,
        '/api/v2/finder/watchmarket-search',
        TS_CLIENT,
        '{"__proto__": {"x": 1}, "query": "dial"}',
      );
      const body = expectProblem(res, 400, 'invalid_parameter');
      expect(body.detail).toMatch(/__proto__/);
    });

    it.each([
      ['/api/v1/scraper/goat/prices?query=1341930', 'application/json', '{"query":"1"}'],
      ['/api/v1/usage', 'application/json', '{}'],
      ['/api/v1/scraper/stockx/search', 'text/plain', 'yeezy'],
    ])('a body on %s (which takes none) is a 400 naming body', async (path, type, payload) => {
      const res = await send(origin, path, { ...auth, 'content-type': type }, payload);
      const body = expectProblem(res, 400, 'invalid_parameter');
      expect(body.errors).toEqual([{ param: 'body', message: expect.stringMatching(/takes no request body/) }]);
    });

    it('a body larger than the limit is 413 problem+json', async () => {
      const res = await send(
        origin,
        '/api/v2/finder/watchmarket-search',
        TS_CLIENT,
        JSON.stringify({ query: 'x'.repeat(70_000) }),
      );
      expectProblem(res, 413, 'body_too_large');
    });
  });

  describe('Authorization: Bearer', () => {
    const prices = '/api/v1/scraper/goat/prices?query=1341930';

    it('is the key when x-api-key is absent; the same key in both is fine', async () => {
      expect((await send(origin, prices, { authorization: `Bearer ${TEST_KEY}` })).statusCode).toBe(200);
      expect((await send(origin, prices, { authorization: `bearer ${TEST_KEY}` })).statusCode).toBe(200);
      expect((await send(origin, prices, { ...auth, authorization: `Bearer ${TEST_KEY}` })).statusCode).toBe(200);
    });

    it('two different keys → 401 invalid_api_key', async () => {
      const res = await send(origin, prices, { ...auth, authorization: 'Bearer ml_some_other_key' });
      expect(expectProblem(res, 401, 'invalid_api_key').detail).toMatch(/different keys/);
    });

    it('an unknown Bearer key → 401 invalid_api_key; 401 messages name both ways', async () => {
      const wrong = expectProblem(
        await send(origin, prices, { authorization: 'Bearer ml_wrong' }),
        401,
        'invalid_api_key',
      );
      expect(wrong.detail).toMatch(/x-api-key/);
      expect(wrong.detail).toMatch(/Authorization: Bearer/);
      const missing = expectProblem(await send(origin, prices, {}), 401, 'missing_api_key');
      expect(missing.detail).toMatch(/x-api-key/);
      expect(missing.detail).toMatch(/Authorization: Bearer/);
    });

    it('another scheme is not a key', async () => {
      const basic = Buffer.from(`user:${TEST_KEY}`).toString('base64');
      expectProblem(await send(origin, prices, { authorization: `Basic ${basic}` }), 401, 'missing_api_key');
    });
  });
});
