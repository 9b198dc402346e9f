/**
 * Fallback source when the product page is blocked: `api.nike.com/product_feed/threads/v3` (notes §2.D; three real
 * 2026 answers in ../shared/upstream-samples/nike/product-feed-threads-v3_{us,gb,jp}_…). Its `objects[].productInfo[]`
 * carry `merchProduct` (ids, style/colour codes, brand, sport tags, product type), `merchPrice`, `productContent`
 * (texts) and `skus` (sizes, GTINs, the country's localized size). Everything the page alone has is null, and the
 * operation names it in X-Missing-Parts.
 */
import { MarketlensError, upstreamChanged } from '../../errors.js';
import { isObj, num, productInfoWith, str, strings, type Obj } from './record-parts.js';
import type { SportswearProduct } from './schema.js';
import { STOREFRONT_LANGUAGES } from './storefronts.js';

/** nike.com's consumer channel (notes §4). */
export const NIKE_WEB_CHANNEL = 'd9a5bc42-4b9c-4976-858a-f159cf99c647';

export interface FeedTarget {
  styleColor: string;
  /** Upper-case marketplace (storefront country), e.g. `GB`. */
  marketplace: string;
  /** Feed language (`en`, `en-GB`, `ja`), or null when the storefront's is not known: then not filtered on. */
  language: string | null;
}

/** The language the feed uses for a storefront: the URL's language segment, else the notes' table. */
export function feedLanguage(country: string, urlLanguage: string | null): string | null {
  return urlLanguage ?? STOREFRONT_LANGUAGES[country] ?? null;
}

/**
 * The threads/v3 request for one colourway (the query the notes show, filtered by style-colour).
 * @example feedUrl({ styleColor: 'IU0767-001', marketplace: 'GB', language: 'en-GB' })
 */
export function feedUrl(t: FeedTarget): string {
  const filters = [
    `marketplace(${t.marketplace})`,
    ...(t.language ? [`language(${t.language})`] : []),
    `channelId(${NIKE_WEB_CHANNEL})`,
    `productInfo.merchProduct.styleColor(${t.styleColor})`,
  ];
  return `https://api.nike.com/product_feed/threads/v3/?${filters.map((f) => `filter=${encodeURIComponent(f)}`).join('&')}`;
}

/**
 * The colourway's record from the text of a threads/v3 answer.
 * @example parseFeedText(res.body, target).style_color // 'IU0767-001'
 */
export function parseFeedText(text: string, t: FeedTarget): SportswearProduct {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw upstreamChanged('sportswear', 'product_feed/threads/v3 answer is not JSON', text);
  }
  return parseFeed(json, t);
}

/**
 * The colourway's record from a threads/v3 answer. Objects of another marketplace or language are skipped even if
 * the API sent them (the filter is ours to enforce).
 * @example parseFeed(json, { styleColor: 'IU0767-001', marketplace: 'GB', language: 'en-GB' }).prices.currency // 'GBP'
 */
export function parseFeed(json: unknown, t: FeedTarget): SportswearProduct {
  if (!isObj(json) || !Array.isArray(json.objects)) {
    throw upstreamChanged(
      'sportswear',
      'product_feed/threads/v3 answer has no objects[]',
      JSON.stringify(json)?.slice(0, 500),
    );
  }
  const want = t.styleColor.toUpperCase();
  for (const o of json.objects.filter(isObj)) {
    if (String(o.marketplace ?? '').toUpperCase() !== t.marketplace) continue;
    if (t.language && String(o.language ?? '').toLowerCase() !== t.language.toLowerCase()) continue;
    const infos = Array.isArray(o.productInfo) ? o.productInfo.filter(isObj) : [];
    const hit = infos.find(
      (pi) => isObj(pi.merchProduct) && String(pi.merchProduct.styleColor ?? '').toUpperCase() === want,
    );
    if (hit) return toRecord(hit, t.marketplace);
  }
  throw new MarketlensError('not_found', `sportswear has no product ${want} in the ${t.marketplace} product feed`);
}

function toRecord(pi: Obj, marketplace: string): SportswearProduct {
  const mp = pi.merchProduct as Obj;
  const price = isObj(pi.merchPrice) ? pi.merchPrice : undefined;
  const content = isObj(pi.productContent) ? pi.productContent : {};
  const skus = Array.isArray(pi.skus) ? pi.skus.filter(isObj) : [];
  return {
    id: str(mp.id) ?? (null as unknown as string), // no id: the record check reports the change
    badge: null,
    sizes: skus.map((s) => {
      const spec = (Array.isArray(s.countrySpecifications) ? s.countrySpecifications.filter(isObj) : []).find(
        (c) => String(c.country ?? '').toUpperCase() === marketplace,
      );
      return {
        gtins: str(s.gtin) ? [{ gtin: s.gtin as string }] : null,
        label: s.nikeSize as string,
        status: null,
        merch_sku_id: str(s.id),
        sort_sequence: null,
        localized_label: str(spec?.localizedSize),
        localized_label_prefix: str(spec?.localizedSizePrefix),
      };
    }),
    brands: str(mp.brand) ? [mp.brand as string] : null,
    gender: null,
    prices: price
      ? {
          currency: str(price.currency),
          current_price: num(price.currentPrice),
          initial_price: num(price.fullPrice),
          employee_price: num(price.employeePrice),
          discount_percentage: null,
          employee_discount_percentage: null,
        }
      : null,
    pdp_url: null,
    more_info: null,
    color_code: str(mp.colorCode),
    sport_tags: strings(mp.sportTags),
    style_code: str(mp.styleCode),
    group_index: null,
    group_label: null,
    style_color: str(mp.styleColor)!,
    enhanced_pdp: null,
    net_quantity: null,
    product_info: productInfoWith({
      title: str(content.title),
      subtitle: str(content.subtitle),
      full_title: str(content.fullTitle),
      product_description: str(content.description),
      product_type: str(mp.productType),
      merch_product_id: str(mp.id),
      global_product_id: str(content.globalPid) ?? str(mp.pid),
      color_description: str(content.colorDescription),
      manufacturing_countries_of_origin: Array.isArray(content.manufacturingCountriesOfOrigin)
        ? content.manufacturingCountriesOfOrigin
        : null,
    }),
  };
}
