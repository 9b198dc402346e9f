/**
 * The one small interface between the product answer and each marketplace: a `SkuSource` finds the SKU on its
 * marketplace and turns that marketplace's own lookups into size entries. The marketplace-specific knowledge (how
 * to search, how sizes are labelled) lives in that marketplace's folder (`src/marketplaces/<id>/sku-source.ts`).
 */
import type { Product as ResaleAProduct, SearchHit as ResaleASearchHit } from '../marketplaces/resale-a/schema.js';
import type { PriceEntry as ResaleBPriceEntry, ResaleBProduct } from '../marketplaces/resale-b/schema.js';
import type { SportswearProduct } from '../marketplaces/sportswear/schema.js';
import type { LookupResult } from '../operations/lookup.js';
import type { ResolveContext } from '../operations/types.js';
import type { Money, ProductAnswer, ProductMarketplace, ProductOffer, SizeSystem } from './types.js';

/** The record each lookup a source may run answers with. */
export interface ProductLookupRecords {
  'resale-a.search': ResaleASearchHit[];
  'resale-a.product': ResaleAProduct;
  'resale-b.prices': ResaleBPriceEntry[];
  'resale-b.product': ResaleBProduct;
  'sportswear.product': SportswearProduct;
}
export type ProductLookupName = keyof ProductLookupRecords;

export interface LookupRecord<R> {
  record: R;
  /** Record parts left null because their source failed (the lookup's X-Missing-Parts). */
  missingParts: string[];
  cache: LookupResult['cache'];
}

/**
 * Runs a lookup through the normal lookup path (cache, de-duplication, limiter, history). Rejects with the lookup's
 * own MarketlensError (`not_found`, `upstream_blocked` …). As a ResolveContext it serves the marketplaces' own
 * finders (`findGoatProduct`).
 */
export interface ProductLookups extends ResolveContext {
  run<N extends ProductLookupName>(
    operation: N,
    params: Record<string, unknown>,
  ): Promise<LookupRecord<ProductLookupRecords[N]>>;
}

/** Country and currency asked for (currency already defaulted from the country). */
export interface ProductLocale {
  country: string;
  currency: string;
}

/** One size of one marketplace, before rows are joined across marketplaces. */
export interface SizeEntry {
  size: string;
  system: SizeSystem;
  /** GTIN-14 (UPC-12 and EAN-13 left-padded with zeros), so one barcode compares equal however it was printed. */
  gtins: string[];
  offers: ProductOffer[];
}

export type ProductHeader = ProductAnswer['product'];

/** What a marketplace answered for the SKU. */
export interface MarketplaceAnswer {
  id: string;
  slug: string | null;
  url: string | null;
  /** The currency its prices are in. */
  currency: string | null;
  entries: SizeEntry[];
  /** What it states about the product (null where it does not). */
  header: ProductHeader;
  /** Parts of its lookups left null because their source failed, named `<marketplace>.<part>`. */
  missingParts: string[];
}

export interface SkuSource {
  marketplace: ProductMarketplace;
  /**
   * Finds `sku` and runs the lookups that price it. Resolves null when the marketplace does not know the SKU; rejects
   * with the failure otherwise.
   */
  answer(sku: string, locale: ProductLocale, lookups: ProductLookups): Promise<MarketplaceAnswer | null>;
}

/**
 * A barcode as GTIN-14: digits only, left-padded (a UPC-12 `000111222357` and its GTIN-14 `00000111222357` are one).
 * Undefined for anything that is not 8 to 14 digits.
 */
export function gtin14(code: string): string | undefined {
  const digits = code.trim();
  return /^\d{8,14}$/.test(digits) ? digits.padStart(14, '0') : undefined;
}

/** An offer, or nothing when the marketplace states no price (null, or GOAT's 0 for "never sold"). */
export function offer(
  amount: number | null | undefined,
  fields: Omit<ProductOffer, 'amount' | 'currency'> & { currency: string | null },
): ProductOffer[] {
  if (amount === null || amount === undefined || !(amount > 0) || fields.currency === null) return [];
  return [{ ...fields, currency: fields.currency, amount }];
}

/** A size label's number without trailing zeros: `10.0` → `10`; other labels unchanged. */
export function sizeLabel(text: string): string {
  const t = text.trim();
  return /^\d+(?:\.\d+)?$/.test(t) ? String(Number(t)) : t;
}

export const EMPTY_HEADER: ProductHeader = {
  name: null,
  brand: null,
  image: null,
  retail_price: null,
  release_date: null,
};

/** `YYYY-MM-DD` of an ISO date or timestamp; null for anything else. */
export function isoDate(text: string | null | undefined): string | null {
  const m = /^(\d{4}-\d{2}-\d{2})(?:$|T)/.exec(text?.trim() ?? '');
  return m ? m[1]! : null;
}

export type { Money };
