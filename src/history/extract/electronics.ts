/** Best Buy (electronics): the price block of one SKU (USD, the only storefront). */
import type { LiveResult } from '../../operations/live-results.js';
import type { ElectronicsProduct } from '../../marketplaces/electronics/schema.js';
import type { ObservationBatch } from '../observation.js';
import { emptyBatch, pushPrice } from './common.js';

export function extractElectronicsProduct(result: LiveResult): ObservationBatch {
  const batch = emptyBatch(result);
  const r = result.record as ElectronicsProduct;
  const productId = r.pricing?.sku_id ?? result.identity.id;
  const url = r.pricing?.pdp_url ? new URL(r.pricing.pdp_url, 'https://www.bestbuy.com').href : null;
  batch.products.push({
    marketplace: 'electronics',
    productId,
    name: null,
    url,
    image: null,
    sku: productId,
    domain: 'bestbuy.com',
  });
  const currency = result.identity.currency ?? 'USD';
  const d = r.pricing?.sku_price_domain;
  pushPrice(batch, result, {
    productId,
    kind: 'current_price',
    amount: d?.current_price ?? r.pricing?.customer_price,
    currency,
  });
  pushPrice(batch, result, { productId, kind: 'regular_price', amount: d?.regular_price, currency });
  return batch;
}
