/**
 * SSRF guard: every outgoing request and every redirect hop must be https, on a host the marketplace owns (its
 * descriptor's `hosts`), with no IP literal, no userinfo and the default port. Checked on the real-marketplace URL,
 * before any origin override.
 */
import { isIP } from 'node:net';
import { MarketlensError, invalidParam } from '../errors.js';
import { descriptorOf } from '../marketplaces/catalog.js';
import type { MarketplaceDescriptor } from '../marketplaces/descriptor.js';

/** A built-in marketplace's id, or any marketplace's descriptor. */
type MarketplaceRef = string | MarketplaceDescriptor;

/** Why `url` may not be fetched for `marketplace`, or undefined when it may. */
export function urlRejection(marketplace: MarketplaceRef, url: URL): string | undefined {
  if (url.protocol !== 'https:') return 'only https URLs are allowed';
  if (url.username || url.password) return 'URLs with user information are not allowed';
  if (url.port !== '') return 'only the default port is allowed';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return 'IP addresses are not allowed';
  const d = descriptorOf(marketplace);
  if (!d.hosts.includes(host.toLowerCase())) return `host ${host} is not a ${d.site} host`;
  return undefined;
}

/** Throws (as an internal error) when an operation or redirect tries to leave the marketplace. */
export function assertFetchable(marketplace: MarketplaceRef, url: URL, via: 'request' | 'redirect'): void {
  const why = urlRejection(marketplace, url);
  if (why === undefined) return;
  if (via === 'redirect') {
    throw new MarketlensError('upstream_error', `${descriptorOf(marketplace).id} redirected outside its hosts: ${why}`);
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
export function parseMarketplaceUrl(marketplace: MarketplaceRef, param: string, input: string): URL {
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
