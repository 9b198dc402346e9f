/**
 * Nike as a source of the product answer. Nike's SKU is the style-colour (`DD1391-100`): nothing to search, the
 * product lookup takes it as is (its page, or the product feed filtered by style-colour when the page is blocked).
 * Nike sells at one price for every size, in its storefront's currency; a size's status is not stock, so its offers
 * say nothing about stock (`in_stock: null`).
 */
import { isMarketlensError } from '../../errors.js';
import type { MarketplaceAnswer, ProductLocale, SizeEntry, SkuSource } from '../../products/source.js';
import { EMPTY_HEADER, gtin14, isoDate, offer, sizeLabel } from '../../products/source.js';
import { sameSku } from '../../products/sku.js';
import type { SizeSystem } from '../../products/types.js';
import { NIKE_ORIGIN, isStyleColor } from './product-url.js';
import type { SportswearProduct } from './schema.js';

type NikeSize = SportswearProduct['sizes'][number];

const NUMBER = /^\d+(?:\.\d+)?$/;

/**
 * A Nike size and its system: `W 7` is women's, `7Y`/`10C` kids', `M 10` men's; a bare number is read through its
 * localized label (`M 10 / W 11.5` → men's 10, `W 7 / M 5.5` → women's) or the product group (`Men's`, `Women's`,
 * kids' groups). A bare number with neither (the product feed's sizes) or a non-US label (`EU 42`) is `other`: it
 * could be either gender's size and must not land on a men's row.
 */
export function nikeSize(size: NikeSize, groupLabel: string | null): { size: string; system: SizeSystem } {
  const label = size.label.trim();
  const prefixed = /^([MW])\s*(\d+(?:\.\d+)?)$/i.exec(label);
  if (prefixed)
    return { size: sizeLabel(prefixed[2]!), system: prefixed[1]!.toUpperCase() === 'W' ? 'us_women' : 'us_men' };
  if (/^\d+(?:\.\d+)?[YC]$/i.test(label)) return { size: label.toUpperCase(), system: 'us_kids' };
  if (!NUMBER.test(label)) return { size: size.localized_label ?? label, system: 'other' };
  const localized = size.localized_label?.trim() ?? '';
  const first = /^([MW])\s*(\d+(?:\.\d+)?)/i.exec(localized);
  if (first && sizeLabel(first[2]!) === sizeLabel(label)) {
    return { size: sizeLabel(label), system: first[1]!.toUpperCase() === 'W' ? 'us_women' : 'us_men' };
  }
  if (localized !== '' && !NUMBER.test(localized)) return { size: localized, system: 'other' };
  const group = groupLabel?.toLowerCase() ?? '';
  if (/kid|boy|girl|infant|toddler|baby|child|youth/.test(group)) return { size: sizeLabel(label), system: 'us_kids' };
  if (/women/.test(group)) return { size: sizeLabel(label), system: 'us_women' };
  if (/\bmen/.test(group)) return { size: sizeLabel(label), system: 'us_men' };
  return { size: sizeLabel(label), system: 'other' };
}

function productUrl(product: SportswearProduct, country: string): string {
  const prefix = country === 'US' ? '' : `/${country.toLowerCase()}`;
  return product.pdp_url?.url ?? product.product_info.url ?? `${NIKE_ORIGIN}${prefix}/t/-/${product.style_color}`;
}

/** One entry per size: Nike's own price (`retail`, the current price) with its GTINs. */
export function nikeEntries(product: SportswearProduct, country: string): SizeEntry[] {
  const url = productUrl(product, country);
  const price = product.prices;
  return product.sizes.map((size) => {
    const gtins = (size.gtins ?? []).map((g) => gtin14(g.gtin)).filter((g): g is string => g !== undefined);
    return {
      ...nikeSize(size, product.group_label),
      gtins: [...new Set(gtins)],
      offers: offer(price?.current_price, {
        marketplace: 'sportswear',
        kind: 'retail',
        condition: 'new',
        in_stock: null,
        url,
        currency: price?.currency ?? null,
      }),
    };
  });
}

export const sportswearSkuSource: SkuSource = {
  marketplace: 'sportswear',
  async answer(sku: string, locale: ProductLocale, lookups): Promise<MarketplaceAnswer | null> {
    // Not a style-colour: not a Nike SKU (an adidas `ID2350`, a New Balance `M990GL6`); no request.
    if (!isStyleColor(sku)) return null;
    let found;
    try {
      found = await lookups.run('sportswear.product', { query: sku, country: locale.country });
    } catch (e) {
      if (isMarketlensError(e) && e.code === 'not_found') return null;
      throw e;
    }
    const product = found.record;
    if (!sameSku(product.style_color, sku)) return null;
    const info = product.product_info;
    const image =
      info.content_images?.[0]?.properties?.squarish?.url ??
      info.content_images?.[0]?.properties?.portrait?.url ??
      null;
    const initial = product.prices?.initial_price;
    return {
      id: product.style_color,
      slug: null,
      url: productUrl(product, locale.country),
      currency: product.prices?.currency ?? null,
      entries: nikeEntries(product, locale.country),
      header: {
        ...EMPTY_HEADER,
        name: info.full_title ?? info.title,
        brand: product.brands?.[0] ?? null,
        image,
        retail_price:
          initial != null && initial > 0 && product.prices?.currency
            ? { amount: initial, currency: product.prices.currency }
            : null,
        release_date: isoDate(info.availability_date),
      },
      missingParts: found.missingParts.map((p) => `sportswear.${p}`),
    };
  },
};
