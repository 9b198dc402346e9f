/**
 * GOAT as a source of the product answer: found by search with an exact SKU match (the finder), then its prices
 * (`buy_bar_data`, one entry per size × condition) and its product (name, image, release date, and the gender and
 * size unit that say which US size system `sizeOption` is in), fetched in parallel. Cents ÷ 100; currency as GOAT
 * states it: GOAT prices in its country's currency (US USD, GB GBP, FR EUR) whatever currency was asked for.
 */
import { MarketlensError, isMarketlensError } from '../../errors.js';
import type { MarketplaceAnswer, ProductLocale, ProductLookups, SizeEntry, SkuSource } from '../../products/source.js';
import { EMPTY_HEADER, isoDate, offer, sizeLabel } from '../../products/source.js';
import type { SizeSystem } from '../../products/types.js';
import { sameSku } from '../../products/sku.js';
import { GOAT_ORIGIN } from './hosts.js';
import { RESALE_B_COUNTRIES, type PriceEntry, type ResaleBCountry, type ResaleBProduct } from './schema.js';

/** A GOAT product a finder matched to the SKU: its template id (prices) and slug (product page). */
export interface GoatListing {
  id: string;
  slug: string;
}

/** Finds the GOAT product of a SKU (exact SKU match), or null when GOAT has none. */
export type GoatFinder = (sku: string, lookups: ProductLookups) => Promise<GoatListing | null>;

const KIDS_GENDERS = new Set(['youth', 'infant', 'toddler', 'child', 'kids', 'preschool', 'grade_school']);

/** The GOAT country of a country code (GOAT's prices route calls GB `UK`); undefined where GOAT has no prices. */
function goatCountry(country: string): ResaleBCountry | undefined {
  const c = country === 'GB' ? 'UK' : country;
  return c in RESALE_B_COUNTRIES ? (c as ResaleBCountry) : undefined;
}

/**
 * A `sizeOption.presentation` and its system: a `W` or `Y`/`C` suffix says women's or kids'; otherwise the product's
 * single gender does (women's products are sized US W, youth ones US kids), and men's and unisex are US M. A product
 * not sized in US units (`size_unit` other than `us`) is `other`.
 */
export function goatSize(presentation: string, product: ResaleBProduct): { size: string; system: SizeSystem } {
  const label = presentation.trim();
  const suffixed = /^(\d+(?:\.\d+)?)\s*([WYC])$/i.exec(label);
  if (suffixed) {
    const [, n, s] = suffixed;
    return s!.toUpperCase() === 'W'
      ? { size: sizeLabel(n!), system: 'us_women' }
      : { size: `${sizeLabel(n!)}${s!.toUpperCase()}`, system: 'us_kids' };
  }
  if (product.size_unit.toLowerCase() !== 'us' || !/^\d+(?:\.\d+)?$/.test(label))
    return { size: label, system: 'other' };
  const gender = (product.single_gender ?? product.gender[0] ?? '').toLowerCase();
  if (gender === 'women') return { size: sizeLabel(label), system: 'us_women' };
  if (KIDS_GENDERS.has(gender)) return { size: sizeLabel(label), system: 'us_kids' };
  return { size: sizeLabel(label), system: 'us_men' };
}

/** GOAT's condition words as one: the shoe's, and the box's when it is not in good condition. */
function condition(entry: PriceEntry): string {
  return entry.boxCondition && entry.boxCondition !== 'good_condition'
    ? `${entry.shoeCondition}/${entry.boxCondition}`
    : entry.shoeCondition;
}

function inStock(status: string): boolean | null {
  if (status === 'not_in_stock') return false;
  return /_in_stock$/.test(status) ? true : null;
}

const major = (cents: number | undefined) => (cents === undefined ? undefined : cents / 100);

/** The page of a GOAT product (sneakers, or apparel for everything else GOAT sells). */
export function goatProductUrl(product: ResaleBProduct): string {
  const section = product.product_type === 'sneakers' ? 'sneakers' : 'apparel';
  return `${GOAT_ORIGIN}/${section}/${product.slug}`;
}

/** One size entry per size, every condition's prices among its offers. */
export function goatEntries(prices: PriceEntry[], product: ResaleBProduct): SizeEntry[] {
  const url = goatProductUrl(product);
  const bySize = new Map<string, SizeEntry>();
  for (const entry of prices) {
    const { size, system } = goatSize(entry.sizeOption.presentation, product);
    const key = `${system} ${size}`;
    let row = bySize.get(key);
    if (!row) bySize.set(key, (row = { size, system, gtins: [], offers: [] }));
    const base = { marketplace: 'resale-b', condition: condition(entry), url } as const;
    const stock = inStock(entry.stockStatus);
    const money = (m: PriceEntry['lowestPriceCents']) => ({ amount: major(m.amount), currency: m.currency });
    const low = money(entry.lowestPriceCents);
    const instant = money(entry.instantShipLowestPriceCents);
    const sold = money(entry.lastSoldPriceCents);
    row.offers.push(
      ...offer(low.amount, { ...base, currency: low.currency, kind: 'lowest_price', in_stock: stock }),
      ...offer(instant.amount, {
        ...base,
        currency: instant.currency,
        kind: 'instant_ship_lowest_price',
        in_stock: stock,
      }),
      ...offer(sold.amount, { ...base, currency: sold.currency, kind: 'last_sale', in_stock: null }),
    );
  }
  return [...bySize.values()];
}

export function resaleBSkuSource(find: GoatFinder): SkuSource {
  return {
    marketplace: 'resale-b',
    async answer(sku: string, locale: ProductLocale, lookups: ProductLookups): Promise<MarketplaceAnswer | null> {
      const country = goatCountry(locale.country);
      if (!country) {
        throw new MarketlensError(
          'invalid_parameter',
          `resale-b (GOAT) has prices for US, GB and FR only, not ${locale.country}`,
        );
      }
      const listing = await find(sku, lookups);
      if (!listing) return null;
      const [prices, product] = await Promise.all([
        lookups.run('resale-b.prices', { query: listing.id, country }),
        lookups.run('resale-b.product', { query: listing.slug }).catch((e: unknown) => {
          if (isMarketlensError(e) && e.code === 'not_found') return null;
          throw e;
        }),
      ]);
      // The search matched a hit's slug words (GOAT's consumer search sends no SKU): the product states its SKU.
      if (!product || !sameSku(product.record.sku, sku)) return null;
      const p = product.record;
      return {
        id: String(p.id),
        slug: p.slug,
        url: goatProductUrl(p),
        currency: RESALE_B_COUNTRIES[country].currency,
        entries: goatEntries(prices.record, p),
        header: {
          ...EMPTY_HEADER,
          name: p.name,
          brand: p.brand_name,
          image: p.main_picture_url || null,
          release_date: isoDate(p.release_date),
        },
        missingParts: [...prices.missingParts, ...product.missingParts].map((part) => `resale-b.${part}`),
      };
    },
  };
}
