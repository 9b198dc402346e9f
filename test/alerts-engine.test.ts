/**
 * The alert engine end to end on both database engines: scripted ObservationBatches in, signed deliveries out to a
 * local receiver that verifies them with `standardwebhooks`. One event per change, none for unchanged values,
 * thresholds, stock and listing events, failures, exactly-once with two instances on one database, retries in
 * order while the receiver is down, 4xx stops, Retry-After, disabling after a failure streak.
 */
import { SILENT_LOGGER } from '../src/platform/logger.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { AlertEngine } from '../src/alerts/engine.js';
import type { EventType, WebhookFilter } from '../src/alerts/events.js';
import type { AlertTables } from '../src/alerts/schema.js';
import type { DeliveryTiming } from '../src/alerts/worker.js';
import { MarketlensError } from '../src/errors.js';
import type { ObservationBatch } from '../src/history/observation.js';
import { ENGINES, engineAvailable, openTestStore, type TestStore } from './support/stores.js';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';

const FAST: Partial<DeliveryTiming> = { baseDelayMs: 40, maxDelayMs: 200, pollMs: 20, leaseMs: 2_000 };
const silent = SILENT_LOGGER;

let t0 = Date.parse('2026-11-24T00:00:00Z');

interface PriceSpec {
  amount: number;
  size?: string | null;
  inStock?: boolean | null;
  kind?: 'lowest_ask' | 'last_sale';
  productId?: string;
}

function batch(prices: PriceSpec[], listingIds?: string[]): ObservationBatch {
  const observedAt = new Date((t0 += 60_000));
  return {
    operation: 'resale-b.prices',
    marketplace: 'resale-b',
    lookupId: 'air-jordan-1-chicago',
    products: [
      {
        marketplace: 'resale-b',
        productId: 'air-jordan-1-chicago',
        name: 'Air Jordan 1 Chicago',
        url: 'https://www.goat.com/sneakers/air-jordan-1-chicago',
        image: null,
        sku: '555088-101',
        domain: 'goat.com',
      },
    ],
    variants: [],
    prices: prices.map((p) => ({
      marketplace: 'resale-b',
      operation: 'resale-b.prices',
      productId: p.productId ?? 'air-jordan-1-chicago',
      size: p.size === undefined ? '10' : p.size,
      condition: null,
      kind: p.kind ?? 'lowest_ask',
      amount: p.amount,
      currency: 'USD',
      country: 'US',
      inStock: p.inStock ?? null,
      observedAt,
    })),
    listingIds,
    observedAt,
  };
}

/**
 * The subscription's deliveries once the engine has recorded every answer: the receiver holds a request before the
 * engine has read its answer and written the outcome, so the queue is read only when nothing is pending or in flight.
 */
async function settledDeliveries(engine: AlertEngine, subscriptionId: string) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const list = await engine.queue.list(subscriptionId, 100);
    if (list.every((d) => d.status !== 'pending' && d.status !== 'inflight') || Date.now() > deadline) return list;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each(ENGINES)('alert engine on %s', (engineName) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  // One migrated store per engine, emptied before each test: creating and migrating a PostgreSQL database per test
  // cost most of this file's wall time. The engine reads and writes only the alert tables, so empty ones are a fresh
  // start (every engine of the previous test is closed, its sends finished, before they are emptied).
  let store: TestStore | undefined;
  beforeAll(async () => {
    if (engineAvailable(engineName)) store = await openTestStore(engineName);
  });
  afterAll(async () => {
    await store?.close();
  });

  async function setup(timing: Partial<DeliveryTiming> = FAST) {
    const db = store!.db as unknown as Kysely<AlertTables>;
    for (const table of ['alert_deliveries', 'alert_state', 'alert_subscriptions'] as const)
      await db.deleteFrom(table).execute();
    const receiver: Receiver = await startReceiver();
    const engines: AlertEngine[] = [];
    const instance = () => {
      const e = new AlertEngine({ db, policy: { allowHttp: true, allowPrivate: true }, log: silent, timing });
      e.start();
      engines.push(e);
      return e;
    };
    const engine = instance();
    cleanups.push(async () => {
      for (const e of engines) await e.close();
      await receiver.stop();
    });
    const subscribe = async (events: EventType[], filter: WebhookFilter = {}, url = receiver.url) => {
      const sub = await engine.subscriptions.create('key-a', { url, events, filter, description: null });
      receiver.setSecret(sub.secret);
      return sub;
    };
    /**
     * "Nothing else arrives", checked on the engines instead of by sleeping: once detection is idle every delivery is
     * queued, so the subscription must hold exactly `n`; once all are delivered none is left to send, and closing the
     * engines waits for any send still in flight (a duplicate). Then the receiver must have had exactly `n` requests.
     */
    const deliveredExactly = async (subscriptionId: string, n: number) => {
      await Promise.all(engines.map((e) => e.idle()));
      expect(await engine.queue.list(subscriptionId, 100)).toHaveLength(n);
      const deliveries = await settledDeliveries(engine, subscriptionId);
      expect(deliveries.map((d) => d.status)).toEqual(Array(n).fill('delivered'));
      for (const e of engines) await e.close();
      expect(receiver.all).toHaveLength(n);
      return deliveries;
    };
    return { receiver, engine, instance, subscribe, deliveredExactly, db };
  }

  it.skipIf(!engineAvailable(engineName))(
    'sends exactly one verified price.changed per change, none for unchanged answers',
    async () => {
      const { receiver, engine, subscribe, deliveredExactly } = await setup();
      const sub = await subscribe(['price.changed']);
      for (const amount of [100, 100, 110, 110, 110, 95, 95]) engine.handleObservations(batch([{ amount }]));
      await deliveredExactly(sub.id, 2); // and nothing else arrives
      const messages = receiver.messages();
      expect(receiver.all.every((r) => r.verified)).toBe(true);
      expect(messages.map((m) => [m.type, m.data.old, m.data.new])).toEqual([
        ['price.changed', 100, 110],
        ['price.changed', 110, 95],
      ]);
      expect(messages[0]!.data).toMatchObject({
        change: 10,
        change_pct: 10,
        size: '10',
        kind: 'lowest_ask',
        currency: 'USD',
        product_id: 'air-jordan-1-chicago',
      });
      expect(messages[1]!.data).toMatchObject({ change: -15, change_pct: -13.64 });
      expect(typeof messages[0]!.timestamp).toBe('string');
    },
  );

  it.skipIf(!engineAvailable(engineName))('sends price.below / price.above once per threshold crossing', async () => {
    const { receiver, engine, subscribe, deliveredExactly } = await setup();
    const sub = await subscribe(['price.below', 'price.above'], { below: 100, above: 120 });
    for (const amount of [130, 110, 90, 95, 125, 126, 90]) engine.handleObservations(batch([{ amount }]));
    await deliveredExactly(sub.id, 4);
    expect(receiver.messages().map((m) => [m.type, m.data.old, m.data.new, m.data.threshold])).toEqual([
      ['price.above', null, 130, 120],
      ['price.below', 110, 90, 100],
      ['price.above', 95, 125, 120],
      ['price.below', 126, 90, 100],
    ]);
  });

  it.skipIf(!engineAvailable(engineName))(
    'sends stock.changed when a size sells out or comes back, and applies filters',
    async () => {
      const { receiver, engine, subscribe, deliveredExactly } = await setup();
      const sub = await subscribe(['stock.changed']);
      // Size 9 moves by under 1 %: this subscription must receive nothing (its messages would also fail verification).
      const other = await engine.subscriptions.create('key-a', {
        url: `${receiver.url}?other`,
        events: ['price.changed'],
        filter: { sizes: ['9'], min_change_pct: 5 },
        description: null,
      });
      const series: [number, boolean][] = [
        [100, true],
        [100, false],
        [100, false],
        [101, true],
      ];
      for (const [amount, inStock] of series)
        engine.handleObservations(
          batch([
            { amount, inStock },
            { amount: amount + 1, size: '9' },
          ]),
        );
      await engine.idle();
      expect(await engine.queue.list(other.id, 100)).toEqual([]);
      await deliveredExactly(sub.id, 2); // none to the other subscription either: the receiver saw 2 requests in all
      expect(receiver.all.map((r) => r.body.type)).toEqual(['stock.changed', 'stock.changed']);
      expect(receiver.messages().map((m) => [m.data.in_stock, m.data.price])).toEqual([
        [false, 100],
        [true, 101],
      ]);
    },
  );

  it.skipIf(!engineAvailable(engineName))(
    'stock.changed once per size, not once per price kind carrying the stock status',
    async () => {
      const { receiver, engine, subscribe, deliveredExactly } = await setup();
      const sub = await subscribe(['stock.changed']);
      for (const inStock of [true, false, true])
        engine.handleObservations(
          batch([
            { amount: 90, kind: 'last_sale', inStock },
            { amount: 100, inStock },
          ]),
        );
      await deliveredExactly(sub.id, 2);
      expect(receiver.all.map((r) => [r.body.type, r.body.data.in_stock, r.body.data.kind, r.body.data.price])).toEqual(
        [
          ['stock.changed', false, 'lowest_ask', 100],
          ['stock.changed', true, 'lowest_ask', 100],
        ],
      );
    },
  );

  it.skipIf(!engineAvailable(engineName))('min_change_pct, products and kinds filters', async () => {
    const { receiver, engine, subscribe, deliveredExactly } = await setup();
    const sub = await subscribe(['price.changed'], {
      min_change_pct: 5,
      products: ['555088-101'],
      kinds: ['lowest_ask'],
    });
    for (const amount of [100, 102, 120])
      engine.handleObservations(
        batch([{ amount }, { amount: amount * 2, kind: 'last_sale' }, { amount, productId: 'other' }]),
      );
    await deliveredExactly(sub.id, 1);
    expect(receiver.messages().map((m) => [m.data.kind, m.data.product_id, m.data.old, m.data.new])).toEqual([
      ['lowest_ask', 'air-jordan-1-chicago', 102, 120],
    ]);
  });

  it.skipIf(!engineAvailable(engineName))(
    'listing.new / listing.removed from a watch search, product.not_found and marketplace.changed once',
    async () => {
      const { receiver, engine, subscribe, deliveredExactly } = await setup();
      const sub = await subscribe(['listing.new', 'listing.removed', 'product.not_found', 'marketplace.changed']);
      engine.handleObservations(batch([], ['a', 'b']));
      engine.handleObservations(batch([], ['b', 'a']));
      engine.handleObservations(batch([], ['b', 'c']));
      const changed = new MarketlensError('upstream_changed', 'resale-b: no __NEXT_DATA__');
      for (let i = 0; i < 3; i++)
        engine.handleFailure({ operation: 'resale-b.product', params: { query: 'x' }, error: changed, at: t0 + i });
      engine.handleFailure({
        operation: 'resale-b.product',
        params: { query: 'gone' },
        error: new MarketlensError('not_found', 'no product'),
        at: t0 + 5,
      });
      engine.handleFailure({
        operation: 'resale-b.product',
        params: { query: 'gone' },
        error: new MarketlensError('not_found', 'no product'),
        at: t0 + 6,
      });
      await deliveredExactly(sub.id, 4);
      expect(receiver.messages().map((m) => [m.type, m.data.listing_id ?? m.data.params?.query])).toEqual([
        ['listing.new', 'c'],
        ['listing.removed', 'a'],
        ['marketplace.changed', 'x'],
        ['product.not_found', 'gone'],
      ]);
    },
  );

  it.skipIf(!engineAvailable(engineName))(
    'marketplace.changed: a success observed before the failure, handed in after it, does not re-arm it',
    async () => {
      const { receiver, engine, subscribe, deliveredExactly } = await setup();
      const sub = await subscribe(['marketplace.changed']);
      const changed = new MarketlensError('upstream_changed', 'resale-b: buy_bar_data entry 0: sizeOption required');
      const fail = (at: number) =>
        engine.handleFailure({ operation: 'resale-b.prices', params: { query: 'x' }, error: changed, at });
      const early = batch([{ amount: 100 }]); // fetched before the format changed; the history hands it over after its flush
      fail(t0 + 1_000);
      engine.handleObservations(early);
      fail(t0 + 2_000);
      engine.handleObservations(batch([{ amount: 100 }])); // a later success: the next format change is news again
      fail(t0 + 1_000);
      await deliveredExactly(sub.id, 2);
      expect(receiver.messages().map((m) => [m.type, m.data.at])).toEqual([
        ['marketplace.changed', new Date(early.observedAt.getTime() + 1_000).toISOString()],
        ['marketplace.changed', new Date(t0 + 1_000).toISOString()],
      ]);
    },
  );

  it.skipIf(!engineAvailable(engineName))(
    'two instances on one database: each change detected and delivered once',
    async () => {
      const { receiver, engine, instance, subscribe, deliveredExactly } = await setup();
      const second = instance();
      const sub = await subscribe(['price.changed']);
      const series = [100, 110, 120, 130, 140, 150].map((amount) =>
        batch([{ amount }, { amount: amount + 5, size: '11' }]),
      );
      // Both instances observe the same answers (e.g. both tracked the product), concurrently.
      for (const b of series) {
        engine.handleObservations(b);
        second.handleObservations(b);
      }
      await deliveredExactly(sub.id, 10); // both instances idle, then closed: neither sends anything more
      const got = receiver.messages();
      expect(got).toHaveLength(10);
      expect(new Set(receiver.all.map((r) => r.id)).size).toBe(receiver.all.length);
      expect(got.filter((m) => m.data.size === '10').map((m) => m.data.new)).toEqual([110, 120, 130, 140, 150]);
    },
  );

  it.skipIf(!engineAvailable(engineName))(
    'receiver down, then up: every event delivered, in order, same webhook-id on retries',
    async () => {
      const { receiver, engine, subscribe, deliveredExactly } = await setup();
      const sub = await subscribe(['price.changed']);
      await receiver.stop();
      for (const amount of [100, 101, 102, 103, 104, 105]) engine.handleObservations(batch([{ amount }]));
      await engine.idle();
      // Several failed attempts (connection refused), seen on the queue: the first delivery's third claim means two
      // attempts failed and were retried. (The list is newest first.)
      const deadline = Date.now() + 5_000;
      while (((await engine.queue.list(sub.id, 100)).at(-1)?.attempts ?? 0) < 3 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      await receiver.restart();
      const deliveries = await deliveredExactly(sub.id, 5);
      expect(receiver.messages().map((m) => m.data.new)).toEqual([101, 102, 103, 104, 105]);
      expect(deliveries.every((d) => d.status === 'delivered')).toBe(true);
      expect(deliveries.at(-1)!.attempts).toBeGreaterThan(1);
      expect(deliveries.at(-1)!.response_code).toBe(204);
    },
  );

  it.skipIf(!engineAvailable(engineName))('4xx stops, 5xx retries, 429 honours Retry-After', async () => {
    const { receiver, engine, subscribe } = await setup();
    const sub = await subscribe(['price.changed']);
    const plan = [410, 503, 429, 204];
    receiver.answer = (_req, n) => ({
      status: plan[n] ?? 204,
      headers: plan[n] === 429 ? { 'retry-after': '1' } : undefined,
    });
    engine.handleObservations(batch([{ amount: 1 }]));
    engine.handleObservations(batch([{ amount: 2 }])); // → 410: given up at once
    engine.handleObservations(batch([{ amount: 3 }])); // → 503, 429 (wait ≥ 1 s), 204
    await engine.idle();
    await receiver.waitFor(1, 5_000);
    expect(receiver.all.map((r) => r.body.data.new)).toEqual([2, 3, 3, 3]);
    expect(receiver.all[3]!.at - receiver.all[2]!.at).toBeGreaterThanOrEqual(950);
    expect(new Set(receiver.all.slice(1).map((r) => r.id)).size).toBe(1);
    const deliveries = await settledDeliveries(engine, sub.id);
    expect(deliveries.map((d) => [d.status, d.attempts, d.response_code])).toEqual([
      ['delivered', 3, 204],
      ['failed', 1, 410],
    ]);
  });

  it.skipIf(!engineAvailable(engineName))(
    'a subscription failing for the whole disable period is disabled and says so',
    async () => {
      const { receiver, engine, subscribe, db } = await setup({ ...FAST, disableAfterMs: 300 });
      const sub = await subscribe(['price.changed']);
      // Only this subscription fails; the witness subscribed below answers 204.
      receiver.answer = (req) => ({ status: req.url === '/hook' ? 500 : 204 });
      engine.handleObservations(batch([{ amount: 1 }]));
      engine.handleObservations(batch([{ amount: 2 }]));
      await engine.idle();
      const deadline = Date.now() + 5_000;
      let state = await engine.subscriptions.get('key-a', sub.id);
      while (state!.enabled && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        state = await engine.subscriptions.get('key-a', sub.id);
      }
      expect(state).toMatchObject({ enabled: false });
      expect(state!.disabledReason).toMatch(/failed/);
      const hits = receiver.all.length;
      // No more attempts once disabled, without waiting out its backoff: its queued deliveries are made due now, then
      // a delivery to a witness subscription is queued. The claim that picks up the witness's delivery would pick up a
      // due head of the disabled subscription too, and closing the engine waits for any send still in flight.
      await db
        .updateTable('alert_deliveries')
        .set({ next_attempt_at: 0 })
        .where('subscription_id', '=', sub.id)
        .where('status', '=', 'pending')
        .execute();
      await engine.subscriptions.create('key-a', {
        url: `${receiver.url}?witness`,
        events: ['price.changed'],
        filter: {},
        description: null,
      });
      engine.handleObservations(batch([{ amount: 3 }]));
      await engine.idle();
      await receiver.answered(1);
      await engine.close();
      expect(receiver.all.filter((r) => r.path === '/hook')).toHaveLength(hits); // no more attempts once disabled
      expect(receiver.all.filter((r) => r.path !== '/hook').map((r) => r.path)).toEqual(['/hook?witness']);
    },
  );
});
