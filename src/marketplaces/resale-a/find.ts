/**
 * Finding a SKU on StockX: its search, an exact style-id match. 2026 search hits may lack the style id (`sku: null`),
 * so a hit without one is confirmed on its product page (the product lookup's record carries `sku`) — the lookup the
 * product answer needs anyway, so a confirmed hit costs nothing extra.
 */
import { isMarketlensError } from '../../errors.js';
import { sameSku } from '../../products/sku.js';
import type { LookupRecord, ProductLocale, ProductLookups } from '../../products/source.js';
import type { Product, SearchHit } from './schema.js';

/** Hits without a style id confirmed on their page, at most (each is one product lookup). */
const MAX_UNCONFIRMED = 2;

export interface StockxFind {
  hit: SearchHit;
  product: LookupRecord<Product>;
}

/** The StockX product whose style id is `sku`, with its product lookup; null when StockX has none. */
export async function findStockxProduct(
  sku: string,
  locale: ProductLocale,
  lookups: ProductLookups,
): Promise<StockxFind | null> {
  const { record: hits } = await lookups.run('resale-a.search', { query: sku });
  const productOf = (hit: SearchHit) =>
    lookups.run('resale-a.product', { query: hit.slug, country: locale.country, currency: locale.currency });
  const exact = hits.find((h) => sameSku(h.sku, sku));
  if (exact) return { hit: exact, product: await productOf(exact) };
  const unconfirmed = hits.filter((h) => h.sku === null).slice(0, MAX_UNCONFIRMED);
  const confirmed = await Promise.all(
    unconfirmed.map((hit) =>
      productOf(hit).then(
        (product) => (sameSku(product.record.sku, sku) ? { hit, product } : null),
        (e: unknown) => {
          // A hit whose page is gone is not the product; any other failure is StockX failing.
          if (isMarketlensError(e) && e.code === 'not_found') return null;
          throw e;
        },
      ),
    ),
  );
  return confirmed.find((c) => c !== null) ?? null;
}
