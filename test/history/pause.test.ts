/**
 * Pausing a tracked product (issue 31): PATCH /api/v1/db/products/:id {paused} on both engines. The app's own
 * scheduler is stopped and an embedded scheduler with a controllable clock runs the app's job table instead, so
 * "a paused job is not run" is asserted on ticks, not on waiting.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DbRecurring } from '../../src/jobs/recurring-db.js';
import { auth, testApp } from '../support/app.js';
import { expectProblem } from '../support/problem.js';
import { createTestDatabase, engineAvailable, ENGINES, type TestDatabase } from '../support/stores.js';

const OTHER_KEY = 'ml_other_key_for_pause_tests_0000000000';

describe.each(ENGINES)('PATCH /api/v1/db/products/:id on %s', (engine) => {
  let db: TestDatabase;
  let app: FastifyInstance;
  let now = 1_000_000;
  let scheduler: DbRecurring;
  const runs: string[] = [];
  const patch = (id: string, body: unknown, headers: Record<string, string> = auth) =>
    app.inject({ method: 'PATCH', url: `/api/v1/db/products/${id}`, headers, payload: body as object });
  const tick = async () => {
    await scheduler.tick();
    await scheduler.idle();
  };

  beforeAll(async () => {
    if (!engineAvailable(engine)) return;
    db = await createTestDatabase(engine);
    app = await testApp({ ...db.env, MARKETLENS_API_KEYS: `${auth['x-api-key']},${OTHER_KEY}` });
    await app.history.scheduler.stop(); // the clock-driven one below runs the jobs
    scheduler = new DbRecurring(app.history.store.db, { now: () => now });
    scheduler.handle('track', async (job) => void runs.push(job.id));
  });
  afterAll(async () => {
    if (!engineAvailable(engine)) return;
    await scheduler.stop();
    await app.close();
    await db.drop();
  });

  it.skipIf(!engineAvailable(engine))(
    'a paused product is kept but not run; resumed, it runs once at once and keeps its interval',
    async () => {
      const created = await app.inject({
        method: 'POST',
        url: '/api/v1/db/products',
        headers: auth,
        payload: { operation: 'resale-b.prices', query: '1341930', country: 'US', interval: 60 },
      });
      expect(created.statusCode, created.body).toBe(201);
      const id: string = created.json().id;
      expect(created.json()).toMatchObject({ paused: false, nextRunAt: expect.any(String) });
      // The app stamped the first run with the real clock: start the test clock there.
      now = Date.parse(created.json().nextRunAt);
      await tick();
      expect(runs).toEqual([id]);

      const paused = await patch(id, { paused: true });
      expect(paused.statusCode, paused.body).toBe(200);
      expect(paused.json()).toMatchObject({ id, paused: true, nextRunAt: null, runs: 1 });
      const listed = (await app.inject({ url: '/api/v1/tracked', headers: auth })).json();
      expect(listed.data).toMatchObject([{ id, paused: true, nextRunAt: null }]);
      // Ten intervals later, still not run.
      for (let i = 0; i < 10; i++) {
        now += 60_000;
        await tick();
      }
      expect(runs).toHaveLength(1);
      // Pausing twice is harmless.
      expect((await patch(id, { paused: true })).json()).toMatchObject({ paused: true });

      const resumed = await patch(id, { paused: false });
      expect(resumed.statusCode, resumed.body).toBe(200);
      expect(resumed.json()).toMatchObject({ id, paused: false, nextRunAt: expect.any(String) });
      // Due from the real clock's now; the test clock moves past it: one run, not the ten missed.
      now = Math.max(now, Date.parse(resumed.json().nextRunAt));
      await tick();
      await tick();
      expect(runs).toEqual([id, id]);
      now += 60_000;
      await tick();
      expect(runs).toEqual([id, id, id]);
      expect((await app.inject({ url: '/api/v1/tracked', headers: auth })).json().data).toMatchObject([
        { id, paused: false, runs: 3 },
      ]);
    },
  );

  it.skipIf(!engineAvailable(engine))('another key gets 404; a bad body is a 400 naming `paused`', async () => {
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/db/products',
      headers: auth,
      payload: { operation: 'resale-b.prices', query: '1341930', country: 'FR' },
    });
    const id: string = created.json().id;
    expectProblem(await patch(id, { paused: true }, { 'x-api-key': OTHER_KEY }), 404, 'not_found');
    expectProblem(await patch('no-such-id', { paused: true }), 404, 'not_found');
    expect((await app.inject({ url: '/api/v1/tracked', headers: auth })).json().data.at(-1)).toMatchObject({
      id,
      paused: false,
    });
    for (const body of [{}, { paused: 'yes' }, { paused: 1 }, { paused: null }]) {
      expect(expectProblem(await patch(id, body), 400, 'invalid_parameter').detail).toMatch(/paused/);
    }
    expectProblem(await patch(id, { paused: true, interval: 60 }), 400, 'invalid_parameter');
    expect((await patch(id, { paused: true }, {})).statusCode).toBe(401);
  });
});
