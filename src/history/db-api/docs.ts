/** Rows → Retailed-style documents (camelCase names, ISO times, booleans), per collection. */
import type { CollectionName } from './collections.js';

/**
 * Document fields left out, rather than sent as null, when the source had no value: Retailed's product docs omit
 * them (clients type them as optional strings: `url?: string`, where a null fails their validation). CSV keeps every
 * column, empty.
 */
export const OMITTED_WHEN_UNKNOWN: Readonly<Record<CollectionName, readonly string[]>> = {
  products: ['name', 'url', 'domain', 'image', 'sku'],
  prices: [],
  variants: [],
};

/**
 * A JSON document without the fields its source lacked (see OMITTED_WHEN_UNKNOWN).
 * @example withoutUnknown('products', { id: 'a', url: null }) // { id: 'a' }
 */
export function withoutUnknown(collection: CollectionName, doc: Record<string, unknown>): Record<string, unknown> {
  const omitted = OMITTED_WHEN_UNKNOWN[collection];
  if (omitted.length === 0) return doc;
  return Object.fromEntries(Object.entries(doc).filter(([k, v]) => v !== null || !omitted.includes(k)));
}

const iso = (ms: unknown): string | null =>
  ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString();
const bool = (v: unknown): boolean | null => (v === null || v === undefined ? null : Number(v) === 1);

export function toDoc(collection: CollectionName, r: Record<string, unknown>): Record<string, unknown> {
  switch (collection) {
    case 'products':
      return {
        id: r.id,
        productId: r.product_id,
        marketplace: r.marketplace,
        name: r.name,
        url: r.url,
        domain: r.domain,
        image: r.image,
        sku: r.sku,
        price: r.price,
        currency: r.currency,
        lastCrawledAt: iso(r.last_crawled_at),
        errorCrawling: r.error_crawling,
        isNotFound: bool(r.is_not_found),
        firstSeenAt: iso(r.first_seen_at),
        lastSeenAt: iso(r.last_seen_at),
        createdAt: iso(r.created_at),
        updatedAt: iso(r.updated_at),
      };
    case 'prices':
      // Retailed's documented names first ({id, name, product, size, price, createdAt, updatedAt}), then ours.
      return {
        id: r.id,
        name: r.name,
        product: r.product_id,
        size: r.size,
        price: r.amount,
        createdAt: iso(r.observed_at),
        updatedAt: iso(r.observed_at),
        currency: r.currency,
        kind: r.kind,
        condition: r.condition,
        country: r.country,
        observed_at: iso(r.observed_at),
        inStock: bool(r.in_stock),
        marketplace: r.marketplace,
        operation: r.operation,
      };
    case 'variants':
      return {
        id: r.id,
        product: r.product_id,
        marketplace: r.marketplace,
        size: r.size,
        sizeSystem: r.size_system,
        gtins: JSON.parse(typeof r.gtins === 'string' ? r.gtins : '[]') as string[],
        createdAt: iso(r.created_at),
        updatedAt: iso(r.updated_at),
      };
  }
}
