/**
 * Caps on what one key owns (issue 27, item 5: "330 subscriptions accepted, no cap", "10 000 tracked products"):
 * MARKETLENS_MAX_WEBHOOKS_PER_KEY and MARKETLENS_MAX_TRACKED_PER_KEY, on both engines. Parallel creates, sent to two
 * instances on one database, never overshoot; past the cap the answer is 409 `limit_reached` naming it; the cap is
 * per key; deleting one makes room for one.
 */
import type { FastifyInstance } from 'fastify';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { trackedByOwner } from '../src/history/track-cap.js';
import { testApp } from './support/app.js';
import { expectProblem } from './support/problem.js';
import { createTestDatabase, engineAvailable, ENGINES, openTestStore, type TestDatabase } from './support/stores.js';

const KEY_A = 'ml_caps_key_a_0123456789abcdefghijk';
const KEY_B = 'ml_caps_key_b_0123456789abcdefghijk';
const CAP = 5;
const PARALLEL = 16;

type Res = Awaited<ReturnType<FastifyInstance['inject']>>;

it('defaults: 100 webhook subscriptions and 1000 tracked products per key', () => {
  const config = loadConfig({});
  expect(config.maxWebhooksPerKey).toBe(100);
  expect(config.maxTrackedPerKey).toBe(1000);
  expect(loadConfig({ MARKETLENS_MAX_WEBHOOKS_PER_KEY: '7' }).maxWebhooksPerKey).toBe(7);
  expect(() => loadConfig({ MARKETLENS_MAX_TRACKED_PER_KEY: '0' })).toThrow(/MARKETLENS_MAX_TRACKED_PER_KEY/);
});

describe.each(ENGINES)('%s', (engine) => {
  let db: TestDatabase;
  const apps: FastifyInstance[] = [];
  beforeAll(async () => {
    if (!engineAvailable(engine)) return;
    db = await createTestDatabase(engine);
    // Two instances on one database: the cap must hold across them, not only inside one process.
    for (let i = 0; i < 2; i++) {
      apps.push(
        await testApp({
          ...db.env,
          MARKETLENS_API_KEYS: `${KEY_A},${KEY_B}`,
          MARKETLENS_MAX_WEBHOOKS_PER_KEY: String(CAP),
          MARKETLENS_MAX_TRACKED_PER_KEY: String(CAP),
          MARKETLENS_WEBHOOK_ALLOW_HTTP: 'true',
          MARKETLENS_WEBHOOK_ALLOW_PRIVATE: 'true',
          // Tracked products' first fetch goes to a closed port: only the creates matter here.
          MARKETLENS_RESALE_B_ORIGIN: 'http://127.0.0.1:9',
          MARKETLENS_RETRY_ATTEMPTS: '1',
        }),
      );
    }
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await db?.drop();
  });

  const createWebhook = (i: number, key = KEY_A): Promise<Res> =>
    apps[i % 2]!.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: { 'x-api-key': key },
      payload: { url: `http://127.0.0.1:9/hook/${i}`, events: ['price.changed'] },
    });
  const track = (i: number, key = KEY_A): Promise<Res> =>
    apps[i % 2]!.inject({
      method: 'POST',
      url: '/api/v1/db/products',
      headers: { 'x-api-key': key },
      payload: { operation: 'resale-b.prices', query: String(5000 + i), interval: '1h' },
    });

  async function expectCapHolds(
    create: (i: number, key?: string) => Promise<Res>,
    what: RegExp,
    remove: (id: string) => Promise<Res>,
  ) {
    const results = await Promise.all(Array.from({ length: PARALLEL }, (_, i) => create(i)));
    const created = results.filter((r) => r.statusCode === 201);
    expect(created.length, results.map((r) => r.statusCode).join(',')).toBe(CAP);
    for (const refused of results.filter((r) => r.statusCode !== 201)) {
      const problem = expectProblem(refused, 409, 'limit_reached');
      expect(problem.detail).toMatch(new RegExp(`${CAP} ${what.source}`));
    }
    // Per key: another key still has its whole allowance.
    expect((await create(100, KEY_B)).statusCode).toBe(201);
    // Deleting one makes room for exactly one.
    expect((await remove(created[0]!.json().id)).statusCode).toBe(204);
    const again = await Promise.all([create(200), create(201)]);
    expect(again.map((r) => r.statusCode).sort()).toEqual([201, 409]);
  }

  it.skipIf(!engineAvailable(engine))('webhook subscriptions: parallel creates stop at the cap', async () => {
    await expectCapHolds(createWebhook, /webhook subscriptions/, (id) =>
      apps[0]!.inject({ method: 'DELETE', url: `/api/v1/webhooks/${id}`, headers: { 'x-api-key': KEY_A } }),
    );
  });

  it.skipIf(!engineAvailable(engine))('tracked products: parallel creates stop at the cap', async () => {
    await expectCapHolds(track, /tracked products/, (id) =>
      apps[1]!.inject({ method: 'DELETE', url: `/api/v1/db/products/${id}`, headers: { 'x-api-key': KEY_A } }),
    );
  });
});

// Counting a key's tracked products on every create must not read every job's payload (bench figure 8: 13 ms a
// create at 10 000 jobs, on the event loop with SQLite): the count's plan uses the owner index of migration 0004.
describe.each(ENGINES)('%s: the tracked-products count', (engine) => {
  it.skipIf(!engineAvailable(engine))('reads the owner index, not every payload', async () => {
    const store = await openTestStore(engine);
    try {
      const counted = trackedByOwner(store.db, engine, 'key_1').compile();
      const plan = await store.db.transaction().execute(async (trx) => {
        // PostgreSQL plans a sequential scan of a small table whatever its indexes: forbid it, so the plan shows
        // whether an index can serve the count at all (as it must once the table is large).
        if (engine === 'postgres') await sql`set local enable_seqscan = off`.execute(trx);
        const explain = engine === 'postgres' ? 'explain ' : 'explain query plan ';
        const rows = await trx.executeQuery(CompiledQuery.raw(explain + counted.sql, [...counted.parameters]));
        return JSON.stringify(rows.rows);
      });
      expect(plan).toMatch(/schedule_jobs_owner/);
    } finally {
      await store.close();
    }
  });
});
