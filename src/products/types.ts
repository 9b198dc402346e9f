/**
 * One product across the sneaker marketplaces, found by its SKU (style code): `GET /api/v1/products/{sku}`.
 * The shape every part of the product feature shares (the answer, its history, tracking by SKU, the spread and
 * new-low alerts, the dashboard and MCP tools). JSON fields are snake_case like the rest of the API.
 *
 * Prices are major units of the currency the marketplace answered in: never converted (no rate anybody stated),
 * so a marketplace that cannot serve the requested currency keeps its own, labelled. A value a source lacks is null.
 */
import type { ErrorCode } from '../errors.js';

/** The marketplaces a sneaker SKU is looked up on, in answer order. */
export const PRODUCT_MARKETPLACES = ['resale-a', 'resale-b', 'sportswear'] as const;
export type ProductMarketplace = (typeof PRODUCT_MARKETPLACES)[number];

/**
 * The size system a size row is stated in. US men's, women's and kids' sizes are different sizes and never share a
 * row (a women's 11.5 is not a men's 10 row, a GS 7Y is not a men's 7). `other` holds labels with no US number
 * (apparel `M`, `XL`; a size only stated in EU/UK/CM).
 */
export const SIZE_SYSTEMS = ['us_men', 'us_women', 'us_kids', 'other'] as const;
export type SizeSystem = (typeof SIZE_SYSTEMS)[number];

/** What an offer is, named for what the marketplace states. */
export const OFFER_KINDS = [
  'lowest_ask',
  'highest_bid',
  'last_sale',
  'lowest_price',
  'instant_ship_lowest_price',
  'retail',
] as const;
export type OfferKind = (typeof OFFER_KINDS)[number];

/** Kinds one can buy at (best buy is the lowest in-stock one) and sell at (best sell is the highest). */
export const BUY_KINDS: readonly OfferKind[] = ['lowest_ask', 'lowest_price', 'instant_ship_lowest_price', 'retail'];
export const SELL_KINDS: readonly OfferKind[] = ['highest_bid'];

export interface Money {
  /** Major units (GOAT's cents ÷ 100). */
  amount: number;
  /** ISO 4217. */
  currency: string;
}

export interface ProductOffer extends Money {
  marketplace: ProductMarketplace;
  kind: OfferKind;
  /** The marketplace's own condition where it distinguishes one (GOAT `new_no_defects`, `used`), else `new`/null. */
  condition: string | null;
  /** Where the marketplace says so, else null. */
  in_stock: boolean | null;
  /** The page a person would open to act on this offer. */
  url: string | null;
}

export interface ProductSize {
  /** The size number/label within `size_system`: `10`, `10.5`, `7Y`, `XL`. */
  size: string;
  size_system: SizeSystem;
  /** GTINs (UPC/EAN) of this size where a marketplace states them (StockX variants, Nike sizes). */
  gtins: string[];
  /**
   * How the marketplaces' entries were joined into this row: `gtin` where two sides shared a GTIN, `size` where
   * they were joined by the size label in the same system, null when only one marketplace has the size.
   */
  matched_by: 'gtin' | 'size' | null;
  offers: ProductOffer[];
  /**
   * The cheapest buy offer (BUY_KINDS) of a new pair, not said out of stock, in the requested currency; null when none
   * can be compared.
   */
  best_buy: ProductOffer | null;
  /** The highest sell offer (SELL_KINDS) for a new pair in the requested currency; null when none. */
  best_sell: ProductOffer | null;
}

export type SourceStatus = 'found' | 'not_found' | 'error';

/** How one marketplace answered for this SKU. */
export interface ProductSource {
  marketplace: ProductMarketplace;
  status: SourceStatus;
  /** The marketplace's own product id (StockX UUID, GOAT numeric template id, Nike style-colour), when found. */
  id: string | null;
  slug: string | null;
  url: string | null;
  /** The currency this marketplace's prices are in (the requested one, or its own when it cannot serve that). */
  currency: string | null;
  /** When status is `error`: the problem code and message its lookup failed with. */
  error: { code: ErrorCode; message: string } | null;
}

export interface ProductAnswer {
  /** The SKU as asked, normalised (upper case, one hyphen/space style as the marketplaces print it). */
  sku: string;
  country: string;
  /** The currency asked for (or the country's default). */
  currency: string;
  product: {
    name: string | null;
    brand: string | null;
    image: string | null;
    retail_price: Money | null;
    /** ISO date (YYYY-MM-DD). */
    release_date: string | null;
  };
  marketplaces: ProductSource[];
  sizes: ProductSize[];
}
