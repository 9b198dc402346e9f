import type { ObservationBatch } from '../../src/history/observation.js';

type Price = ObservationBatch['prices'][number];

/**
 * A price observation for alert tests: StockX product p1, size 10, lowest ask `amount` in USD (US), at minute `n` of a
 * fixed day; `other` changes any field of the price.
 */
export function priceObservation(n: number, amount: number, other: Partial<Price> = {}): ObservationBatch {
  const observedAt = new Date(Date.parse('2026-11-24T00:00:00Z') + n * 60_000);
  return {
    operation: 'resale-a.product',
    marketplace: 'resale-a',
    lookupId: 'p1',
    products: [],
    variants: [],
    prices: [
      {
        marketplace: 'resale-a',
        operation: 'resale-a.product',
        productId: 'p1',
        size: '10',
        condition: null,
        kind: 'lowest_ask',
        amount,
        currency: 'USD',
        country: 'US',
        inStock: null,
        observedAt,
        ...other,
      },
    ],
    observedAt,
  };
}
