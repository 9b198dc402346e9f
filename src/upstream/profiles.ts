/**
 * What a real browser on each marketplace's own pages sends. impit supplies the TLS/HTTP2 fingerprint and the
 * navigation headers of the pinned Chrome (User-Agent, sec-ch-ua*, Accept-Encoding); these sets turn a request into
 * the kind the page itself would make: a top-level navigation for HTML, a same-origin `fetch()` for JSON APIs.
 * Operation headers (cookies, API caller ids, GraphQL client names) are merged on top by the client.
 */
import type { Browser } from 'impit';
import type { Marketplace } from '../marketplaces/catalog.js';

/** Pinned, current Chrome profile: UA, sec-ch-ua and TLS fingerprint all say Chrome 151 (bump with impit). */
export const PINNED_BROWSER: Browser = 'chrome151';

export const ACCEPT_LANGUAGE = 'en-US,en;q=0.9';

export interface MarketplaceProfile {
  /** The site's front door: Referer/Origin for API calls made "from" its pages. */
  home: string;
  /**
   * Hosts whose requests need the warm-up first (a GET of that host's home page, for the bot-manager cookies:
   * `__cf_bm`, `_abck`/`bm_sz`, `_px*`). Notes §Anti-bot: GOAT "warm-up GET https://www.goat.com/ first and again
   * after any 403"; Best Buy "warming up on the homepage first"; Chrono24 "home-page warm-up". Empty = none.
   */
  warmUpHosts: readonly string[];
  /** Cookie whose value the site's own scripts echo in `x-csrf-token` on API calls (GOAT, notes §7). */
  csrfCookie?: string;
}

export const PROFILES: Record<Marketplace, MarketplaceProfile> = {
  watchmarket: { home: 'https://www.chrono24.com/', warmUpHosts: ['www.chrono24.*'] },
  'resale-a': { home: 'https://stockx.com/', warmUpHosts: ['stockx.com'] },
  'resale-b': { home: 'https://www.goat.com/', warmUpHosts: ['www.goat.com'], csrfCookie: 'csrf' },
  // Nike's reports say Chrome headers alone pass (Akamai is selective); no warm-up needed.
  sportswear: { home: 'https://www.nike.com/', warmUpHosts: [] },
  // The Best Buy product API (api.bestbuy.com) takes a key, not cookies; only the web host is warmed.
  electronics: { home: 'https://www.bestbuy.com/', warmUpHosts: ['www.bestbuy.com'] },
};

/** True when requests to `url` should be preceded by the marketplace's home-page warm-up. */
export function needsWarmUp(marketplace: Marketplace, url: URL): boolean {
  return PROFILES[marketplace].warmUpHosts.some((p) =>
    p.endsWith('.*') ? url.hostname.startsWith(p.slice(0, -1)) : url.hostname === p,
  );
}

/** The page a browser would load before calling `url`'s API: the home page of the same site (same country domain). */
export function warmUpUrl(url: URL): URL {
  return new URL('/', url.origin);
}

/**
 * Browser-level headers for one request. An empty string removes an impit default (impit's Chrome profile sends
 * navigation headers, which an XHR never carries).
 * @example browserHeaders('resale-b', new URL('https://www.goat.com/web-api/v1/x'), 'json')['sec-fetch-mode'] // 'cors'
 */
export function browserHeaders(marketplace: Marketplace, url: URL, expect: 'json' | 'html', method = 'GET'): Record<string, string> {
  const home = new URL(PROFILES[marketplace].home);
  const sameSite = registrable(url.hostname) === registrable(home.hostname);
  if (expect === 'html') {
    return {
      accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7',
      'accept-language': ACCEPT_LANGUAGE,
      'sec-fetch-dest': 'document',
      'sec-fetch-mode': 'navigate',
      'sec-fetch-site': 'none',
      'sec-fetch-user': '?1',
      'upgrade-insecure-requests': '1',
      priority: 'u=0, i',
    };
  }
  const referer = url.hostname === home.hostname || !sameSite ? `${url.origin}/` : home.href;
  const headers: Record<string, string> = {
    accept: 'application/json, text/plain, */*',
    'accept-language': ACCEPT_LANGUAGE,
    'sec-fetch-dest': 'empty',
    'sec-fetch-mode': 'cors',
    'sec-fetch-site': url.origin === new URL(referer).origin ? 'same-origin' : 'same-site',
    'sec-fetch-user': '',
    'upgrade-insecure-requests': '',
    priority: 'u=1, i',
    referer,
  };
  // Browsers send Origin on cross-origin requests and on every POST.
  if (method !== 'GET' || headers['sec-fetch-site'] !== 'same-origin') headers.origin = new URL(referer).origin;
  return headers;
}

function registrable(host: string): string {
  return host.split('.').slice(-2).join('.');
}
