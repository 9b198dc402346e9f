/**
 * The asks a product page states in its JSON-LD (schema.org `Product` → `offers`: an `AggregateOffer` with
 * `offers[]`, or an `Offer` list). 2026 pages whose embedded product query has no market node carry the per-size
 * prices only there: one `Offer` per variant with `sku` = the variant id, `price`, `priceCurrency`, `gtin`,
 * `availability` (issue 29). They give the lowest ask and nothing else of the market. Pure.
 */
import type { MarketData } from './parse-market.js';
import type { Market } from './schema.js';

/** What the page's offers state: the lowest ask per variant id (null: the size is out of stock). */
export interface PageOffers {
  byVariant: Map<string, number | null>;
}

/** Market fields the offers do not carry: named in X-Missing-Parts when the market request failed. */
export const PARTS_NOT_IN_OFFERS = [
  'market.bids.highest_bid',
  'market.bids.number_asks',
  'market.bids.number_bids',
  'market.sales',
  'variants.market.bids.highest_bid',
  'variants.market.bids.number_asks',
  'variants.market.bids.number_bids',
  'variants.market.sales',
] as const;

const LD_SCRIPT = /<script\b[^>]*\btype\s*=\s*["']?application\/ld\+json["']?[^>]*>([\s\S]*?)<\/script>/gi;

/**
 * The page's offers in `currency` (offers in another currency are not used: never converted), or undefined when the
 * page states none. Broken JSON-LD blocks are skipped: they are a second source, not the page.
 * @example pageOffers(html, 'EUR')?.byVariant.get('11111111-2222-4333-8444-555555555501') // 141
 */
export function pageOffers(html: string, currency: string): PageOffers | undefined {
  const byVariant = new Map<string, number | null>();
  for (const m of html.matchAll(LD_SCRIPT)) {
    let json: unknown;
    try {
      json = JSON.parse(m[1]!);
    } catch {
      continue;
    }
    for (const product of products(json)) {
      for (const offer of offersOf(product.offers)) {
        const sku = typeof offer.sku === 'string' ? offer.sku : undefined;
        if (sku === undefined || offer.priceCurrency !== currency) continue;
        const price = amount(offer.price);
        if (price === undefined) continue;
        // An out-of-stock size has no ask, whatever price the offer repeats.
        const inStock = !/OutOfStock|SoldOut|Discontinued/i.test(String(offer.availability ?? ''));
        const ask = inStock ? price : null;
        const known = byVariant.get(sku);
        byVariant.set(sku, known == null ? ask : ask === null ? known : Math.min(known, ask));
      }
    }
  }
  return byVariant.size > 0 ? { byVariant } : undefined;
}

/**
 * The offers as market data: each listed variant's lowest ask, the product's the lowest of them; every other field
 * null (the offers do not state it). Variants without an offer get no market.
 */
export function marketFromOffers(offers: PageOffers): MarketData {
  const variants = new Map<string, Market | null>();
  for (const [id, ask] of offers.byVariant) variants.set(id, askOnly(ask));
  const asks = [...offers.byVariant.values()].filter((a): a is number => a !== null);
  return { ids: [], product: askOnly(asks.length > 0 ? Math.min(...asks) : null), variants };
}

function askOnly(lowestAsk: number | null): Market {
  return {
    bids: { lowest_ask: lowestAsk, highest_bid: null, number_asks: null, number_bids: null },
    sales: { last_sale: null, sales_last_72h: null },
  };
}

/** Every schema.org Product object in a JSON-LD document (top level, a list, or an `@graph`). */
function products(json: unknown): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    const type = o['@type'];
    if (type === 'Product' || (Array.isArray(type) && type.includes('Product'))) out.push(o);
    if (o['@graph'] !== undefined) visit(o['@graph']);
  };
  visit(json);
  return out;
}

/** The `Offer`s of a Product's `offers`: one Offer, a list, or an AggregateOffer's `offers[]`. */
function offersOf(offers: unknown): Record<string, unknown>[] {
  if (Array.isArray(offers)) return offers.flatMap(offersOf);
  if (offers === null || typeof offers !== 'object') return [];
  const o = offers as Record<string, unknown>;
  if (o.offers !== undefined) return offersOf(o.offers);
  return [o];
}

/** A price as JSON-LD states it: a number or a decimal string ("118.00"); anything else is no price. */
function amount(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? v : undefined;
  if (typeof v === 'string' && /^\d+(?:\.\d+)?$/.test(v.trim())) return Number(v);
  return undefined;
}
