// Numbers as people read them, always with their currency (never converted: the currency is the source's).

/**
 * @param {number | null | undefined} amount
 * @param {string | null | undefined} currency ISO 4217
 */
export function money(amount, currency) {
  if (amount === null || amount === undefined) return '—';
  if (!currency) return `${amount.toLocaleString('en-US', { maximumFractionDigits: 2 })} (currency unknown)`;
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency, currencyDisplay: 'code' }).format(amount);
  } catch {
    return `${amount.toLocaleString('en-US', { maximumFractionDigits: 2 })} ${currency}`;
  }
}

/** @param {number | null | undefined} pct */
export function percent(pct) {
  if (pct === null || pct === undefined || !Number.isFinite(pct)) return '—';
  const sign = pct > 0 ? '+' : pct < 0 ? '−' : '±';
  return `${sign}${Math.abs(pct).toFixed(1)} %`;
}

/** @param {string | number | null | undefined} when */
export function dateTime(when) {
  if (when === null || when === undefined) return '—';
  return new Date(when).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }) + ' UTC';
}

/** Human names of price kinds. @type {Record<string, string>} */
export const KIND_LABELS = {
  lowest_ask: 'Lowest ask',
  highest_bid: 'Highest bid',
  last_sale: 'Last sale',
  lowest_price: 'Lowest price',
  instant_ship_lowest_price: 'Instant-ship lowest',
  current_price: 'Current price',
  regular_price: 'Regular price',
  listing_price: 'Listing price',
  retail: 'Retail',
};

/** @type {Record<string, string>} */
export const MARKETPLACE_LABELS = {
  'resale-a': 'StockX',
  'resale-b': 'GOAT',
  sportswear: 'Nike',
  watchmarket: 'Chrono24',
  electronics: 'Best Buy',
};

/** @param {string} kind */
export const kindLabel = (kind) => KIND_LABELS[kind] ?? kind;
/** @param {string} mp */
export const marketplaceLabel = (mp) => MARKETPLACE_LABELS[mp] ?? mp;
