/**
 * What the `query` parameter names: a SKU (from a bare number or any Best Buy product URL form), or a canonical
 * product URL without a SKU that must be resolved through the page (upstream notes §5).
 */
import { invalidParam } from '../../errors.js';
import { parseMarketplaceUrl } from '../../upstream/url-guard.js';

export type ProductRef = { sku: string; url?: URL } | { sku?: undefined; url: URL };

const BARE_SKU = /^\d{4,10}$/;

/**
 * Bare SKU or product URL → SKU (and the URL); 400 naming `query` otherwise.
 * @example parseProductQuery('https://www.bestbuy.com/site/x/6534615.p?skuId=6534615') // { sku: '6534615', url }
 * @example parseProductQuery('https://www.bestbuy.com/product/dell-x/J3K4L6JSFL') // { url } (resolve via the page)
 */
export function parseProductQuery(query: string): ProductRef {
  const q = query.trim();
  if (BARE_SKU.test(q)) return { sku: q };
  if (/^\d+$/.test(q)) throw invalidParam('query', 'a bare SKU has 4 to 10 digits, e.g. 6534615');
  const url = parseMarketplaceUrl('electronics', 'query', q);
  if (url.hostname === 'api.bestbuy.com') throw invalidParam('query', 'must be a www.bestbuy.com product page URL');
  const sku = skuFromUrl(url);
  if (sku !== undefined) return { sku, url };
  if (isSkulessProductUrl(url)) return { url };
  throw invalidParam(
    'query',
    'is not a Best Buy product page URL (…/site/<name>/<sku>.p, …/product/<name>/<id>[/sku/<sku>]) or a numeric SKU',
  );
}

/**
 * The SKU a product URL carries, tried in the notes' order: `skuId=`, `/<sku>.p`, `/sku/<sku>`, `/<sku>/openbox`.
 * @example skuFromUrl(new URL('https://www.bestbuy.com/product/x/J3K4L6JSFL/sku/6576719')) // '6576719'
 */
export function skuFromUrl(url: URL): string | undefined {
  const fromQuery = url.searchParams.get('skuId');
  if (fromQuery && /^\d+$/.test(fromQuery)) return fromQuery;
  const path = url.pathname;
  return (
    /\/(\d+)\.p(?:$|\/)/.exec(path)?.[1] ??
    /\/sku\/(\d+)(?:$|\/)/.exec(path)?.[1] ??
    /^\/product\/[^/]+\/(\d{7,})\/openbox(?:$|\/)/.exec(path)?.[1]
  );
}

/** The new canonical form `/product/<slug>/<BSIN>` (10-character id) that names no SKU. */
function isSkulessProductUrl(url: URL): boolean {
  return /^\/product\/[^/]+\/[A-Z0-9]{10}\/?$/i.test(url.pathname);
}

/**
 * One spelling per product: the SKU when the query names one, else the SKU-less product URL without query string.
 * @example canonicalQuery(parseProductQuery('https://www.bestbuy.com/site/x/6534615.p?skuId=6534615')) // '6534615'
 */
export function canonicalQuery(ref: ProductRef): string {
  if (ref.sku !== undefined) return ref.sku;
  return `https://www.bestbuy.com${ref.url.pathname.replace(/\/$/, '')}`;
}
