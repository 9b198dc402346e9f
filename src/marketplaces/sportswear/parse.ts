/**
 * Pure parser: Nike product page HTML → spec §2.7 record. The data is the page's `__NEXT_DATA__`
 * (notes §2.A): `props.pageProps.productGroups[g].products[styleColor]` holds every colourway of every fit/age
 * group, `props.pageProps.selectedProduct` the colourway the URL selected. The record copies the product object
 * (snake_cased); `product_info` merges `productInfo` with the product-level keys the notes place on the product
 * itself. Text stays in the storefront's language; nothing is translated, derived or invented.
 */
import { MarketlensError, upstreamChanged } from '../../errors.js';
import { extractNextData } from '../../util/next-data.js';
import { snakeKeysDeep } from '../../util/snake-case.js';
import { threadsProducts, threadsRecord } from './parse-threads.js';
import type { SportswearProduct, SportswearProductInfo } from './schema.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Page UI state the notes saw in real HTML without knowing its container: looked up on pageProps as well. */
const UI_STATE_KEYS = new Set(['selectedSku', 'isSkusRequestInFlight', 'sizeSelectError']);

/** The chosen colourway and the objects its fields are read from, most specific first. */
interface Colourway {
  styleColor: string;
  /** The product object(s): the group's colourway, then `selectedProduct` when it is the same colourway. */
  products: Obj[];
  group: Obj | undefined;
  pageProps: Obj;
}

/**
 * Parses a product page. `styleColor` picks the colourway; without one (a saved page parsed from the CLI) the
 * page's selected product is taken.
 * @example parseProductPage(html, 'DD1391-100').product_info.title // 'Nike Dunk Low Retro'
 */
export function parseProductPage(html: string, styleColor: string | undefined): SportswearProduct {
  const pageProps = readPageProps(html);
  // The 2023 generation keeps its products in the Redux store (`initialState.Threads.products`), parse-threads.ts.
  const threads = threadsProducts(pageProps);
  if (threads && !isObj(pageProps.selectedProduct) && !Array.isArray(pageProps.productGroups))
    return threadsRecord(threads, styleColor);
  const colourway = pickColourway(pageProps, styleColor);
  return toRecord(colourway);
}

function readPageProps(html: string): Obj {
  let next: unknown;
  try {
    next = extractNextData(html);
  } catch {
    throw upstreamChanged('sportswear', 'product page __NEXT_DATA__ is not valid JSON', html.slice(0, 500));
  }
  if (next === undefined) throw upstreamChanged('sportswear', 'product page has no __NEXT_DATA__', html.slice(0, 500));
  const pageProps = isObj(next) && isObj(next.props) ? next.props.pageProps : undefined;
  // Next.js renders its error page (page "/_error") for unknown routes; a 404 there is a missing product.
  if (isObj(next) && next.page === '/_error' && isObj(pageProps) && pageProps.statusCode === 404) {
    throw new MarketlensError('not_found', 'sportswear has no such product page');
  }
  if (!isObj(pageProps))
    throw upstreamChanged('sportswear', '__NEXT_DATA__ has no props.pageProps', JSON.stringify(next));
  return pageProps;
}

/** The colourway by style-colour among the product groups; `selectedProduct` only when it is that colourway. */
function pickColourway(pageProps: Obj, wanted: string | undefined): Colourway {
  // `initialState.product.selectedProduct` is the older Redux generation of the page (notes §2.A, §7).
  const legacy =
    isObj(pageProps.initialState) && isObj(pageProps.initialState.product)
      ? pageProps.initialState.product.selectedProduct
      : undefined;
  const selected = isObj(pageProps.selectedProduct) ? pageProps.selectedProduct : isObj(legacy) ? legacy : undefined;
  const groups = Array.isArray(pageProps.productGroups) ? pageProps.productGroups.filter(isObj) : [];
  if (!selected && groups.length === 0) {
    throw upstreamChanged(
      'sportswear',
      'product page has neither selectedProduct nor productGroups',
      JSON.stringify(pageProps),
    );
  }
  const styleColor = (
    wanted ?? (typeof selected?.styleColor === 'string' ? selected.styleColor : undefined)
  )?.toUpperCase();
  if (styleColor === undefined) {
    throw new MarketlensError('invalid_parameter', 'query: the page selects no product; name the style-colour', {
      errors: [{ param: 'query', message: 'the page selects no product; name the style-colour' }],
    });
  }
  const selectedMatches = selected !== undefined && sameCode(selected.styleColor, styleColor);
  for (const group of groups) {
    const products = isObj(group.products) ? group.products : {};
    const hit = Object.entries(products).find(
      ([key, p]) => isObj(p) && (sameCode(key, styleColor) || sameCode(p.styleColor, styleColor)),
    );
    if (hit) {
      const product = hit[1] as Obj;
      const products2 = selectedMatches && selected !== product ? [product, selected] : [product];
      return { styleColor, products: products2, group, pageProps };
    }
  }
  if (selectedMatches) return { styleColor, products: [selected], group: undefined, pageProps };
  throw new MarketlensError('not_found', `sportswear has no colourway ${styleColor} on this product page`);
}

function sameCode(value: unknown, styleColor: string): boolean {
  return typeof value === 'string' && value.toUpperCase() === styleColor;
}

/** Spellings of the enhanced content cards: the real 2025 page says `enhancedPDP`; the notes' guess was `enhancedPdp`. */
const ENHANCED_PDP_KEYS = ['enhancedPDP', 'enhancedPdp'];

/** First value present under `key` in `sources` (null counts as present: upstream said "none"), else null. */
function pick(sources: readonly (Obj | undefined)[], key: string): unknown {
  for (const s of sources) if (s !== undefined && s[key] !== undefined) return s[key];
  return null;
}

/**
 * A value typed as the record field it fills, unchecked here: the record copies upstream's values, and parseChecked
 * runs the record schema over the whole record afterwards (a wrong type there is upstream_changed, never a 500).
 */
const unchecked = <T>(value: unknown): T => value as T;

function toRecord(c: Colourway): SportswearProduct {
  const P = c.products;
  const get = <T>(key: string): T => unchecked(pick(P, key));
  const info = buildProductInfo(c);
  return {
    id: get('id'),
    badge: get('badge'),
    sizes: mapSizes(get('sizes')),
    brands: get('brands'),
    // The spec's gender is an integer; the page carries `genders` strings: null unless an integer is there (CONTRACT §7).
    gender: Number.isInteger(get('gender')) ? get<number>('gender') : null,
    prices: mapPrices(get('prices')),
    pdp_url: mapPdpUrl(get('pdpUrl')),
    more_info: unchecked(snakeKeysDeep(get('moreInfo'))),
    color_code: get('colorCode'),
    sport_tags: get('sportTags'),
    style_code: get('styleCode'),
    // A per-product copy wins (the record copies the product); else the group the colourway sits in.
    group_index: unchecked(pick([...P, c.group], 'groupIndex')),
    group_label: unchecked(pick([...P, c.group], 'groupLabel')),
    style_color: typeof get('styleColor') === 'string' ? get<string>('styleColor') : c.styleColor,
    enhanced_pdp: unchecked(snakeKeysDeep(ENHANCED_PDP_KEYS.map((k) => pick(P, k)).find((v) => v !== null) ?? null)),
    net_quantity: get('netQuantity'),
    product_info: info,
  };
}

function mapSizes(sizes: unknown): SportswearProduct['sizes'] {
  if (!Array.isArray(sizes)) return unchecked(sizes); // not a list: the record check reports the change
  return sizes.map((size: unknown) => {
    const s = isObj(size) ? size : {};
    const field = <T>(key: string): T => unchecked(s[key] ?? null);
    return {
      gtins: Array.isArray(s.gtins)
        ? s.gtins.map((g: unknown) => ({ gtin: unchecked<string>(isObj(g) ? (g.gtin ?? null) : null) }))
        : null,
      label: field('label'),
      status: field('status'),
      merch_sku_id: field('merchSkuId'),
      sort_sequence: field('sortSequence'),
      localized_label: field('localizedLabel'),
      localized_label_prefix: field('localizedLabelPrefix'),
    };
  });
}

function mapPrices(p: unknown): SportswearProduct['prices'] {
  if (!isObj(p)) return null;
  const v = <T>(k: string): T => unchecked(p[k] ?? null);
  return {
    currency: v('currency'),
    current_price: v('currentPrice'),
    initial_price: v('initialPrice'),
    employee_price: v('employeePrice'),
    discount_percentage: v('discountPercentage'),
    employee_discount_percentage: v('employeeDiscountPercentage'),
  };
}

function mapPdpUrl(u: unknown): SportswearProduct['pdp_url'] {
  if (typeof u === 'string') return { url: u, canonical_url: null };
  if (!isObj(u)) return null;
  return { url: unchecked(u.url ?? null), canonical_url: unchecked(u.canonicalUrl ?? null) };
}

/** `product_info` field → upstream key; every one is looked up in productInfo first, then on the product. */
const PRODUCT_INFO_KEYS: Readonly<Record<keyof SportswearProductInfo, string>> = {
  url: 'url',
  canonical_url: 'canonicalUrl',
  badge: 'badge',
  title: 'title',
  subtitle: 'subtitle',
  full_title: 'fullTitle',
  product_description: 'productDescription',
  origins: 'origins',
  product_details: 'productDetails',
  enhanced_benefits: 'enhancedBenefits',
  more_descriptions: 'moreDescriptions',
  size_fit_sections: 'sizeFitSections',
  features_and_benefits: 'featuresAndBenefits',
  sustainability_message: 'sustainabilityMessage',
  product_type: 'productType',
  selected_sku: 'selectedSku',
  content_images: 'contentImages',
  size_chart_url: 'sizeChartUrl',
  status_modifier: 'statusModifier',
  merch_product_id: 'merchProductId',
  global_product_id: 'globalProductId',
  availability_date: 'availabilityDate',
  color_description: 'colorDescription',
  is_launch_product: 'isLaunchProduct',
  is_member_product: 'isMemberProduct',
  size_select_error: 'sizeSelectError',
  is_promo_exclusion: 'isPromoExclusion',
  is_reserved_for_you: 'isReservedForYou',
  is_digital_gift_card: 'isDigitalGiftCard',
  is_restricted_access: 'isRestrictedAccess',
  is_physical_gift_card: 'isPhysicalGiftCard',
  show_availability_date: 'showAvailabilityDate',
  is_skus_request_in_flight: 'isSkusRequestInFlight',
  launch_attributes: 'launchAttributes',
  localized_label_prefix: 'localizedLabelPrefix',
  customization_path_name: 'customizationPathName',
  gift_card_message_value_added_service_id: 'giftCardMessageValueAddedServiceId',
  featured_attributes: 'featuredAttributes',
  consumer_release_type: 'consumerReleaseType',
  manufacturing_countries_of_origin: 'manufacturingCountriesOfOrigin',
  sustainability_disclaimer_message: 'sustainabilityDisclaimerMessage',
};

function buildProductInfo(c: Colourway): SportswearProductInfo {
  // productInfo of each product object first, then the product objects themselves (notes §3 places
  // statusModifier, contentImages, colorDescription, … on the product).
  const sources: Obj[] = [];
  for (const p of c.products) if (isObj(p.productInfo)) sources.push(p.productInfo);
  sources.push(...c.products);
  const out: Record<string, unknown> = {};
  for (const [field, key] of Object.entries(PRODUCT_INFO_KEYS)) {
    const from = UI_STATE_KEYS.has(key) ? [...sources, c.pageProps] : sources;
    out[field] = snakeKeysDeep(pick(from, key));
  }
  out.origins = mapHeaderBodies(out.origins);
  out.product_details = mapHeaderBodies(out.product_details);
  out.enhanced_benefits = mapHeaderBodies(out.enhanced_benefits);
  out.content_images = mapContentImages(out.content_images);
  out.sustainability_message = mapSustainability(out.sustainability_message);
  return out as SportswearProductInfo;
}

/** `{header, body[]}` blocks keep exactly those two keys (the spec's shape). */
function mapHeaderBodies(v: unknown): unknown {
  if (!Array.isArray(v)) return v;
  return v.map((b) => (isObj(b) ? { header: b.header ?? null, body: b.body ?? null } : b));
}

function mapContentImages(v: unknown): unknown {
  if (!Array.isArray(v)) return v;
  const image = (i: unknown) =>
    isObj(i) ? { id: i.id ?? null, url: i.url ?? null, aspect_ratio: i.aspect_ratio ?? null } : (i ?? null);
  return v.map((c) => {
    if (!isObj(c)) return c;
    const p = c.properties;
    return {
      card_type: c.card_type ?? null,
      properties: isObj(p)
        ? { alt_text: p.alt_text ?? null, portrait: image(p.portrait), squarish: image(p.squarish) }
        : (p ?? null),
    };
  });
}

/** The spec shows an array of `{body, json_body}`; a single message object is one element. */
function mapSustainability(v: unknown): unknown {
  const list = isObj(v) ? [v] : v;
  if (!Array.isArray(list)) return list;
  return list.map((m) => (isObj(m) ? { body: m.body ?? null, json_body: m.json_body ?? null } : m));
}
