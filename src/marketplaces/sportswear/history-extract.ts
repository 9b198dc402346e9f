/** Nike (sportswear): one colourway, its sizes (with GTINs) and its storefront prices. */
import type { LiveResult } from '../../operations/live-results.js';
import { resolveProductTarget } from './product-url.js';
import type { SportswearProduct } from './schema.js';
import type { ObservationBatch } from '../../history/observation.js';
import { emptyBatch, pushPrice, stringParam } from '../../history/extract/common.js';

export function extractSportswearProduct(result: LiveResult): ObservationBatch {
  const batch = emptyBatch(result);
  const r = result.record as SportswearProduct;
  const productId = r.style_color;
  const info = r.product_info;
  // A record from the product feed (page blocked) names no page: the page the lookup asked for is the product's URL.
  const url = r.pdp_url?.canonical_url ?? r.pdp_url?.url ?? info.canonical_url ?? info.url ?? requestedPage(result);
  const image = info.content_images?.find((c) => c.properties?.squarish?.url)?.properties?.squarish?.url ?? null;
  batch.products.push({
    marketplace: 'sportswear',
    productId,
    name: info.full_title ?? info.title,
    url,
    image,
    sku: r.style_color,
    domain: 'nike.com',
  });
  for (const s of r.sizes) {
    batch.variants.push({
      marketplace: 'sportswear',
      productId,
      size: s.label,
      sizeSystem: s.localized_label_prefix ?? null,
      gtins: (s.gtins ?? []).map((g) => g.gtin),
    });
  }
  const p = r.prices;
  if (p) {
    const currency = p.currency ?? result.identity.currency;
    pushPrice(batch, result, { productId, kind: 'current_price', amount: p.current_price, currency });
    pushPrice(batch, result, { productId, kind: 'regular_price', amount: p.initial_price, currency });
  }
  return batch;
}

/** The product page the lookup fetched (its `query` URL, or the one built from a style-colour and country). */
function requestedPage(result: LiveResult): string | null {
  const query = stringParam(result, 'query');
  if (query === null) return null;
  try {
    return resolveProductTarget(query, stringParam(result, 'country') ?? undefined).pageUrl;
  } catch {
    return null;
  }
}
