/** Chrono24 (watchmarket): one site per country domain, behind Cloudflare since late 2024 (notes §5). */
import { defineMarketplace } from '../descriptor.js';

/**
 * Chrono24's country sites, `www.chrono24.<domain>` (third-party domain list, chrono24 notes §2; .de/.ch/.at hreflang
 * in the captures). The watch search's `domain` parameter picks one; the SSRF allowlist is exactly these hosts.
 */
// prettier-ignore
export const CHRONO24_DOMAINS = [
  'com', 'co.uk', 'de', 'at', 'ch', 'fr', 'it', 'es', 'nl', 'be', 'pl', 'pt', 'se', 'dk', 'fi', 'gr', 'cz', 'hu',
  'ro', 'sk', 'ie', 'com.tr', 'ru', 'jp', 'kr', 'cn', 'hk', 'sg', 'tw', 'in', 'com.au', 'ca', 'mx',
] as const;

export const watchmarketMarketplace = defineMarketplace({
  id: 'watchmarket',
  alias: 'chrono24',
  site: 'Chrono24',
  hosts: ['chrono24.com', ...CHRONO24_DOMAINS.map((d) => `www.chrono24.${d}`)],
  envName: 'WATCHMARKET',
  home: 'https://www.chrono24.com/',
  // Every country domain gets its own home-page warm-up (Cloudflare's cookies are per host).
  warmUpHosts: ['www.chrono24.*'],
  // Cloudflare's managed challenge: only a real browser passes it.
  browserByDefault: true,
  blockMarkers: [
    {
      name: 'Cloudflare challenge',
      test: /<title>\s*Just a moment\.\.\.|id="challenge-form"|window\._cf_chl_opt|cf-browser-verification/i,
      decisive: true,
    },
  ],
  // A results page (with or without hits) always has the results container.
  looksReal: (res) => res.body.includes('id="wt-watches"'),
});
