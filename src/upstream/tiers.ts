/**
 * Fetch tiers, cheapest first: direct (impersonating client) → proxy (same client through the marketplace's proxy
 * pool) → unblocker (an external unblocking service, MARKETLENS_UNBLOCKER_URL) → browser (a real Chromium, see
 * browser/). A marketplace's order comes from MARKETLENS_<MP>_TIERS, else the default below.
 */
import type { Config, FetchTier } from '../config.js';
import type { MarketplaceDescriptor } from '../marketplaces/descriptor.js';

/**
 * @example tiersFor(config, goat) // ['direct', 'proxy'] when MARKETLENS_PROXY_URLS is set
 */
export function tiersFor(
  config: Config,
  marketplace: Pick<MarketplaceDescriptor, 'id' | 'browserByDefault'>,
): FetchTier[] {
  const configured = config.marketplaces[marketplace.id]?.tiers;
  if (configured) return configured;
  const tiers: FetchTier[] = ['direct'];
  if (proxiesFor(config, marketplace.id).length > 0) tiers.push('proxy');
  if (config.unblockerUrl) tiers.push('unblocker');
  // Challenges only a real browser passes (the descriptor says so); elsewhere the fast client suffices, so the
  // browser is opt-in there (MARKETLENS_<MP>_TIERS).
  if (config.browserPath && marketplace.browserByDefault) tiers.push('browser');
  return tiers;
}

/** The marketplace's own proxy list wins over the global one. */
export function proxiesFor(config: Config, marketplace: string): string[] {
  return config.marketplaces[marketplace]?.proxyUrls ?? config.proxyUrls;
}

/**
 * The unblocker request for a real URL: `{url}` in the template becomes the URL-encoded target.
 * @example unblockerUrl('https://api.example/?key=K&url={url}', new URL('https://www.goat.com/a?b=1'))
 *   // 'https://api.example/?key=K&url=https%3A%2F%2Fwww.goat.com%2Fa%3Fb%3D1'
 */
export function unblockerUrl(template: string, real: URL): string {
  return template.replaceAll('{url}', encodeURIComponent(real.href));
}
