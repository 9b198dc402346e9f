/**
 * The 2023 generation of the Nike product page: `props.pageProps.initialState.Threads.products[styleColor]` (a real
 * September 2023 page, ../shared/upstream-samples/nike/pdp-2023-09_id_…; two US product objects of April 2023). It
 * predates `selectedProduct`: prices are flat on the product (`currentPrice`, `fullPrice`, `employeePrice`,
 * `currency`), sizes are `skus[{nikeSize, localizedSize, localizedSizePrefix, gtin, skuId}]`, images are `nodes`
 * cards. Fields that generation lacks are null (CONTRACT §7), so an older cached or mirrored page still parses.
 */
import { MarketlensError } from '../../errors.js';
import { isObj, num, productInfoWith, str, strings, type Obj } from './record-parts.js';
import type { SportswearProduct } from './schema.js';

/** The `Threads.products` map of a 2023 page, or undefined for other generations. */
export function threadsProducts(pageProps: Obj): Obj | undefined {
  const state = pageProps.initialState;
  if (!isObj(state) || !isObj(state.Threads) || !isObj(state.Threads.products)) return undefined;
  return Object.keys(state.Threads.products).length > 0 ? state.Threads.products : undefined;
}

/**
 * The colourway `styleColor` (or, from a saved page without a code, the page's only product) → §2.7 record.
 * @example threadsRecord(products, 'DZ6333-083').prices.currency // 'IDR'
 */
export function threadsRecord(products: Obj, styleColor: string | undefined): SportswearProduct {
  const entries = Object.entries(products).filter(([, p]) => isObj(p)) as Array<[string, Obj]>;
  let hit: [string, Obj] | undefined;
  if (styleColor === undefined) {
    if (entries.length !== 1) {
      throw new MarketlensError('invalid_parameter', 'query: the page holds several products; name the style-colour', {
        errors: [{ param: 'query', message: 'the page holds several products; name the style-colour' }],
      });
    }
    hit = entries[0];
  } else {
    const want = styleColor.toUpperCase();
    hit = entries.find(([k, p]) => k.toUpperCase() === want || String(p.styleColor ?? '').toUpperCase() === want);
    if (!hit) throw new MarketlensError('not_found', `sportswear has no colourway ${want} on this product page`);
  }
  return toRecord(hit![1], hit![0]);
}

function toRecord(p: Obj, key: string): SportswearProduct {
  const styleColor = str(p.styleColor) ?? key;
  const styleCode = str(p.styleCode);
  const skus = Array.isArray(p.skus) ? p.skus.filter(isObj) : [];
  return {
    id: str(p.id) ?? (null as unknown as string), // no id: the record check reports the change
    badge: null,
    sizes: skus.map((s) => ({
      gtins: str(s.gtin) ? [{ gtin: s.gtin as string }] : null,
      label: s.nikeSize as string,
      // This generation has no per-size status; availableSkus' stock level is not the spec's status.
      status: null,
      merch_sku_id: str(s.skuId),
      sort_sequence: null,
      localized_label: str(s.localizedSize),
      localized_label_prefix: str(s.localizedSizePrefix),
    })),
    brands: str(p.brand) ? [p.brand as string] : null,
    gender: null,
    prices:
      p.currency === undefined && p.currentPrice === undefined
        ? null
        : {
            currency: str(p.currency),
            current_price: num(p.currentPrice),
            initial_price: num(p.fullPrice),
            employee_price: num(p.employeePrice),
            discount_percentage: null,
            employee_discount_percentage: null,
          },
    pdp_url: null,
    more_info: null,
    // The style-colour is `{styleCode}-{colorCode}` by construction, so the colour part is read off it.
    color_code: styleCode && styleColor.startsWith(`${styleCode}-`) ? styleColor.slice(styleCode.length + 1) : null,
    sport_tags: strings(p.sportTags),
    style_code: styleCode,
    group_index: null,
    group_label: null,
    style_color: styleColor,
    enhanced_pdp: null,
    net_quantity: null,
    product_info: productInfoWith({
      title: str(p.title),
      subtitle: str(p.subTitle),
      full_title: str(p.fullTitle),
      product_description: str(p.description),
      product_type: str(p.productType),
      content_images: contentImages(p.nodes),
      size_chart_url: str(p.sizeChartUrl),
      merch_product_id: str(p.id),
      global_product_id: str(p.pid),
      color_description: str(p.colorDescription),
      manufacturing_countries_of_origin: strings(p.origin),
    }),
  };
}

/** `nodes[].nodes[]` image cards (`subType: image`, `properties.{altText, portrait, squarish}`) → content_images. */
function contentImages(nodes: unknown): SportswearProduct['product_info']['content_images'] {
  if (!Array.isArray(nodes)) return null;
  const cards = nodes
    .flatMap((n) => (isObj(n) && Array.isArray(n.nodes) ? n.nodes : []))
    .filter((c): c is Obj => isObj(c) && c.subType === 'image');
  const image = (i: unknown) =>
    isObj(i) ? { id: str(i.id), url: str(i.url), aspect_ratio: num(i.aspectRatio) } : null;
  return cards.map((c) => {
    const p = isObj(c.properties) ? c.properties : undefined;
    return {
      card_type: str(c.subType),
      properties: p ? { alt_text: str(p.altText), portrait: image(p.portrait), squarish: image(p.squarish) } : null,
    };
  });
}
