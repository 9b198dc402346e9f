/**
 * spread.above and price.new_low on a product tracked by SKU, on SQLite and PostgreSQL: POST /api/v1/db/products
 * {sku}, each scheduled run one product answer (the product service scripted per run), signed deliveries to a local
 * receiver verifying them. Each crossing is sent once: a spread that stays above sends nothing more, a low repeated
 * is no new low, and a size the filter leaves out sends nothing. Two instances on one PostgreSQL, both answering the
 * product and both running the schedule, send each event once.
 *
 * No sleeps: a run is made due in the job table and the embedded scheduler's tick() and idle() are awaited, then the
 * alert engine's idle(); "nothing else" is checked on the delivery queue itself.
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryTiming } from '../src/alerts/worker.js';
import { DbRecurring } from '../src/jobs/recurring-db.js';
import { auth, testApp } from './support/app.js';
import { scriptedProducts, type ProductSpec } from './support/product-answers.js';
import { createTestDatabase, engineAvailable, ENGINES, type TestDatabase } from './support/stores.js';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';

const FAST: Partial<DeliveryTiming> = { baseDelayMs: 40, maxDelayMs: 200, pollMs: 20, leaseMs: 2_000 };
const SKU = 'DD1391-100';

/** The market at one run: size 10's GOAT lowest price and StockX ask and bid; size 11 moves wildly (filtered out). */
function market(goat: number, ask: number, bid: number): ProductSpec {
  return {
    sku: SKU,
    name: 'Nike Dunk Low Retro White Black',
    links: [
      { marketplace: 'resale-a', id: '5e6a1e57-1c7d-435a-82bd-5666a13560fe' },
      { marketplace: 'resale-b', id: '736158' },
    ],
    sizes: [
      {
        size: '10',
        offers: [
          ['resale-a', 'lowest_ask', ask],
          ['resale-a', 'highest_bid', bid],
          ['resale-b', 'lowest_price', goat, 'new_no_defects/good_condition'],
        ],
      },
      {
        size: '11',
        offers: [
          ['resale-b', 'lowest_price', goat / 2],
          ['resale-a', 'highest_bid', bid * 2],
        ],
      },
    ],
  };
}

/** [GOAT, StockX ask, StockX bid] per run, and what size 10 should send (min_spread_pct 10, days 30). */
const RUNS: Array<[number, number, number]> = [
  [100, 120, 105], // buy 100, sell 105: 5 % — the baseline
  [100, 120, 112], // 12 %: spread.above
  [100, 120, 115], // 15 %: still above, nothing
  [95, 120, 104], // buy 95 < 100: price.new_low; 9.47 %: fell under
  [95, 120, 110], // 15.79 %: spread.above again; 95 again: no new low
  [97, 120, 100], // 97: not under 95; 3.09 %
  [90, 120, 98], // 90 < 95: price.new_low; 8.89 %
];

interface Instance {
  app: FastifyInstance;
  scheduler: DbRecurring;
}

describe.each(ENGINES)('product alerts on a product tracked by SKU on %s', (engine) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function setup(instances: number) {
    const receiver: Receiver = await startReceiver();
    const db: TestDatabase = await createTestDatabase(engine);
    let now = market(...RUNS[0]!);
    const products = scriptedProducts(() => now);
    const started: Instance[] = [];
    for (let i = 0; i < instances; i++) {
      const app = await testApp(
        {
          ...db.env,
          MARKETLENS_WEBHOOK_ALLOW_HTTP: 'true',
          MARKETLENS_WEBHOOK_ALLOW_PRIVATE: 'true',
        },
        { alerts: { timing: FAST }, answerProduct: products },
      );
      if (!(app.history.scheduler.recurring instanceof DbRecurring)) throw new Error('expected the embedded scheduler');
      started.push({ app, scheduler: app.history.scheduler.recurring });
    }
    cleanups.push(async () => {
      for (const i of started) await i.app.close();
      await receiver.stop();
      await db.drop();
    });
    const first = started[0]!.app;
    const subscribe = async (events: string[], filter: object) => {
      const res = await first.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: auth,
        payload: { url: receiver.url, events, filter },
      });
      expect(res.statusCode, res.body).toBe(201);
      const sub = res.json<{ id: string; secret: string }>();
      receiver.setSecret(sub.secret);
      return sub.id;
    };
    const track = async () => {
      const res = await first.inject({
        method: 'POST',
        url: '/api/v1/db/products',
        headers: auth,
        payload: { sku: SKU.toLowerCase(), interval: '1h' },
      });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ operation: 'product', params: { sku: SKU }, interval: 3600 });
      return res.json<{ id: string }>().id;
    };
    const runs = async (id: string) =>
      Number(
        (
          await first.history.store.db
            .selectFrom('schedule_jobs')
            .select('runs')
            .where('id', '=', id)
            .executeTakeFirst()
        )?.runs,
      );
    /** The tracked product's next run, now: made due, claimed by whichever instance ticks first, awaited. */
    const runTracked = async (id: string) => {
      const before = await runs(id);
      await first.history.store.db.updateTable('schedule_jobs').set({ next_run_at: 0 }).where('id', '=', id).execute();
      while ((await runs(id)) === before) {
        await Promise.all(started.map((i) => i.scheduler.tick()));
        await Promise.all(started.map((i) => i.scheduler.idle()));
        await new Promise((r) => setImmediate(r));
      }
      await Promise.all(started.map((i) => i.app.alerts.idle()));
    };
    /** Every instance answers the product too (callers of GET /products/{sku} on each), at once. */
    const answerEverywhere = async () => {
      await Promise.all(started.map((i) => i.app.productWatch.answer(SKU, {})));
      await Promise.all(started.map((i) => i.app.alerts.idle()));
    };
    const delivered = async (subId: string, n: number) => {
      await Promise.all(started.map((i) => i.app.alerts.idle()));
      expect(await first.alerts.queue.list(subId, 100)).toHaveLength(n);
      await receiver.waitFor(n);
      const deadline = Date.now() + 10_000;
      while ((await first.alerts.queue.list(subId, 100)).some((d) => d.status !== 'delivered')) {
        if (Date.now() > deadline) throw new Error('deliveries not all delivered');
        await new Promise((r) => setImmediate(r));
      }
      expect(receiver.messages()).toHaveLength(n);
      expect(new Set(receiver.all.map((r) => r.id)).size).toBe(receiver.all.length);
      return receiver.messages();
    };
    return {
      started,
      products,
      subscribe,
      track,
      runTracked,
      answerEverywhere,
      delivered,
      setMarket: (m: ProductSpec) => (now = m),
    };
  }

  function expectTheCrossings(messages: Array<{ type: string; data: Record<string, unknown> }>) {
    expect(messages.map((m) => m.type)).toEqual(['spread.above', 'price.new_low', 'spread.above', 'price.new_low']);
    const [firstSpread, firstLow, secondSpread, secondLow] = messages.map((m) => m.data);
    expect(firstSpread).toMatchObject({
      sku: SKU,
      name: 'Nike Dunk Low Retro White Black',
      size: '10',
      size_system: 'us_men',
      currency: 'USD',
      buy: { marketplace: 'resale-b', kind: 'lowest_price', amount: 100, currency: 'USD' },
      sell: { marketplace: 'resale-a', kind: 'highest_bid', amount: 112, currency: 'USD' },
      spread: 12,
      spread_pct: 12,
      previous_spread: 5,
      previous_spread_pct: 5,
      min_spread_pct: 10,
      min_spread: null,
    });
    expect(firstLow).toMatchObject({ size: '10', buy: { amount: 95 }, previous_low: 100, days: 30 });
    expect(secondSpread).toMatchObject({ spread: 15, spread_pct: 15.79, previous_spread_pct: 9.47 });
    expect(secondLow).toMatchObject({ buy: { amount: 90, marketplace: 'resale-b' }, previous_low: 95 });
  }

  it.skipIf(!engineAvailable(engine))(
    'spread.above and price.new_low fire once per crossing on a tracked SKU; other sizes filtered out',
    async () => {
      const { subscribe, track, runTracked, delivered, setMarket, products } = await setup(1);
      const sub = await subscribe(['spread.above', 'price.new_low'], {
        skus: [SKU.toLowerCase()],
        sizes: ['10'],
        min_spread_pct: 10,
      });
      const id = await track();
      for (const run of RUNS) {
        setMarket(market(...run));
        await runTracked(id);
      }
      expect(products.calls).toBeGreaterThanOrEqual(RUNS.length);
      expectTheCrossings(await delivered(sub, 4));
    },
  );

  // Registered on PostgreSQL only (several instances share a database server; SQLite is one process's file).
  const onPostgres = engine === 'postgres' ? it.skipIf(!engineAvailable(engine)) : undefined;
  onPostgres?.(
    'two instances on one PostgreSQL, both answering and both running the schedule: each event once',
    async () => {
      const { subscribe, track, runTracked, answerEverywhere, delivered, setMarket } = await setup(2);
      const sub = await subscribe(['spread.above', 'price.new_low'], {
        skus: [SKU],
        sizes: ['10'],
        min_spread_pct: 10,
      });
      const id = await track();
      for (const run of RUNS) {
        setMarket(market(...run));
        await answerEverywhere();
        await runTracked(id);
      }
      expectTheCrossings(await delivered(sub, 4));
    },
  );

  it.skipIf(!engineAvailable(engine))('min_spread in the currency and a new-low window of days', async () => {
    const { subscribe, answerEverywhere, delivered, setMarket } = await setup(1);
    const sub = await subscribe(['spread.above', 'price.new_low'], { skus: [SKU], min_spread: 14, days: 1 });
    // Size 11: buy = GOAT / 2, sell = bid × 2. 50 → 210 (spread 160 ≥ 14, sent); size 10: 105 - 100 = 5 (not).
    setMarket(market(100, 120, 105));
    await answerEverywhere();
    setMarket(market(98, 120, 105)); // size 10: 7; new lows at both sizes (100 → 98, 50 → 49) within 1 day
    await answerEverywhere();
    const got = await delivered(sub, 3);
    expect(got.map((m) => [m.type, m.data.size])).toEqual([
      ['spread.above', '11'],
      ['price.new_low', '10'],
      ['price.new_low', '11'],
    ]);
    expect(got[0]!.data).toMatchObject({ spread: 160, min_spread: 14, previous_spread: null });
  });
});
