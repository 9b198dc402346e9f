/**
 * The upstream bodies of one electronics lookup. Each source is fetched on its own; a failed source leaves its slot
 * empty and its error in `errors`, so the pure parser can build a partial record and say what is missing.
 */
import type { SourceError } from '../../operations/sources.js';
import type { PageData } from './parse-page.js';

export type { SourceError } from '../../operations/sources.js';

export const SOURCES = ['page', 'pricing', 'priceView', 'reviews', 'official'] as const;
export type SourceName = (typeof SOURCES)[number];

export interface ElectronicsBodies {
  /** The SKU looked up (from the query, or resolved through the page). */
  sku?: string;
  /** Product page HTML (any generation). */
  page?: string;
  /** Page data already extracted from a page (saved scraper captures for `marketlens parse`). */
  pageData?: PageData;
  /** `/pricing/v1/price/item` JSON text. */
  pricing?: string;
  /** `/priceview/query/sku` JSON text. */
  priceView?: string;
  /** `/ugc/v2/reviews` JSON text. */
  reviews?: string;
  /** The page and order asked of the reviews API. */
  reviewsRequest?: { page: number; sort: string };
  /** Official Products API JSON text (only when an API key is configured). */
  official?: string;
  /** Why each failed source failed. */
  errors: Partial<Record<SourceName, SourceError>>;
}
