/** GOAT (resale-b): the buy bar (per size and condition, amounts in cents) and the product template. */
import type { LiveResult } from '../../operations/live-results.js';
import type { PriceEntry, ResaleBProduct } from './schema.js';
import type { GoatSearchHit } from './search-schema.js';
import type { ObservationBatch } from '../../history/observation.js';
import { emptyBatch, fromCents, pushPrice } from '../../history/extract/common.js';

export function extractResaleBPrices(result: LiveResult): ObservationBatch {
  const batch = emptyBatch(result);
  const productId = result.identity.id;
  batch.products.push({
    marketplace: 'resale-b',
    productId,
    name: null,
    url: null,
    image: null,
    sku: null,
    domain: 'goat.com',
  });
  const sizes = new Set<string>();
  for (const e of result.record as PriceEntry[]) {
    const size = e.sizeOption.presentation;
    if (!sizes.has(size)) {
      sizes.add(size);
      batch.variants.push({ marketplace: 'resale-b', productId, size, sizeSystem: null, gtins: [] });
    }
    // GOAT states shoe and box condition separately; both matter for the price, so both are kept.
    const condition = `${e.shoeCondition}/${e.boxCondition}`;
    const inStock = e.stockStatus === 'not_in_stock' ? false : e.stockStatus.endsWith('_in_stock') ? true : null;
    const common = { productId, size, condition, inStock };
    if (inStock !== null) {
      (batch.stock ??= []).push({
        marketplace: 'resale-b',
        operation: batch.operation,
        productId,
        size,
        condition,
        country: result.identity.country,
        inStock,
        observedAt: batch.observedAt,
      });
    }
    // A last sale of 0 cents is GOAT's "no sale yet" (retailed-clients C2), not a price: isPrice drops it.
    pushPrice(batch, result, {
      ...common,
      kind: 'lowest_price',
      amount: fromCents(e.lowestPriceCents.amount),
      currency: e.lowestPriceCents.currency,
    });
    pushPrice(batch, result, {
      ...common,
      kind: 'last_sale',
      amount: fromCents(e.lastSoldPriceCents.amount),
      currency: e.lastSoldPriceCents.currency,
    });
    pushPrice(batch, result, {
      ...common,
      kind: 'instant_ship_lowest_price',
      amount: fromCents(e.instantShipLowestPriceCents.amount),
      currency: e.instantShipLowestPriceCents.currency,
    });
  }
  return batch;
}

export function extractResaleBProduct(result: LiveResult): ObservationBatch {
  const batch = emptyBatch(result);
  const r = result.record as ResaleBProduct;
  const productId = String(r.id);
  batch.products.push({
    marketplace: 'resale-b',
    productId,
    name: r.name,
    url: `https://www.goat.com/${r.product_type || 'sneakers'}/${r.slug}`,
    image: r.main_picture_url || null,
    sku: r.sku || null,
    domain: 'goat.com',
  });
  for (const o of r.size_options) {
    batch.variants.push({
      marketplace: 'resale-b',
      productId,
      size: o.presentation,
      sizeSystem: r.size_unit || null,
      gtins: [],
    });
  }
  // Product-level figures are USD cents (the spec's cents fields); the localized price carries its own currency.
  // (maximum_offer_cents is GOAT's cap on offers, not anyone's bid, so it is no price.)
  const usd = (cents: number, condition: string) =>
    pushPrice(batch, result, { productId, condition, kind: 'lowest_price', amount: fromCents(cents), currency: 'USD' });
  usd(r.new_lowest_price_cents, 'new');
  usd(r.used_lowest_price_cents, 'used');
  const loc = r.localized_special_display_price_cents;
  pushPrice(batch, result, { productId, kind: 'current_price', amount: fromCents(loc.amount), currency: loc.currency });
  return batch;
}

/** Search hits: each a product (template id, name, page, picture, SKU); no prices, like the StockX search. */
export function extractResaleBSearch(result: LiveResult): ObservationBatch {
  const batch = emptyBatch(result);
  for (const h of result.record as GoatSearchHit[]) {
    batch.products.push({
      marketplace: 'resale-b',
      productId: h.id,
      name: h.name,
      url: h.url,
      image: h.image,
      sku: h.sku,
      domain: 'goat.com',
    });
  }
  return batch;
}
