/**
 * The three collections of the Retailed-style db API: each document field, its column and its type. Only these
 * fields can be filtered or sorted on; anything else is a 400 naming it.
 */
export type FieldType = 'string' | 'number' | 'date' | 'boolean';

export interface FieldDef {
  column: string;
  type: FieldType;
}

export interface Collection {
  table: 'history_products' | 'history_prices' | 'history_variants';
  fields: Record<string, FieldDef>;
  /** Default sort (Retailed/Payload: newest first). */
  defaultSort: string;
}

const f = (column: string, type: FieldType): FieldDef => ({ column, type });

export const COLLECTIONS = {
  products: {
    table: 'history_products',
    defaultSort: '-updatedAt',
    fields: {
      id: f('id', 'string'),
      productId: f('product_id', 'string'),
      marketplace: f('marketplace', 'string'),
      name: f('name', 'string'),
      url: f('url', 'string'),
      image: f('image', 'string'),
      sku: f('sku', 'string'),
      domain: f('domain', 'string'),
      price: f('price', 'number'),
      currency: f('currency', 'string'),
      lastCrawledAt: f('last_crawled_at', 'date'),
      errorCrawling: f('error_crawling', 'string'),
      isNotFound: f('is_not_found', 'boolean'),
      firstSeenAt: f('first_seen_at', 'date'),
      lastSeenAt: f('last_seen_at', 'date'),
      createdAt: f('created_at', 'date'),
      updatedAt: f('updated_at', 'date'),
    },
  },
  prices: {
    table: 'history_prices',
    defaultSort: '-createdAt',
    fields: {
      id: f('id', 'string'),
      name: f('name', 'string'),
      product: f('product_id', 'string'),
      marketplace: f('marketplace', 'string'),
      operation: f('operation', 'string'),
      size: f('size', 'string'),
      price: f('amount', 'number'),
      currency: f('currency', 'string'),
      kind: f('kind', 'string'),
      condition: f('condition', 'string'),
      country: f('country', 'string'),
      inStock: f('in_stock', 'boolean'),
      observed_at: f('observed_at', 'date'),
      createdAt: f('observed_at', 'date'),
      updatedAt: f('observed_at', 'date'),
    },
  },
  variants: {
    table: 'history_variants',
    defaultSort: '-updatedAt',
    fields: {
      id: f('id', 'string'),
      product: f('product_id', 'string'),
      marketplace: f('marketplace', 'string'),
      size: f('size', 'string'),
      sizeSystem: f('size_system', 'string'),
      gtins: f('gtins', 'string'),
      createdAt: f('created_at', 'date'),
      updatedAt: f('updated_at', 'date'),
    },
  },
} as const satisfies Record<string, Collection>;

export type CollectionName = keyof typeof COLLECTIONS;
