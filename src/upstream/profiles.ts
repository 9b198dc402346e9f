/**
 * What a real browser on a marketplace's own pages sends. impit supplies the TLS/HTTP2 fingerprint and the
 * navigation headers of the pinned Chrome (User-Agent, sec-ch-ua*, Accept-Encoding); these sets turn a request into
 * the kind the page itself would make: a top-level navigation for HTML, a same-origin `fetch()` for JSON APIs.
 * Operation headers (cookies, API caller ids, GraphQL client names) are merged on top by the client. The site's
 * home page and warm-up hosts come from its descriptor.
 */
import type { Browser } from 'impit';
import type { MarketplaceDescriptor } from '../marketplaces/descriptor.js';

/** Pinned, current Chrome profile: UA, sec-ch-ua and TLS fingerprint all say Chrome 151 (bump with impit). */
export const PINNED_BROWSER: Browser = 'chrome151';

export const ACCEPT_LANGUAGE = 'en-US,en;q=0.9';

/**
 * True when requests to `url` should be preceded by the marketplace's home-page warm-up (`www.chrono24.*` matches
 * every country domain).
 */
export function needsWarmUp(marketplace: Pick<MarketplaceDescriptor, 'warmUpHosts'>, url: URL): boolean {
  return marketplace.warmUpHosts.some((p) =>
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
 * @example browserHeaders(goat, new URL('https://www.goat.com/web-api/v1/x'), 'json')['sec-fetch-mode'] // 'cors'
 */
export function browserHeaders(
  marketplace: Pick<MarketplaceDescriptor, 'home'>,
  url: URL,
  expect: 'json' | 'html',
  method = 'GET',
): Record<string, string> {
  const home = new URL(marketplace.home);
  const sameSite = registrable(url.hostname) === registrable(home.hostname);
  if (expect === 'html') {
    return {
      accept:
        'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7',
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
