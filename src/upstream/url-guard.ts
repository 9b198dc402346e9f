/**
 * SSRF guard: every outgoing request and every redirect hop must be https, on a host the marketplace owns, with no
 * IP literal, no userinfo and the default port. Checked on the real-marketplace URL, before any origin override.
 */
import { isIP } from 'node:net';
import { MarketlensError, invalidParam } from '../errors.js';
import { MARKETPLACE_INFO, isMarketplaceHost, type Marketplace } from '../marketplaces/catalog.js';

/** Why `url` may not be fetched for `marketplace`, or undefined when it may. */
export function urlRejection(marketplace: Marketplace, url: URL): string | undefined {
  if (url.protocol !== 'https:') return 'only https URLs are allowed';
  if (url.username || url.password) return 'URLs with user information are not allowed';
  if (url.port !== '') return 'only the default port is allowed';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return 'IP addresses are not allowed';
  if (!isMarketplaceHost(marketplace, host)) {
    return `host ${host} is not a ${MARKETPLACE_INFO[marketplace].site} host`;
  }
  return undefined;
}

/** Throws (as an internal error) when an operation or redirect tries to leave the marketplace. */
export function assertFetchable(marketplace: Marketplace, url: URL, via: 'request' | 'redirect'): void {
  const why = urlRejection(marketplace, url);
  if (why === undefined) return;
  if (via === 'redirect') {
    throw new MarketlensError('upstream_error', `${marketplace} redirected outside its hosts: ${why}`);
  }
  throw new MarketlensError('internal', `refused to fetch ${url.origin}: ${why}`);
}

/** Longest user-supplied URL accepted: longer ones would only make upstream refuse the request (414/431). */
const MAX_URL_LENGTH = 2048;

/**
 * Parses a user-supplied URL parameter and checks it belongs to the marketplace: 400 naming the parameter otherwise.
 * Accepts `www.goat.com/…` without a scheme (users paste those); `http://` is upgraded to https.
 * @example parseMarketplaceUrl('resale-b', 'query', 'https://www.goat.com/sneakers/x')
 */
export function parseMarketplaceUrl(marketplace: Marketplace, param: string, input: string): URL {
  let text = input.trim();
  if (text.length > MAX_URL_LENGTH) throw invalidParam(param, `is too long (at most ${MAX_URL_LENGTH} characters)`);
  if (!/^[a-z][a-z0-9+.-]*:/i.test(text)) text = `https://${text}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidParam(param, 'is not a valid URL');
  }
  if (url.protocol === 'http:' && !url.port && !url.username && !url.password) url.protocol = 'https:';
  const why = urlRejection(marketplace, url);
  if (why !== undefined) throw invalidParam(param, why);
  return url;
}
