/**
 * Adding a sixth marketplace touches only its folder and one registry line (the `with` below): this test-only toy
 * gets its routes (neutral and alias), its configuration variables, the SSRF guard on its hosts, warm-up, the block
 * judge with its own marker, the cache and the live-result seam, its price history and its doctor check — with no
 * edit anywhere else.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import type { LiveResult } from '../../src/operations/live-results.js';
import { BUILT_IN_REGISTRY } from '../../src/operations/registry.js';
import { buildApp } from '../../src/server/app.js';
import { runDoctor } from '../../src/status/doctor.js';
import { auth, TEST_KEY } from '../support/app.js';
import { FakeUpstream } from '../support/fake-upstream.js';
import { expectProblem } from '../support/problem.js';
import { toyMarketplace } from './index.js';

const registry = BUILT_IN_REGISTRY.with(toyMarketplace);

describe('a toy sixth marketplace', () => {
  const shop = new FakeUpstream();
  let app: FastifyInstance;
  let config: Config;
  const results: LiveResult[] = [];

  beforeAll(async () => {
    await shop.start();
    config = loadConfig(
      {
        MARKETLENS_DATA_DIR: mkdtempSync(join(tmpdir(), 'marketlens-toy-')),
        MARKETLENS_API_KEYS: TEST_KEY,
        MARKETLENS_LOG_LEVEL: 'silent',
        MARKETLENS_RATE_LIMIT: '0',
        MARKETLENS_RETRY_BASE_MS: '1',
        MARKETLENS_BROWSER_PATH: 'none',
        MARKETLENS_TOY_ORIGIN: shop.origin,
        MARKETLENS_TOY_CONCURRENCY: '2',
      },
      registry.marketplaces,
    );
    app = await buildApp({ config, registry });
    await app.ready();
    app.marketlens.liveResults.onResult((r) => results.push(r));
  });
  afterAll(async () => {
    await app.close();
    await shop.stop();
  });
  beforeEach(() => {
    shop.reset();
    results.length = 0;
    shop.serve('/', '<!DOCTYPE html><html><head><title>Toy Shop</title></head><body></body></html>');
  });

  it('answers on its neutral and alias paths, after a warm-up, and tells the live-result seam', async () => {
    shop.serve('/api/toys/42', { id: 42, name: 'Robot', price: 19.5 });
    const res = await app.inject({ url: '/api/v1/scraper/toy/price?query=42', headers: auth });
    expect(res.statusCode, res.body).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ id: '42', name: 'Robot', price: 19.5, currency: 'EUR' });
    expect(shop.requests.map((r) => r.path)).toEqual(['/', '/api/toys/42']);
    expect(results.map((r) => r.identity)).toEqual([
      { marketplace: 'toy', operation: 'toy.price', id: '42', country: 'FR', currency: 'EUR', locale: null },
    ]);
    const alias = await app.inject({ url: '/api/v1/scraper/toyshop/price?query=42', headers: auth });
    expect(alias.statusCode).toBe(200);
    expect(alias.headers['x-cache']).toBe('hit');
  });

  it('validates its parameters before any upstream request', async () => {
    const body = expectProblem(
      await app.inject({ url: '/api/v1/scraper/toy/price?query=robot', headers: auth }),
      400,
      'invalid_parameter',
    );
    expect(body.errors[0].param).toBe('query');
    expect(shop.requests).toHaveLength(0);
  });

  it('its own block marker, served with 200, is upstream_blocked after a retry on a new session', async () => {
    shop.serve('/api/toys/7', '<html><head><title>Toy wall</title></head></html>');
    expectProblem(
      await app.inject({ url: '/api/v1/scraper/toy/price?query=7', headers: auth }),
      503,
      'upstream_blocked',
    );
    expect(shop.count('/api/toys/7')).toBe(3); // MARKETLENS_RETRY_ATTEMPTS default 3, each on a fresh session
  });

  it('a redirect off its hosts is refused (SSRF guard from its descriptor)', async () => {
    shop.on('/api/toys/9', (_req, res) => void res.writeHead(302, { location: 'https://evil.example/x' }).end());
    const body = expectProblem(
      await app.inject({ url: '/api/v1/scraper/toy/price?query=9', headers: auth }),
      502,
      'upstream_error',
    );
    expect(body.detail).toMatch(/not a Toy Shop host/);
  });

  it("records its lookups in the price history: the history route answers the toy's prices, and tracks it", async () => {
    shop.serve('/api/toys/5', { id: 5, name: 'Kite', price: 12.25 });
    expect((await app.inject({ url: '/api/v1/scraper/toy/price?query=5', headers: auth })).statusCode).toBe(200);
    await app.history.recorder.flush();
    const res = await app.inject({ url: '/api/v1/history?operation=toy.price&query=5', headers: auth });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ operation: 'toy.price', params: { query: '5' } });
    expect(body.series).toEqual([
      {
        label: expect.any(String),
        size: null,
        kind: 'current_price',
        condition: null,
        currency: 'EUR',
        points: [{ t: expect.any(String), min: 12.25, max: 12.25, last: 12.25, count: 1 }],
      },
    ]);
    const products = await app.inject({ url: '/api/v1/db/products?where[marketplace][equals]=toy', headers: auth });
    expect(products.json().docs).toContainEqual(
      expect.objectContaining({ marketplace: 'toy', productId: '5', name: 'Kite', price: 12.25, currency: 'EUR' }),
    );
    // And it can be tracked (refetched on schedule) like a built-in lookup.
    const tracked = await app.inject({
      method: 'POST',
      url: '/api/v1/db/products',
      headers: auth,
      payload: { operation: 'toy.price', query: '5', interval: '1h' },
    });
    expect(tracked.statusCode, tracked.body).toBe(201);
    expect(tracked.json()).toMatchObject({ operation: 'toy.price', params: { query: '5' }, interval: 3600 });
  });

  it('the doctor lists it among the built-in lookups and checks it with its probe against the shop', async () => {
    // A tier this configuration lacks (MARKETLENS_BROWSER_PATH=none): every lookup is listed, none leaves the machine.
    const listed = await runDoctor(config, { registry, tier: 'browser' });
    expect(listed.map((r) => r.operation)).toEqual(registry.operations.map((op) => op.name));
    expect(listed.at(-1)).toMatchObject({ operation: 'toy.price', code: 'tier_unavailable' });

    shop.serve('/api/toys/42', { id: 42, name: 'Robot', price: 19.5 });
    const [row] = await runDoctor(config, { registry, operations: ['toy.price'] });
    expect(row).toMatchObject({
      operation: 'toy.price',
      ok: true,
      tier: 'direct',
      record_valid: true,
      null_fields: [],
    });
    expect(row!.upstream_requests).toBe(1);
    expect(shop.requests.map((r) => r.path)).toContain('/api/toys/42');
  });

  it('is documented in OpenAPI under its site, and the built-in marketplaces are still there', async () => {
    const doc = JSON.parse((await app.inject({ url: '/openapi.json' })).body);
    expect(doc.paths['/api/v1/scraper/toy/price'].get.tags).toEqual(['Toy Shop']);
    expect(doc.paths['/api/v1/scraper/resale-b/prices']).toBeDefined();
  });
});
