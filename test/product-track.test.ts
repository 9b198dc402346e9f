/**
 * Tracking by SKU (`POST /api/v1/db/products {"sku": …}`) on SQLite and PostgreSQL: stored as a tracked product of
 * the key, under the same per-key cap as lookup tracking (MARKETLENS_MAX_TRACKED_PER_KEY, both forms counted
 * together), deleted only by its owner, bad bodies a 400 naming the field; its first run (at once) is one product
 * answer, which links the SKU so its history answers.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DbRecurring } from '../src/jobs/recurring-db.js';
import { auth, testApp } from './support/app.js';
import { expectProblem } from './support/problem.js';
import { scriptedProducts } from './support/product-answers.js';
import { createTestDatabase, engineAvailable, ENGINES, type TestDatabase } from './support/stores.js';

const OTHER_KEY = 'ml_other_key_for_product_track_tests_00';
const other = { 'x-api-key': OTHER_KEY };
const SKU = 'DD1391-100';

describe.each(ENGINES)('tracking by SKU on %s', (engine) => {
  const run = engineAvailable(engine);
  let db: TestDatabase;
  let app: FastifyInstance;
  const products = scriptedProducts(() => ({
    sku: SKU,
    name: 'Nike Dunk Low',
    links: [{ marketplace: 'resale-b', id: '736158' }],
    sizes: [{ size: '10', offers: [['resale-b', 'lowest_price', 101]] }],
  }));
  const post = (body: object, headers: Record<string, string> = auth) =>
    app.inject({ method: 'POST', url: '/api/v1/db/products', headers, payload: body });

  beforeAll(async () => {
    if (!run) return;
    db = await createTestDatabase(engine);
    app = await testApp(
      {
        ...db.env,
        MARKETLENS_API_KEYS: `${auth['x-api-key']},${OTHER_KEY}`,
        MARKETLENS_MAX_TRACKED_PER_KEY: '2',
        // The tracked lookup's runs fail at once (nothing listens there) instead of reaching for the real site.
        MARKETLENS_RESALE_B_ORIGIN: 'http://127.0.0.1:9',
      },
      { answerProduct: products },
    );
  });
  afterAll(async () => {
    if (!run) return;
    await app.close();
    await db.drop();
  });

  it.skipIf(!run)('runs one product answer at once, linking the SKU for its history', async () => {
    const res = await post({ sku: ' dd1391-100 ', country: 'us', interval: '15m' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      operation: 'product',
      params: { sku: SKU, country: 'US' },
      interval: 900,
      runs: 0,
    });
    const scheduler = app.history.scheduler.recurring;
    if (!(scheduler instanceof DbRecurring)) throw new Error('expected the embedded scheduler');
    while (products.calls === 0) {
      await scheduler.tick();
      await scheduler.idle();
      await new Promise((r) => setImmediate(r));
    }
    await scheduler.idle();
    const history = await app.inject({ url: `/api/v1/products/${SKU}/history`, headers: auth });
    expect(history.statusCode, history.body).toBe(200);
    expect(history.json().marketplaces).toEqual([
      { marketplace: 'resale-b', product_id: '736158', url: 'https://www.goat.com/sneakers/p' },
    ]);
    await app.inject({ method: 'DELETE', url: `/api/v1/db/products/${res.json().id}`, headers: auth });
  });

  it.skipIf(!run)('the per-key cap counts both forms; only the owner deletes; bad bodies name the field', async () => {
    const a = await post({ sku: SKU });
    expect(a.statusCode, a.body).toBe(201);
    expect(a.json().interval).toBe(900);
    const b = await post({ operation: 'resale-b.prices', query: '1341930' });
    expect(b.statusCode, b.body).toBe(201);
    expectProblem(await post({ sku: 'CW2288-111' }), 409, 'limit_reached');
    // Another key has its own cap, and cannot stop this key's product.
    expect((await post({ sku: 'CW2288-111' }, other)).statusCode).toBe(201);
    expectProblem(
      await app.inject({ method: 'DELETE', url: `/api/v1/db/products/${a.json().id}`, headers: other }),
      404,
      'not_found',
    );
    const del = await app.inject({ method: 'DELETE', url: `/api/v1/db/products/${a.json().id}`, headers: auth });
    expect(del.statusCode).toBe(204);
    expect((await post({ sku: 'CW2288-111' })).statusCode).toBe(201);

    for (const [body, field] of [
      [{ sku: '' }, 'sku'],
      [{ sku: SKU, colour: 'red' }, 'colour'],
      [{ sku: SKU, interval: 5 }, 'interval'],
      [{ sku: SKU, country: 'USA' }, 'country'],
      [{ sku: 42 }, 'sku'],
    ] as const) {
      const problem = expectProblem(await post(body, other), 400, 'invalid_parameter');
      expect(problem.detail, JSON.stringify(body)).toContain(field);
    }
  });
});
