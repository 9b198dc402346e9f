/**
 * Tracked products: POST/DELETE /api/v1/db/products against a fake GOAT (the first fetch happens at once, through
 * the lookup path, and is recorded), bad input → 400 naming it; and the embedded scheduler's promises with a
 * controllable clock — two instances on one database run each slot once, a restart resumes the schedule.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addJob, listJobs } from '../../src/jobs/index.js';
import { DbRecurring } from '../../src/jobs/recurring-db.js';
import { auth, testApp } from '../support/app.js';
import { FakeUpstream } from '../support/fake-upstream.js';
import { expectProblem } from '../support/problem.js';
import { readCapture, sharedAvailable } from '../support/shared.js';
import { createTestDatabase, engineAvailable, ENGINES, openTestStore, type TestDatabase } from '../support/stores.js';

const BUY_BAR_PATH = '/web-api/v1/product_variants/buy_bar_data';

async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!engineAvailable('sqlite') || !sharedAvailable)('POST/DELETE /api/v1/db/products', () => {
  const goat = new FakeUpstream();
  let db: TestDatabase;
  let app: FastifyInstance;
  const post = (body: unknown, headers = auth) =>
    app.inject({ method: 'POST', url: '/api/v1/db/products', headers, payload: body as object });

  beforeAll(async () => {
    await goat.start();
    goat.serve('/', '<!DOCTYPE html><html><head><title>GOAT</title></head><body></body></html>');
    goat.serve(BUY_BAR_PATH, readCapture('goat/dewuapiparser_goat_1341930_buy_bar_data.json'), {
      type: 'application/json',
    });
    db = await createTestDatabase('sqlite');
    app = await testApp({
      ...db.env,
      MARKETLENS_RESALE_B_ORIGIN: goat.origin,
      MARKETLENS_API_KEYS: `${auth['x-api-key']},ml_other_key_for_tracking_tests_000000`,
    });
  });
  afterAll(async () => {
    await app.close();
    await goat.stop();
    await db.drop();
  });

  it('tracks a lookup: 201, fetched at once through the lookup path and recorded; DELETE stops it', async () => {
    const res = await post({ operation: 'resale-b.prices', query: '1341930', country: 'us', interval: 60 });
    expect(res.statusCode, res.body).toBe(201);
    const t = res.json();
    expect(t).toMatchObject({
      operation: 'resale-b.prices',
      params: { query: '1341930', country: 'US' },
      interval: 60,
      runs: 0,
    });
    await until(() => goat.count(BUY_BAR_PATH) === 1);
    await until(async () => (await listJobs(app.history.store.db))[0]!.runs === 1);
    await app.history.recorder.flush();
    const prices = (
      await app.inject({ url: '/api/v1/db/prices?where[product][equals]=1341930', headers: auth })
    ).json();
    expect(prices.totalDocs).toBe(18);

    // Another key cannot stop it; its owner can, once.
    const other = { 'x-api-key': 'ml_other_key_for_tracking_tests_000000' };
    expectProblem(
      await app.inject({ method: 'DELETE', url: `/api/v1/db/products/${t.id}`, headers: other }),
      404,
      'not_found',
    );
    expect((await app.inject({ method: 'DELETE', url: `/api/v1/db/products/${t.id}`, headers: auth })).statusCode).toBe(
      204,
    );
    expectProblem(
      await app.inject({ method: 'DELETE', url: `/api/v1/db/products/${t.id}`, headers: auth }),
      404,
      'not_found',
    );
    expect(await listJobs(app.history.store.db)).toEqual([]);
  });

  it('bad input is a 400 naming it; the default interval is 15 minutes', async () => {
    expect(
      expectProblem(
        await post({ operation: 'resale-b.prices', query: '1341930', interval: 59 }),
        400,
        'invalid_parameter',
      ).detail,
    ).toMatch(/interval.*at least 60/);
    expect(
      expectProblem(
        await post({ operation: 'resale-b.prices', query: '1341930', interval: 'soon' }),
        400,
        'invalid_parameter',
      ).detail,
    ).toMatch(/interval/);
    expect(
      expectProblem(await post({ operation: 'watchmarket.finder', query: 'x' }), 400, 'invalid_parameter').detail,
    ).toMatch(/operation/);
    expect(
      expectProblem(await post({ operation: 'resale-b.prices', query: 'abc' }), 400, 'invalid_parameter').detail,
    ).toMatch(/query/);
    expect(
      expectProblem(await post({ operation: 'resale-b.prices', query: '1', colour: 'red' }), 400, 'invalid_parameter')
        .detail,
    ).toMatch(/colour/);
    expect((await post({ operation: 'resale-b.prices', query: '1341930' }, {} as never)).statusCode).toBe(401);
    const res = await post({ operation: 'resale-b.prices', query: '1341930', interval: '1h' });
    expect(res.json().interval).toBe(3600);
    const def = await post({ operation: 'resale-b.prices', query: '1341930', country: 'FR' });
    expect(def.json().interval).toBe(900);
  });
});

describe.each(ENGINES)('embedded scheduler on %s', (engine) => {
  it.skipIf(!engineAvailable(engine))(
    'two instances on one database run each slot once; a restart resumes the schedule',
    async () => {
      const store = await openTestStore(engine);
      let now = 1_000_000;
      const runs: Array<[string, string]> = [];
      const make = (name: string) => {
        const s = new DbRecurring(store.db, { now: () => now });
        s.handle('track', async (job) => void runs.push([name, job.id]));
        return s;
      };
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push((await addJob(store.db, { kind: 'track', payload: { i }, intervalMs: 60_000 }, now)).id);
      await addJob(store.db, { kind: 'canary', payload: {}, intervalMs: 60_000 }, now); // no handler here: left alone
      const a = make('a');
      const b = make('b');
      // Each pass waits until its runs are recorded (a run holds its job's lease until then): with a fixed 30 ms
      // wait, a loaded CI machine's PostgreSQL had not recorded one before the next slot, which then skipped it.
      const tickBoth = async () => {
        await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
        await Promise.all([a.idle(), b.idle()]);
      };
      for (let minute = 0; minute < 3; minute++) {
        await tickBoth();
        now += 30_000;
        await tickBoth(); // half-way: nothing due
        now += 30_000;
      }
      // 3 slots × 5 jobs, each run exactly once across both instances.
      expect(runs).toHaveLength(15);
      for (const id of ids) expect(runs.filter(([, j]) => j === id)).toHaveLength(3);
      await a.stop();
      await b.stop();

      // "Restart" 10 minutes later: a new instance runs each job once now (missed slots collapse), then keeps cadence.
      now += 10 * 60_000;
      const c = make('c');
      await c.tick();
      await c.idle();
      expect(runs.filter(([n]) => n === 'c')).toHaveLength(5);
      await c.tick();
      await c.idle();
      expect(runs.filter(([n]) => n === 'c')).toHaveLength(5);
      now += 60_000;
      await c.tick();
      await c.idle();
      expect(runs.filter(([n]) => n === 'c')).toHaveLength(10);
      const jobs = await listJobs(store.db, 'track');
      expect(jobs.every((j) => j.runs === 5 && j.lastError === null)).toBe(true);
      expect((await listJobs(store.db, 'canary'))[0]!.runs).toBe(0);
      await c.stop();
      await store.close();
    },
  );
});
