/**
 * Product alerts through the real chain, on SQLite and PostgreSQL: GET /api/v1/products/{sku} (live: no-cache)
 * against fake StockX, GOAT and Nike serving one SKU → the product service's answer → the alert engine → signed
 * deliveries verified by a local receiver. GOAT's price at men's 8 moves between answers; spread.above and
 * price.new_low follow the answer's own best buy and best sell, once per crossing.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryTiming } from '../src/alerts/worker.js';
import type { ProductAnswer, ProductSize } from '../src/products/types.js';
import { auth, testApp } from './support/app.js';
import { BUY_BAR, goatBuyBar, SKU, startProductUpstreams, type ProductUpstreams } from './support/product-upstreams.js';
import { createTestDatabase, engineAvailable, ENGINES, type TestDatabase } from './support/stores.js';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';

const FAST: Partial<DeliveryTiming> = { baseDelayMs: 40, maxDelayMs: 200, pollMs: 20, leaseMs: 2_000 };

interface BuyBarEntry {
  sizeOption: { presentation: string };
  shoeCondition: string;
  lowestPriceCents: { currency: string; amount?: number; amountUsdCents?: number };
}

describe.each(ENGINES)('product alerts from live product answers on %s', (engine) => {
  const run = engineAvailable(engine);
  let db: TestDatabase;
  let up: ProductUpstreams;
  let receiver: Receiver;
  let app: FastifyInstance;
  /** GOAT's lowest price of a new men's 8, in cents, as the fake answers it now. */
  let goat8 = 12_500;

  beforeAll(async () => {
    if (!run) return;
    db = await createTestDatabase(engine);
    up = await startProductUpstreams();
    up.goat.on(BUY_BAR, (_req, res) => {
      const entries = goatBuyBar() as BuyBarEntry[];
      for (const e of entries)
        if (e.sizeOption.presentation === '8' && e.shoeCondition === 'new_no_defects')
          e.lowestPriceCents = { currency: 'USD', amount: goat8, amountUsdCents: goat8 };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(entries));
    });
    receiver = await startReceiver();
    app = await testApp(
      {
        ...db.env,
        ...up.env,
        MARKETLENS_STALE_IF_ERROR: '0',
        MARKETLENS_WEBHOOK_ALLOW_HTTP: 'true',
        MARKETLENS_WEBHOOK_ALLOW_PRIVATE: 'true',
      },
      { alerts: { timing: FAST } },
    );
  });
  afterAll(async () => {
    if (!run) return;
    await app.close();
    await receiver.stop();
    await up.stop();
    await db.drop();
  });

  /** One live product answer with GOAT's men's 8 at `cents`; its size-8 row once the alerts have seen it. */
  async function answerAt(cents: number): Promise<ProductSize> {
    goat8 = cents;
    const res = await app.inject({
      url: `/api/v1/products/${SKU}`,
      headers: { ...auth, 'cache-control': 'no-cache' },
    });
    expect(res.statusCode, res.body).toBe(200);
    await app.alerts.idle();
    const row = res.json<ProductAnswer>().sizes.find((s) => s.size === '8' && s.size_system === 'us_men');
    if (!row?.best_buy || !row.best_sell) throw new Error(`men's 8 has no best buy and sell: ${res.body}`);
    return row;
  }

  it.skipIf(!run)('spread.above and price.new_low once per crossing, as the answer states them', async () => {
    const sub = await app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth,
      payload: {
        url: receiver.url,
        events: ['spread.above', 'price.new_low'],
        filter: { skus: [SKU], sizes: ['8'], min_spread_pct: 10 },
      },
    });
    expect(sub.statusCode, sub.body).toBe(201);
    receiver.setSecret(sub.json<{ secret: string }>().secret);

    const rows = [];
    for (const cents of [12_500, 10_000, 10_000, 12_500, 9_900]) rows.push(await answerAt(cents));
    const [baseline, cheap, , back, cheaper] = rows as [
      ProductSize,
      ProductSize,
      ProductSize,
      ProductSize,
      ProductSize,
    ];
    // The baseline's spread is under 10 %; GOAT at 100 and at 99 is the cheapest buy, the spread over 10 %.
    const pct = (r: ProductSize) => ((r.best_sell!.amount - r.best_buy!.amount) / r.best_buy!.amount) * 100;
    expect(pct(baseline)).toBeLessThan(10);
    expect(pct(back)).toBeLessThan(10);
    expect(cheap.best_buy).toMatchObject({ marketplace: 'resale-b', amount: 100 });
    expect(cheaper.best_buy).toMatchObject({ marketplace: 'resale-b', amount: 99 });

    await receiver.waitFor(4);
    const id = sub.json<{ id: string }>().id;
    const deadline = Date.now() + 10_000;
    while ((await app.alerts.queue.list(id, 100)).some((d) => d.status !== 'delivered')) {
      if (Date.now() > deadline) throw new Error('deliveries not all delivered');
      await new Promise((r) => setImmediate(r));
    }
    expect(await app.alerts.queue.list(id, 100)).toHaveLength(4);
    const got = receiver.messages() as Array<{ type: string; data: Record<string, unknown> }>;
    expect(got.map((m) => [m.type, m.data.size])).toEqual([
      ['spread.above', '8'],
      ['price.new_low', '8'],
      ['spread.above', '8'],
      ['price.new_low', '8'],
    ]);
    const offer = (o: ProductSize['best_buy']) => ({ marketplace: o!.marketplace, kind: o!.kind, amount: o!.amount });
    expect(got[0]!.data).toMatchObject({
      sku: SKU,
      size_system: 'us_men',
      buy: offer(cheap.best_buy),
      sell: offer(cheap.best_sell),
      spread: cheap.best_sell!.amount - 100,
    });
    expect(got[1]!.data).toMatchObject({ buy: offer(cheap.best_buy), previous_low: baseline.best_buy!.amount });
    expect(got[3]!.data).toMatchObject({ buy: offer(cheaper.best_buy), previous_low: 100 });
  });
});
