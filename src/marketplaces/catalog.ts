/**
 * The five marketplaces: neutral spec names, the real sites' alias path segments, and the hosts each one owns.
 * Every outgoing request is checked against `hosts` (SSRF guard), so adding a host here is a security decision.
 */
export const MARKETPLACES = ['watchmarket', 'resale-a', 'resale-b', 'sportswear', 'electronics'] as const;
export type Marketplace = (typeof MARKETPLACES)[number];

/**
 * Chrono24's country sites, `www.chrono24.<domain>` (third-party domain list, chrono24 notes §2; .de/.ch/.at hreflang
 * in the captures). The watch search's `domain` parameter picks one; the SSRF allowlist is exactly these hosts.
 */
export const CHRONO24_DOMAINS = [
  'com', 'co.uk', 'de', 'at', 'ch', 'fr', 'it', 'es', 'nl', 'be', 'pl', 'pt', 'se', 'dk', 'fi', 'gr', 'cz', 'hu',
  'ro', 'sk', 'ie', 'com.tr', 'ru', 'jp', 'kr', 'cn', 'hk', 'sg', 'tw', 'in', 'com.au', 'ca', 'mx',
] as const;

export interface MarketplaceInfo {
  /** Path segment of the alias routes, the real site's name (Retailed-compatible paths). */
  alias: string;
  /** Human name of the real site, for messages and docs. */
  site: string;
  /** Exact hosts the marketplace's operations may fetch. */
  hosts: readonly string[];
  /** Suffix of the configuration variables, e.g. MARKETLENS_RESALE_B_ORIGIN. */
  envName: string;
}

export const MARKETPLACE_INFO: Record<Marketplace, MarketplaceInfo> = {
  watchmarket: {
    alias: 'chrono24',
    site: 'Chrono24',
    // One site per country domain (chrono24.com, .de, .fr, .co.uk, .ch, …); the `domain` parameter picks one.
    hosts: ['chrono24.com', ...CHRONO24_DOMAINS.map((d) => `www.chrono24.${d}`)],
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

/** True when `host` (no port) is one the marketplace owns. */
export function isMarketplaceHost(marketplace: Marketplace, host: string): boolean {
  return MARKETPLACE_INFO[marketplace].hosts.includes(host.toLowerCase());
}
