/**
 * Fan-out without testing every subscription against every change: subscriptions with a `products` filter are
 * found through the product's id, SKU and slug; only those without one are tested against everything. With 10 000
 * per-product subscriptions a change is checked against a handful, not 10 000. match.ts still decides.
 */
import type { DetectedEvent } from './events.js';
import type { Subscription } from './subscription.js';

export class SubscriptionIndex {
  private readonly byProduct = new Map<string, Subscription[]>();
  private readonly unfiltered: Subscription[] = [];

  constructor(subs: readonly Subscription[]) {
    for (const sub of subs) {
      if (!sub.filter.products) {
        this.unfiltered.push(sub);
        continue;
      }
      for (const p of new Set(sub.filter.products.map((v) => v.toLowerCase()))) {
        const list = this.byProduct.get(p);
        if (list) list.push(sub);
        else this.byProduct.set(p, [sub]);
      }
    }
  }

  /** Subscriptions that may want `event` (a superset; never misses one). */
  candidates(event: DetectedEvent): Subscription[] {
    const keys = productKeys(event);
    if (keys.length === 0) return this.unfiltered;
    const found = new Set(this.unfiltered);
    for (const k of keys) for (const s of this.byProduct.get(k.toLowerCase()) ?? []) found.add(s);
    return [...found];
  }
}

/** The values a `products` filter is compared with, per event kind (see match.ts). */
function productKeys(event: DetectedEvent): string[] {
  switch (event.type) {
    case 'price.changed':
    case 'price.first':
    case 'stock.changed': {
      const c = event.context;
      const keys = [c.product_id];
      if (c.sku) keys.push(c.sku);
      if (c.url) {
        try {
          const slug = new URL(c.url).pathname.split('/').filter(Boolean).at(-1);
          if (slug) keys.push(slug);
        } catch {
          // no slug
        }
      }
      return keys;
    }
    case 'listing.new':
    case 'listing.removed':
      return [event.data.listing_id, event.data.search];
    case 'product.spread':
    case 'product.low':
      return [event.context.sku];
    default:
      return Object.values(event.data.params).filter((v): v is string => typeof v === 'string');
  }
}
