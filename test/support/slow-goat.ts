/** A fake GOAT answering `buy_bar_data` after a delay, with switchable failures: for cache and de-duplication tests. */
import { FakeUpstream } from './fake-upstream.js';

export const PRICES = '/api/v1/scraper/resale-b/prices';
export const BUY_BAR = '/web-api/v1/product_variants/buy_bar_data';

/** One entry in GOAT's buy_bar_data shape (own values); the price differs per template id so answers are told apart. */
export function buyBarFor(templateId: string, amount = 20000) {
  return [
    {
      sizeOption: { presentation: '10', value: 10 },
      shoeCondition: 'new_no_defects',
      boxCondition: 'good_condition',
      lowestPriceCents: {
        currency: 'USD',
        amount: amount + Number(templateId),
        amountUsdCents: amount + Number(templateId),
      },
      instantShipLowestPriceCents: { currency: 'USD' },
      lastSoldPriceCents: { currency: 'USD', amount: 18000, amountUsdCents: 18000 },
      stockStatus: 'multiple_in_stock',
    },
  ];
}

export interface SlowGoat {
  upstream: FakeUpstream;
  /** buy_bar_data requests received so far. */
  count(): number;
  /** Answer delay (ms). */
  delayMs: number;
  /** When set, answer this status (e.g. 500, 404) instead of data. */
  failWith?: number;
  /** Added to every price, to tell a refreshed answer from an older one. */
  priceBump: number;
  /**
   * Holds every answer (after its delay) until `release()`: what a caller gets meanwhile did not wait for the
   * upstream, without a bound on how long that took.
   */
  hold(): void;
  release(): void;
  stop(): Promise<void>;
}

export async function startSlowGoat(delayMs = 300): Promise<SlowGoat> {
  const upstream = await new FakeUpstream().start();
  let held: { until: Promise<void>; release(): void } | undefined;
  const goat: SlowGoat = {
    upstream,
    count: () => upstream.count(BUY_BAR),
    delayMs,
    priceBump: 0,
    hold: () => {
      if (held) return;
      let release!: () => void;
      const until = new Promise<void>((r) => (release = r));
      held = { until, release };
    },
    release: () => {
      held?.release();
      held = undefined;
    },
    stop: () => upstream.stop(),
  };
  upstream.on(BUY_BAR, async (req, res) => {
    await new Promise((r) => setTimeout(r, goat.delayMs));
    if (held) await held.until;
    if (goat.failWith !== undefined) {
      res.writeHead(goat.failWith, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'failure' }));
      return;
    }
    const id = req.query.get('productTemplateId') ?? '0';
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify(buyBarFor(id, 20000 + goat.priceBump)));
  });
  return goat;
}
