/**
 * The `query` of resale-a.product: a slug (`nike-dunk-low-retro-white-black-2021`), a stockx.com product URL (with
 * or without locale prefix), or a product UUID (GetMarketData's `product(id:)` takes UUIDs as well as slugs).
 */
import { invalidParam } from '../../errors.js';
import { parseMarketplaceUrl } from '../../upstream/url-guard.js';
import { RESALE_A_LANGUAGES } from './locale.js';

export type ProductRef = { kind: 'slug'; slug: string } | { kind: 'uuid'; uuid: string };

const SLUG = /^[A-Za-z0-9][A-Za-z0-9_-]{0,199}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LOCALE_SEGMENTS = new Set(Object.values(RESALE_A_LANGUAGES).filter(Boolean).concat('en'));

/** True when the input is meant as a URL rather than a slug (a scheme, a slash, or a dotted host). */
export function looksLikeUrl(input: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(input) || input.includes('/') || /^[^\s]+\.[a-z]{2,}(?:[/:?#]|$)/i.test(input);
}

/**
 * Reads the product `query`: 400 naming `query` for other hosts, non-product URLs and malformed slugs.
 * @example parseProductQuery('https://stockx.com/fr-fr/nike-x-stussy-bucket-hat-black?size=7')
 *   // { kind: 'slug', slug: 'nike-x-stussy-bucket-hat-black' }
 */
export function parseProductQuery(input: string): ProductRef {
  const text = input.trim();
  if (UUID.test(text)) return { kind: 'uuid', uuid: text.toLowerCase() };
  if (!looksLikeUrl(text)) {
    if (!SLUG.test(text)) throw invalidParam('query', 'must be a StockX product slug, product URL or product id');
    return { kind: 'slug', slug: text };
  }
  const url = parseMarketplaceUrl('resale-a', 'query', text);
  const segments = url.pathname.split('/').filter(Boolean);
  if (segments.length > 0 && LOCALE_SEGMENTS.has(segments[0]!.toLowerCase())) segments.shift();
  const slug = segments.length === 1 ? safeDecode(segments[0]!) : undefined;
  if (slug === undefined || !SLUG.test(slug)) {
    throw invalidParam('query', 'is not a StockX product URL (expected https://stockx.com/{slug})');
  }
  return { kind: 'slug', slug };
}

/** A path segment decoded, or undefined when its percent-encoding is broken (`%zz`): a 400, never a URIError. */
function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * The search `query`: free text, or a stockx.com URL whose slug is searched (other hosts → 400).
 * @example searchText('https://stockx.com/adidas-yeezy-slide-slate-grey') // 'adidas-yeezy-slide-slate-grey'
 */
export function searchText(input: string | undefined): string {
  const text = (input ?? '').trim();
  if (!/^https?:\/\//i.test(text)) return text;
  const ref = parseProductQuery(text);
  return ref.kind === 'slug' ? ref.slug : ref.uuid;
}
