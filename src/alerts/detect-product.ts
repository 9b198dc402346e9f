/**
 * Change detection on a product answer (GET /api/v1/products/{sku}, tracking by SKU): per size, the spread between
 * the best sell and the best buy across marketplaces, and the lowest buy price against the earlier ones. Like the
 * price events, each change is detected once across instances (state.ts compare-and-set); the thresholds and the
 * new-low window are per subscription, so the crossing itself is decided in match.ts.
 */
import type { ProductAnswer, ProductOffer, ProductSize } from '../products/types.js';
import type { DailyLows, DetectedEvent, ProductOfferData, ProductSizeContext, SpreadValue } from './events.js';
import type { AlertState } from './state.js';

const DAY = 86_400_000;
/** The longest new-low window a filter may ask for (filter.days ≤ 365): older daily lows are dropped. */
export const LOW_WINDOW_DAYS = 365;

export async function detectProductChanges(
  answer: ProductAnswer,
  observedAt: number,
  state: AlertState,
): Promise<DetectedEvent[]> {
  const events: DetectedEvent[] = [];
  for (const row of answer.sizes) {
    const context = sizeContext(answer, row, observedAt);
    const where = [answer.sku, answer.country, row.size_system, row.size].join('|');
    const spread: SpreadValue = { spread: context.spread, spread_pct: context.spread_pct };
    const swap = await state.swap<SpreadValue>(
      `product-spread|${where}|${context.currency}`,
      spread,
      observedAt,
      (a, b) => a.spread === b.spread && a.spread_pct === b.spread_pct,
    );
    if (swap.changed && spread.spread !== null)
      events.push({ type: 'product.spread', context, old: swap.old, new: spread });

    const buy = row.best_buy;
    if (!buy) continue;
    const lows = await state.update<DailyLows>(
      `product-low|${where}|${buy.currency}`,
      (old) => withLow(old ?? [], observedAt, buy.amount),
      observedAt,
      sameLows,
    );
    // The first answer is the baseline: a new low needs earlier prices to be under.
    if (lows.changed && lows.old !== null)
      events.push({ type: 'product.low', context, amount: buy.amount, earlier: lows.old });
  }
  return events;
}

/** The daily lows with `amount` seen at `at`: today's low lowered if need be, days past the longest window dropped. */
export function withLow(lows: DailyLows, at: number, amount: number): DailyLows {
  const day = Math.floor(at / DAY) * DAY;
  const kept = lows.filter(([d]) => d > day - LOW_WINDOW_DAYS * DAY);
  const today = kept.find(([d]) => d === day);
  if (today) return kept.map(([d, v]) => (d === day ? [d, Math.min(v, amount)] : [d, v]));
  return [...kept, [day, amount]];
}

/** The lowest of the daily lows in the `days` UTC days ending with the day of `at` (null when none). */
export function lowWithin(lows: DailyLows, at: number, days: number): number | null {
  const from = Math.floor(at / DAY) * DAY - (days - 1) * DAY;
  const within = lows.filter(([d]) => d >= from).map(([, v]) => v);
  return within.length > 0 ? Math.min(...within) : null;
}

function sameLows(a: DailyLows, b: DailyLows): boolean {
  return a.length === b.length && a.every(([d, v], i) => d === b[i]![0] && v === b[i]![1]);
}

function sizeContext(answer: ProductAnswer, row: ProductSize, observedAt: number): ProductSizeContext {
  const buy = row.best_buy;
  const sell = row.best_sell;
  // Prices are never converted: a spread exists only between offers in one currency.
  const comparable = buy !== null && sell !== null && buy.currency === sell.currency;
  const spread = comparable ? round(sell.amount - buy.amount, 6) : null;
  return {
    sku: answer.sku,
    name: answer.product.name,
    country: answer.country,
    size: row.size,
    size_system: row.size_system,
    currency: buy?.currency ?? sell?.currency ?? answer.currency,
    buy: buy ? offerData(buy) : null,
    sell: sell ? offerData(sell) : null,
    spread,
    spread_pct: spread !== null && buy !== null && buy.amount > 0 ? round((spread / buy.amount) * 100, 2) : null,
    observed_at: new Date(observedAt).toISOString(),
  };
}

function offerData(o: ProductOffer): ProductOfferData {
  return {
    marketplace: o.marketplace,
    kind: o.kind,
    condition: o.condition,
    amount: o.amount,
    currency: o.currency,
    url: o.url,
  };
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
