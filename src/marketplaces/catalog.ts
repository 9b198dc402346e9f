/**
 * The five marketplaces: neutral spec names, the real sites' alias path segments, and the hosts each one owns.
 * Every outgoing request is checked against `hosts` (SSRF guard), so adding a host here is a security decision.
 */
export const MARKETPLACES = ['watchmarket', 'resale-a', 'resale-b', 'sportswear', 'electronics'] as const;
export type Marketplace = (typeof MARKETPLACES)[number];

export interface MarketplaceInfo {
  /** Path segment of the alias routes, the real site's name (Retailed-compatible paths). */
  alias: string;
  /** Human name of the real site, for messages and docs. */
  site: string;
  /** Exact hosts or `*.suffix` patterns the marketplace's operations may fetch. */
  hosts: readonly string[];
  /** Suffix of the configuration variables, e.g. MARKETLENS_RESALE_B_ORIGIN. */
  envName: string;
}

export const MARKETPLACE_INFO: Record<Marketplace, MarketplaceInfo> = {
  watchmarket: {
    alias: 'chrono24',
    site: 'Chrono24',
    // One site per country domain (chrono24.com, .de, .fr, .co.uk, .ch, …); the `domain` parameter picks one.
    hosts: ['www.chrono24.com', 'chrono24.com', 'www.chrono24.*'],
    envName: 'WATCHMARKET',
  },
  'resale-a': { alias: 'stockx', site: 'StockX', hosts: ['stockx.com', 'www.stockx.com'], envName: 'RESALE_A' },
  'resale-b': { alias: 'goat', site: 'GOAT', hosts: ['www.goat.com', 'goat.com'], envName: 'RESALE_B' },
  sportswear: { alias: 'nike', site: 'Nike', hosts: ['www.nike.com', 'nike.com', 'api.nike.com'], envName: 'SPORTSWEAR' },
  electronics: {
    alias: 'bestbuy',
    site: 'Best Buy',
    hosts: ['www.bestbuy.com', 'bestbuy.com', 'api.bestbuy.com'],
    envName: 'ELECTRONICS',
  },
};

/** True when `host` (lower-case, no port) is one the marketplace owns. */
export function isMarketplaceHost(marketplace: Marketplace, host: string): boolean {
  const h = host.toLowerCase();
  return MARKETPLACE_INFO[marketplace].hosts.some((pattern) => {
    if (!pattern.endsWith('.*')) return h === pattern;
    // `www.chrono24.*`: the registrable part after the prefix must be a plain public suffix such as `de` or `co.uk`.
    const prefix = pattern.slice(0, -1);
    if (!h.startsWith(prefix)) return false;
    const rest = h.slice(prefix.length);
    return /^(?:[a-z]{2,3}|co\.[a-z]{2}|com\.[a-z]{2})$/.test(rest);
  });
}
