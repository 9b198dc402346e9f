/**
 * What the service remembers of each product answer (migration 0005-product-links), so a product's history is
 * answered from the recorded rows without a live lookup: per SKU, each marketplace's own product id, and the size
 * rows of the last answer (which size labels the product answer uses, their GTINs and which marketplaces priced
 * them) to map each marketplace's recorded size labels onto the product's sizes.
 */
/** Epoch ms (store README: `bigint`, a number on both engines). */
type Ms = number;

export interface ProductLinksTable {
  /** The SKU as the product answer normalised it. */
  sku: string;
  marketplace: string;
  /** The marketplace's own product id: the `product_id` of its history rows. */
  product_id: string;
  slug: string | null;
  url: string | null;
  updated_at: Ms;
}

export interface ProductSizesTable {
  sku: string;
  name: string | null;
  /** JSON: `StoredSizeRow[]` of the last answer. */
  sizes: string;
  updated_at: Ms;
}

export interface ProductLinkTables {
  product_links: ProductLinksTable;
  product_sizes: ProductSizesTable;
}
