/**
 * Change detection: an ObservationBatch (after each live lookup, from the price history) or a LiveFailure becomes
 * the changes it reveals, each detected once across instances (state.ts). The first sighting of a price is a
 * baseline (no price.changed), but it can cross a threshold (price.first, matched in match.ts).
 */
import type {
  ObservationBatch,
  ObservedPrice,
  ObservedProduct,
  ObservedStock,
  PriceKind,
} from '../history/observation.js';
import type { LiveFailure } from '../operations/live-results.js';
import type { DetectedEvent, PriceContext, StockContext } from './events.js';
import type { AlertState } from './state.js';

interface PriceValue {
  amount: number;
  inStock: boolean | null;
}

export async function detectChanges(batch: ObservationBatch, state: AlertState): Promise<DetectedEvent[]> {
  const events: DetectedEvent[] = [];
  const products = new Map(batch.products.map((p) => [p.productId, p]));
  for (const price of batch.prices) {
    const at = price.observedAt.getTime();
    const next: PriceValue = { amount: price.amount, inStock: price.inStock };
    const swap = await state.swap<PriceValue>(
      priceKey(price),
      next,
      at,
      (a, b) => a.amount === b.amount && a.inStock === b.inStock,
    );
    if (!swap.changed) continue;
    const context = priceContext(price, products.get(price.productId));
    if (swap.old === null) {
      events.push({ type: 'price.first', context, new: price.amount });
      continue;
    }
    if (swap.old.amount !== price.amount)
      events.push({ type: 'price.changed', context, old: swap.old.amount, new: price.amount });
  }
  // Stock once per size and condition (not once per price kind that carries it), including entries without a price.
  for (const stock of batch.stock ?? stockFromPrices(batch.prices)) {
    const swap = await state.swap<boolean>(
      stockKey(stock),
      stock.inStock,
      stock.observedAt.getTime(),
      (a, b) => a === b,
    );
    if (!swap.changed || swap.old === null) continue;
    const price = stockPrice(batch.prices, stock);
    const context = price
      ? priceContext(price, products.get(price.productId))
      : priceContext({ ...stock, kind: null, currency: null }, products.get(stock.productId));
    events.push({ type: 'stock.changed', context, inStock: stock.inStock, price: price?.amount ?? null });
  }
  if (batch.listingIds) {
    const at = batch.observedAt.getTime();
    const ids = [...new Set(batch.listingIds)].sort();
    const key = `listings|${batch.marketplace}|${batch.operation}|${batch.lookupId}`;
    const swap = await state.swap<string[]>(
      key,
      ids,
      at,
      (a, b) => a.length === b.length && a.every((x, i) => x === b[i]),
    );
    if (swap.changed && swap.old !== null) {
      const before = new Set(swap.old);
      const now = new Set(ids);
      const base = {
        marketplace: batch.marketplace,
        operation: batch.operation,
        search: batch.lookupId,
        observed_at: batch.observedAt.toISOString(),
      };
      for (const id of ids)
        if (!before.has(id)) events.push({ type: 'listing.new', data: { ...base, listing_id: id } });
      for (const id of swap.old)
        if (!now.has(id)) events.push({ type: 'listing.removed', data: { ...base, listing_id: id } });
    }
  }
  // The operation answers again: a later format change is news again. Only a success observed after the failure
  // counts: the history hands batches over after its flush, so a success fetched before the first upstream_changed
  // failure can arrive after it, and forgetting then would send marketplace.changed again for the same change.
  await state.forgetBefore(failureKey('upstream_changed', batch.operation, null), batch.observedAt.getTime());
  return events;
}

/** `marketplace.changed` once per operation until it answers again; `product.not_found` once per lookup. */
export async function detectFailure(failure: LiveFailure, state: AlertState): Promise<DetectedEvent[]> {
  const code = failure.error.code;
  if (code !== 'upstream_changed' && code !== 'not_found') return [];
  const key = failureKey(code, failure.operation, code === 'not_found' ? failure.params : null);
  const swap = await state.swap(key, { code }, failure.at, () => true);
  if (!swap.changed) return [];
  const data = {
    marketplace: failure.operation.split('.')[0] ?? null,
    operation: failure.operation,
    params: failure.params,
    code,
    message: failure.error.message,
    at: new Date(failure.at).toISOString(),
  };
  return [{ type: code === 'upstream_changed' ? 'marketplace.changed' : 'product.not_found', data }];
}

/** The price a stock event shows for its size: the lowest asking price where stated, else the best there is. */
const STOCK_PRICE: readonly PriceKind[] = [
  'lowest_ask',
  'lowest_price',
  'current_price',
  'listing_price',
  'instant_ship_lowest_price',
  'last_sale',
];

type ContextSource = Pick<
  ObservedPrice,
  'marketplace' | 'operation' | 'productId' | 'size' | 'condition' | 'country' | 'observedAt'
> & {
  kind: PriceKind | null;
  currency: string | null;
};

function priceContext(p: ObservedPrice, product: ObservedProduct | undefined): PriceContext;
function priceContext(p: ContextSource, product: ObservedProduct | undefined): StockContext;
function priceContext(p: ContextSource, product: ObservedProduct | undefined): StockContext {
  return {
    marketplace: p.marketplace,
    operation: p.operation,
    product_id: p.productId,
    name: product?.name ?? null,
    sku: product?.sku ?? null,
    url: product?.url ?? null,
    size: p.size,
    condition: p.condition,
    kind: p.kind,
    country: p.country,
    currency: p.currency,
    observed_at: p.observedAt.toISOString(),
  };
}

/** Batches without stated stock: one stock value per size and condition from the prices that carry one. */
function stockFromPrices(prices: readonly ObservedPrice[]): ObservedStock[] {
  const out = new Map<string, ObservedStock>();
  for (const p of prices) {
    if (p.inStock === null) continue;
    const s: ObservedStock = {
      marketplace: p.marketplace,
      operation: p.operation,
      productId: p.productId,
      size: p.size,
      condition: p.condition,
      country: p.country,
      inStock: p.inStock,
      observedAt: p.observedAt,
    };
    if (!out.has(stockKey(s))) out.set(stockKey(s), s);
  }
  return [...out.values()];
}

function stockPrice(prices: readonly ObservedPrice[], s: ObservedStock): ObservedPrice | undefined {
  const same = prices.filter(
    (p) => p.productId === s.productId && p.size === s.size && p.condition === s.condition && p.country === s.country,
  );
  const rank = (k: PriceKind) => (STOCK_PRICE.includes(k) ? STOCK_PRICE.indexOf(k) : STOCK_PRICE.length);
  return same.sort((a, b) => rank(a.kind) - rank(b.kind))[0];
}

function stockKey(s: ObservedStock): string {
  return ['stock', s.marketplace, s.productId, s.size ?? '', s.condition ?? '', s.country ?? ''].join('|');
}

function priceKey(p: ObservedPrice): string {
  return [
    'price',
    p.marketplace,
    p.productId,
    p.size ?? '',
    p.kind,
    p.condition ?? '',
    p.country ?? '',
    p.currency,
  ].join('|');
}

function failureKey(code: string, operation: string, params: Readonly<Record<string, unknown>> | null): string {
  return `failure|${code}|${operation}|${params === null ? '' : stableJson(params)}`;
}

function stableJson(o: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]]),
  );
}
