/**
 * What the price history derives from one live result (src/operations/live-results.ts) and hands on to its own
 * subscribers (alerts). Amounts are in major units of `currency` (GOAT cents ÷ 100, StockX whole units as they are),
 * so prices of every marketplace are comparable. A value the record lacks is never recorded (no 0, no guess).
 */
import type { Marketplace } from '../marketplaces/catalog.js';
import type { OperationName } from '../operations/operation-names.js';

/** Price kinds, named for what the marketplace states. */
export const PRICE_KINDS = [
  'lowest_ask',
  'highest_bid',
  'last_sale',
  'lowest_price',
  'current_price',
  'regular_price',
  'listing_price',
  /** GOAT's lowest price of a pair that ships at once (its own figure beside the lowest price). */
  'instant_ship_lowest_price',
] as const;
export type PriceKind = (typeof PRICE_KINDS)[number];

export interface ObservedProduct {
  marketplace: Marketplace;
  /** Canonical id within the marketplace (for a watch search: the listing id). */
  productId: string;
  name: string | null;
  url: string | null;
  image: string | null;
  /** SKU / style code where the record has one. */
  sku: string | null;
  /** The marketplace's domain the product was seen on, e.g. `goat.com`, `chrono24.de`. */
  domain: string | null;
}

export interface ObservedVariant {
  marketplace: Marketplace;
  productId: string;
  /** The size label as the marketplace shows it (`10`, `9.5`, `M`). */
  size: string;
  /** `us`, `uk`, `eu`, … where known. */
  sizeSystem: string | null;
  gtins: string[];
}

export interface ObservedPrice {
  marketplace: Marketplace;
  operation: OperationName;
  productId: string;
  /** null for a product-level price (no size). */
  size: string | null;
  /** Where the marketplace distinguishes it (GOAT shoe/box condition, Chrono24 condition), else null. */
  condition: string | null;
  kind: PriceKind;
  /** Major units of `currency`. */
  amount: number;
  /** ISO 4217. */
  currency: string;
  country: string | null;
  /** Whether the size/product was in stock at that price, where the record says so, else null. */
  inStock: boolean | null;
  observedAt: Date;
}

/**
 * Whether a size (in a condition) is in stock, where the marketplace states it per entry — priced or not: a sold-out
 * GOAT entry states no lowest price, and a size that never sold has no last sale either, yet its status is news.
 */
export interface ObservedStock {
  marketplace: Marketplace;
  operation: OperationName;
  productId: string;
  size: string | null;
  condition: string | null;
  country: string | null;
  inStock: boolean;
  observedAt: Date;
}

/** One live result's worth of observations, as recorded. */
export interface ObservationBatch {
  operation: OperationName;
  marketplace: Marketplace;
  /** The lookup's own identity id (a product id, or a search key for searches). */
  lookupId: string;
  products: ObservedProduct[];
  variants: ObservedVariant[];
  prices: ObservedPrice[];
  /**
   * Stock per size and condition where the marketplace states it (GOAT's buy bar). Absent: stock is read from the
   * prices' `inStock` instead (once per size and condition, not per price kind).
   */
  stock?: ObservedStock[];
  /** For searches (watchmarket.search): the listing ids the result held, so new/vanished listings can be seen. */
  listingIds?: string[];
  observedAt: Date;
}
