/** What the price history records from one toy price: the toy, and its price when the shop states one. */
import { emptyBatch, pushPrice } from '../../src/history/extract/common.js';
import type { ObservationBatch } from '../../src/history/observation.js';
import type { LiveResult } from '../../src/operations/live-results.js';
import type { ToyPrice } from './price.js';

export function extractToyPrice(result: LiveResult): ObservationBatch {
  const batch = emptyBatch(result);
  const r = result.record as ToyPrice;
  batch.products.push({
    marketplace: batch.marketplace,
    productId: r.id,
    name: r.name,
    url: `https://www.toyshop.example/toys/${r.id}`,
    image: null,
    sku: null,
    domain: 'toyshop.example',
  });
  pushPrice(batch, result, { productId: r.id, kind: 'current_price', amount: r.price, currency: r.currency });
  return batch;
}
