/**
 * The service core over HTTP (issue "Service core"): routes from the registry, auth, the one error shape, request ids,
 * health, metrics, docs, and resale-b prices end to end against a fake GOAT.
 */
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aliasPath, allOperations } from '../src/operations/registry.js';
import { auth, testApp, TEST_KEY } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { expectProblem } from './support/problem.js';

const PRICES = '/api/v1/scraper/resale-b/prices';
const BUY_BAR = '/web-api/v1/product_variants/buy_bar_data';

/** Two entries in GOAT's buy_bar_data shape: one priced, one without a lowest price (amount omitted). */
const buyBar = [
  {
    sizeOption: { presentation: '9.5', value: 9.5 },
    shoeCondition: 'new_no_defects',
    boxCondition: 'good_condition',
    lowestPriceCents: { currency: 'USD', amount: 18300, amountUsdCents: 18300 },
    instantShipLowestPriceCents: { currency: 'USD' },
    lastSoldPriceCents: { currency: 'USD', amount: 17500, amountUsdCents: 17500 },
    stockStatus: 'single_in_stock',
  },
  {
    sizeOption: { presentation: '9.5', value: 9.5 },
    shoeCondition: 'new_no_defects',
    boxCondition: 'badly_damaged',
    lowestPriceCents: { currency: 'USD' },
    instantShipLowestPriceCents: { currency: 'USD' },
    lastSoldPriceCents: { currency: 'USD', amount: 0, amountUsdCents: 0 },
    stockStatus: 'not_in_stock',
  },
];

describe('service core', () => {
  const goat = new FakeUpstream();
  let app: FastifyInstance;
  const logs: string[] = [];
  const buyBarRequest = () => goat.requests.filter((r) => r.path === BUY_BAR).at(-1)!;

  beforeAll(async () => {
    await goat.start();
    const logStream = new Writable({
      write(chunk, _enc, cb) {
        logs.push(String(chunk));
        cb();
      },
    });
    app = await testApp(
      { MARKETLENS_RESALE_B_ORIGIN: goat.origin, MARKETLENS_LOG_LEVEL: 'info', MARKETLENS_DEADLINE_MS: '1500' },
      { logStream },
    );
  });
  afterAll(async () => {
    await app.close();
    await goat.stop();
  });

  it('answers resale-b prices end to end from the upstream buy_bar_data', async () => {
    goat.reset();
    goat.serve(BUY_BAR, buyBar);
    const res = await app.inject({ url: `${PRICES}?query=1341930`, headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const entries = JSON.parse(res.body);
    expect(entries).toEqual(buyBar.map((e) => ({ ...e })));
    expect('amount' in entries[1].lowestPriceCents).toBe(false);
    // The fetch layer may warm up a session on the home page first; the API itself is called once.
    expect(goat.count(BUY_BAR)).toBe(1);
    expect(buyBarRequest().query.get('productTemplateId')).toBe('1341930');
    expect(buyBarRequest().query.get('countryCode')).toBe('US');
    expect(res.headers['x-cache']).toBe('miss');
    expect(res.headers['server-timing']).toMatch(/upstream;dur=[\d.]+, parse;dur=[\d.]+/);
    expect(new Date(String(res.headers['last-modified'])).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('serves the same handler under the alias path', async () => {
    goat.reset();
    goat.serve(BUY_BAR, buyBar);
    const res = await app.inject({ url: '/api/v1/scraper/goat/prices?query=42&country=uk', headers: auth });
    expect(res.statusCode).toBe(200);
    expect(buyBarRequest().query.get('countryCode')).toBe('GB');
  });

  it('rejects a missing key with 401 missing_api_key and an unknown key with 401 invalid_api_key', async () => {
    expectProblem(await app.inject({ url: `${PRICES}?query=1` }), 401, 'missing_api_key');
    expectProblem(
      await app.inject({ url: `${PRICES}?query=1`, headers: { 'x-api-key': 'ml_nope' } }),
      401,
      'invalid_api_key',
    );
  });

  it('answers 403 key_disabled for a revoked key', async () => {
    const { key, record } = await app.marketlens.keys.create('to revoke');
    goat.reset();
    goat.serve(BUY_BAR, buyBar);
    expect((await app.inject({ url: `${PRICES}?query=1`, headers: { 'x-api-key': key } })).statusCode).toBe(200);
    await app.marketlens.keys.revoke(record.id);
    expectProblem(await app.inject({ url: `${PRICES}?query=1`, headers: { 'x-api-key': key } }), 403, 'key_disabled');
  });

  it('names the parameter in 400s: bad country, unknown parameter, missing query, bad max_age', async () => {
    const country = expectProblem(
      await app.inject({ url: `${PRICES}?query=1&country=DE`, headers: auth }),
      400,
      'invalid_parameter',
    );
    expect(country.errors).toEqual([{ param: 'country', message: 'must be one of US, UK, FR' }]);
    expect(country.detail).toContain('country');
    const foo = expectProblem(
      await app.inject({ url: `${PRICES}?query=1&foo=1`, headers: auth }),
      400,
      'invalid_parameter',
    );
    expect(foo.errors).toEqual([{ param: 'foo', message: 'unknown parameter' }]);
    const missing = expectProblem(await app.inject({ url: PRICES, headers: auth }), 400, 'invalid_parameter');
    expect(missing.errors[0].param).toBe('query');
    const notNumeric = expectProblem(
      await app.inject({ url: `${PRICES}?query=${encodeURIComponent('<abc>')}`, headers: auth }),
      400,
      'invalid_parameter',
    );
    expect(notNumeric.errors[0].param).toBe('query');
    const maxAge = expectProblem(
      await app.inject({ url: `${PRICES}?query=1&max_age=-3`, headers: auth }),
      400,
      'invalid_parameter',
    );
    expect(maxAge.errors[0].param).toBe('max_age');
  });

  it('answers 404 route_not_found for unknown routes and 405 for other methods', async () => {
    expectProblem(await app.inject({ url: '/api/v1/scraper/nowhere', headers: auth }), 404, 'route_not_found');
    const res = await app.inject({ method: 'POST', url: PRICES, headers: auth });
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toContain('GET');
  });

  it('maps upstream failures: 404 → not_found, 500 → upstream_error, HTML → upstream_blocked, bad JSON → upstream_changed', async () => {
    goat.reset();
    goat.serve(BUY_BAR, { message: 'Not Found' }, { status: 404 });
    expectProblem(await app.inject({ url: `${PRICES}?query=999`, headers: auth }), 404, 'not_found');
    goat.reset();
    goat.serve(BUY_BAR, 'oops', { status: 500, type: 'text/plain' });
    expectProblem(await app.inject({ url: `${PRICES}?query=999`, headers: auth }), 502, 'upstream_error');
    goat.reset();
    goat.serve(BUY_BAR, '<!DOCTYPE html><title>Just a moment...</title>');
    expectProblem(await app.inject({ url: `${PRICES}?query=999`, headers: auth }), 503, 'upstream_blocked');
    goat.reset();
    goat.serve(BUY_BAR, '[{"sizeOption":', { type: 'application/json' });
    expectProblem(await app.inject({ url: `${PRICES}?query=999`, headers: auth }), 502, 'upstream_changed');
  });

  it('answers 504 upstream_timeout within the deadline when the upstream hangs', async () => {
    goat.reset();
    goat.on(BUY_BAR, () => new Promise(() => {})); // never answers
    const started = Date.now();
    expectProblem(await app.inject({ url: `${PRICES}?query=7`, headers: auth }), 504, 'upstream_timeout');
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('registers every operation under its neutral and alias path', () => {
    const routes = app.printRoutes({ commonPrefix: false });
    for (const op of allOperations()) {
      expect(routes).toContain(op.path);
      expect(routes).toContain(aliasPath(op));
    }
    expect(aliasPath(allOperations().find((o) => o.name === 'watchmarket.finder')!)).toBe(
      '/api/v2/finder/chrono24-search',
    );
  });

  it('echoes a caller X-Request-Id and mints one otherwise', async () => {
    const given = await app.inject({ url: '/healthz', headers: { 'x-request-id': 'trace-abc.123' } });
    expect(given.headers['x-request-id']).toBe('trace-abc.123');
    const minted = await app.inject({ url: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(minted.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves /healthz and /readyz without a key, and /readyz turns 503 when shutting down', async () => {
    expect((await app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
    app.marketlens.state.ready = false;
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(503);
    app.marketlens.state.ready = true;
  });

  it('serves /metrics with a key only (not public by default), counting requests and upstream fetches', async () => {
    expectProblem(await app.inject({ url: '/metrics' }), 401, 'missing_api_key');
    const res = await app.inject({ url: '/metrics', headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(
      /marketlens_http_requests_total\{route="\/api\/v1\/scraper\/resale-b\/prices",method="GET",status="200"\} \d+/,
    );
    expect(res.body).toMatch(/marketlens_http_request_duration_seconds_bucket/);
    expect(res.body).toMatch(
      /marketlens_upstream_requests_total\{marketplace="resale-b",tier="[a-z]+",outcome="[a-z_0-9]+"\} \d+/,
    );
  });

  it('serves the interactive reference at /docs', async () => {
    const res = await app.inject({ url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/swagger/i);
  });

  it('never writes the API key to the logs', () => {
    const all = logs.join('');
    expect(all).toContain('"reqId"'); // request logging is on
    expect(all).not.toContain(TEST_KEY);
  });
});

describe('upstream unreachable', () => {
  it('answers 502 upstream_error problem+json when the origin refuses connections', async () => {
    const app = await testApp({ MARKETLENS_RESALE_B_ORIGIN: 'http://127.0.0.1:1' });
    try {
      expectProblem(await app.inject({ url: `${PRICES}?query=1341930`, headers: auth }), 502, 'upstream_error');
    } finally {
      await app.close();
    }
  });
});
