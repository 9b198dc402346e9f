/** Chrono24 (watchmarket) search: every listing is a product with its asking price, so listings can come and go. */
import type { LiveResult } from '../../operations/live-results.js';
import type { SearchResult } from './schema.js';
import type { ObservationBatch } from '../../history/observation.js';
import { emptyBatch, pushPrice, stringParam } from '../../history/extract/common.js';

/** Symbols Chrono24 prints for the currencies it formats; a printed ISO code is taken as it is. */
const SYMBOLS: Record<string, string> = {
  $: 'USD',
  US$: 'USD',
  '€': 'EUR',
  '£': 'GBP',
  '¥': 'JPY',
  Fr: 'CHF',
  CHF: 'CHF',
};

function currencyOf(printed: string | null, requested: string | null): string | null {
  if (printed && /^[A-Z]{3}$/.test(printed)) return printed;
  if (printed && SYMBOLS[printed]) {
    // `$` is also CAD/AUD/SGD…: the requested currency wins when it is a dollar one.
    const sym = SYMBOLS[printed];
    return printed === '$' && requested && /D$/.test(requested) ? requested : sym;
  }
  return requested;
}

export function extractWatchmarketSearch(result: LiveResult): ObservationBatch {
  const batch = emptyBatch(result);
  const r = result.record as SearchResult;
  const requested = result.identity.currency ?? stringParam(result, 'currency');
  const domain = (r.url && safeHost(r.url)) || null;
  batch.listingIds = [];
  for (const l of r.results) {
    if (!l.id) continue; // a legacy card without a link has no identity to follow
    batch.listingIds.push(l.id);
    batch.products.push({
      marketplace: 'watchmarket',
      productId: l.id,
      name: l.subtitle ? `${l.title} ${l.subtitle}` : l.title,
      url: l.url,
      image: l.images[0] ?? null,
      sku: null,
      domain,
    });
    pushPrice(batch, result, {
      productId: l.id,
      kind: 'listing_price',
      amount: l.price.amount,
      currency: currencyOf(l.price.currency, requested),
    });
  }
  return batch;
}

function safeHost(url: string): string | null {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return null;
  }
}
