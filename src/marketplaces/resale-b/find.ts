/**
 * A GOAT product named by SKU or slug → its template (id, slug, page), through `resale-b.search` on the normal lookup
 * path: one search request, cached like any search. Used by resale-b.prices and resale-b.product for a `query` that is
 * not their own identifier, and by the cross-marketplace product (src/products/).
 */
import { MarketlensError } from '../../errors.js';
import type { ResolveContext } from '../../operations/types.js';
import { resaleBSearch } from './search.js';
import type { GoatSearchHit } from './search-schema.js';

/** What prices and product accept as a SKU or slug: letters, digits, spaces, dots, underscores and hyphens. */
export const GOAT_QUERY = /^[A-Za-z0-9][A-Za-z0-9 ._-]*$/;

/** A numeric product template id, which resale-b.prices uses as is. */
export function isTemplateId(query: string): boolean {
  return /^\d{1,12}$/.test(query.trim());
}

/**
 * Whether a bare `query` is a SKU rather than a slug. GOAT slugs are the name's words and the SKU's (at least three
 * hyphen-separated words, no spaces); SKUs are one or two words with a digit, five characters or more without their
 * separators (`DN3707-100`, `389368 10`, `1143776K-SAN`, `ID2350`). Anything with a space is taken as a SKU.
 */
export function isSkuQuery(query: string): boolean {
  const q = query.trim();
  if (!GOAT_QUERY.test(q) || /[.]/.test(q) || !/\d/.test(q) || normalizeSku(q).length < MIN_SLUG_SKU) return false;
  return /\s/.test(q) || q.split(/[-_]/).length <= 2;
}

/** Whether a bare `query` has a GOAT slug's shape: three or more words of letters and digits joined by hyphens. */
export function isSlugQuery(query: string): boolean {
  return /^[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+){2,}$/.test(query.trim());
}

export interface GoatProductRef {
  /** Numeric product template id (what resale-b.prices takes). */
  id: string;
  slug: string;
  /** Storefront page (what resale-b.product takes). */
  url: string;
  /** The SKU as GOAT writes it, when the search hit carried one (the consumer search does not). */
  sku: string | null;
}

/** `DN3707-100`, `dn3707 100`, `DN3707100` → `dn3707100`: SKUs compared case-, space- and hyphen-insensitively. */
export function normalizeSku(s: string): string {
  return s.toLowerCase().replace(/[\s_-]+/g, '');
}

/** The shortest SKU matched against slug words. */
const MIN_SLUG_SKU = 5;

/**
 * Whether `hit` is the product with this SKU. A hit without a SKU (the consumer search sends none) matches when its
 * slug ends with the SKU as whole slug words — GOAT slugs end with the SKU (`…-reimagined-dn3707-100`,
 * `…-version-77609201` for `776092 01`). A part of a word never matches (`dn3707-100` is not `n3707-100`), nor does
 * a SKU shorter than five characters (`100` is no SKU, yet the last word of many slugs).
 */
export function hitHasSku(hit: Pick<GoatSearchHit, 'sku' | 'slug'>, sku: string): boolean {
  const wanted = normalizeSku(sku);
  if (wanted === '') return false;
  if (hit.sku !== null) return normalizeSku(hit.sku) === wanted;
  if (wanted.length < MIN_SLUG_SKU) return false;
  const words = hit.slug.toLowerCase().split('-');
  let tail = '';
  for (let i = words.length - 1; i >= 0 && tail.length < wanted.length; i--) tail = words[i] + tail;
  return tail === wanted;
}

/**
 * The hit `query` names: an exact SKU match first, else an exact slug match (case-insensitive), else — for a numeric
 * query — the template with that id; null when none.
 */
export function matchGoatHit(hits: readonly GoatSearchHit[], query: string): GoatSearchHit | null {
  const q = query.trim();
  const slug = q.toLowerCase();
  return (
    hits.find((h) => h.sku !== null && hitHasSku(h, q)) ??
    hits.find((h) => h.slug.toLowerCase() === slug) ??
    hits.find((h) => h.sku === null && hitHasSku(h, q)) ??
    (/^\d+$/.test(q) ? hits.find((h) => h.id === q) : undefined) ??
    null
  );
}

/**
 * Finds the GOAT product a SKU or slug names, or null when GOAT's search knows none. Errors of the search itself
 * (blocked, timeout …) propagate.
 * @example await findGoatProduct('DN3707-100', lookups.resolveContext({ deadlineAt }))
 *   // { id: '1101598', slug: 'air-jordan-3-retro-white-cement-reimagined-dn3707-100', url: 'https://www.goat.com/sneakers/…', sku: 'DN3707 100' }
 */
export async function findGoatProduct(query: string, ctx: ResolveContext): Promise<GoatProductRef | null> {
  const hits = await ctx.lookup(resaleBSearch, { query: query.trim() });
  const hit = matchGoatHit(hits, query);
  return hit ? { id: hit.id, slug: hit.slug, url: hit.url, sku: hit.sku } : null;
}

/** `findGoatProduct`, with "no such product" as the 404 naming the query that operations answer. */
export async function requireGoatProduct(query: string, ctx: ResolveContext): Promise<GoatProductRef> {
  const found = await findGoatProduct(query, ctx);
  if (found) return found;
  throw new MarketlensError('not_found', `resale-b has no product with SKU or slug "${query.trim().slice(0, 100)}"`);
}
