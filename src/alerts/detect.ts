/**
 * Change detection: an ObservationBatch (after each live lookup, from the price history) or a LiveFailure becomes
 * the changes it reveals, each detected once across instances (state.ts). The first sighting of a price is a
 * baseline (no price.changed), but it can cross a threshold (price.first, matched in match.ts).
 */
import type { ObservationBatch, ObservedPrice } from '../history/observation.js';
import type { LiveFailure } from '../operations/live-results.js';
import type { DetectedEvent, PriceContext } from './events.js';
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
    const swap = await state.swap<PriceValue>(priceKey(price), next, at, (a, b) => a.amount === b.amount && a.inStock === b.inStock);
    if (!swap.changed) continue;
    const product = products.get(price.productId);
    const context: PriceContext = {
      marketplace: price.marketplace,
      operation: price.operation,
      product_id: price.productId,
      name: product?.name ?? null,
      sku: product?.sku ?? null,
      url: product?.url ?? null,
      size: price.size,
      condition: price.condition,
      kind: price.kind,
      country: price.country,
      currency: price.currency,
      observed_at: price.observedAt.toISOString(),
    };
    if (swap.old === null) {
      events.push({ type: 'price.first', context, new: price.amount });
      continue;
    }
    if (swap.old.amount !== price.amount) events.push({ type: 'price.changed', context, old: swap.old.amount, new: price.amount });
    if (swap.old.inStock !== null && price.inStock !== null && swap.old.inStock !== price.inStock) {
      events.push({ type: 'stock.changed', context, inStock: price.inStock, price: price.amount });
    }
  }
  if (batch.listingIds) {
    const at = batch.observedAt.getTime();
    const ids = [...new Set(batch.listingIds)].sort();
    const key = `listings|${batch.marketplace}|${batch.operation}|${batch.lookupId}`;
    const swap = await state.swap<string[]>(key, ids, at, (a, b) => a.length === b.length && a.every((x, i) => x === b[i]));
    if (swap.changed && swap.old !== null) {
      const before = new Set(swap.old);
      const now = new Set(ids);
      const base = { marketplace: batch.marketplace, operation: batch.operation, search: batch.lookupId, observed_at: batch.observedAt.toISOString() };
      for (const id of ids) if (!before.has(id)) events.push({ type: 'listing.new', data: { ...base, listing_id: id } });
      for (const id of swap.old) if (!now.has(id)) events.push({ type: 'listing.removed', data: { ...base, listing_id: id } });
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

function priceKey(p: ObservedPrice): string {
  return ['price', p.marketplace, p.productId, p.size ?? '', p.kind, p.condition ?? '', p.country ?? '', p.currency].join('|');
}

function failureKey(code: string, operation: string, params: Readonly<Record<string, unknown>> | null): string {
  return `failure|${code}|${operation}|${params === null ? '' : stableJson(params)}`;
}

function stableJson(o: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(Object.keys(o).sort().map((k) => [k, o[k]]));
}
