/**
 * Product answers (src/products/types.ts) written out for tests of what hangs off them — links, history, tracking by
 * SKU, spread and new-low alerts — standing in for the product service (`answerProduct`) while a test scripts the
 * market: each size's offers, with best buy and best sell picked as the product answer picks them (cheapest buy,
 * highest sell, in the answer's currency).
 */
import { MarketlensError } from '../../src/errors.js';
import type { AnswerProduct } from '../../src/products/watch.js';
import {
  BUY_KINDS,
  SELL_KINDS,
  type OfferKind,
  type ProductAnswer,
  type ProductMarketplace,
  type ProductOffer,
  type SizeSystem,
} from '../../src/products/types.js';

export interface SizeSpec {
  size: string;
  size_system?: SizeSystem;
  gtins?: string[];
  /** [marketplace, kind, amount, condition?] */
  offers: Array<[ProductMarketplace, OfferKind, number, string?]>;
}

export interface ProductSpec {
  sku: string;
  name?: string;
  currency?: string;
  /** The marketplaces that found the product, with their own ids. */
  links: Array<{ marketplace: ProductMarketplace; id: string; url?: string }>;
  sizes: SizeSpec[];
}

const SITE_URL: Record<ProductMarketplace, string> = {
  'resale-a': 'https://stockx.com/p',
  'resale-b': 'https://www.goat.com/sneakers/p',
  sportswear: 'https://www.nike.com/t/p',
};

export function productAnswer(spec: ProductSpec): ProductAnswer {
  const currency = spec.currency ?? 'USD';
  return {
    sku: spec.sku,
    country: 'US',
    currency,
    product: { name: spec.name ?? null, brand: 'Nike', image: null, retail_price: null, release_date: null },
    marketplaces: spec.links.map((l) => ({
      marketplace: l.marketplace,
      status: 'found',
      id: l.id,
      slug: null,
      url: l.url ?? SITE_URL[l.marketplace],
      currency,
      error: null,
    })),
    sizes: spec.sizes.map((s) => {
      const offers: ProductOffer[] = s.offers.map(([marketplace, kind, amount, condition]) => ({
        marketplace,
        kind,
        amount,
        currency,
        condition: condition ?? null,
        in_stock: null,
        url: SITE_URL[marketplace],
      }));
      const buys = offers.filter((o) => BUY_KINDS.includes(o.kind)).sort((a, b) => a.amount - b.amount);
      const sells = offers.filter((o) => SELL_KINDS.includes(o.kind)).sort((a, b) => b.amount - a.amount);
      return {
        size: s.size,
        size_system: s.size_system ?? 'us_men',
        gtins: s.gtins ?? [],
        matched_by: null,
        offers,
        best_buy: buys[0] ?? null,
        best_sell: sells[0] ?? null,
      };
    }),
  };
}

/** A product service answering whatever `current()` says the market is now (the SKU must be the one scripted). */
export function scriptedProducts(current: () => ProductSpec): AnswerProduct & { calls: number } {
  const answer = Object.assign(
    async (sku: string) => {
      answer.calls++;
      const spec = current();
      if (sku.toUpperCase() !== spec.sku) throw new MarketlensError('not_found', `No marketplace knows ${sku}`);
      return productAnswer(spec);
    },
    { calls: 0 },
  );
  return answer;
}
