/** StockX (resale-a): product (market per product and per size, whole units) and search hits (no prices). */
import type { LiveResult } from '../../operations/live-results.js';
import type { Market, Product, SearchHit } from './schema.js';
import type { ObservationBatch } from '../../history/observation.js';
import { emptyBatch, pushPrice, stringParam } from '../../history/extract/common.js';

function pushMarket(
  batch: ObservationBatch,
  result: LiveResult,
  productId: string,
  size: string | null,
  m: Market | null,
): void {
  if (!m) return;
  const currency = result.identity.currency ?? stringParam(result, 'currency') ?? 'USD';
  pushPrice(batch, result, { productId, size, kind: 'lowest_ask', amount: m.bids.lowest_ask, currency });
  pushPrice(batch, result, { productId, size, kind: 'highest_bid', amount: m.bids.highest_bid, currency });
  pushPrice(batch, result, { productId, size, kind: 'last_sale', amount: m.sales.last_sale, currency });
}

/** The size label of a variant: the base size trait, else the first US display size. */
function sizeOf(v: Product['variants'][number]): { size: string; system: string | null } | null {
  const us = v.sizes.find((s) => s.type.startsWith('us'));
  if (v.traits.size) return { size: v.traits.size, system: us?.type ?? v.sizes[0]?.type ?? null };
  const first = us ?? v.sizes[0];
  return first ? { size: first.size, system: first.type } : null;
}

export function extractResaleAProduct(result: LiveResult): ObservationBatch {
  const batch = emptyBatch(result);
  const r = result.record as Product;
  const productId = r.id;
  batch.products.push({
    marketplace: 'resale-a',
    productId,
    name: r.name,
    url: `https://stockx.com/${r.slug}`,
    image: r.image,
    sku: r.sku,
    domain: 'stockx.com',
  });
  pushMarket(batch, result, productId, null, r.market);
  for (const v of r.variants) {
    const s = sizeOf(v);
    if (!s) continue;
    batch.variants.push({
      marketplace: 'resale-a',
      productId,
      size: s.size,
      sizeSystem: s.system,
      gtins: v.gtins.map((g) => g.identifier),
    });
    pushMarket(batch, result, productId, s.size, v.market);
  }
  return batch;
}

export function extractResaleASearch(result: LiveResult): ObservationBatch {
  const batch = emptyBatch(result);
  for (const h of result.record as SearchHit[]) {
    batch.products.push({
      marketplace: 'resale-a',
      productId: h.id,
      name: h.name,
      url: `https://stockx.com/${h.slug}`,
      image: h.image,
      sku: h.sku,
      domain: 'stockx.com',
    });
  }
  return batch;
}
