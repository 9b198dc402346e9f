/**
 * The history tables (migration src/store/migrations/0002-history.ts), as Kysely types, following the store's
 * conventions (src/store/README.md): epoch-ms `bigint` times (they also bucket by integer arithmetic on both
 * engines), 0/1 booleans, text ids.
 */
/** Epoch ms (store README: `bigint`, a number on both engines). */
type Ms = number;

export interface HistoryProductsTable {
  id: string;
  marketplace: string;
  product_id: string;
  name: string | null;
  url: string | null;
  image: string | null;
  sku: string | null;
  domain: string | null;
  /** The headline price of the last observation (Retailed's product `price`), with its currency. */
  price: number | null;
  currency: string | null;
  /** Cache key of the last lookup that saw the product, so a failed lookup can mark it (crawl error, not found). */
  lookup_key: string;
  first_seen_at: Ms;
  last_seen_at: Ms;
  last_crawled_at: Ms;
  error_crawling: string | null;
  is_not_found: number;
  created_at: Ms;
  updated_at: Ms;
}

export interface HistoryVariantsTable {
  id: string;
  marketplace: string;
  product_id: string;
  size: string;
  size_system: string | null;
  /** JSON array of strings. */
  gtins: string;
  created_at: Ms;
  updated_at: Ms;
}

export interface HistoryPricesTable {
  id: string;
  /** Retailed's price doc `name`: `<site>-<country>`, e.g. `stockx-us` (the site alone without a country). */
  name: string;
  marketplace: string;
  operation: string;
  product_id: string;
  size: string | null;
  condition: string | null;
  kind: string;
  amount: number;
  currency: string;
  country: string | null;
  in_stock: number | null;
  /** Cache key of the lookup (operation + validated parameters): the history route's series selector. */
  lookup_key: string;
  observed_at: Ms;
}

export interface HistoryTables {
  history_products: HistoryProductsTable;
  history_variants: HistoryVariantsTable;
  history_prices: HistoryPricesTable;
}
