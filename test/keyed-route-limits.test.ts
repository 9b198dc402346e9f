/**
 * Every keyed route counts against the key's rate limit and quota (issue 27, item 5): with a 60/min key, the db API,
 * the history, the webhooks list and tracking answer 429 `rate_limited` with `Retry-After` once the minute's budget
 * is spent, carry `RateLimit-*` on every answer, and `GET /api/v1/usage` shows what was counted (and stays free).
 * Each route's OpenAPI description states what a request costs. Limits in memory and shared through Redis.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp } from './support/app.js';
import { expectProblem } from './support/problem.js';
import { TEST_REDIS_URL, deletePrefix, redisAvailable, uniquePrefix } from './support/redis.js';

const KEYS = {
  prices: 'ml_limits_prices_key_0123456789abcdef',
  history: 'ml_limits_history_key_0123456789abcde',
  webhooks: 'ml_limits_webhooks_key_0123456789abcd',
  track: 'ml_limits_track_key_0123456789abcdefg',
  test: 'ml_limits_test_key_0123456789abcdefghi',
};
const RATE = 60;

type Res = Awaited<ReturnType<FastifyInstance['inject']>>;

const MODES = [
  { limits: 'in memory', redis: false },
  { limits: 'in Redis', redis: true },
] as const;

describe.each(MODES)('keyed routes count against a 60/min key (limits $limits)', ({ redis }) => {
  let app: FastifyInstance;
  const prefix = uniquePrefix();
  beforeAll(async () => {
    if (redis && !redisAvailable) return;
    app = await testApp({
      ...(redis ? { MARKETLENS_REDIS_URL: TEST_REDIS_URL, MARKETLENS_REDIS_PREFIX: prefix } : {}),
      MARKETLENS_API_KEYS: Object.values(KEYS).join(','),
      MARKETLENS_RATE_LIMIT: `${RATE}/min`,
      // Tracked products' first fetch goes nowhere (a closed port): the route is what is measured here.
      MARKETLENS_RESALE_B_ORIGIN: 'http://127.0.0.1:9',
      MARKETLENS_RETRY_ATTEMPTS: '1',
      MARKETLENS_WEBHOOK_ALLOW_HTTP: 'true',
      MARKETLENS_WEBHOOK_ALLOW_PRIVATE: 'true',
    });
  });
  afterAll(async () => {
    await app?.close();
    if (redis && redisAvailable) await deletePrefix(prefix);
  });
  const run = it.skipIf(redis && !redisAvailable);

  const usage = async (key: string) => {
    const res = await app.inject({ url: '/api/v1/usage', headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(200);
    return res.json();
  };

  /** Sends `send` RATE times (all answered, headers counting down), then once more: 429 with Retry-After. */
  async function spendBudget(key: string, send: (headers: Record<string, string>) => Promise<Res>) {
    const headers = { 'x-api-key': key };
    for (let i = 0; i < RATE; i++) {
      const res = await send(headers);
      expect(res.statusCode, res.body).toBeLessThan(400);
      expect(res.headers['ratelimit-limit']).toBe(String(RATE));
      expect(res.headers['ratelimit-remaining']).toBe(String(RATE - 1 - i));
    }
    const refused = await send(headers);
    const problem = expectProblem(refused, 429, 'rate_limited');
    expect(problem.detail).toMatch(/60\/min/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    // The usage route is free: asking twice changes nothing, and it shows the counted requests only.
    const u = await usage(key);
    expect(u).toMatchObject({ limit: RATE, remaining: 0 });
    expect(u.daily.used).toBe(RATE);
    expect((await usage(key)).daily.used).toBe(RATE);
  }

  run('GET /api/v1/db/prices', async () => {
    await spendBudget(KEYS.prices, (headers) => app.inject({ url: '/api/v1/db/prices?limit=1', headers }));
  });

  run('GET /api/v1/history', async () => {
    await spendBudget(KEYS.history, (headers) =>
      app.inject({ url: '/api/v1/history?operation=resale-b.prices&query=1341930', headers }),
    );
  });

  run('GET /api/v1/webhooks', async () => {
    await spendBudget(KEYS.webhooks, (headers) => app.inject({ url: '/api/v1/webhooks', headers }));
  });

  // In memory only: with Redis a scheduled fetch refused meanwhile is counted, then given back, in two round trips,
  // and a usage read between them would see one more (the guard is the same on every route; the others cover Redis).
  if (!redis) {
    it('POST /api/v1/db/products: creates and their scheduled fetches share the budget', async () => {
      // Each tracked product's first fetch (at once) is charged to the key too, so creates are refused before 60.
      const headers = { 'x-api-key': KEYS.track };
      const statuses: number[] = [];
      let refused: Res | undefined;
      for (let i = 0; i <= RATE && !refused; i++) {
        const res = await app.inject({
          method: 'POST',
          url: '/api/v1/db/products',
          headers,
          payload: { operation: 'resale-b.prices', query: String(1000 + i), interval: '1h' },
        });
        statuses.push(res.statusCode);
        if (res.statusCode === 429) refused = res;
        else expect(res.statusCode, res.body).toBe(201);
      }
      expect(refused, `statuses: ${statuses.join(',')}`).toBeDefined();
      expectProblem(refused!, 429, 'rate_limited');
      expect(Number(refused!.headers['retry-after'])).toBeGreaterThan(0);
      expect((await usage(KEYS.track)).daily.used).toBe(RATE);
    });
  }

  run('webhook test deliveries and delivery listings count too', async () => {
    const headers = { 'x-api-key': KEYS.test };
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers,
      payload: { url: 'http://127.0.0.1:9/hook', events: ['price.changed'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.headers['ratelimit-remaining']).toBe(String(RATE - 1));
    const id = created.json().id;
    const tested = await app.inject({ method: 'POST', url: `/api/v1/webhooks/${id}/test`, headers });
    expect(tested.statusCode).toBe(202);
    expect(tested.headers['ratelimit-remaining']).toBe(String(RATE - 2));
    const listed = await app.inject({ url: `/api/v1/webhooks/${id}/deliveries`, headers });
    expect(listed.headers['ratelimit-remaining']).toBe(String(RATE - 3));
    expect((await usage(KEYS.test)).daily.used).toBe(3);
  });

  run("every keyed route's OpenAPI description states its cost; usage says it is free", async () => {
    const doc = (await app.inject({ url: '/openapi.json' })).json();
    const keyed = Object.entries<Record<string, { description?: string; security?: unknown[] }>>(doc.paths).flatMap(
      ([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })),
    );
    const costed = keyed.filter(
      ({ path }) => path.startsWith('/api/v1/db/') || path.startsWith('/api/v1/history') || path.includes('webhooks'),
    );
    expect(costed.length).toBeGreaterThanOrEqual(12);
    for (const { path, method, op } of costed) {
      expect(op.description ?? '', `${method} ${path}`).toMatch(/Counts as 1 request against the key's rate limit/);
    }
    expect(doc.paths['/api/v1/usage'].get.description).toMatch(/does not count/);
  });
});
