/** Best Buy (electronics): the price block of one SKU (USD, the only storefront). */
import type { LiveResult } from '../../operations/live-results.js';
import type { ElectronicsProduct } from './schema.js';
import type { ObservationBatch } from '../../history/observation.js';
import { emptyBatch, pushPrice, stringParam } from '../../history/extract/common.js';

const BESTBUY = 'https://www.bestbuy.com';

export function extractElectronicsProduct(result: LiveResult): ObservationBatch {
  const batch = emptyBatch(result);
  const r = result.record as ElectronicsProduct;
  const productId = r.pricing?.sku_id ?? result.identity.id;
  batch.products.push({
    marketplace: 'electronics',
    productId,
    name: r.name,
    url: productUrl(r, result, productId),
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

/**
 * The product page: the one the record names (`pricing.pdp_url`), else the page URL the caller gave, else the page
 * the lookup fetched for the SKU (`/site/{sku}.p?skuId={sku}`, which Best Buy redirects to the product's page).
 */
function productUrl(r: ElectronicsProduct, result: LiveResult, sku: string): string {
  if (r.pricing?.pdp_url) return new URL(r.pricing.pdp_url, BESTBUY).href;
  const query = stringParam(result, 'query');
  if (query !== null && /^https?:\/\//i.test(query)) return new URL(query).href;
  return `${BESTBUY}/site/${sku}.p?skuId=${sku}`;
}
