/**
 * `query` (+ `country`) → the product page to fetch. Accepted (notes §2.A, §6):
 *   https://www.nike.com/t/{slug}/{STYLE-COLOR}             US
 *   https://www.nike.com/{cc}/t/{slug}/{STYLE-COLOR}        country storefront (fr, gb, cz, …)
 *   https://www.nike.com/{cc}/{lang}/t/{slug}/{STYLE-COLOR} bilingual storefronts (/ca/fr/, /es/ca/, /us/es/)
 *   https://www.nike.com/{…}/t/-/-/{STYLE-COLOR}            placeholder slugs, redirected by Nike to the canonical page
 *   DD1391-100 (+ country, default US)                      fetched as https://www.nike.com/{cc}/t/-/{STYLE-COLOR}
 * Host: nike.com only (`www.` optional, scheme optional). Query strings and fragments are dropped.
 */
import { invalidParam } from '../../errors.js';
import { parseMarketplaceUrl } from '../../upstream/url-guard.js';
import { normaliseCountry } from './storefronts.js';

export const NIKE_ORIGIN = 'https://www.nike.com';

/** Style-colour: style code, dash, colour code (DD1391-100, AR3565-103, 553558-092). */
const STYLE_COLOR = '[A-Za-z0-9]{5,8}-[A-Za-z0-9]{3}';
const STYLE_COLOR_ONLY = new RegExp(`^${STYLE_COLOR}$`);

/** True when `text` is a bare style-colour code (`DD1391-100`). */
export function isStyleColor(text: string): boolean {
  return STYLE_COLOR_ONLY.test(text.trim());
}
/** [/{cc}][/{lang}]/t/{slug segments…}/{STYLE-COLOR}[/] */
const PRODUCT_PATH = new RegExp(`^(?:/([A-Za-z]{2}))?(?:/([A-Za-z]{2}))?/t/((?:[^/]+/)*?)(${STYLE_COLOR})/?$`);

export interface ProductTarget {
  /** Upper-case style-colour, e.g. `DD1391-100`. */
  styleColor: string;
  /** Upper-case storefront country, e.g. `US`, `FR`. */
  country: string;
  /** Language segment of the URL (`fr` in /ca/fr/), or null when the storefront's default applies. */
  language: string | null;
  /** The page to fetch, on the real host. */
  pageUrl: string;
}

/**
 * Resolves the request parameters; throws 400 naming `query` or `country`.
 * @example resolveProductTarget('https://www.nike.com/fr/t/x-AbCdEf/DD1391-100').country // 'FR'
 * @example resolveProductTarget('DD1391-100', 'GB').pageUrl // 'https://www.nike.com/gb/t/-/DD1391-100'
 */
export function resolveProductTarget(query: string, country?: string): ProductTarget {
  const requested = country === undefined ? undefined : normaliseCountry(country);
  if (country !== undefined && requested === undefined) {
    throw invalidParam('country', 'must be an ISO 3166-1 alpha-2 country code such as US, GB, FR, DE, JP');
  }
  const text = query.trim();
  if (STYLE_COLOR_ONLY.test(text)) {
    const styleColor = text.toUpperCase();
    const cc = requested ?? 'US';
    const prefix = cc === 'US' ? '' : `/${cc.toLowerCase()}`;
    return { styleColor, country: cc, language: null, pageUrl: `${NIKE_ORIGIN}${prefix}/t/-/${styleColor}` };
  }
  if (!/[./]/.test(text)) {
    throw invalidParam('query', 'must be a Nike product page URL or a style-colour code such as DD1391-100');
  }
  const url = parseMarketplaceUrl('sportswear', 'query', text);
  const m = PRODUCT_PATH.exec(url.pathname);
  // api.nike.com is a Nike host for the SSRF guard, but it serves no product pages.
  if (url.hostname === 'api.nike.com' || !m) {
    throw invalidParam(
      'query',
      'is not a Nike product page URL (expected https://www.nike.com/[{country}/]t/{slug}/{STYLE-COLOR})',
    );
  }
  const [, ccSeg, langSeg, slug, code] = m;
  const cc = ccSeg === undefined ? 'US' : normaliseCountry(ccSeg);
  if (cc === undefined) throw invalidParam('query', `"${ccSeg}" in the URL path is not a Nike storefront country`);
  if (requested !== undefined && requested !== cc) {
    throw invalidParam('country', `is ${requested} but the URL is the ${cc} storefront; the URL decides, drop country`);
  }
  const styleColor = code!.toUpperCase();
  const language = langSeg?.toLowerCase() ?? null;
  const prefix = (ccSeg ? `/${ccSeg.toLowerCase()}` : '') + (language ? `/${language}` : '');
  // The slug keeps its case: it ends with the product's group key (…-76KnBL).
  return { styleColor, country: cc, language, pageUrl: `${NIKE_ORIGIN}${prefix}/t/${slug}${styleColor}` };
}

/**
 * The style-colour at the end of a product page path, or undefined.
 * @example styleColorOfUrl('https://www.nike.com/t/x-AbCdEf/DD1391-100?vst=x') // 'DD1391-100'
 */
export function styleColorOfUrl(url: string): string | undefined {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  return PRODUCT_PATH.exec(path)?.[4]?.toUpperCase();
}
