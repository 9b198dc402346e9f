import type { ObservationBatch } from '../../src/history/observation.js';

/** A price observation for alert tests: StockX product p1, size 10, lowest ask `amount`, at minute `n` of a fixed day. */
export function priceObservation(n: number, amount: number): ObservationBatch {
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
      },
    ],
    observedAt,
  };
}
