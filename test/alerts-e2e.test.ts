/**
 * Alerts through the real chain, on SQLite and PostgreSQL: HTTP lookups (`Cache-Control: no-cache`, so each one is
 * live) against a fake GOAT whose buy_bar_data answer is switched between variants of the real capture → the
 * lookup seam → the price history → the alert engine → signed deliveries to a local receiver verifying them with
 * `standardwebhooks`. One price.changed per change (none for a repeated answer), a threshold crossing, a size selling
 * out, and a format change that becomes exactly one marketplace.changed.
 *
 * No sleeps: after each lookup the test flushes the recorder (`app.history.recorder.flush()`) and waits for
 * detection (`app.alerts.idle()`); "nothing else arrives" is checked on the delivery queue itself (every queued
 * delivery of the subscription is delivered, and there are exactly as many as the receiver verified).
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventType, WebhookFilter } from '../src/alerts/events.js';
import type { DeliveryTiming } from '../src/alerts/worker.js';
import { auth, testApp } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { valueAt, withValueAt, type Json } from './support/mutators.js';
import { readCapture, sharedAvailable } from './support/shared.js';
import { createTestDatabase, engineAvailable, ENGINES } from './support/stores.js';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';

const BUY_BAR = 'goat/dewuapiparser_goat_1341930_buy_bar_data.json';
const BUY_BAR_PATH = '/web-api/v1/product_variants/buy_bar_data';
const PRICES = '/api/v1/scraper/resale-b/prices?query=1341930&country=US';
const FAST: Partial<DeliveryTiming> = { baseDelayMs: 40, maxDelayMs: 200, pollMs: 20, leaseMs: 2_000 };

/** The capture's entries, and the index of the entry for `size` in new/good condition. */
function capture(): Json[] {
  return JSON.parse(readCapture(BUY_BAR)) as Json[];
}
function entryIndex(root: Json[], size: string): number {
  const i = root.findIndex(
    (e) => valueAt(e, ['sizeOption', 'presentation']) === size && valueAt(e, ['shoeCondition']) === 'new_no_defects',
  );
  if (i < 0) throw new Error(`no size ${size} in the capture`);
  return i;
}
/** The capture with one size's lowest price set to `cents` (amount and amountUsdCents, as GOAT states both). */
function withLowest(root: Json[], size: string, cents: number): Json[] {
  const i = entryIndex(root, size);
  const a = withValueAt(root, [i, 'lowestPriceCents', 'amount'], cents);
  return withValueAt(a, [i, 'lowestPriceCents', 'amountUsdCents'], cents) as Json[];
}
/** The capture with one size sold out, as GOAT answers a sold-out entry (the capture's own: no lowest amount). */
function soldOut(root: Json[], size: string): Json[] {
  const i = entryIndex(root, size);
  const a = withValueAt(root, [i, 'stockStatus'], 'not_in_stock');
  return withValueAt(a, [i, 'lowestPriceCents'], { currency: 'USD' }) as Json[];
}
const cents = (root: Json[], size: string) =>
  valueAt(root, [entryIndex(root, size), 'lowestPriceCents', 'amount']) as number;

describe.each(ENGINES)('alerts through the real lookup chain on %s', (engine) => {
  const run = engineAvailable(engine) && sharedAvailable;
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function setup() {
    const goat = await new FakeUpstream().start();
    const receiver: Receiver = await startReceiver();
    const db = await createTestDatabase(engine);
    const app: FastifyInstance = await testApp(
      {
        ...db.env,
        MARKETLENS_RESALE_B_ORIGIN: goat.origin,
        MARKETLENS_WEBHOOK_ALLOW_HTTP: 'true',
        MARKETLENS_WEBHOOK_ALLOW_PRIVATE: 'true',
      },
      { alerts: { timing: FAST } },
    );
    cleanups.push(async () => {
      await app.close();
      await receiver.stop();
      await goat.stop();
      await db.drop();
    });
    /** What the fake GOAT answers now. */
    let answer = readCapture(BUY_BAR);
    goat.serve('/', '<!DOCTYPE html><html><head><title>GOAT</title></head><body></body></html>');
    goat.on(BUY_BAR_PATH, (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(answer));

    const subscribe = async (events: EventType[], filter: WebhookFilter = {}) => {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: auth,
        payload: { url: receiver.url, events, filter, description: 'e2e' },
      });
      expect(res.statusCode, res.body).toBe(201);
      const sub = res.json<{ id: string; secret: string }>();
      receiver.setSecret(sub.secret);
      return sub;
    };
    /** One live lookup with the fake answering `body`; `settle` waits until history and alerts have handled it. */
    const lookup = async (body: Json[] | string, outcome: 'ok' | 'failed' = 'ok', settle = true) => {
      answer = typeof body === 'string' ? body : JSON.stringify(body);
      const before = goat.count(BUY_BAR_PATH);
      const res = await app.inject({ url: PRICES, headers: { ...auth, 'cache-control': 'no-cache' } });
      if (outcome === 'ok') {
        expect(res.statusCode, res.body).toBe(200);
        expect(res.headers['x-cache']).toBe('miss');
      } else {
        // The live fetch failed (502 upstream_changed); stale-if-error may answer with the earlier result instead.
        if (res.statusCode === 200) expect(res.headers['x-cache']).toBe('stale');
        else expect(res.json()).toMatchObject({ code: 'upstream_changed' });
      }
      expect(goat.count(BUY_BAR_PATH)).toBeGreaterThan(before);
      if (settle) await pipeline();
    };
    const pipeline = async () => {
      await app.history.recorder.flush();
      await app.alerts.idle();
    };
    /**
     * Once every lookup so far is detected and queued (pipeline), the subscription must hold exactly `n` deliveries;
     * waits until they are all marked delivered (the worker records it after the receiver answered), then checks the
     * receiver verified exactly those.
     */
    const delivered = async (subId: string, n: number) => {
      await pipeline();
      expect(await app.alerts.queue.list(subId, 100)).toHaveLength(n);
      const deadline = Date.now() + 10_000;
      while ((await app.alerts.queue.list(subId, 100)).some((d) => d.status !== 'delivered')) {
        if (Date.now() > deadline)
          throw new Error(`deliveries not all delivered: ${JSON.stringify(await app.alerts.queue.list(subId, 100))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(receiver.all).toHaveLength(n);
      expect(receiver.all.every((r) => r.verified)).toBe(true);
      expect(new Set(receiver.all.map((r) => r.id)).size).toBe(receiver.all.length);
      return receiver.messages();
    };
    return { app, goat, receiver, subscribe, lookup, pipeline, delivered };
  }

  it.skipIf(!run)(
    'a scripted series of GOAT answers: one price.changed per change, none for repeated answers',
    async () => {
      const { subscribe, lookup, delivered } = await setup();
      const sub = await subscribe(['price.changed']);
      const base = capture();
      const start = cents(base, '1');
      // Size 1's lowest price: as captured, again, −10 $, again, again, +25 $, back to the capture.
      const steps = [start, start, start - 1000, start - 1000, start - 1000, start + 1500, start];
      for (const c of steps) await lookup(withLowest(base, '1', c));
      const messages = await delivered(sub.id, 3);
      expect(messages.map((m) => [m.type, m.data.size, m.data.kind, m.data.old, m.data.new])).toEqual([
        ['price.changed', '1', 'lowest_price', start / 100, (start - 1000) / 100],
        ['price.changed', '1', 'lowest_price', (start - 1000) / 100, (start + 1500) / 100],
        ['price.changed', '1', 'lowest_price', (start + 1500) / 100, start / 100],
      ]);
      expect(messages[0]!.data).toMatchObject({
        marketplace: 'resale-b',
        operation: 'resale-b.prices',
        product_id: '1341930',
        condition: 'new_no_defects/good_condition',
        country: 'US',
        currency: 'USD',
        change: -10,
      });
    },
  );

  it.skipIf(!run)('a price crossing a threshold: price.below once, not again while it stays below', async () => {
    const { subscribe, lookup, delivered } = await setup();
    const base = capture();
    const start = cents(base, '1');
    const threshold = (start - 500) / 100;
    const sub = await subscribe(['price.below'], { sizes: ['1'], kinds: ['lowest_price'], below: threshold });
    for (const c of [start, start - 1000, start - 1000, start - 1200, start]) await lookup(withLowest(base, '1', c));
    const messages = await delivered(sub.id, 1);
    expect(messages.map((m) => [m.type, m.data.size, m.data.old, m.data.new, m.data.threshold])).toEqual([
      ['price.below', '1', start / 100, (start - 1000) / 100, threshold],
    ]);
  });

  it.skipIf(!run)('a size selling out and coming back: stock.changed each time, once', async () => {
    const { subscribe, lookup, delivered } = await setup();
    const sub = await subscribe(['stock.changed']);
    const base = capture();
    for (const body of [base, soldOut(base, '1'), soldOut(base, '1'), base]) await lookup(body);
    const messages = await delivered(sub.id, 2);
    expect(messages.map((m) => [m.type, m.data.size, m.data.in_stock])).toEqual([
      ['stock.changed', '1', false],
      ['stock.changed', '1', true],
    ]);
  });

  it.skipIf(!run)('a size with no sale yet selling out and coming back: stock.changed each time, once', async () => {
    const { subscribe, lookup, delivered } = await setup();
    const sub = await subscribe(['stock.changed'], { sizes: ['2'] });
    const base = capture();
    // Size 2 has never sold (GOAT's last sale 0): sold out, its entry states no price at all, only its stock status.
    expect(valueAt(base, [entryIndex(base, '2'), 'lastSoldPriceCents', 'amount'])).toBe(0);
    for (const body of [base, soldOut(base, '2'), soldOut(base, '2'), base]) await lookup(body);
    const messages = await delivered(sub.id, 2);
    expect(messages.map((m) => [m.type, m.data.size, m.data.in_stock, m.data.price])).toEqual([
      ['stock.changed', '2', false, null],
      ['stock.changed', '2', true, cents(base, '2') / 100],
    ]);
  });

  it.skipIf(!run)('GOAT starts answering in a changed format: exactly one marketplace.changed', async () => {
    const { receiver, subscribe, lookup, pipeline, delivered } = await setup();
    const sub = await subscribe(['marketplace.changed', 'price.changed']);
    const base = capture();
    // The entries' `sizeOption` renamed: valid JSON, no longer the format the parser knows.
    const changed = JSON.stringify(base).replaceAll('"sizeOption"', '"sizeOptions"');
    // A success, then the format changes right away (before the history's flush of the success), then again later.
    await lookup(base, 'ok', false);
    await lookup(changed, 'failed', false);
    await lookup(changed, 'failed', false);
    await pipeline();
    await lookup(changed, 'failed');
    await lookup(changed, 'failed');
    expect((await delivered(sub.id, 1)).map((m) => [m.type, m.data.operation, m.data.code])).toEqual([
      ['marketplace.changed', 'resale-b.prices', 'upstream_changed'],
    ]);
    expect(receiver.messages()[0]!.data.params).toMatchObject({ query: '1341930' });
    // It answers in the known format again (same prices: no price event), then changes again: that is news again.
    await lookup(base);
    await lookup(changed, 'failed');
    await lookup(changed, 'failed');
    expect((await delivered(sub.id, 2)).map((m) => m.type)).toEqual(['marketplace.changed', 'marketplace.changed']);
  });
});
