/** Helpers shared by the per-operation extractors: one place decides what counts as a recordable price. */
import type { LiveResult } from '../../operations/live-results.js';
import type { ObservationBatch, ObservedPrice, PriceKind } from '../observation.js';

/** A batch with nothing in it yet, stamped with the fetch time. */
export function emptyBatch(result: LiveResult): ObservationBatch {
  return {
    operation: result.operation,
    marketplace: result.identity.marketplace,
    lookupId: result.identity.id,
    products: [],
    variants: [],
    prices: [],
    observedAt: new Date(result.fetchedAt),
  };
}

/** A finite, positive amount: null, 0 ("no sale" on GOAT) and garbage are not prices, so nothing is recorded. */
export function isPrice(amount: unknown): amount is number {
  return typeof amount === 'number' && Number.isFinite(amount) && amount > 0;
}

/** Adds a price point when the amount is a price and the currency is known; otherwise records nothing. */
export function pushPrice(
  batch: ObservationBatch,
  result: LiveResult,
  p: {
    productId: string;
    size?: string | null;
    condition?: string | null;
    kind: PriceKind;
    amount: unknown;
    currency: string | null | undefined;
    inStock?: boolean | null;
  },
): void {
  if (!isPrice(p.amount) || !p.currency || !/^[A-Z]{3}$/.test(p.currency)) return;
  const price: ObservedPrice = {
    marketplace: batch.marketplace,
    operation: batch.operation,
    productId: p.productId,
    size: p.size ?? null,
    condition: p.condition ?? null,
    kind: p.kind,
    amount: p.amount,
    currency: p.currency,
    country: result.identity.country,
    inStock: p.inStock ?? null,
    observedAt: batch.observedAt,
  };
  batch.prices.push(price);
}

/** The string value of a parameter, if it was given as one. */
export function stringParam(result: LiveResult, name: string): string | null {
  const v = result.params[name];
  return typeof v === 'string' && v !== '' ? v : null;
}

/** Amounts are stored as major units: cents ÷ 100, kept exact to the cent. */
export function fromCents(cents: number | undefined | null): number | null {
  return typeof cents === 'number' && Number.isFinite(cents) ? Math.round(cents) / 100 : null;
}
