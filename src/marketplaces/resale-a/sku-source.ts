/**
 * StockX as a source of the product answer: found by style id (find.ts), one size entry per variant in the size
 * system of the product (a men's product's `US M 10`, a women's product's `US W 11.5`, a GS `7Y`), with its lowest
 * ask, highest bid and last sale in the requested currency (StockX serves every currency the route accepts).
 */
import type { MarketplaceAnswer, ProductLocale, SizeEntry, SkuSource } from '../../products/source.js';
import { EMPTY_HEADER, gtin14, isoDate, offer, sizeLabel } from '../../products/source.js';
import type { ProductOffer, SizeSystem } from '../../products/types.js';
import { findStockxProduct } from './find.js';
import type { Product, Variant } from './schema.js';
import { productPageUrl } from './upstream.js';

const KIDS_GENDERS = new Set(['child', 'preschool', 'toddler', 'infant', 'youth']);

/**
 * A variant's size and its system. A kids' size says so (`7Y`, `10C`); otherwise the product's gender picks US W for
 * women's products and US M for the rest, from StockX's own conversions (`US M 10`, `US W 11.5`); a size with neither
 * (apparel `XS/S`, a size shown only in EU) is `other`.
 */
export function stockxSize(variant: Variant, gender: string | null): { size: string; system: SizeSystem } {
  const base = variant.traits.size?.trim() ?? '';
  if (/^\d+(?:\.\d+)?[YC]$/i.test(base)) return { size: base.toUpperCase(), system: 'us_kids' };
  const shown = (type: string, prefix: RegExp) => {
    const option = variant.sizes.find((s) => s.type.toLowerCase() === type);
    return option ? sizeLabel(option.size.replace(prefix, '')) : undefined;
  };
  const men = shown('us m', /^US\s*M\s*/i);
  const women = shown('us w', /^US\s*W\s*/i);
  const g = gender?.toLowerCase() ?? '';
  if (KIDS_GENDERS.has(g) && base !== '') return { size: sizeLabel(base), system: 'us_kids' };
  if (g === 'women' && women) return { size: women, system: 'us_women' };
  if (men) return { size: men, system: 'us_men' };
  if (women) return { size: women, system: 'us_women' };
  return { size: base !== '' ? base : (variant.sizes[0]?.size ?? ''), system: 'other' };
}

/** The size entries of a StockX product record, its prices as the record states them. */
export function stockxEntries(product: Product, currency: string): SizeEntry[] {
  const url = productPageUrl(product.slug, 'en-US');
  return product.variants.map((variant) => {
    const bids = variant.market?.bids;
    const sales = variant.market?.sales;
    const base = { marketplace: 'resale-a', condition: 'new', url, currency } as const;
    const asks = bids?.number_asks ?? null;
    const offers: ProductOffer[] = [
      ...offer(bids?.lowest_ask, { ...base, kind: 'lowest_ask', in_stock: asks === null ? null : asks > 0 }),
      ...offer(bids?.highest_bid, { ...base, kind: 'highest_bid', in_stock: null }),
      ...offer(sales?.last_sale, { ...base, kind: 'last_sale', in_stock: null }),
    ];
    const gtins = variant.gtins.map((g) => gtin14(g.identifier)).filter((g): g is string => g !== undefined);
    return { ...stockxSize(variant, product.gender), gtins: [...new Set(gtins)], offers };
  });
}

function trait(product: Product, name: string): string | null {
  return product.traits.find((t) => t.name === name)?.value ?? null;
}

export const resaleASkuSource: SkuSource = {
  marketplace: 'resale-a',
  async answer(sku: string, locale: ProductLocale, lookups): Promise<MarketplaceAnswer | null> {
    const found = await findStockxProduct(sku, locale, lookups);
    if (!found) return null;
    const product = found.product.record;
    const retail = Number(trait(product, 'Retail Price'));
    return {
      id: product.id,
      slug: product.slug,
      url: productPageUrl(product.slug, 'en-US'),
      currency: locale.currency,
      entries: stockxEntries(product, locale.currency),
      header: {
        ...EMPTY_HEADER,
        name: product.name,
        brand: product.brand,
        image: product.image,
        // StockX's "Retail Price" trait is the US retail price in dollars: a price in another currency is not stated.
        retail_price: retail > 0 && locale.currency === 'USD' ? { amount: retail, currency: 'USD' } : null,
        release_date: isoDate(trait(product, 'Release Date')),
      },
      missingParts: found.product.missingParts.map((p) => `resale-a.${p}`),
    };
  },
};
