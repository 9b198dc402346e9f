/**
 * Fan-out: which messages one detected change becomes for one subscription. Thresholds are per subscription, so a
 * change crosses them here: price.below is sent when the new price is under the threshold and the old one was not
 * (or there was none), price.above the mirror image — once per crossing, never again while the price stays there.
 */
import { lowWithin } from './detect-product.js';
import type {
  DetectedEvent,
  EventType,
  PriceContext,
  ProductSizeContext,
  StockContext,
  WebhookFilter,
  WebhookMessage,
} from './events.js';

/** price.new_low's window when the filter names none. */
export const DEFAULT_LOW_DAYS = 30;

export interface Subscriber {
  events: readonly EventType[];
  filter: WebhookFilter;
}

export function messagesFor(event: DetectedEvent, sub: Subscriber, now: Date): WebhookMessage[] {
  const out: WebhookMessage[] = [];
  const wants = (t: EventType) => sub.events.includes(t);
  const push = (type: EventType, data: object) =>
    out.push({ type, timestamp: now.toISOString(), data: data as Record<string, unknown> });
  const f = sub.filter;
  switch (event.type) {
    case 'price.changed':
    case 'price.first': {
      if (!contextMatches(event.context, f)) return out;
      const old = event.type === 'price.changed' ? event.old : null;
      if (event.type === 'price.changed' && wants('price.changed')) {
        const change = round(event.new - event.old, 6);
        const pct = event.old === 0 ? 0 : round((change / event.old) * 100, 2);
        if (f.min_change_pct === undefined || Math.abs(pct) >= f.min_change_pct) {
          push('price.changed', { ...event.context, old: event.old, new: event.new, change, change_pct: pct });
        }
      }
      if (wants('price.below') && f.below !== undefined && event.new < f.below && (old === null || old >= f.below)) {
        push('price.below', { ...event.context, old, new: event.new, threshold: f.below });
      }
      if (wants('price.above') && f.above !== undefined && event.new > f.above && (old === null || old <= f.above)) {
        push('price.above', { ...event.context, old, new: event.new, threshold: f.above });
      }
      return out;
    }
    case 'stock.changed':
      if (wants('stock.changed') && contextMatches(event.context, f)) {
        push('stock.changed', { ...event.context, in_stock: event.inStock, price: event.price });
      }
      return out;
    case 'listing.new':
    case 'listing.removed': {
      const d = event.data;
      if (!wants(event.type)) return out;
      if (f.operations && !f.operations.includes(d.operation)) return out;
      if (f.products && !anyEqual(f.products, [d.listing_id, d.search])) return out;
      push(event.type, d);
      return out;
    }
    case 'product.not_found':
    case 'marketplace.changed': {
      const d = event.data;
      if (!wants(event.type)) return out;
      if (f.operations && !f.operations.includes(d.operation)) return out;
      const values = Object.values(d.params).filter((v): v is string => typeof v === 'string');
      if (f.products && !anyEqual(f.products, values)) return out;
      push(event.type, d);
      return out;
    }
    case 'product.spread': {
      if (!wants('spread.above') || !productMatches(event.context, f)) return out;
      if (f.min_spread === undefined && f.min_spread_pct === undefined) return out;
      // Reached now and not before: once per crossing (again only after it fell under and rose again).
      const reaches = (v: { spread: number | null; spread_pct: number | null } | null) =>
        v !== null &&
        ((f.min_spread !== undefined && v.spread !== null && v.spread >= f.min_spread) ||
          (f.min_spread_pct !== undefined && v.spread_pct !== null && v.spread_pct >= f.min_spread_pct));
      if (reaches(event.new) && !reaches(event.old)) {
        push('spread.above', {
          ...event.context,
          previous_spread: event.old?.spread ?? null,
          previous_spread_pct: event.old?.spread_pct ?? null,
          min_spread: f.min_spread ?? null,
          min_spread_pct: f.min_spread_pct ?? null,
        });
      }
      return out;
    }
    case 'product.low': {
      if (!wants('price.new_low') || !productMatches(event.context, f)) return out;
      const days = f.days ?? DEFAULT_LOW_DAYS;
      const previous = lowWithin(event.earlier, Date.parse(event.context.observed_at), days);
      if (previous !== null && event.amount < previous) {
        push('price.new_low', { ...event.context, previous_low: previous, days });
      }
      return out;
    }
  }
}

/** A product event: by SKU (`skus`, or `products` naming it), size label, country; lookup filters exclude it. */
function productMatches(c: ProductSizeContext, f: WebhookFilter): boolean {
  if (f.operations) return false;
  if (f.skus && !anyEqual(f.skus, [c.sku])) return false;
  if (f.products && !anyEqual(f.products, [c.sku])) return false;
  if (f.sizes && !f.sizes.includes(c.size)) return false;
  if (f.countries && !f.countries.includes(c.country.toUpperCase())) return false;
  return true;
}

function contextMatches(c: PriceContext | StockContext, f: WebhookFilter): boolean {
  if (f.operations && !f.operations.includes(c.operation)) return false;
  // A stock event for an entry that states no price has no kind: `kinds` picks prices, so it does not exclude it.
  if (f.kinds && c.kind !== null && !f.kinds.includes(c.kind)) return false;
  if (f.sizes && (c.size === null || !f.sizes.includes(c.size))) return false;
  if (f.countries && (c.country === null || !f.countries.includes(c.country.toUpperCase()))) return false;
  if (f.products && !anyEqual(f.products, [c.product_id, c.sku, slugOf(c.url)])) return false;
  if (f.skus && !anyEqual(f.skus, [c.sku])) return false;
  return true;
}

/** The last path segment of a product URL: GOAT, StockX and Nike slugs. */
function slugOf(url: string | null): string | null {
  if (!url) return null;
  try {
    const parts = new URL(url).pathname.split('/').filter(Boolean);
    return parts.at(-1) ?? null;
  } catch {
    return null;
  }
}

function anyEqual(wanted: readonly string[], values: readonly (string | null)[]): boolean {
  const have = values.filter((v): v is string => v !== null).map((v) => v.toLowerCase());
  return wanted.some((w) => have.includes(w.toLowerCase()));
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
