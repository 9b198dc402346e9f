/**
 * Fetch tiers, cheapest first: direct (impersonating client) → proxy (same client through the marketplace's proxy
 * pool) → unblocker (an external unblocking service, MARKETLENS_UNBLOCKER_URL) → browser (a real Chromium, see
 * browser/). A marketplace's order comes from MARKETLENS_<MP>_TIERS, else the default below.
 */
import type { Config, FetchTier } from '../config.js';
import type { Marketplace } from '../marketplaces/catalog.js';

const BROWSER_BY_DEFAULT: ReadonlySet<Marketplace> = new Set(['watchmarket', 'resale-a']);

/**
 * @example tiersFor(config, 'resale-b') // ['direct', 'proxy'] when MARKETLENS_PROXY_URLS is set
 */
export function tiersFor(config: Config, marketplace: Marketplace): FetchTier[] {
  const configured = config.marketplaces[marketplace].tiers;
  if (configured) return configured;
  const tiers: FetchTier[] = ['direct'];
  if (proxiesFor(config, marketplace).length > 0) tiers.push('proxy');
  if (config.unblockerUrl) tiers.push('unblocker');
  // Cloudflare (Chrono24) and PerimeterX (StockX) challenges only a real browser passes; elsewhere the fast
  // client suffices, so the browser is opt-in there (MARKETLENS_<MP>_TIERS).
  if (config.browserPath && BROWSER_BY_DEFAULT.has(marketplace)) tiers.push('browser');
  return tiers;
}

/** The marketplace's own proxy list wins over the global one. */
export function proxiesFor(config: Config, marketplace: Marketplace): string[] {
  return config.marketplaces[marketplace].proxyUrls ?? config.proxyUrls;
}

/**
 * The unblocker request for a real URL: `{url}` in the template becomes the URL-encoded target.
 * @example unblockerUrl('https://api.example/?key=K&url={url}', new URL('https://www.goat.com/a?b=1'))
 *   // 'https://api.example/?key=K&url=https%3A%2F%2Fwww.goat.com%2Fa%3Fb%3D1'
 */
export function unblockerUrl(template: string, real: URL): string {
  return template.replaceAll('{url}', encodeURIComponent(real.href));
}
