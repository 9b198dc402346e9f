/**
 * Fan-out: which messages one detected change becomes for one subscription. Thresholds are per subscription, so a
 * change crosses them here: price.below is sent when the new price is under the threshold and the old one was not
 * (or there was none), price.above the mirror image — once per crossing, never again while the price stays there.
 */
import type { DetectedEvent, EventType, PriceContext, StockContext, WebhookFilter, WebhookMessage } from './events.js';

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
  }
}

function contextMatches(c: PriceContext | StockContext, f: WebhookFilter): boolean {
  if (f.operations && !f.operations.includes(c.operation)) return false;
  // A stock event for an entry that states no price has no kind: `kinds` picks prices, so it does not exclude it.
  if (f.kinds && c.kind !== null && !f.kinds.includes(c.kind)) return false;
  if (f.sizes && (c.size === null || !f.sizes.includes(c.size))) return false;
  if (f.countries && (c.country === null || !f.countries.includes(c.country.toUpperCase()))) return false;
  if (f.products && !anyEqual(f.products, [c.product_id, c.sku, slugOf(c.url)])) return false;
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
