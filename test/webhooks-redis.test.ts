/**
 * Two instances deployed as a pair — shared Redis (MARKETLENS_REDIS_URL) and shared PostgreSQL — both observing the
 * same answers and both running the delivery loop: every event reaches the receiver exactly once, in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { ObservationBatch } from '../src/history/observation.js';
import { auth, testApp } from './support/app.js';
import { TEST_REDIS_URL, deletePrefix, redisAvailable, uniquePrefix } from './support/redis.js';
import { createTestDatabase, postgresAvailable, type TestDatabase } from './support/stores.js';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';

function observed(n: number, amount: number): ObservationBatch {
  const observedAt = new Date(Date.parse('2026-11-24T00:00:00Z') + n * 60_000);
  return {
    operation: 'resale-a.product',
    marketplace: 'resale-a',
    lookupId: 'p1',
    products: [],
    variants: [],
    prices: [
      {
        marketplace: 'resale-a',
        operation: 'resale-a.product',
        productId: 'p1',
        size: '10',
        condition: null,
        kind: 'lowest_ask',
        amount,
        currency: 'USD',
        country: 'US',
        inStock: null,
        observedAt,
      },
    ],
    observedAt,
  };
}

describe.skipIf(!redisAvailable || !postgresAvailable)('two instances on Redis and PostgreSQL', () => {
  let a: FastifyInstance;
  let b: FastifyInstance;
  let receiver: Receiver;
  let database: TestDatabase;
  const prefix = uniquePrefix();

  beforeAll(async () => {
    receiver = await startReceiver();
    database = await createTestDatabase('postgres');
    const env = {
      ...database.env,
      MARKETLENS_REDIS_URL: TEST_REDIS_URL,
      MARKETLENS_REDIS_PREFIX: prefix,
      MARKETLENS_WEBHOOK_ALLOW_HTTP: 'true',
      MARKETLENS_WEBHOOK_ALLOW_PRIVATE: 'true',
    };
    const deps = { alerts: { timing: { baseDelayMs: 40, pollMs: 20 } } };
    a = await testApp(env, deps);
    b = await testApp(env, deps);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await receiver?.stop();
    await database?.drop();
    await deletePrefix(prefix);
  });

  it('each event is delivered once', async () => {
    const created = await a.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth,
      payload: { url: receiver.url, events: ['price.changed'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    receiver.setSecret(created.json().secret);
    // The other instance sees the subscription too (one database).
    expect((await b.inject({ url: '/api/v1/webhooks', headers: auth })).json().data).toHaveLength(1);
    const amounts = [100, 105, 110, 100, 95, 120, 130, 125];
    amounts.forEach((amount, n) => {
      a.alerts.handleObservations(observed(n, amount));
      b.alerts.handleObservations(observed(n, amount));
    });
    for (let i = 0; i < 3; i++)
      await b.inject({ method: 'POST', url: `/api/v1/webhooks/${created.json().id}/test`, headers: auth });
    await receiver.waitFor(amounts.length - 1 + 3);
    await new Promise((r) => setTimeout(r, 400));
    const got = receiver.messages();
    expect(got).toHaveLength(amounts.length - 1 + 3);
    expect(new Set(receiver.all.map((r) => r.id)).size).toBe(receiver.all.length);
    expect(got.filter((m) => m.type === 'price.changed').map((m) => m.data.new)).toEqual(amounts.slice(1));
  });
});
